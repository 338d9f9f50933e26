"""Hands-free, end to end, on real audio devices (PulseAudio virtual microphone and speaker).

The assistant runs through the real command (`assistant --config C play omega-virus --seed 1
--new`), its config choosing PocketSphinx and making every explored room a hazard
(`hazard_chance: 1.0`, so a battle comes at once), its voices rendered into the test's own
folder. The test speaks
into the virtual microphone with the Piper voice, presses keys on a FIFO keypad, records
the virtual speaker, and checks what the assistant said: its printed lines, and the
recorded audio recognized back. A chatter clip in the middle must change nothing, and
neither must a key pressed while the assistant talks.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from assistant.config import Config
from assistant.voice.voices import Voices
from tests.audio_env import ensure_audio
from tests.live_helpers import Lines as Lines  # bench/ takes these from here
from tests.live_helpers import MicFeeder as MicFeeder
from tests.live_helpers import live_assistant, piper_clip, wait_quiet
from tests.speaker_check import LIMITS, find_said, reference

pytestmark = [pytest.mark.audio, pytest.mark.model]


def test_a_short_game_hands_free(tmp_path: Path) -> None:
    ensure_audio()
    keypad = tmp_path / "keypad"
    config = """
recognizer: pocketsphinx
games:
  omega_virus:
    response_extra_seconds: 20
    wanted_chance: 0.0
    hazard_chance: 1.0
    teleport_trap_share: 0.0
"""
    clips = {text: piper_clip(text) for text in [
        "skill zero", "explore one zero zero", "repeat",
        "I think we should order pizza after this game, the pepperoni one"]}
    with live_assistant(tmp_path, "e2e", config, keypad, seed=1) as live:
        out, feeder, recorder = live.out, live.feeder, live.recorder
        mark = len(recorder.samples())
        out.wait_for("BSAT1: Enter skill.")  # printed as its audio starts
        keypad.write_text("2")  # pressed while the computer talks: ignored, as the rulebook says
        wait_quiet(recorder, mark)  # (skill 0 below, not 2: the press was not taken)
        time.sleep(1.0)  # a player's pause before answering
        mark = len(recorder.samples())
        feeder.say(clips["skill zero"])
        out.wait_for("BSAT1: Red, enter secret code.")
        wait_quiet(recorder, mark)
        mark = len(recorder.samples())
        keypad.write_text("12")
        out.wait_for("BSAT1: Blue, enter secret code.")
        for color in ("Green", "Yellow", None):
            wait_quiet(recorder, mark)
            mark = len(recorder.samples())
            with open(keypad, "w") as f:
                f.write("R")
            if color:
                out.wait_for(f"BSAT1: {color}, enter secret code.")
        out.wait_for("VIRUS: 20 minutes until I take over!")  # skill 0, not the 2 pressed
        wait_quiet(recorder, mark)
        breach = "BSAT1: Security breach! Security breach at 1 0 0!"
        for attempt in range(3):  # a misheard room code is said again, as a player would
            mark = len(recorder.samples())
            feeder.say(clips["explore one zero zero"])
            try:
                out.wait_for(breach, timeout=25)
                break
            except AssertionError:
                if attempt == 2:
                    raise
                wait_quiet(recorder, mark)
        at = out.wait_for(breach)
        deadline = time.monotonic() + 30
        while not any(line.startswith("BSAT1: Red, energize") for line in out.lines[at:]):
            assert time.monotonic() < deadline, out.lines
            time.sleep(0.1)
        asked = next(line for line in out.lines[at:] if line.startswith("BSAT1: Red, energize"))
        n = int(asked.split()[3])
        shields = ["zero", "one", "two"][:n]
        wait_quiet(recorder, mark)
        mark = len(recorder.samples())
        feeder.say(piper_clip("shields " + " and ".join(shields)))
        deadline = time.monotonic() + 60
        while not out.lines[-1].startswith("VIRUS: Code ") and time.monotonic() < deadline:
            time.sleep(0.2)
        result = out.lines[-2:]
        wait_quiet(recorder, mark)
        # Table talk, then (the table talks a while) "repeat": the chatter changed nothing, as the
        # next lines printed are the repeated ones (checked below): heard in order.
        before_chatter = len(out.lines)
        feeder.say(clips["I think we should order pizza after this game, the pepperoni one"])
        time.sleep(8)
        mark = len(recorder.samples())
        feeder.say(clips["repeat"])
        deadline = time.monotonic() + 40
        while len(out.lines) < before_chatter + 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        wait_quiet(recorder, mark)
    spoken = recorder.samples()
    lines = out.lines
    assert asked.startswith("BSAT1: Red, energize")
    assert result[1].startswith("VIRUS: Code ")
    assert lines[before_chatter: before_chatter + 2] == result  # "repeat" said the same again

    # What came out of the speaker, found by its sound: each printed line rendered again as the
    # assistant rendered it (the very samples, from the voice cache it wrote) and looked for in
    # the recording, in order, by log-mel frames aligned in time (tests/speaker_check.py). In
    # two recordings of this test (seed 1) every line said is there with a mean cost per frame
    # of at most 0.035 and no 0.2 s of it above 0.064 on average; a line said differently is
    # not: "Purple, enter secret code." where "Yellow, enter secret code." was said has 0.2 s at
    # 0.30, "Code 1 2." where "Code 2 1." was, 0.44. One line may be missed, as a busy machine
    # can cut a moment out of the playback; a silent, cut-off, reordered or wrong speaker misses
    # far more. (Whisper, which this check used before, misheard up to 6 of these 15 lines of
    # the characters' voices in a run.)
    voices = Voices.from_config(Config.from_file(tmp_path / "config.yaml"), load="lazy")
    said = [tuple(line.split(": ", 1)) for line in lines if line.startswith(("VIRUS: ", "BSAT1: "))]
    assert all(voices.is_cached(speaker, text) for speaker, text in said)
    recording = spoken.astype(np.float32) / 32768
    found = find_said([reference(voices, speaker, text) for speaker, text in said], recording, *LIMITS)
    missed = [f"{speaker}: {text} (mean {f.mean:.3f}, worst {f.worst:.3f})"
              for (speaker, text), f in zip(said, found, strict=True) if f.end < 0]
    assert len(missed) <= 1, missed
    # ... and lines it did not say are not found, not even one word away from one it said.
    fresh = Voices.from_config(Config.from_text(
        f"voice: {{render_at_start: false, cache_dir: '{tmp_path / 'cache'}'}}\n"), load="lazy")
    for speaker, text in [("BSAT1", "Pink, explore the reactor core."), ("BSAT1", "Purple, enter secret code."),
                          ("VIRUS", "Code 1 2.")]:
        assert find_said([reference(fresh, speaker, text)], recording, *LIMITS)[0].end < 0, text
