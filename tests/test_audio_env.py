"""The test audio cleans up after itself: a PulseAudio the tests start is stopped when the process that
started it exits, and one that was running before is left alone. Each case runs in a runtime folder
of its own, so the PulseAudio other tests use is not touched."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.audio
ROOT = Path(__file__).resolve().parent.parent
START_AND_EXIT = ("from tests.audio_env import _server_pid, ensure_audio; ensure_audio(); "
                  "print(_server_pid())")


def isolated(tmp_path: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PULSE_")}
    (tmp_path / "run").mkdir(mode=0o700)
    (tmp_path / "home").mkdir()
    return {**env, "XDG_RUNTIME_DIR": str(tmp_path / "run"), "HOME": str(tmp_path / "home")}


def alive(pid: int) -> bool:
    try:
        return b"pulseaudio" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def private_server(env: dict[str, str]) -> dict[str, str]:
    """``env`` pointed at the PulseAudio the tests start (in its own folder) in that runtime folder."""
    folder = Path(env["XDG_RUNTIME_DIR"]) / "omega-pulse"
    return {**env, "PULSE_SERVER": f"unix:{folder / 'native'}", "PULSE_COOKIE": str(folder / "cookie")}


def server_up(env: dict[str, str]) -> bool:
    """A server answers, where clients look by default or where the tests start theirs."""
    return any(subprocess.run(["pactl", "info"], env=where, capture_output=True, timeout=10).returncode == 0
               for where in (env, private_server(env)))


def stop_servers(env: dict[str, str]) -> None:
    subprocess.run(["pulseaudio", "--kill"], env=env, capture_output=True, timeout=20)
    subprocess.run(["pactl", "exit"], env=private_server(env), capture_output=True, timeout=20)


def test_the_pulseaudio_a_process_started_stops_when_it_exits(tmp_path: Path) -> None:
    env = isolated(tmp_path)
    assert not server_up(env)
    done = subprocess.run([sys.executable, "-c", START_AND_EXIT], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    pid = int(done.stdout.split()[-1])
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(pid) and not server_up(env)
    # Its socket, cookie and state were in a folder of its own, gone now; nothing in the home folder.
    assert not (tmp_path / "run" / "omega-pulse").exists()
    assert list((tmp_path / "home").iterdir()) == []


def test_a_pulseaudio_that_was_running_is_left_alone(tmp_path: Path) -> None:
    env = isolated(tmp_path)
    kept = subprocess.run([sys.executable, "tests/audio_env.py"], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=60)  # from a shell: started and kept
    assert kept.returncode == 0, kept.stderr
    try:
        used = subprocess.run([sys.executable, "-c", START_AND_EXIT], env=env, cwd=ROOT, capture_output=True,
                              text=True, timeout=60)
        assert used.returncode == 0, used.stderr
        pid = int(used.stdout.split()[-1])
        assert alive(pid) and server_up(env)  # a stop would be over: stop_started_audio waits for the end
        assert list((tmp_path / "home").iterdir()) == []
    finally:
        stop_servers(env)


def desktop_server(env: dict[str, str]) -> None:
    """A sound server that was running before the tests, as a desktop's is: output "desk"."""
    subprocess.run(["pulseaudio", "--daemonize=yes", "-n", "--exit-idle-time=-1", "--load=module-native-protocol-unix",
                    "--load=module-null-sink sink_name=desk"], env=env, check=True, capture_output=True, timeout=30)


def defaults(env: dict[str, str]) -> tuple[str, str]:
    info = subprocess.run(["pactl", "info"], env=env, capture_output=True, text=True, timeout=10).stdout
    found = dict(line.split(": ", 1) for line in info.splitlines() if ": " in line)
    return found["Default Sink"], found["Default Source"]


def modules(env: dict[str, str]) -> str:
    return subprocess.run(["pactl", "list", "short", "modules"], env=env, capture_output=True, text=True,
                          timeout=10).stdout


USE_AND_WAIT = """
import sys
from tests.audio_env import ensure_audio, private_mic, private_sink
ensure_audio()
ensure_audio()
with private_sink("t"), private_mic("t"):
    print("ready", flush=True)
    sys.stdin.readline()  # until the test has looked (or a signal comes)
    if sys.argv[1] == "fails":
        raise AssertionError("a failing test")
"""


@pytest.mark.parametrize("ending", ["exits", "fails", "SIGTERM", "SIGINT", "SIGHUP"])
def test_a_server_that_was_running_gets_its_defaults_back_and_loses_the_test_devices(
        tmp_path: Path, ending: str) -> None:
    """Whether the process ends well, fails, or is stopped (Ctrl-C, kill, a closed terminal):
    the default sink and source are the ones it found, and the devices it added are gone."""
    env = isolated(tmp_path)
    desktop_server(env)
    try:
        found = defaults(env)
        assert found == ("desk", "desk.monitor")
        proc = subprocess.Popen([sys.executable, "-c", USE_AND_WAIT, ending], env=env, cwd=ROOT,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        assert defaults(env) == ("speaker", "mic") and "sink_name=t_" in modules(env)
        if ending.startswith("SIG"):
            proc.send_signal(getattr(signal, ending))
        _, errors = proc.communicate("go\n", timeout=60)
        assert defaults(env) == found, errors
        left = modules(env)
        assert "sink_name=speaker" not in left and "source_name=mic" not in left and "_name=t_" not in left, left
        assert errors.count("did not start it") == 1, errors  # said once, though asked for twice
    finally:
        subprocess.run(["pulseaudio", "--kill"], env=env, capture_output=True, timeout=20)


def test_a_default_chosen_meanwhile_is_kept(tmp_path: Path) -> None:
    """Someone picks another output while the tests run: that choice stays."""
    env = isolated(tmp_path)
    desktop_server(env)
    try:
        script = ("import subprocess\nfrom tests.audio_env import ensure_audio\nensure_audio()\n"
                  "subprocess.run(['pactl', 'load-module', 'module-null-sink', 'sink_name=headphones'], check=True)\n"
                  "subprocess.run(['pactl', 'set-default-sink', 'headphones'], check=True)\n")
        done = subprocess.run([sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0, done.stderr
        assert defaults(env) == ("headphones", "desk.monitor")
    finally:
        subprocess.run(["pulseaudio", "--kill"], env=env, capture_output=True, timeout=20)
