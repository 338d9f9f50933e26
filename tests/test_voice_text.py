"""What the voices say for what the games print."""

from __future__ import annotations

import pytest

from assistant.voice.text import (
    MAX_CHUNK_CHARS,
    bounded_chunks,
    quantity_words,
    speakable,
    split_sentences,
    spoken_sentences,
)
from tests.support.check import phrase_grammar, spoken_words


@pytest.mark.parametrize(
    ("written", "spoken"),
    [
        ("Code 0 1.", "Code zero one."),
        ("Code 01.", "Code zero one."),
        ("Explore room 100.", "Explore room one zero zero."),
        ("Room 012 is clear.", "Room zero one two is clear."),
        ("You have 5 minutes left.", "You have five minutes left."),
        ("120 seconds remain.", "one hundred twenty seconds remain."),
        ("Player 2, press R.", "Player two, press R."),
        ("BSat1 is failing.", "B Sat one is failing."),
        ("bsat1 online", "B Sat one online"),
        ("BSat 1 reporting.", "B Sat one reporting."),
        ("Time left: 4:30.", "Time left: four minutes thirty seconds."),
        ("Time left: 0:45.", "Time left: forty five seconds."),
        ("Red scores 1200 points.", "Red scores one thousand two hundred points."),
        ("Shields at 100%.", "Shields at one hundred percent."),
        ("Move -3.", "Move minus three."),
        ("Factor 2.5", "Factor two point five"),
        ("Code 0-1", "Code zero-one"),
        ("Omega Virus", "Omega Virus"),
    ],
)
def test_speakable(written: str, spoken: str) -> None:
    assert speakable(written) == spoken


def test_pronunciation_table_is_data() -> None:
    assert speakable("Welcome to Zyx4.", {"Zyx4": "zix four"}) == "Welcome to zix four."
    # with an empty table BSat1 is left to espeak (the digit is part of a word, not a number)
    assert speakable("BSat1", {}) == "BSat1"


def test_quantity_words() -> None:
    assert quantity_words(0) == "zero"
    assert quantity_words(21) == "twenty one"
    assert quantity_words(1005) == "one thousand five"
    assert quantity_words(2_000_000) == "two million"
    assert quantity_words(-4) == "minus four"


def test_sentences_split_for_streaming_and_caching() -> None:
    assert split_sentences("Code 0 1. Explore room 100!  Now?\nYes") == [
        "Code 0 1.", "Explore room 100!", "Now?", "Yes"]
    assert spoken_sentences("BSat1 online. Code 0 2.") == ["B Sat one online.", "Code zero two."]
    assert spoken_sentences("  ") == []


def test_spoken_words_and_grammar() -> None:
    assert spoken_words("Code 0 1, now!") == ["code", "zero", "one", "now"]
    grammar = phrase_grammar(["Code 0 1.", "code zero one", "BSat1 online."])
    assert "( code zero one )" in grammar and grammar.count("code zero one") == 1
    assert "( b sat one online )" in grammar


def test_long_sentences_are_cut_into_bounded_pieces_at_clauses_then_words() -> None:
    clause = "the players move their pieces on the board, "
    pieces = spoken_sentences(clause * 40)
    assert all(len(piece) <= MAX_CHUNK_CHARS for piece in pieces)
    assert all(piece.endswith(",") for piece in pieces[:-1])  # each ends at a clause
    assert " ".join(pieces).split() == (clause * 40).split()  # nothing lost or added
    words = "no commas at all in this very long sentence " * 30
    pieces = spoken_sentences(words)
    assert all(len(piece) <= MAX_CHUNK_CHARS for piece in pieces) and len(pieces) > 5
    assert " ".join(pieces).split() == words.split()
    assert [len(p) for p in bounded_chunks("x" * (2 * MAX_CHUNK_CHARS + 50))] == [MAX_CHUNK_CHARS] * 2 + [50]
    short = "Enter your fighter, for example: my fighter, attack six, defense minus two."
    assert spoken_sentences(short) == [short]  # sentences under the limit stay whole (cache keys)
