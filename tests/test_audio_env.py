"""The test audio cleans up after itself: a PulseAudio the tests start is stopped when the process that
started it exits, and one that was running before is left alone. Each case runs in a runtime folder
of its own, so the PulseAudio other tests use is not touched."""

from __future__ import annotations

import os
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


def server_up(env: dict[str, str]) -> bool:
    return subprocess.run(["pactl", "info"], env=env, capture_output=True, timeout=10).returncode == 0


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
        time.sleep(0.5)
        assert alive(pid) and server_up(env)
    finally:
        subprocess.run(["pulseaudio", "--kill"], env=env, capture_output=True, timeout=20)
