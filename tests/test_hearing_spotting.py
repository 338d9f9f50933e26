"""Spotting: the allowed command inside a free transcript, by words and by sound (logic only;
Whisper on real audio is in test_hearing_whisper)."""

from __future__ import annotations

import pytest

from assistant.engine import Command
from assistant.games import game_module
from assistant.hearing.spotting import Lexicon, SpotSettings, Spotter, phone_edits, spell_out, without_repeats

OMEGA = game_module("omega-virus").sentences()
MOVE = ["explore", "pass", "teleport", "attack", "repeat", "time_left", "inventory", "help", "pause", "new_game"]
SHIELDS = ["shields", "repeat", "time_left", "inventory", "help", "pause", "new_game"]


@pytest.fixture(scope="module")
def omega() -> Spotter:
    return Spotter(OMEGA)


def explore(d1: str, d2: str, d3: str) -> Command:
    return Command("explore", {"d1": d1, "d2": d2, "d3": d3})


@pytest.mark.parametrize("heard, command", [
    ("Explore room 201.", explore("2", "0", "1")),          # digits written as a number
    ("explore all zero two", explore("0", "0", "2")),       # "oh" written as "all"
    ("Exploring one two zero.", explore("1", "2", "0")),    # a word heard a little wrong
    ("And floor room one two zero.", explore("1", "2", "0")),  # one word heard as two
    ("for tonight, explore room 201", explore("2", "0", "1")),  # a word of other talk before it
    ("Pass.", Command("pass", {})),
    ("Teleport!", Command("teleport", {})),
    ("Attack the blue probe.", Command("attack", {"target": "blue", "unit": "probe"})),
    ("attack the red", Command("attack", {"target": "red"})),
    ("How much time is left?", Command("time_left", {})),
])
def test_commands_are_found_in_what_was_written(omega: Spotter, heard: str, command: Command) -> None:
    spot = omega.spot(heard, MOVE)
    assert spot.command == command, spot.reason


@pytest.mark.parametrize("heard, buttons", [
    ("Shield zero and R.", {"b1": "0", "b2": "R"}),
    ("shields to and our", {"b1": "2", "b2": "R"}),
    ("energize zero, one, two", {"b1": "0", "b2": "1", "b3": "2"}),
])
def test_sound_alikes_stand_for_buttons(omega: Spotter, heard: str, buttons: dict[str, str]) -> None:
    spot = omega.spot(heard, SHIELDS)
    assert spot.command == Command("shields", buttons), spot.reason


@pytest.mark.parametrize("heard", [
    "can you pass me the chips",
    "repeat after me",
    "I'll teleport next time",
    "I would love another slice of pizza",
    "Thank you.",
    "whose turn is it now",
    "that was a really close game",
])
def test_table_talk_gives_nothing(omega: Spotter, heard: str) -> None:
    spot = omega.spot(heard, MOVE)
    assert spot.command is None, f"{heard!r} taken as {spot.sentence!r} ({spot.distance:.2f})"
    assert spot.reason


def test_nothing_heard_and_nothing_allowed_are_said(omega: Spotter) -> None:
    assert omega.spot("", MOVE).reason == "nothing heard"
    assert omega.spot("...", MOVE).reason == "nothing heard"
    assert omega.spot("pass", []).reason == "nothing is allowed now"


def test_two_equally_near_commands_give_neither() -> None:
    spotter = Spotter(OMEGA, settings=SpotSettings(margin=1.0))
    spot = spotter.spot("explore one two", MOVE)  # the third digit was not heard
    assert spot.command is None
    assert "could be" in spot.reason


def test_a_tighter_distance_refuses_what_a_looser_takes(omega: Spotter) -> None:
    heard = "Exploring one two zero."
    assert omega.spot(heard, MOVE).command is not None
    strict = Spotter(OMEGA, settings=SpotSettings(max_distance=0.01))
    assert strict.spot(heard, MOVE).command is None


def test_outside_words_count_against_a_command() -> None:
    heard = "well I think I will pass this time round"
    assert Spotter(OMEGA, settings=SpotSettings(outside=0.0)).spot(heard, MOVE).command == Command("pass", {})
    assert Spotter(OMEGA).spot(heard, MOVE).command is None


def test_a_command_written_again_is_taken_once(omega: Spotter) -> None:
    assert without_repeats("pass pass pass".split()) == ["pass"]
    assert without_repeats("quiet quiet good".split()) == ["quiet", "good"]
    assert without_repeats("attack red attack red".split()) == ["attack", "red"]
    assert omega.spot("Pass, pass, pass.", MOVE).command == Command("pass", {})
    assert omega.spot("Pass, pass.", MOVE).command == Command("pass", {})
    # ... but only when the transcript as written gives nothing: a repeated digit stands.
    code = omega.spot("Enter secret code one one.", ["code"])
    assert code.command == Command("code", {"d1": "1", "d2": "1"}), code.reason


