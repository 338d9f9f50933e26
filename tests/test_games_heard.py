"""Battle of the Planets and Omega Virus: Prologue heard for real: the real Piper voice speaks
the players' commands and the real PocketSphinx recognizer, given the game's grammar for the
moment, must hear them as the right command. Also: every word of each grammar is in the
recognizer's dictionary.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pocketsphinx  # noqa: E402
import pytest

from assistant.engine import Command
from assistant.games import GameSpec, game_spec
from tests.support.heard import CALIBRATION, Ears, Voice, moment_intents  # noqa: E402

pytestmark = pytest.mark.model

GAMES: dict[str, GameSpec] = {name: game_spec(name) for name in ("planets", "prologue")}


@pytest.fixture(scope="module")
def voice() -> Iterator[Voice]:
    yield Voice()


@pytest.fixture(scope="module")
def ears(voice: Voice) -> Iterator[dict[str, Ears]]:
    """Each game's ears, calibrated once when first asked for."""
    yield {}


def calibrated(ears: dict[str, Ears], voice: Voice, name: str) -> Ears:
    if name not in ears:
        ears[name] = Ears(GAMES[name])
        ears[name].calibrate(voice.speak(CALIBRATION))
    return ears[name]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_grammar_word_is_in_the_recognizer_dictionary(name: str) -> None:
    path = Path(pocketsphinx.get_model_path()) / "en-us" / "cmudict-en-us.dict"
    known = {line.split()[0] for line in path.read_text(encoding="utf-8").splitlines() if line}
    assert GAMES[name].sentences().vocabulary() - known == set()


ON_BOARD = ["red blue and green", "next", "next", "next"]
SPUN = [*ON_BOARD, "spin"]
PLANETS = [
    # (said before, to reach the moment), spoken by Piper, the command it must be heard as
    ([], "Red, blue and green.", Command("players", {"p1": "red", "p2": "blue", "p3": "green"})),
    ([], "The players are red and yellow.", Command("players", {"p1": "red", "p2": "yellow"})),
    (["red and blue"], "Next.", Command("next")),
    (["red and blue"], "Blasted off.", Command("next")),
    (ON_BOARD, "Red is Mark.", Command("name", {"ship": "red", "name": "mark"})),
    (ON_BOARD, "Spin!", Command("spin")),
    (ON_BOARD, "Spin the spinner!", Command("spin")),
    (SPUN, "Red landed on the Intruder.", Command("landed_intruder", {"ship": "red"})),
    (SPUN, "The Intruder landed on blue.", Command("intruder_landed", {"victim": "blue"})),
    (SPUN, "The Intruder got me!", Command("intruder_landed")),
    (SPUN, "Red landed on blue.", Command("landed_player", {"ship": "red", "victim": "blue"})),
    (SPUN, "Red reached Earth.", Command("earth", {"ship": "red"})),
    (SPUN, "Earth!", Command("earth")),
    (SPUN, "End of turn.", Command("next")),
    (SPUN, "What can I say?", Command("help")),
]

NAMED: list[str | float] = ["player one is anna", "player two is ben"]
ROUND = [*NAMED, "ready", 6.0]
PROLOGUE = [
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
HEARD = [("planets", *case) for case in PLANETS] + [("prologue", *case) for case in PROLOGUE]


@pytest.mark.parametrize("name, before, spoken, expected", HEARD)
def test_spoken_commands_are_heard_right(voice: Voice, ears: dict[str, Ears], name: str,
                                         before: list[str | float], spoken: str, expected: Command) -> None:
    intents = moment_intents(GAMES[name], before)
    assert expected.intent in intents
    assert calibrated(ears, voice, name).hear(voice.speak(spoken), intents) == expected
