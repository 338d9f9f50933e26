"""bench_accuracy splits wrong commands as the player meets them: a wrong command taken with
doubt whose intent is not harmless is asked about first ("Explore one zero zero?"); every other
wrong command is acted on. Checked on the real Command Center sentences and hearing events."""

from __future__ import annotations

from assistant.games import game_module
from assistant.hearing.events import Doubted, NotRecognized, Transcript
from bench.bench_accuracy import Tally, asked_first, tally_json


def test_a_doubted_costly_command_is_asked_first_and_a_harmless_or_heard_one_is_not() -> None:
    sentences = game_module("omega-virus").sentences()
    explore = sentences.match(sentences.words("explore one zero zero"))
    repeat = sentences.match(sentences.words("repeat"))
    assert explore is not None and repeat is not None
    assert not sentences.intents[explore.intent].harmless and sentences.intents[repeat.intent].harmless
    assert asked_first(sentences, Doubted("explore one zero zero", 0.5, "", explore, why="taken by weigh alone"))
    assert not asked_first(sentences, Doubted("repeat", 0.5, "", repeat, why="taken by weigh alone"))
    assert not asked_first(sentences, Transcript("explore one zero zero", 0.9, "", explore))
    assert not asked_first(sentences, NotRecognized("explore", "vetoed"))


def test_wrong_commands_are_counted_acted_on_and_asked_first_apart_and_together() -> None:
    tally = Tally()
    tally.add(True, ok=True, took=True, seconds=1.0, cpu=0.5)
    tally.add(True, ok=False, took=True, seconds=1.0, cpu=0.5, asked=False)  # wrong, acted on
    tally.add(True, ok=False, took=True, seconds=1.0, cpu=0.5, asked=True)   # wrong, asked first
    tally.add(True, ok=False, took=True, seconds=1.0, cpu=0.5, asked=True)
    tally.add(True, ok=False, took=False, seconds=1.0, cpu=0.5)              # missed
    tally.add(False, ok=False, took=True, seconds=1.0, cpu=0.5, asked=True)  # table talk, asked first
    tally.add(False, ok=True, took=False, seconds=1.0, cpu=0.5)
    merged = Tally()
    merged.merge(tally)
    figures = tally_json(merged)
    assert (figures["right"], figures["wrong"], figures["wrong_acted_on"], figures["wrong_asked_first"],
            figures["missed"]) == (1, 3, 1, 2, 1)
    assert (figures["table_talk"], figures["table_talk_taken"], figures["table_talk_acted_on"],
            figures["table_talk_asked_first"]) == (2, 1, 0, 1)
