"""Hands-free, end to end, on real audio devices (PulseAudio virtual microphone and speaker): the
assistant learns a player's voice from a command the table confirmed.

The real command (`assistant --config C play prologue --new`) hears with the hybrid (PocketSphinx
first, Whisper tiny.en deciding what it doubts) and ``hearing.learn`` on, as a player's box does.
A voice of neither benchmark set says "player one is carol": heard with doubt, it is asked about
("Player one is carol?"; said again until it is), and the player answers yes. The same player says it again, a little
slower: heard at once, no question, because the take the table confirmed places it there. With
``hearing.learn: false`` the same session asks about that second take again (run so here, once, on
these clips; tests/test_learning_stage.py holds the Ear to both)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from tests.audio_env import ensure_audio
from tests.live_helpers import piper_clip, private_folders, running_assistant, wait_quiet
from tests.support.spoken import ClipMaker, Speaker

pytestmark = [pytest.mark.audio, pytest.mark.model]

VOICE = Speaker("espeak", "en-029", 1.0, 45)
AGAIN = Speaker("espeak", "en-029", 1.06, 45)
FAST = "characters:\n  narrator: {length_scale: 0.6}\n"


def test_a_voice_confirmed_once_is_heard_at_once_the_next_time(tmp_path: Path) -> None:
    ensure_audio()
    maker = ClipMaker(tmp_path / "clips")
    first, again = maker.say("player one is carol", VOICE), maker.say("player one is carol", AGAIN)
    config = tmp_path / "config.yaml"
    config.write_text(private_folders(tmp_path) + "recognizer: hybrid\nkeypad: {source: none}\n" + FAST,
                      encoding="utf-8")
    command = [sys.executable, "-m", "assistant", "--config", str(config), "play", "prologue", "--new"]
    yes = piper_clip("yes")
    with running_assistant(tmp_path, "learns", command) as live:
        out, feeder, recorder = live.out, live.feeder, live.recorder
        out.wait_for("NARRATOR: Say ready when both players are ready.", timeout=120)  # as its audio starts
        wait_quiet(recorder, 0, quiet=1.0, timeout=120)
        for attempt in range(3):  # a player says it again until the box answers
            mark = len(recorder.samples())
            feeder.say(first)
            try:
                asked = out.wait_for("NARRATOR: Player one is carol?", timeout=30)
                break
            except AssertionError:
                if attempt == 2:
                    raise
                wait_quiet(recorder, mark)
        wait_quiet(recorder, mark)
        mark = len(recorder.samples())
        feeder.say(yes)
        named = out.wait_for("NARRATOR: Player 1 is Carol.", start=asked, timeout=60)
        wait_quiet(recorder, mark)
        time.sleep(1.0)
        feeder.say(again)
        out.wait_for("NARRATOR: Player 1 is Carol.", start=named + 1, timeout=60)
        wait_quiet(recorder, len(recorder.samples()))
        lines = list(out.lines)
    after = lines[named + 1:]
    assert not any(line.endswith("?") for line in after), lines  # heard at once: no question this time
    stderr = (tmp_path / "stderr.txt").read_text()
    assert "Traceback" not in stderr, stderr

