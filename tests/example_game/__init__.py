"""Dice race: the smallest whole game, the example of docs/adding-a-game.md.

Two players, red and blue, take turns to roll a die; the first to 20 points wins. Once in
the game each may say "double" before a roll to make it count twice. Registered by the
tests (tests/conftest.py), so the contract test plays it like every other game; it is not
listed in ``assistant.games.GAMES``, so it is not offered to players.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from assistant.config import Config
from assistant.engine import Command, NotAllowed, Output, Say, make_rng
from assistant.games import GameSpec
from assistant.sentences import SentenceSet

NARRATOR = "NARRATOR"
PLAYERS = ("red", "blue")
WELCOME = "Dice race: first to the target wins. Red starts. Say roll."
OVER = "The game is over. Say new game to play again."


class Phase(enum.Enum):
    PLAYING = "playing"
    OVER = "over"


@dataclass(frozen=True)
class Settings:
    target: int = 20

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Settings:
        return cls(int(data.get("target", cls.target)))


def turn(color: str) -> str:
    return f"{color.title()}'s turn. Say roll."


@dataclass
class DiceRace:
    """The Game protocol of assistant.engine, for the dice race."""

    name: ClassVar[str] = "dice-race"
    speakers: ClassVar[tuple[str, ...]] = (NARRATOR,)
    supports_undo: ClassVar[bool] = True

    rng: random.Random
    settings: Settings = field(default_factory=Settings)
    scores: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PLAYERS, 0))
    doubled: set[str] = field(default_factory=set)   # who has used their double
    doubling: bool = False                          # the next roll counts twice
    current: int = 0
    phase: Phase = Phase.PLAYING
    last: list[Output] = field(default_factory=list)

    def start(self) -> list[Output]:
        return self._said(WELCOME)

    def handle(self, command: Command) -> list[Output]:
        if command.intent == "repeat":
            return list(self.last)
        if command.intent == "score":
            return [Say(NARRATOR, f"Red {self.scores['red']}, Blue {self.scores['blue']}.")]
        if self.phase is Phase.OVER:
            raise NotAllowed(OVER)
        return {"roll": self._roll, "double": self._double}[command.intent]()

    def _double(self) -> list[Output]:
        color = PLAYERS[self.current]
        if color in self.doubled:
            raise NotAllowed(f"{color.title()} has used the double.")
        self.doubled.add(color)
        self.doubling = True
        return self._said(f"{color.title()} doubles the next roll.")

    def _roll(self) -> list[Output]:
        color = PLAYERS[self.current]
        points = self.rng.randint(1, 6) * (2 if self.doubling else 1)
        self.doubling = False
        self.scores[color] += points
        if self.scores[color] >= self.settings.target:
            self.phase = Phase.OVER
            return self._said(f"{color.title()} rolls {points}.", f"{color.title()} wins!")
        self.current = 1 - self.current
        return self._said(f"{color.title()} rolls {points}: {self.scores[color]}.", turn(PLAYERS[self.current]))

    def _said(self, *texts: str) -> list[Output]:
        self.last = [Say(NARRATOR, text) for text in texts]
        return list(self.last)

    def advance(self, seconds: float) -> list[Output]:
        return []  # no clock in this game

    def allowed_intents(self) -> frozenset[str]:
        if self.phase is Phase.OVER:
            return frozenset({"repeat", "score"})
        return frozenset({"roll", "double", "repeat", "score"})

    def next_event_in(self) -> float | None:
        return None

    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def clock_running(self) -> bool:
        return False


def create(seed: int, settings: Mapping[str, Any]) -> DiceRace:
    return DiceRace(make_rng(seed), Settings.from_mapping(settings))


def sentences() -> SentenceSet:
    return SentenceSet.load_game(__name__, undo=DiceRace.supports_undo)


def fixed_phrases(settings: Mapping[str, Any]) -> list[Say]:
    texts = [WELCOME, OVER, *(turn(c) for c in PLAYERS)]
    texts += [f"{c.title()} {said}" for c in PLAYERS for said in ("wins!", "doubles the next roll.",
                                                                  "has used the double.")]
    return [Say(NARRATOR, text) for text in texts]


def settings_from_config(config: Config) -> dict[str, Any]:
    return {"target": config.get("games.dice_race.target", Settings.target, minimum=1, maximum=100)}


SPEC = GameSpec("dice-race", create, sentences, fixed_phrases, settings_from_config,
                query_intents=frozenset({"repeat", "score"}), supports_undo=DiceRace.supports_undo,
                title="the dice race", spoken_names=("[the] dice race",))
