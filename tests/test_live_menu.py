"""The spoken menu hands-free, end to end, on real audio devices (PulseAudio virtual microphone
and speaker) and the default recognizer (the hybrid listener): `assistant play` with no game, as
the boot service runs it.

A game is chosen by voice, a turn played, "main menu" (confirmed), another game chosen, back to
the menu, and the first game resumed by its name where it was left. Each step's answer is
waited for; a step with no answer is said again, as a player would, at most twice in all.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.audio_env import ensure_audio
from tests.live_helpers import FAST_SPEECH, piper_clip, running_assistant, wait_quiet

pytestmark = [pytest.mark.audio, pytest.mark.model]

MENU = "NARRATOR: Which game? The Omega Virus, Prologue, the card battle, or Battle of the Planets."
TO_MENU = "Go to the main menu? This game is kept. Say yes or no."
#: (what is said, a line the assistant then prints).
SCRIPT = [
    ("the omega virus", "BSAT1: Enter skill."),
    ("skill zero", "BSAT1: Red, enter secret code."),
    ("main menu", f"BSAT1: {TO_MENU}"),
    ("yes", MENU),
    ("battle of the planets", "ZARK: 7-Zark-7 here! I spin for the Intruder and G-Force and keep track of the "
                              "Monster cards. Put the Intruder on Spectra and the 12 Monster cards in a pile."),
    ("main menu", f"ZARK: {TO_MENU}"),
    ("yes", MENU),
    ("the omega virus", "BSAT1: Game resumed. Say new game to start over."),
]
MAX_REPEATS = 2


def test_the_menu_hands_free_switches_games_and_resumes_the_first(tmp_path: Path) -> None:
    ensure_audio()
    config = tmp_path / "config.yaml"
    config.write_text(f"""
keypad:
  source: none
voice:
  render_at_start: false
  glitch_seed: 1
  cache_dir: {tmp_path / 'voices'}
hearing:
  models_dir: {tmp_path / 'models'}
{FAST_SPEECH}""", encoding="utf-8")  # the menu three times, 7-Zark-7's greeting: 17 s at the usual pace
    state = tmp_path / "state"
    clips = {text: piper_clip(text) for text, _ in SCRIPT}
    repeats: list[str] = []
    command = [sys.executable, "-m", "assistant", "--config", str(config), "play", "--seed", "1"]  # no game: the menu
    with running_assistant(tmp_path, "menu", command) as live:
        out, feeder, recorder = live.out, live.feeder, live.recorder
        mark = len(recorder.samples())
        out.wait_for(MENU, timeout=90)
        wait_quiet(recorder, mark)
        for text, answer in SCRIPT:
            seen = len(out.lines)
            for _attempt in range(MAX_REPEATS + 1):
                mark = len(recorder.samples())
                feeder.say(clips[text])
                try:
                    out.wait_for(answer, timeout=12, start=seen)
                    break
                except AssertionError:
                    pass
                repeats.append(text)
                assert len(repeats) <= MAX_REPEATS, repeats
            wait_quiet(recorder, mark)
        assert out.lines[-2:] == ["BSAT1: Game resumed. Say new game to start over.",
                                  "BSAT1: Red, enter secret code."]  # where it was left
    journals = sorted(state.glob("omega-virus-*.jsonl"))
    assert len(journals) == 1  # resumed, not started again
    entries = [json.loads(line) for line in journals[0].read_text().splitlines()[1:]]
    assert [e["cmd"]["intent"] for e in entries if "cmd" in e] == ["skill"]
    assert len(repeats) <= MAX_REPEATS, repeats


def test_hands_free_with_no_devices_names_the_missing_speaker_and_microphone(tmp_path: Path) -> None:
    """No audio server at all: the game waits for a speaker before it listens, so the microphone
    is tried at the start too, and the player reads of both."""
    import os
    import subprocess
    import time

    from tests.live_helpers import Lines, play_command

    config = tmp_path / "config.yaml"
    config.write_text("recognizer: pocketsphinx\nkeypad:\n  source: none\nvoice:\n  render_at_start: false\n"
                      f"  cache_dir: {tmp_path / 'voices'}\nhearing:\n  models_dir: {tmp_path / 'models'}\n",
                      encoding="utf-8")
    env = {**os.environ, "ASSISTANT_STATE_DIR": str(tmp_path / "state"),
           "PULSE_SERVER": f"unix:{tmp_path / 'no-server'}"}
    proc = subprocess.Popen(play_command(config, "--seed", "3", "--new"), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    errors = Lines(proc.stderr)
    try:
        deadline = time.monotonic() + 90
        while not (any(line.startswith("microphone: ") for line in errors.lines)
                   and any("speaker is not working" in line for line in errors.lines)):
            assert time.monotonic() < deadline, f"not both named: {errors.lines}"
            time.sleep(0.2)
    finally:
        proc.kill()
        proc.wait(timeout=10)
    microphone = next(line for line in errors.lines if line.startswith("microphone: "))
    assert "No microphone found" in microphone, microphone
