"""Battle of the Planets heard for real: the real Piper voice speaks the players' commands and
the real PocketSphinx recognizer, given this game's grammar for the moment, must hear them
as the right command. Also: every word of the grammar is in the recognizer's dictionary.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pocketsphinx  # noqa: E402
import pytest

from assistant.engine import Command
from assistant.games import planets
from assistant.games.prologue.bench import CALIBRATION, Ears, Voice, moment_intents  # noqa: E402


@pytest.fixture(scope="module")
def voice() -> Iterator[Voice]:
    yield Voice()


@pytest.fixture(scope="module")
def ears(voice: Voice) -> Iterator[Ears]:
    heard = Ears(planets)
    heard.calibrate(voice.speak(CALIBRATION))
    yield heard


def test_every_grammar_word_is_in_the_recognizer_dictionary() -> None:
    path = Path(pocketsphinx.get_model_path()) / "en-us" / "cmudict-en-us.dict"
    known = {line.split()[0] for line in path.read_text(encoding="utf-8").splitlines() if line}
    assert planets.sentences().vocabulary() - known == set()


ON_BOARD = ["red blue and green", "next", "next", "next"]
SPUN = [*ON_BOARD, "spin"]
HEARD = [
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


@pytest.mark.parametrize("before, spoken, expected", HEARD)
def test_spoken_commands_are_heard_right(voice: Voice, ears: Ears, before: list[str], spoken: str,
                                         expected: Command) -> None:
    intents = moment_intents(planets, before)
    assert expected.intent in intents
    assert ears.hear(voice.speak(spoken), intents) == expected
