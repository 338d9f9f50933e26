"""The Command Center's state, as small values: settings, players, what each phase waits
for (sign-on, an attack, a defence), and the output buffer."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from assistant.engine import Output
from assistant.games.omega_virus import phrases as P
from assistant.games.omega_virus.board import Board

BUTTONS = ("0", "1", "2", "R")
AVDS = P.AVDS
CARDS = tuple(f"{c} card" for c in P.CARD_COLORS)
SUPPLY = {**{a: 4 for a in AVDS}, **{c: 4 for c in CARDS}}
#: What each room color can hold besides hazards (the rulebook's "What You May Find There").
ROOM_ITEMS: dict[str, tuple[str, ...]] = {
    "green": ("probe", "red card", "blue card", "yellow card"),
    "blue": ("disruptor", "probe", "red card", "yellow card"),
    "red": ("negatron", "probe", "blue card", "yellow card"),
    "yellow": ("decoder", "probe", "red card", "blue card"),
}
ITEM_WEIGHT = {"probe": 1.0, **{a: 3.0 for a in AVDS}, **{c: 2.0 for c in CARDS}}

#: The rulebook's Skill Level Time Chart: minutes for 1, 2, 3, 4 players.
DEFAULT_TIME_CHART: dict[str, list[int]] = {
    "0": [20, 25, 30, 35],
    "1": [15, 15, 20, 25],
    "2": [10, 10, 15, 15],
}


class Phase(enum.Enum):
    SKILL = "skill"
    SIGNON = "signon"
    MOVE = "move"              # waiting for the mover's option: 2 explore, 1 attack, 0 pass, R repeat
    ROOM_CODE = "room code"
    ATTACK_CODE = "attack code"
    SHOT = "shot"              # the attacker's secret press
    SHIELDS = "shields"
    TERMINATE = "terminate"
    OVER = "over"


@dataclass
class Settings:
    """Tunable numbers (config.yaml, games.omega_virus); stored in the journal header."""

    time_chart: dict[str, list[int]] = field(default_factory=lambda: {k: list(v)
                                                                      for k, v in DEFAULT_TIME_CHART.items()})
    secret_code_seconds: float = 10.0
    shields_seconds: float = 10.0
    shot_seconds: float = 10.0
    terminate_seconds: float = 10.0
    response_extra_seconds: float = 0.0
    attack_shot: str = "keypad"            # keypad: the attacker presses; random: the computer fires
    probe_weakness: int = 1                # shields more against a Probe's attack, fewer for a Probe
    wanted_chance: float = 0.6
    hazard_chance: float = 0.2
    persistence: float = 0.8
    teleport_trap_share: float = 0.4
    shutdown_minutes: list[float] = field(default_factory=lambda: [9.0, 6.0, 3.0])
    announce_minutes: list[float] = field(default_factory=lambda: [30, 25, 20, 15, 10, 5, 4, 3, 2, 1, 0.5])
    probe_loss_minutes: list[float] = field(default_factory=lambda: [2.5, 1.5, 0.75])
    probe_loss_chance: float = 0.3
    taunt_chance_start: float = 0.05
    taunt_chance_end: float = 0.4
    must_be_terminated_chance: float = 0.5
    board: dict[str, Any] = field(default_factory=Board.default_data)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Settings:
        """From the journal header's settings (unknown keys, from newer or older versions, left out)."""
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class Player:
    color: str
    code: str = ""
    playing: bool = False
    missed: int = 0
    cards: set[str] = field(default_factory=set)
    avds: set[str] = field(default_factory=set)
    probe: bool = False
    knows_virus: bool = False
    last_room: str | None = None

    def holds(self, item: str) -> bool:
        if item == "probe":
            return self.probe
        return item in self.cards or item in self.avds

    def take(self, item: str) -> None:
        if item == "probe":
            self.probe = True
        else:
            self._kept_with(item).add(item)

    def lose(self, item: str) -> None:
        if item == "probe":
            self.probe = False
        else:
            self._kept_with(item).discard(item)

    def _kept_with(self, item: str) -> set[str]:
        """An AVD goes on the Power Pack, a card in the hand."""
        return self.avds if item in AVDS else self.cards

    def losable(self) -> list[str]:
        """Items an attack can take: never the green card, which is the player's own."""
        return sorted(c for c in self.cards if c != "green card") + sorted(self.avds)


@dataclass
class Defense:
    """Shields being energized against the Virus (attacker None) or another player."""

    color: str
    unit: str
    n: int
    hidden: str
    attacker: tuple[str, str] | None = None
    room: str | None = None
    pressed: list[str] = field(default_factory=list)


@dataclass
class Attack:
    """An attack declared, waiting for its shot: who attacks with what, whom."""

    attacker: str
    unit: str
    target: str
    target_unit: str


@dataclass
class SignOn:
    """Skill and sign-on: the skill chosen, the colors still to ask, the one asked now."""

    skill: int | None = None
    queue: list[str] = field(default_factory=list)
    asking: str | None = None


class Speech:
    """What the Command Center says in answer to one input, and what R says again: the last
    announcement (what was found, stolen or lost) and the last prompt."""

    def __init__(self) -> None:
        self.out: list[Output] = []
        self.last_announcement: list[Output] = []
        self.last_prompt: list[Output] = []
        self.announced = False  # an announcement was made since the last flush

    def say(self, output: Output) -> None:
        self.out.append(output)

    def announce(self, outputs: list[Output]) -> None:
        """Something R can repeat."""
        self.last_announcement = list(outputs)
        self.announced = True
        self.out.extend(outputs)

    def special(self, output: Output) -> None:
        """Another announcement R repeats (a shutdown, the time left, a lost probe), together
        with whatever else was announced at the same moment."""
        if not self.announced:
            self.last_announcement = []
        self.last_announcement.append(output)
        self.announced = True
        self.out.append(output)

    def prompt(self, outputs: list[Output]) -> None:
        self.last_prompt = list(outputs)
        self.out.extend(outputs)

    def prompt_is_announcement(self) -> None:
        """R repeats the announcement itself (an attack declared, the Virus found)."""
        self.last_prompt = list(self.last_announcement)

    def add_to_announcement(self, output: Output) -> None:
        """Said, and repeated by R with the announcement (the Room's code after what was found)."""
        self.last_announcement.append(output)
        self.out.append(output)

    def repeat_prompt(self) -> None:
        self.out.extend(self.last_prompt)

    def repeat_announcement(self) -> None:
        self.out.extend(self.last_announcement)

    def flush(self) -> list[Output]:
        out, self.out = self.out, []
        self.announced = False
        return out
