"""The MSX card game's shared state: its stages, its settings, and the ``Campaign`` (the World,
the counters, the fighters in play) that the battle (``battle.py``), the Boss (``boss.py``) and
the referee (``engine.py``) all hold."""

from __future__ import annotations

import enum
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from assistant.engine import Output
from assistant.games.msx_cards import phrases as P
from assistant.games.msx_cards.combat import (
    Effect,
    Fighter,
    pentagon_bonus,
)
from assistant.games.msx_cards.tables import Capsule, Tables, World, load_tables


class Phase(enum.StrEnum):
    """The stages of a World, and within its battles what is awaited (derived from the stage
    and the fighters in play)."""

    BATTLE = "battle"
    BONUS = "bonus"
    BOSS_FIGHT = "boss"
    EXTRA = "extra"
    WON = "won"
    LOST = "lost"
    NEED_FIGHTER = "fighter"
    NEED_ENEMY = "enemy"
    FIGHT = "fight"


BATTLE, BONUS, BOSS_FIGHT, EXTRA, WON, LOST = (Phase.BATTLE, Phase.BONUS, Phase.BOSS_FIGHT, Phase.EXTRA,
                                               Phase.WON, Phase.LOST)
NEED_FIGHTER, NEED_ENEMY, FIGHT = Phase.NEED_FIGHTER, Phase.NEED_ENEMY, Phase.FIGHT


@dataclass(frozen=True)
class MsxSettings:
    """The checked data tables and the game's numbers (``games.msx_cards`` in config.yaml)."""

    tables: Tables = field(default_factory=lambda: Tables.from_data(load_tables({})[0]))
    event_chance: float = 0.1
    enemies_per_world: int = 3
    deaths_per_world: int = 3

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> MsxSettings:
        """From the journal header's settings: the tables are rebuilt from the data stored
        there (a replay never rereads the files); the packaged ones when there is none."""
        tables = Tables.from_data(data.get("data") or load_tables({})[0], str(data.get("mission", "")))
        return cls(tables, float(data.get("event_chance", cls.event_chance)),
                   int(data.get("enemies_per_world", cls.enemies_per_world)),
                   int(data.get("deaths_per_world", cls.deaths_per_world)))


@dataclass
class Campaign:
    """The state every stage of one game shares: the World, its counters, the fighters in play,
    the capsule effects, and what both battles and the Boss do with them (dice, initiative,
    effects running out, the game lost)."""

    rng: random.Random
    settings: MsxSettings = field(default_factory=MsxSettings)
    world_index: int = 0
    stage: Phase = BATTLE
    defeats: int = 0
    deaths: int = 0
    player: Fighter | None = None
    enemy: Fighter | None = None
    fighters: list[Fighter] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)
    player_name: str = ""
    outcome: str = ""
    events_seen: int = 0

    @property
    def tables(self) -> Tables:
        return self.settings.tables

    @property
    def world(self) -> World:
        return self.tables.worlds[self.world_index]

    @property
    def die(self) -> int:
        return int(self.world.die)

    @property
    def phase(self) -> Phase:
        if self.stage != BATTLE:
            return self.stage
        if self.player is None:
            return NEED_FIGHTER
        if self.enemy is None:
            return NEED_ENEMY
        return FIGHT

    def roll(self, sides: int) -> int:
        return self.rng.randint(1, sides)

    def capsules_of(self, side: str) -> list[Capsule]:
        return [e.capsule for e in self.effects if e.owner == side]

    def initiative(self, out: list[Output], their_pentagon: int, them: str) -> bool:
        """d6 each, +1 for the stronger Pentagon, ties rolled again; True if the player goes first."""
        assert self.player is not None
        mine = pentagon_bonus(self.player.pentagon, their_pentagon)
        theirs = pentagon_bonus(their_pentagon, self.player.pentagon)
        while True:
            a, b = self.roll(6), self.roll(6)
            text = P.initiative(a, mine, b, theirs, them)
            if a + mine != b + theirs:
                first = a + mine > b + theirs
                who = "You attack" if first else f"{them[0].upper()}{them[1:]} attacks"
                out.append(P.say(f"{text} {who} first."))
                return first
            out.append(P.say(text + " A tie: rolling again."))

    def tick(self, out: list[Output]) -> None:
        """One action has passed: capsule effects that covered their last action end."""
        ended = []
        for effect in self.effects:
            if effect.left is not None:
                effect.left -= 1
                if effect.left <= 0:
                    ended.append(effect)
        for effect in ended:
            self.effects.remove(effect)
            out.append(P.say(P.capsule_ends(effect.owner, effect.capsule.name)))

    def lose(self, reason: str, out: list[Output]) -> None:
        self.stage = LOST
        self.outcome = reason
        out.append(P.say(f"{reason} Game over."))

    def capsule(self, fighter: Fighter, slot: int) -> Capsule:
        """The capsule in ``slot`` of the fighter's race row."""
        return self.tables.capsules[str(self.tables.row(fighter.race)[slot - 1])]
