"""Hands-free, a missing speaker or microphone is waited for; a player at a terminal is also told,
in the same message, how to play by typing meanwhile (issue 60, finding A). The service has no
terminal: its message stays as it was (it is spoken, and the status light shows it). Ctrl-C
during the wait prints nothing as said that was never said. Through the real CLI."""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.audio_env import private_sink
from tests.live_helpers import ctrl_c_reaches_it, play_command

CONFIG = ("recognizer: pocketsphinx\nkeypad: {{source: none}}\nvoice: {{render_at_start: false, cache_dir: {voices}}}\n"
          "hearing: {{models_dir: {models}}}\nlive: {{retry_seconds: 0.5{mic}}}\n")
TYPING = "To play by typing now instead: Ctrl-C, then `./start.sh omega-virus --text`."


@contextmanager
def assistant(tmp_path: Path, terminal: bool, env: dict[str, str], input_device: str = "") -> Iterator[
        tuple[subprocess.Popen[str], Path, Path]]:
    """Hands-free omega-virus, its input a terminal (a pty) or nothing (as the service's is); its
    stdout and stderr in files. Leaving the block stops it."""
    config = tmp_path / "config.yaml"
    mic = f", input_device: {input_device}" if input_device else ""
    config.write_text(CONFIG.format(voices=tmp_path / "voices", models=tmp_path / "models", mic=mic),
                      encoding="utf-8")
    out, err = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    leader, follower = pty.openpty() if terminal else (-1, -1)
    try:
        with out.open("w") as stdout, err.open("w") as stderr:
            proc = subprocess.Popen(play_command(config, "--seed", "3"),
                                    stdin=follower if terminal else subprocess.DEVNULL, stdout=stdout,
                                    stderr=stderr, text=True, preexec_fn=ctrl_c_reaches_it,
                                    env={**os.environ, "ASSISTANT_STATE_DIR": str(tmp_path / "state"), **env})
        try:
            yield proc, out, err
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=30)
    finally:
        if terminal:
            os.close(leader)
            os.close(follower)


def line_with(proc: subprocess.Popen[str], err: Path, text: str, timeout: float = 120) -> str:
    """The first line of stderr holding ``text``, waited for while the assistant runs."""
    deadline = time.monotonic() + timeout
    while True:
        found = [line for line in err.read_text().splitlines() if text in line]
        if found:
            return found[0]
        assert proc.poll() is None, f"it ended before {text!r}: {err.read_text()}"
        assert time.monotonic() < deadline, f"no {text!r} within {timeout} s: {err.read_text()}"
        time.sleep(0.1)


@pytest.mark.parametrize("terminal", [True, False], ids=["terminal", "service"])
def test_no_speaker_is_told_with_how_to_play_by_typing_and_ctrl_c_prints_nothing_unsaid(
        tmp_path: Path, terminal: bool) -> None:
    no_server = {"PULSE_SERVER": f"unix:{tmp_path / 'no-server'}"}  # no audio server: no speaker, no microphone
    with assistant(tmp_path, terminal, no_server) as (proc, out, err):
        waiting = line_with(proc, err, "the speaker is not working")
        assert "I will try again every 0.5 s, and the game waits." in waiting
        if terminal:
            assert waiting.endswith(TYPING), waiting
        else:
            assert "--text" not in err.read_text()
        proc.send_signal(signal.SIGINT)  # while the game waits for the speaker, its first words unsaid
        assert proc.wait(timeout=30) == 0, err.read_text()
    report = err.read_text()
    assert report.splitlines()[-1].startswith("Stopped."), report
    assert "Traceback" not in report, report
    assert out.read_text() == "", "printed as said, although never said"


@pytest.mark.audio
@pytest.mark.model
@pytest.mark.parametrize("terminal", [True, False], ids=["terminal", "service"])
def test_no_microphone_is_told_with_how_to_play_by_typing(tmp_path: Path, terminal: bool) -> None:
    """The speaker works (a null sink of the test's own), the microphone named is not there."""
    with private_sink("typing") as sink, assistant(tmp_path, terminal, {"PULSE_SINK": sink},
                                                   input_device="no-such-mic") as (proc, out, err):
        waiting = line_with(proc, err, "microphone: No microphone named like 'no-such-mic'")
        assert waiting.endswith("I will keep trying; the game waits."), waiting
        assert (TYPING in waiting) is terminal, waiting
        assert "BSAT1: Enter skill." in out.read_text()  # said before the microphone was tried
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0, err.read_text()
