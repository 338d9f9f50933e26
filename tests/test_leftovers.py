"""The end-of-run check (tests/support/leftovers.py) fails a run that leaves a file in the
checkout, ignored or not, or in the folders of the home folder the tests are known to reach,
or that changes the sound server's default devices; and passes one that leaves nothing. Each
case is a tiny pytest run of its own, in a scratch "checkout" (and a scratch home folder)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_audio_env import isolated

ROOT = Path(__file__).resolve().parent.parent
CONFTEST = "from tests.support.leftovers import pytest_sessionfinish, pytest_sessionstart, pytest_terminal_summary\n"


def scratch_run(folder: Path, test: str, env: dict[str, str] | None = None,
                workers: int = 0) -> subprocess.CompletedProcess[str]:
    """``pytest`` in ``folder`` (its own root: a pytest.ini, a .gitignore that ignores
    everything, and the check's hooks in its conftest) on one test file holding ``test``;
    split over ``workers`` processes (pytest-xdist, as ./test.sh runs) when not 0."""
    folder.mkdir(exist_ok=True)
    (folder / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (folder / ".gitignore").write_text("*\n", encoding="utf-8")
    (folder / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    (folder / "test_scratch.py").write_text(test, encoding="utf-8")
    split = ["-n", str(workers)] if workers else []
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *split, "test_scratch.py"],
                          cwd=folder, capture_output=True, text=True, timeout=120,
                          env={**(env or os.environ), "PYTHONPATH": str(ROOT)})


def test_a_run_that_leaves_nothing_passes(tmp_path: Path) -> None:
    done = scratch_run(tmp_path / "checkout", "def test_nothing():\n    assert True\n")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "leftovers" not in done.stdout


@pytest.mark.parametrize("where", ["new.txt", "voices/cache/phrase.wav", "state/journal.jsonl"])
def test_a_file_left_in_the_checkout_fails_the_run(tmp_path: Path, where: str) -> None:
    """Passing tests, but one left a file (the .gitignore ignores everything: ignored files count)."""
    test = ("from pathlib import Path\n\ndef test_writes():\n"
            f"    path = Path(__file__).parent / {where!r}\n"
            "    path.parent.mkdir(parents=True, exist_ok=True)\n    path.write_text('x')\n")
    done = scratch_run(tmp_path / "checkout", test)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 passed" in done.stdout and "leftovers" in done.stdout
    assert f"new: {where}" in done.stdout


def test_a_run_split_over_processes_is_checked_once_by_the_main_one(tmp_path: Path) -> None:
    """./test.sh splits the run over two processes: a file one of them leaves still fails the
    run, said once (the main process compares, after every worker has ended)."""
    test = ("from pathlib import Path\n\ndef test_writes():\n    (Path(__file__).parent / 'left.txt').write_text('x')\n"
            "\ndef test_nothing():\n    pass\n")
    done = scratch_run(tmp_path / "checkout", test, workers=2)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "2 passed" in done.stdout and done.stdout.count("new: left.txt") == 1, done.stdout


def scratch_home(tmp_path: Path) -> dict[str, str]:
    """os.environ with $HOME a fresh empty folder (and no $XDG_CONFIG_HOME)."""
    (tmp_path / "home").mkdir()
    env = {key: value for key, value in os.environ.items() if key != "XDG_CONFIG_HOME"}
    return {**env, "HOME": str(tmp_path / "home")}


@pytest.mark.parametrize("where", [".config/pulse/cookie", ".config/pulse/0123-runtime",
                                   ".local/state/omega-assistant/abc/journal.jsonl"])
def test_a_file_left_in_the_home_folder_fails_the_run(tmp_path: Path, where: str) -> None:
    """What a PulseAudio started the plain way writes (its cookie, the link clients find it by),
    and a journal in the assistant's per-user state folder."""
    env = scratch_home(tmp_path)
    test = ("from pathlib import Path\n\ndef test_writes():\n"
            f"    path = Path.home() / {where!r}\n"
            "    path.parent.mkdir(parents=True, exist_ok=True)\n    path.write_text('x')\n")
    done = scratch_run(tmp_path / "checkout", test, env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"new: ~/{where}" in done.stdout and "in the home folder" in done.stdout


def test_a_changed_file_in_the_home_folder_fails_the_run(tmp_path: Path) -> None:
    env = scratch_home(tmp_path)
    config = tmp_path / "home" / ".config" / "omega-assistant" / "config.yaml"
    config.parent.mkdir(parents=True)
    config.write_text("volume: 10\n", encoding="utf-8")
    test = ("from pathlib import Path\n\ndef test_edits():\n"
            "    (Path.home() / '.config/omega-assistant/config.yaml').write_text('volume: 3\\n')\n")
    done = scratch_run(tmp_path / "checkout", test, env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "changed: ~/.config/omega-assistant/config.yaml" in done.stdout


def test_the_home_folder_elsewhere_is_not_watched(tmp_path: Path) -> None:
    """Only the folders the tests are known to reach: a file elsewhere in the home folder is
    the user's business (and caches the tests keep on purpose, ~/.cache, are there)."""
    env = scratch_home(tmp_path)
    test = ("from pathlib import Path\n\ndef test_writes():\n"
            "    (Path.home() / '.cache').mkdir()\n    (Path.home() / '.cache' / 'f').write_text('x')\n")
    done = scratch_run(tmp_path / "checkout", test, env)
    assert done.returncode == 0, done.stdout + done.stderr


AUDIO_TEST = """
import subprocess, wave
import sounddevice  # PortAudio looks for a sound server as it starts: before one is running
from tests.audio_env import Recorder, ensure_audio, private_sink

def test_plays_and_records(tmp_path):
    ensure_audio()
    with wave.open(str(tmp_path / "beep.wav"), "wb") as out:
        out.setnchannels(1); out.setsampwidth(2); out.setframerate(16000); out.writeframes(b"\\x00\\x10" * 1600)
    with private_sink("h") as sink, Recorder(sink + ".monitor"):
        subprocess.run(["paplay", "-d", sink, str(tmp_path / "beep.wav")], check=True, timeout=30)
        subprocess.run(["pactl", "info"], check=True, timeout=10, capture_output=True)
"""


@pytest.mark.audio
def test_a_run_with_its_own_sound_server_leaves_the_home_folder_alone(tmp_path: Path) -> None:
    """A run that plays and records through PulseAudio (PortAudio, pactl, paplay, parec), with no
    server of the user's running and no $XDG_RUNTIME_DIR, as on this machine: where every client
    looking for a server the plain way makes a ~/.config/pulse/<machine-id>-runtime link, and a
    server or client given no cookie writes one there. Nothing in the home folder; the run passes.
    (It starts the tests' own server, or uses the one this run started: both count.)"""
    env = {key: value for key, value in isolated(tmp_path).items() if key != "XDG_RUNTIME_DIR"}
    done = scratch_run(tmp_path / "checkout", AUDIO_TEST, {**env, "XDG_CONFIG_HOME": str(tmp_path / "home/.config")})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout and "leftovers" not in done.stdout
    assert list((tmp_path / "home").iterdir()) == []


@pytest.mark.audio
def test_a_split_run_shares_one_sound_server_and_leaves_nothing(tmp_path: Path) -> None:
    """Two processes playing and recording at once (./test.sh's split run): the main process
    starts the server before the workers, so neither stops it under the other; the run passes
    and leaves the home folder as it found it."""
    env = {key: value for key, value in isolated(tmp_path).items() if key != "XDG_RUNTIME_DIR"}
    twice = AUDIO_TEST + AUDIO_TEST.split("def test_plays_and_records", 1)[1].join(["\n\ndef test_again", ""])
    done = scratch_run(tmp_path / "checkout", twice, {**env, "XDG_CONFIG_HOME": str(tmp_path / "home/.config")},
                       workers=2)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout and "leftovers" not in done.stdout
    assert list((tmp_path / "home").iterdir()) == []


def test_a_changed_or_removed_file_fails_the_run(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "config.yaml").write_text("volume: 10\n", encoding="utf-8")
    (checkout / "notes.txt").write_text("kept\n", encoding="utf-8")
    test = ("from pathlib import Path\n\ndef test_edits():\n    here = Path(__file__).parent\n"
            "    (here / 'config.yaml').write_text('volume: 3\\n')\n    (here / 'notes.txt').unlink()\n")
    done = scratch_run(checkout, test)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "changed: config.yaml" in done.stdout and "gone: notes.txt" in done.stdout


def test_what_the_tools_write_is_not_counted(tmp_path: Path) -> None:
    """Bytecode, the linters' and pytest's caches, package metadata: the tools', not the product's."""
    checkout = tmp_path / "checkout"
    (checkout / "pkg").mkdir(parents=True)
    (checkout / "pkg" / "mod.py").write_text("", encoding="utf-8")
    test = ("from pathlib import Path\n\ndef test_tools():\n    here = Path(__file__).parent\n"
            "    for folder in ('.mypy_cache', '.ruff_cache', '.pytest_cache', 'x.egg-info', 'pkg/__pycache__'):\n"
            "        (here / folder).mkdir(parents=True)\n        (here / folder / 'f').write_text('x')\n")
    done = scratch_run(checkout, test)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.audio
def test_a_changed_default_sound_device_fails_the_run(tmp_path: Path) -> None:
    """On a sound server of its own that was running before the run (as a desktop's is)."""
    if shutil.which("pulseaudio") is None:
        pytest.fail("pulseaudio is not installed (Debian: pulseaudio pulseaudio-utils)")
    env = isolated(tmp_path)
    subprocess.run(["pulseaudio", "--daemonize=yes", "-n", "--exit-idle-time=-1",
                    "--load=module-native-protocol-unix", "--load=module-null-sink sink_name=desk"],
                   env=env, check=True, capture_output=True, timeout=30)
    try:
        test = ("import subprocess\n\ndef test_switches_output():\n"
                "    subprocess.run(['pactl', 'load-module', 'module-null-sink', 'sink_name=other'], check=True)\n"
                "    subprocess.run(['pactl', 'set-default-sink', 'other'], check=True)\n")
        done = scratch_run(tmp_path / "checkout", test, env)
        assert done.returncode == 1, done.stdout + done.stderr
        assert "default sink and source were 'desk'" in done.stdout and "now 'other'" in done.stdout
        subprocess.run(["pactl", "set-default-sink", "desk"], env=env, check=True, timeout=10)
        clean = scratch_run(tmp_path / "checkout2", "def test_nothing():\n    pass\n", env)
        assert clean.returncode == 0, clean.stdout + clean.stderr
    finally:
        subprocess.run(["pulseaudio", "--kill"], env=env, capture_output=True, timeout=20)


def test_a_running_servers_own_files_in_its_folder_are_left_out(tmp_path: Path) -> None:
    """A desktop's PulseAudio keeps its defaults and volumes in ~/.config/pulse and writes them
    whenever any program plays: left out when a server was running before the run; its cookie
    and everything else there are watched all the same. With no server running, all is watched."""
    from tests.support.leftovers import home_snapshot

    pulse = tmp_path / ".config" / "pulse"
    pulse.mkdir(parents=True)
    for name in ("cookie", "abc-default-sink", "abc-default-source", "abc-stream-volumes.tdb", "client.conf"):
        (pulse / name).write_text("x", encoding="utf-8")
    assert sorted(home_snapshot(tmp_path, True)) == ["~/.config/pulse/", "~/.config/pulse/client.conf",
                                                     "~/.config/pulse/cookie"]
    assert len(home_snapshot(tmp_path, False)) == 6
