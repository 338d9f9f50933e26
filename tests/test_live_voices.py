"""Hands-free with voices unlike the bundled one: a sign-on and moves, through the real devices.

Three players, each an espeak-ng voice (neither the bundled Piper voice nor any voice the
hearing thresholds were chosen on), talk to `assistant play omega-virus` with its default
recognizer (the hybrid listener: PocketSphinx, with Whisper's second opinion) through the
PulseAudio virtual microphone. Each step's answer is waited for; a step with no answer is
said again, as a player would, and the whole game may need at most four repeats; a step the
assistant asks about ("Skill zero?": heard with doubt) is answered "yes", as asked, and the
game may ask at most four times. Table talk in the middle must change nothing.

The limits are what the hearing does with these voices plus a margin, not a figure of merit
(bench/bench_accuracy.py measures that): measured here on 2026-12-06 over twelve runs of this test,
the Scottish voice's "skill zero" (Whisper writes "Call the arrow.") was vetoed once or twice before
it was asked about, and the Caribbean voice's "skip" ("Keep...") was missed or asked about about
half the time it was said: 1 to 3 repeats and 1 to 3 questions a game. With limits of two repeats
and three questions the test failed about one run in six (CI at stop 56 among them) though nothing
had changed. Measured again when doubted harmless commands became let go the first time (a doubted
"how much time is left" would need saying again): nine runs passed, six of them counted, 0 to 2
repeats and 1 to 3 questions, the time always heard at once. A voice that were not heard at all
would still fail it: each step may be said three times at most (``TRIES``).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from tests.audio_env import ensure_audio
from tests.live_helpers import Lines, live_assistant, wait_quiet
from tests.support.spoken import ClipMaker, Speaker

pytestmark = [pytest.mark.audio, pytest.mark.model]

#: Voices of neither the benchmark's tuning nor its held-out set: nothing was chosen on them.
OTHER_VOICES = (Speaker("espeak", "en-gb-scotland", 1.0, 50), Speaker("espeak", "en-us+f2", 1.1, 60),
                Speaker("espeak", "en-029", 1.0, 45))

#: (player's voice, what is said, the start of a line the assistant then prints).
SCRIPT = [
    (0, "skill zero", "BSAT1: Red, enter secret code."),
    (0, "code one two", "BSAT1: Blue, enter secret code."),
    (1, "code two one", "BSAT1: Green, enter secret code."),
    (2, "skip", "BSAT1: Yellow, enter secret code."),
    (2, "skip", "VIRUS: 25 minutes until I take over!"),
    (1, "explore room one two zero", "BSAT1: Blue teleported to Yellow Docking Bay."),
    (2, "how much time is left", "VIRUS: 2"),  # 25 or 24 minutes: the game clock runs
]
MAX_REPEATS = 4
MAX_QUESTIONS = 4
#: A step is said at most this often (said again after no answer, or after a yes that was not taken).
TRIES = 3


def test_three_new_voices_sign_on_and_play(tmp_path: Path) -> None:
    ensure_audio()
    config = """
games:
  omega_virus:
    response_extra_seconds: 60
"""
    maker = ClipMaker(tmp_path / "clips")
    chatter = maker.say("I think we should order pizza after this game", OTHER_VOICES[1])
    repeats: list[str] = []
    questions: list[str] = []
    with live_assistant(tmp_path, "voices", config, seed=1) as live:
        out, feeder, recorder = live.out, live.feeder, live.recorder
        mark = len(recorder.samples())
        out.wait_for("BSAT1: Enter skill.", timeout=90)
        wait_quiet(recorder, mark)
        chatter_at: int | None = None
        for step, (voice, text, answer) in enumerate(SCRIPT):
            seen = len(out.lines)
            repeats_before = len(repeats) + len(questions)
            for attempt in range(TRIES):
                mark = len(recorder.samples())
                asked_before = len(out.lines)
                feeder.say(maker.say(text, OTHER_VOICES[voice]))
                # the answer, or a question, whichever comes first: a question is answered at once,
                # as a player would (it is dropped when no yes comes within confirm_seconds)
                if answered(out, answer, seen, timeout=12, unless=functools.partial(asked, out, text, asked_before)):
                    break
                if asked(out, text, asked_before):  # "Skill zero?": the player says yes, as asked
                    questions.append(f"{OTHER_VOICES[voice].label}: {text!r}")
                    wait_quiet(recorder, mark)
                    mark = len(recorder.samples())
                    feeder.say(maker.say("yes", OTHER_VOICES[voice]))
                    if answered(out, answer, seen, timeout=12):
                        break
                repeats.append(f"{OTHER_VOICES[voice].label}: {text!r}")
                assert len(repeats) <= MAX_REPEATS, (repeats, questions)
                assert attempt + 1 < TRIES, (f"{text!r} not taken in {TRIES} tries", repeats, questions)
            if chatter_at is not None and len(repeats) + len(questions) == repeats_before:
                # heard in order: had the table talk done anything, it would be printed first
                assert out.lines[chatter_at].startswith(answer), out.lines[chatter_at:]
            wait_quiet(recorder, mark)
            chatter_at = None
            if step == 4:  # the game has begun: table talk changes nothing (checked at the next step,
                # when said at once; a command misheard and said again there leaves it unchecked)
                chatter_at = len(out.lines)
                feeder.say(chatter)
                feeder.say(np.zeros(2 * 16000, dtype=np.int16))  # a quiet that ends it
    assert len(repeats) <= MAX_REPEATS, (repeats, questions)
    assert len(questions) <= MAX_QUESTIONS, (repeats, questions)


def asked(out: Lines, text: str, since: int) -> bool:
    """Whether the assistant asked about ``text`` ("BSAT1: Skill zero?") after line ``since``."""
    question = text.lower().rstrip(".") + "?"
    return any(line.lower().endswith(": " + question) for line in out.lines[since:])


def answered(out: Lines, start: str, since: int, timeout: float,
             unless: Callable[[], bool] = lambda: False) -> bool:
    """Whether a line starting with ``start`` is printed after line ``since`` within ``timeout``
    (waiting no longer once ``unless`` holds)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(line.startswith(start) for line in out.lines[since:]):
            return True
        if unless():
            time.sleep(0.5)  # the answer may follow the question's line at once: not here
            return any(line.startswith(start) for line in out.lines[since:])
        time.sleep(0.05)
    return False
