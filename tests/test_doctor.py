"""`assistant doctor` on the real (virtual) audio devices: what is used, what is missing, how to fix it."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tests.audio_env import ensure_audio


def doctor(tmp_path: Path, config: str, stdin: int = subprocess.DEVNULL) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "config.yaml"
    path.write_text(config, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "assistant", "--config", str(path), "doctor"], stdin=stdin,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.audio
def test_doctor_reports_what_will_be_used(tmp_path: Path) -> None:
    ensure_audio()
    result = doctor(tmp_path, "recognizer: auto\nkeypad:\n  source: none\n")
    assert result.returncode == 0, result.stdout
    assert "ok       microphone: will use" in result.stdout
    assert "ok       recognizer: PocketSphinx (bundled English model)" in result.stdout
    assert "run `assistant setup` to download it" in result.stdout


@pytest.mark.audio
def test_doctor_names_a_missing_microphone_and_the_fix(tmp_path: Path) -> None:
    ensure_audio()
    result = doctor(tmp_path, "live:\n  input_device: no-such-mic\nkeypad:\n  source: evdev\n")
    assert result.returncode == 1
    assert "PROBLEM  microphone: No microphone named like 'no-such-mic'. Found:" in result.stdout
    assert "Set live.input_device in config.yaml" in result.stdout
    assert "PROBLEM  private presses:" in result.stdout


def test_the_terminal_keypad_is_ok_only_at_a_terminal(tmp_path: Path) -> None:
    piped = doctor(tmp_path, "keypad:\n  source: terminal\n")
    assert piped.returncode == 1
    assert "PROBLEM  private presses: keys typed in the terminal, but this input is not a terminal" in piped.stdout
    leader, follower = pty.openpty()
    try:
        at_terminal = doctor(tmp_path, "keypad:\n  source: terminal\n", stdin=follower)
    finally:
        os.close(leader)
        os.close(follower)
    assert "ok       private presses: keys typed in this terminal" in at_terminal.stdout
