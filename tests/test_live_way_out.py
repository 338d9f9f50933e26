"""Hands-free, every way out leaves with one line and the game kept: Ctrl-C while the assistant
waits for a speaker that is not there (issue 32, finding 2). Through the real CLI."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.live_helpers import ctrl_c_reaches_it, play_command

CONFIG = ("recognizer: pocketsphinx\nkeypad: {{source: none}}\nvoice: {{render_at_start: false, cache_dir: {voices}}}\n"
          "hearing: {{models_dir: {models}}}\nlive: {{retry_seconds: 0.5}}\n")


def own_folders(tmp_path: Path) -> str:
    """The config, with a voice cache and models folder of the test's own (never the checkout's)."""
    return CONFIG.format(voices=tmp_path / "voices", models=tmp_path / "models")


def test_ctrl_c_while_waiting_for_the_speaker_leaves_with_one_line(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(own_folders(tmp_path), encoding="utf-8")
    errors = tmp_path / "stderr.txt"
    env = {**os.environ, "ASSISTANT_STATE_DIR": str(tmp_path / "state"),
           "PULSE_SERVER": f"unix:{tmp_path / 'no-server'}"}  # no audio server: no speaker
    with errors.open("w") as err:
        proc = subprocess.Popen(play_command(config, "--seed", "3"), stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err, text=True, env=env,
                                preexec_fn=ctrl_c_reaches_it)
    try:
        deadline = time.monotonic() + 90
        while "the speaker is not working" not in errors.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, errors.read_text()
            time.sleep(0.2)
        time.sleep(1.0)  # waiting for the speaker (announcer._recover), the first words not yet heard
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0, errors.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    report = errors.read_text()
    assert "Traceback" not in report and "KeyboardInterrupt" not in report, report
    assert report.splitlines()[-1].startswith("Stopped."), report


def test_say_with_no_speaker_says_what_is_true(tmp_path: Path) -> None:
    """`assistant say` has no game: with no speaker it must not say "the game goes on in text"."""
    env = {**os.environ, "PULSE_SERVER": f"unix:{tmp_path / 'no-server'}"}
    config = tmp_path / "config.yaml"
    config.write_text(own_folders(tmp_path), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "assistant", "--config", str(config), "say", "Code zero one."],
                          capture_output=True,
                          text=True, env=env, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "game" not in done.stderr, done.stderr
    assert "Speech is off; nothing was said." in done.stderr
    assert done.stderr.splitlines()[-1] == "No sound output (see above); write a file instead with -o out.wav"
