"""Whisper's reading with a loop cut to its first turn (``whisper_engine.unrepeated``): a short
window can make Whisper write what was said over and over, and only a short reading is read as
a command the rules refuse now. Loops seen on the benchmark's tuning voices."""

from __future__ import annotations

import pytest

from assistant.games import game_module
from assistant.hearing.spotting import Spotter
from assistant.hearing.whisper_engine import unrepeated


@pytest.mark.parametrize("reading, cut", [
    ("Status Status Status Status Status Status", "Status"),
    ("worth 7 point worth 7 point worth 7 point worth 7", "worth 7 point"),
    ("Nope Nope Nope", "Nope"),
    ("scratch that scratch that scratch", "scratch that"),
    ("I love you, I love you, I love you,", "I love you"),
    ("start listening, start listening, start", "start listening"),
    # after other words, a loop is cut when it turns three times or more
    ("The next end of the video and the end end end", "The next end of the video and the end"),
    # button words alone loop only past the longest entry
    ("2 1 and 2 and 1 2 1 and 2 and 1 2 1 and 2 and 1 2", "2 1 and 2 and 1"),
    ("R R R R R R R R R R", "R"),
])
def test_a_loop_is_cut_to_its_first_turn(reading: str, cut: str) -> None:
    assert unrepeated(reading) == cut


@pytest.mark.parametrize("reading", [
    "", "Explore 100.", "Hello there.", "two two two", "2 2 2 2", "0 2 0 2", "one zero one zero",
    "1, 0, 1, 1", "the enemy card ninety eight", "said it twice: it and it",
    "the end end",  # after other words, twice is not yet a loop
])
def test_a_reading_that_is_no_loop_is_left_as_it_is(reading: str) -> None:
    assert unrepeated(reading) == reading


def test_a_looped_command_refused_now_is_named_once_cut() -> None:
    # "status" at a yes/no question: the loop was too long a reading to be named (and the
    # search forced it onto "yes"); cut, it is the command the rules refuse now
    sentences = game_module("prologue").sentences()
    spotter = Spotter(sentences)
    looped = " ".join(["Status"] * 40)
    assert spotter.refused(looped, ["yes", "no"]) is None
    found = spotter.refused(unrepeated(looped), ["yes", "no"])
    assert found is not None and found.command is not None and found.command.intent == "status"


def test_with_every_intent_allowed_nothing_is_refused() -> None:
    sentences = game_module("prologue").sentences()
    spotter = Spotter(sentences)
    assert spotter.refused("Status", ["yes", "no"]) is not None
    assert spotter.refused("Status", sentences.intents) is None  # the whole game: nothing to refuse
