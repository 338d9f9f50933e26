"""The battle of the MSX card game: initiative, strikes, capsules and events, until a
fighter falls. The engine (``engine.py``) holds it beside the Boss (``boss.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Protocol

from assistant.engine import Output
from assistant.games.msx_cards import phrases as P
from assistant.games.msx_cards.campaign import BOSS_FIGHT, FIGHT, Campaign
from assistant.games.msx_cards.combat import ENEMY, PLAYER, Effect, Fighter, Strike, strike
from assistant.games.msx_cards.tables import Capsule


class Referee(Protocol):
    """What the referee (engine.py) does for a battle when a fighter came or fell."""

    def proceed(self, out: list[Output]) -> None:
        """The next battle, the Boss, or a card awaited."""

    def boss_kills(self, out: list[Output]) -> None:
        """A capsule killed the fighter in the Boss fight."""


@dataclass
class Battle:
    """The battle between the fighter in play and the enemy: who acts next, and whether the
    enemy still owes an answer to the player's capsule (an event in between does not take it
    away) or the fight just resumed after an event."""

    campaign: Campaign
    referee: Referee = field(repr=False, compare=False)
    next_actor: str = PLAYER
    answer_pending: bool = False
    after_event: bool = False

    def start(self, out: list[Output]) -> None:
        assert self.campaign.player is not None and self.campaign.enemy is not None
        self.campaign.player.capsule_used = self.campaign.enemy.capsule_used = False
        self.campaign.effects.clear()
        self.answer_pending = False
        self.after_event = False
        player, enemy = self.campaign.player, self.campaign.enemy
        if not self._can_hurt(player, enemy) and not self._can_hurt(enemy, player):
            out.append(P.say(P.STALEMATE.format(die=self.campaign.die)))
        self._battle_initiative(out)
        self.run_enemy(out)

    def _can_hurt(self, attacker: Fighter, defender: Fighter) -> bool:
        return self.campaign.die + attacker.attack + defender.defense > 0

    def _battle_initiative(self, out: list[Output]) -> None:
        assert self.campaign.player is not None and self.campaign.enemy is not None
        player_first = self.campaign.initiative(out, self.campaign.enemy.pentagon, "the enemy")
        self.next_actor = PLAYER if player_first else ENEMY

    def run_enemy(self, out: list[Output]) -> None:
        while self.campaign.phase == FIGHT and self.next_actor == ENEMY:
            self._enemy_action(out)

    def _event_strikes(self) -> bool:
        if self.after_event:
            self.after_event = False  # the fight resumes for at least one action
            return False
        if not self.campaign.tables.events or self.campaign.settings.event_chance <= 0:
            return False
        return self.campaign.rng.random() < self.campaign.settings.event_chance

    def player_action(self, out: list[Output], slot: int | None) -> None:
        assert self.campaign.player is not None and self.campaign.enemy is not None
        if self._event_strikes():
            if slot is not None:
                out.append(P.say(P.CAPSULE_NOT_USED))
            self._event(out)
            return
        if slot is not None and not self.use_capsule(self.campaign.player, slot, out):
            return
        self._battle_strike(self.campaign.player, self.campaign.enemy, out)

    def _enemy_action(self, out: list[Output]) -> None:
        assert self.campaign.player is not None and self.campaign.enemy is not None
        if self._event_strikes():
            self._event(out)
            return
        if self.answer_pending:
            self.answer_pending = False
            slot = self._enemy_capsule_roll(out)
            if slot is not None and self._pointless(slot):
                self.campaign.enemy.capsule_used = True
                out.append(P.say(P.pointless(slot, self.campaign.capsule(self.campaign.enemy, slot))))
            elif slot is not None and not self.use_capsule(self.campaign.enemy, slot, out):
                return
        self._battle_strike(self.campaign.enemy, self.campaign.player, out)

    def _battle_strike(self, attacker: Fighter, defender: Fighter, out: list[Output]) -> None:
        result = self._strike(attacker, defender, out)
        self.next_actor = defender.side
        self.campaign.tick(out)
        if result.damage and defender.vitality == 0:
            self.fall([defender], out)

    def _strike(self, attacker: Fighter, defender: Fighter, out: list[Output]) -> Strike:
        result = strike(self.campaign.roll(self.campaign.die), self.campaign.die, attacker.attack, defender.defense,
                        self.campaign.capsules_of(attacker.side), self.campaign.capsules_of(defender.side))
        defender.change_vitality(-result.damage)
        out.append(P.say(P.strike(attacker.side, result, defender)))
        return result

    def fall(self, fallen: list[Fighter], out: list[Output]) -> None:
        """Fighters at zero Vitality leave; count them, end the game or bring the next card."""
        campaign = self.campaign
        campaign.effects.clear()
        self.answer_pending = False
        for fighter in fallen:
            fighter.fell_in_world = self.campaign.world_index
            if fighter.side == PLAYER:
                self.campaign.deaths += 1
                self.campaign.player = None
                out.append(P.say(P.player_falls(campaign.deaths, campaign.settings.deaths_per_world,
                                                campaign.world_index)))
            else:
                self.campaign.defeats += 1
                self.campaign.enemy = None
                out.append(P.say(P.enemy_falls(campaign.defeats, campaign.settings.enemies_per_world,
                                               campaign.world_index)))
        if self.campaign.deaths >= self.campaign.settings.deaths_per_world:
            campaign.lose(P.three_deaths(campaign.settings.deaths_per_world, campaign.world_index), out)
            return
        self.referee.proceed(out)

    # ------------------------------------------------------------------ capsules

    def use_capsule(self, user: Fighter, slot: int, out: list[Output]) -> bool:
        """Put a capsule in play; False if its effect ended the fight before the attack."""
        capsule = self.campaign.capsule(user, slot)
        opponent = self.campaign.enemy if user.side == PLAYER else self.campaign.player
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
            self.campaign.effects.append(Effect(user.side, capsule, capsule.actions))
        if user.side == PLAYER and opponent is not None and not opponent.capsule_used:
            self.answer_pending = True
        fallen = [f for f in (self.campaign.player, self.campaign.enemy) if f is not None and f.vitality == 0]
        if fallen:
            if self.campaign.stage == BOSS_FIGHT:
                self.referee.boss_kills(out)
            else:
                self.fall(fallen, out)
            return False
        return True

    def _pointless(self, slot: int) -> bool:
        """The enemy's rolled capsule would do nothing now, so "he will have lost its power"
        (manual): a capsule whose only effect is the brake, when the player has used theirs."""
        assert self.campaign.enemy is not None and self.campaign.player is not None
        capsule = self.campaign.capsule(self.campaign.enemy, slot)
        only_brake = replace(capsule, brake=False, say="", duration="turn") == Capsule(capsule.name)
        return capsule.brake and only_brake and self.campaign.player.capsule_used

    def _enemy_capsule_roll(self, out: list[Output]) -> int | None:
        """The enemy answers the player's capsule: a d6 on its race's row, again on an empty slot."""
        assert self.campaign.enemy is not None
        row = self.campaign.tables.row(self.campaign.enemy.race)
        if not any(row):
            out.append(P.say(P.ENEMY_HAS_NO_CAPSULES))
            return None
        misses: list[int] = []
        while True:
            roll = self.campaign.roll(6)
            if roll <= len(row) and row[roll - 1] is not None:
                if misses:
                    out.append(P.say(P.empty_slots(misses)))
                return roll
            misses.append(roll)

    # ------------------------------------------------------------------ events

    def _event(self, out: list[Output]) -> None:
        """An event stops the fight: the Pentagon, resistance, capsules cancelled, initiative again."""
        assert self.campaign.player is not None and self.campaign.enemy is not None
        self.campaign.events_seen += 1
        player, enemy = self.campaign.player, self.campaign.enemy
        goer = player if player.vitality <= enemy.vitality else enemy
        other = enemy if goer is player else player
        depth = other.pentagon
        events = self.campaign.tables.events
        found = [e for e in events if not e.depths or depth in e.depths] or list(events)
        event = self.campaign.rng.choices(found, weights=[e.weight for e in found])[0]
        dark = self.campaign.rng.random() < self.campaign.tables.dark_chance
        factor = 2 if dark else 1
        out.append(P.say(P.event_starts(goer.side, player.vitality == enemy.vitality, depth)))
        out.append(P.say(P.event_name(event.name, event.negative, dark)))
        if event.negative:
            for fighter in (player, enemy):
                needed = event.needed(fighter.pentagon)
                roll = self.campaign.roll(self.campaign.die)
                damage = 0 if roll >= needed else event.amounts[fighter.race] * factor
                fighter.change_vitality(-damage)
                out.append(P.say(P.resistance(fighter.side, roll, self.campaign.die, needed, damage,
                                              fighter.vitality)))
        else:
            gain = event.amounts[goer.race] * factor
            goer.change_vitality(gain)
            out.append(P.say(P.event_gain(goer.side, gain, goer.vitality)))
        if self.campaign.effects:
            out.append(P.say(P.cancelled([e.capsule.name for e in self.campaign.effects])))
            self.campaign.effects.clear()
        # An answer still owed stays owed: the event cancels the capsules of the fighters whose
        # button is red, and the enemy's is still green (the manual), so it answers on its next action.
        self.after_event = True
        fallen = [f for f in (player, enemy) if f.vitality == 0]
        if fallen:
            self.fall(fallen, out)
            return
        out.append(P.say(P.INITIATIVE_AGAIN))
        self._battle_initiative(out)