def test_a_letter_written_against_a_digit_is_said_apart(omega: Spotter) -> None:
    assert OMEGA.words("Enter secret code O1.") == ["enter", "secret", "code", "o", "one"]
    assert OMEGA.words("R2") == ["r", "two"]
    assert omega.spot("Enter secret code O1.", ["code"]).command == Command("code", {"d1": "0", "d2": "1"})


def test_filler_words_around_a_command_cost_less() -> None:
    for heard in ("Okay, pass.", "Pass, please."):
        assert Spotter(OMEGA).spot(heard, MOVE).command == Command("pass", {})
        assert Spotter(OMEGA, settings=SpotSettings(filler_share=1.0)).spot(heard, MOVE).command is None
    # Words that say something still count in full.
    assert Spotter(OMEGA).spot("well I think I will pass this time round", MOVE).command is None


def test_only_allowed_intents_are_spotted(omega: Spotter) -> None:
    assert omega.spot("teleport", ["explore", "pass"]).command is None
    assert omega.spot("teleport").command == Command("teleport", {})


@pytest.mark.parametrize("game, heard, intent", [
    ("planets", "Spin!", "spin"),
    ("planets", "next", "next"),
    ("prologue", "ready", "ready"),
    ("msx-cards", "attack", "attack"),
])
def test_other_games_short_commands(game: str, heard: str, intent: str) -> None:
    sentences = game_module(game).sentences()
    spot = Spotter(sentences).spot(heard, [intent, "repeat", "help", "pause"])
    assert spot.command is not None and spot.command.intent == intent, spot.reason


def test_the_card_game_grammar_is_searched_without_expanding_it() -> None:
    """The MSX card game's sentences expand to hundreds of thousands; spotting walks the templates."""
    sentences = game_module("msx-cards").sentences()
    spot = Spotter(sentences).spot("My fighter: attack 6, defense minus 2, vitality 20, pentagon 3, race blue.")
    assert spot.command is not None and spot.command.intent == "fighter", spot.reason
    assert spot.command.slots == {"attack": "6", "defense": "-2", "vitality": "20", "pentagon": "3",
                                  "race": "blue"}


def test_phones_come_from_the_dictionary_or_the_letters() -> None:
    lexicon = Lexicon.load()
    assert ("T", "UW") in lexicon.prons("two")
    assert lexicon.prons("20") == [lexicon.prons("twenty")[0]]
    assert spell_out("zork")
    assert phone_edits(("SH", "IY", "L", "D", "Z"), ("SH", "IY", "L", "D", "Z")) == 0
    assert phone_edits(("P",), ("B",)) == 0.5  # similar phones cost half
    assert phone_edits(("P",), ("IY",)) == 1.0


def test_goes_on_counts_the_words_after_a_command_said_first() -> None:
    """``Spotter.goes_on``: how far Whisper's own reading goes on after a whole sentence of the
    command at its start (the closed stage's ``closed_tail``): talk that starts with a command."""
    prologue = Spotter(game_module("prologue").sentences())
    going = Command("not_done", {})
    assert prologue.goes_on("Keep going, you're nearly there.", going) == 3
    assert prologue.goes_on("Keep going.", going) == 0
    assert prologue.goes_on("Who's going to tell?", going) == 0  # not said at its start
    omega = Spotter(OMEGA)
    assert omega.goes_on("Pass, pass, pass.", Command("pass", {})) == 0  # a loop is one turn
    assert omega.goes_on("Explore room 120, I think", explore("1", "2", "0")) == 2
    assert omega.goes_on("Explore room 120", explore("1", "2", "1")) == 0  # another command


def test_says_only_is_a_whole_command_and_nothing_more_repeats_cut() -> None:
    """``Spotter.says_only``: Whisper's own reading, repeats cut, is a sentence of the command and
    nothing more (``HeldTo.whole``: Whisper writing a short command again is no talk going on)."""
    omega = Spotter(OMEGA)
    assert omega.says_only("Pass, pass, pass.", Command("pass", {}))
    assert omega.says_only("Explore room 120.", explore("1", "2", "0"))
    assert not omega.says_only("Explore room 120, I think", explore("1", "2", "0"))
    assert not omega.says_only("Explore room 120", explore("1", "2", "1"))
    assert not omega.says_only("Well, pass.", Command("pass", {}))
    assert not omega.says_only("", Command("pass", {}))
