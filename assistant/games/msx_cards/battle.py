"""The battle of the MSX card game: initiative, strikes, capsules and events, until a
fighter falls. The Boss builds on it (``boss.py``), the referee on both (``engine.py``)."""

from __future__ import annotations

import enum
import random
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from assistant.engine import Output
from assistant.games.msx_cards import phrases as P
from assistant.games.msx_cards.combat import (
    ENEMY,
    PLAYER,
    Effect,
    Fighter,
    Strike,
    pentagon_bonus,
    strike,
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
class Battle:
    """The state of one game, and the battle between the fighter in play and the enemy."""

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
    next_actor: str = PLAYER
    answer_pending: bool = False
    after_event: bool = False
    boss_first: bool = False
    boss_turn: int = 0
    bonus_done: bool = False
    player_name: str = ""
    outcome: str = ""
    events_seen: int = 0
    #: What ``repeat`` says again.
    _last: list[Output] = field(default_factory=list)

    # ------------------------------------------------------------------ state

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

    def _roll(self, sides: int) -> int:
        return self.rng.randint(1, sides)

    def _capsules_of(self, side: str) -> list[Capsule]:
        return [e.capsule for e in self.effects if e.owner == side]

    # ------------------------------------------------------------------ the battle

    def _new_battle(self, out: list[Output]) -> None:
        assert self.player is not None and self.enemy is not None
        self.player.capsule_used = self.enemy.capsule_used = False
        self.effects.clear()
        self.answer_pending = False
        self.after_event = False
        if not self._can_hurt(self.player, self.enemy) and not self._can_hurt(self.enemy, self.player):
            out.append(P.say(P.STALEMATE.format(die=self.die)))
        self._battle_initiative(out)
        self._run_enemy(out)

    def _can_hurt(self, attacker: Fighter, defender: Fighter) -> bool:
        return self.die + attacker.attack + defender.defense > 0

    def _battle_initiative(self, out: list[Output]) -> None:
        assert self.player is not None and self.enemy is not None
        player_first = self._initiative(out, self.enemy.pentagon, "the enemy")
        self.next_actor = PLAYER if player_first else ENEMY

    def _initiative(self, out: list[Output], their_pentagon: int, them: str) -> bool:
        """d6 each, +1 for the stronger Pentagon, ties rolled again; True if the player goes first."""
        assert self.player is not None
        mine = pentagon_bonus(self.player.pentagon, their_pentagon)
        theirs = pentagon_bonus(their_pentagon, self.player.pentagon)
        while True:
            a, b = self._roll(6), self._roll(6)
            text = P.initiative(a, mine, b, theirs, them)
            if a + mine != b + theirs:
                first = a + mine > b + theirs
                who = "You attack" if first else f"{them[0].upper()}{them[1:]} attacks"
                out.append(P.say(f"{text} {who} first."))
                return first
            out.append(P.say(text + " A tie: rolling again."))

    def _run_enemy(self, out: list[Output]) -> None:
        while self.phase == FIGHT and self.next_actor == ENEMY:
            self._enemy_action(out)

    def _event_strikes(self) -> bool:
        if self.after_event:
            self.after_event = False  # the fight resumes for at least one action
            return False
        if not self.tables.events or self.settings.event_chance <= 0:
            return False
        return self.rng.random() < self.settings.event_chance

    def _player_action(self, out: list[Output], slot: int | None) -> None:
        assert self.player is not None and self.enemy is not None
        if self._event_strikes():
            if slot is not None:
                out.append(P.say(P.CAPSULE_NOT_USED))
            self._event(out)
            return
        if slot is not None and not self._use_capsule(self.player, slot, out):
            return
        self._battle_strike(self.player, self.enemy, out)

    def _enemy_action(self, out: list[Output]) -> None:
        assert self.player is not None and self.enemy is not None
        if self._event_strikes():
            self._event(out)
            return
        if self.answer_pending:
            self.answer_pending = False
            slot = self._enemy_capsule_roll(out)
            if slot is not None and self._pointless(slot):
                self.enemy.capsule_used = True
                out.append(P.say(P.pointless(slot, self._capsule(self.enemy, slot))))
            elif slot is not None and not self._use_capsule(self.enemy, slot, out):
                return
        self._battle_strike(self.enemy, self.player, out)

    def _battle_strike(self, attacker: Fighter, defender: Fighter, out: list[Output]) -> None:
        result = self._strike(attacker, defender, out)
        self.next_actor = defender.side
        self._tick(out)
        if result.damage and defender.vitality == 0:
            self._fall([defender], out)

    def _strike(self, attacker: Fighter, defender: Fighter, out: list[Output]) -> Strike:
        result = strike(self._roll(self.die), self.die, attacker.attack, defender.defense,
                        self._capsules_of(attacker.side), self._capsules_of(defender.side))
        defender.change_vitality(-result.damage)
        out.append(P.say(P.strike(attacker.side, result, defender)))
        return result

    def _tick(self, out: list[Output]) -> None:
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

    def _fall(self, fallen: list[Fighter], out: list[Output]) -> None:
        """Fighters at zero Vitality leave; count them, end the game or bring the next card."""
        self.effects.clear()
        self.answer_pending = False
        for fighter in fallen:
            fighter.fell_in_world = self.world_index
            if fighter.side == PLAYER:
                self.deaths += 1
                self.player = None
                out.append(P.say(P.player_falls(self.deaths, self.settings.deaths_per_world, self.world_index)))
            else:
                self.defeats += 1
                self.enemy = None
                out.append(P.say(P.enemy_falls(self.defeats, self.settings.enemies_per_world, self.world_index)))
        if self.deaths >= self.settings.deaths_per_world:
            self._lose(P.three_deaths(self.settings.deaths_per_world, self.world_index), out)
            return
        self._proceed(out)

    def _lose(self, reason: str, out: list[Output]) -> None:
        self.stage = LOST
        self.outcome = reason
        out.append(P.say(f"{reason} Game over."))

    # ------------------------------------------------------------------ capsules

    def _use_capsule(self, user: Fighter, slot: int, out: list[Output]) -> bool:
        """Put a capsule in play; False if its effect ended the fight before the attack."""
        capsule = self._capsule(user, slot)
        opponent = self.enemy if user.side == PLAYER else self.player
        user.capsule_used = True
        out.append(P.say(P.capsule_used(user.side, slot, capsule)))
        if capsule.vitality:
            user.change_vitality(capsule.vitality)
            out.append(P.say(P.vitality_now(user.side, user.vitality)))
        if capsule.opponent_vitality:
            if opponent is None:
                out.append(P.say(P.NO_EFFECT_ON_BOSS))
            else:
                opponent.change_vitality(capsule.opponent_vitality)
                out.append(P.say(P.vitality_now(opponent.side, opponent.vitality)))
        if capsule.brake:
            if opponent is None:
                out.append(P.say(P.NO_EFFECT_ON_BOSS))
            elif not opponent.capsule_used:
                opponent.capsule_used = True
                out.append(P.say(P.braked(opponent.side)))
        if capsule.actions != 0:
            self.effects.append(Effect(user.side, capsule, capsule.actions))
        if user.side == PLAYER and opponent is not None and not opponent.capsule_used:
            self.answer_pending = True
        fallen = [f for f in (self.player, self.enemy) if f is not None and f.vitality == 0]
        if fallen:
            if self.stage == BOSS_FIGHT:
                self._boss_kills(out)
            else:
                self._fall(fallen, out)
            return False
        return True

    def _capsule(self, fighter: Fighter, slot: int) -> Capsule:
        """The capsule in ``slot`` of the fighter's race row."""
        return self.tables.capsules[str(self.tables.row(fighter.race)[slot - 1])]

    def _pointless(self, slot: int) -> bool:
        """The enemy's rolled capsule would do nothing now, so "he will have lost its power"
        (manual): a capsule whose only effect is the brake, when the player has used theirs."""
        assert self.enemy is not None and self.player is not None
        capsule = self._capsule(self.enemy, slot)
        only_brake = replace(capsule, brake=False, say="", duration="turn") == Capsule(capsule.name)
        return capsule.brake and only_brake and self.player.capsule_used

    def _enemy_capsule_roll(self, out: list[Output]) -> int | None:
        """The enemy answers the player's capsule: a d6 on its race's row, again on an empty slot."""
        assert self.enemy is not None
        row = self.tables.row(self.enemy.race)
        if not any(row):
            out.append(P.say(P.ENEMY_HAS_NO_CAPSULES))
            return None
        misses: list[int] = []
        while True:
            roll = self._roll(6)
            if roll <= len(row) and row[roll - 1] is not None:
                if misses:
                    out.append(P.say(P.empty_slots(misses)))
                return roll
            misses.append(roll)

    # ------------------------------------------------------------------ events

    def _event(self, out: list[Output]) -> None:
        """An event stops the fight: the Pentagon, resistance, capsules cancelled, initiative again."""
        assert self.player is not None and self.enemy is not None
        self.events_seen += 1
        player, enemy = self.player, self.enemy
        goer = player if player.vitality <= enemy.vitality else enemy
        other = enemy if goer is player else player
        depth = other.pentagon
        events = self.tables.events
        found = [e for e in events if not e.depths or depth in e.depths] or list(events)
        event = self.rng.choices(found, weights=[e.weight for e in found])[0]
        dark = self.rng.random() < self.tables.dark_chance
        factor = 2 if dark else 1
        out.append(P.say(P.event_starts(goer.side, player.vitality == enemy.vitality, depth)))
        out.append(P.say(P.event_name(event.name, event.negative, dark)))
        if event.negative:
            for fighter in (player, enemy):
                needed = event.needed(fighter.pentagon)
                roll = self._roll(self.die)
                damage = 0 if roll >= needed else event.amounts[fighter.race] * factor
                fighter.change_vitality(-damage)
                out.append(P.say(P.resistance(fighter.side, roll, self.die, needed, damage,
                                              fighter.vitality)))
        else:
            gain = event.amounts[goer.race] * factor
            goer.change_vitality(gain)
            out.append(P.say(P.event_gain(goer.side, gain, goer.vitality)))
        if self.effects:
            out.append(P.say(P.cancelled([e.capsule.name for e in self.effects])))
            self.effects.clear()
        self.answer_pending = False  # the capsule it answered is cancelled: no answer comes
        self.after_event = True
        fallen = [f for f in (player, enemy) if f.vitality == 0]
        if fallen:
            self._fall(fallen, out)
            return
        out.append(P.say(P.INITIATIVE_AGAIN))
        self._battle_initiative(out)

    # ------------------------------------------------------------------ what the Boss and the referee provide

    def _proceed(self, out: list[Output]) -> None:
        """After a fighter came or fell: the next battle, the Boss, or a card awaited (engine.py)."""
        raise NotImplementedError

    def _boss_kills(self, out: list[Output]) -> None:
        """A capsule killed the fighter in the Boss fight (boss.py)."""
        raise NotImplementedError
