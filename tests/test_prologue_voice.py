"""Omega Virus: Prologue heard for real: the real Piper voice speaks the players' commands and
the real PocketSphinx recognizer, given this game's grammar for the moment, must hear them
as the right command. Also: every word of the grammar is in the recognizer's dictionary.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pocketsphinx  # noqa: E402
import pytest

from assistant.engine import Command
from assistant.games import prologue
from assistant.games.prologue.bench import CALIBRATION, Ears, Voice, moment_intents  # noqa: E402


@pytest.fixture(scope="module")
def voice() -> Iterator[Voice]:
    yield Voice()


@pytest.fixture(scope="module")
def ears(voice: Voice) -> Iterator[Ears]:
    heard = Ears(prologue)
    heard.calibrate(voice.speak(CALIBRATION))
    yield heard


def test_every_grammar_word_is_in_the_recognizer_dictionary() -> None:
    path = Path(pocketsphinx.get_model_path()) / "en-us" / "cmudict-en-us.dict"
    known = {line.split()[0] for line in path.read_text(encoding="utf-8").splitlines() if line}
    assert prologue.sentences().vocabulary() - known == set()


NAMED: list[str | float] = ["player one is anna", "player two is ben"]
ROUND = [*NAMED, "ready", 6.0]
HEARD = [
    # (said before, to reach the moment), spoken by Piper, the command it must be heard as
    ([], "Player one is Anna.", Command("name", {"seat": "1", "name": "anna"})),
    (NAMED, "We're ready.", Command("ready")),
    (NAMED, "What's the score?", Command("status")),
    (ROUND, "Done.", Command("done")),
    (ROUND, "I'm done!", Command("done")),
    (ROUND, "Ben is done!", Command("done", {"name": "ben"})),
    (ROUND, "Player two is done.", Command("done", {"seat": "2"})),
    ([*ROUND, "done"], "Anna.", Command("who", {"name": "anna"})),
    ([*ROUND, "done"], "Keep going.", Command("not_done")),
    ([*ROUND, "done anna"], "It's a tie.", Command("who", {"outcome": "tie"})),
    ([*ROUND, "done anna"], "Tie.", Command("who", {"outcome": "tie"})),
    ([*ROUND, "done anna"], "No one.", Command("who", {"outcome": "nobody"})),
    ([*ROUND, "done anna"], "Ben got it.", Command("who", {"name": "ben"})),
    ([*ROUND, "done anna"], "Anna for three points.", Command("who", {"name": "anna", "points": "3"})),
    ([*ROUND, "done anna", "ben"], "Three.", Command("points", {"points": "3"})),
    ([*ROUND, "done anna", "ben"], "Twelve points.", Command("points", {"points": "12"})),
    ([*ROUND, "done anna", "ben"], "Undo that.", Command("undo")),
]


@pytest.mark.parametrize("before, spoken, expected", HEARD)
def test_spoken_commands_are_heard_right(voice: Voice, ears: Ears, before: list[str | float], spoken: str,
                                         expected: Command) -> None:
    intents = moment_intents(prologue, before)
    assert expected.intent in intents
    assert ears.hear(voice.speak(spoken), intents) == expected
