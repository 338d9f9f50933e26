"""The MSX card battle refereed out loud: players say what the cards show, the engine rolls.

One player fights the enemies of each World in turn (three defeats to clear it), then the
World's Boss; three deaths in a World, or one to a Boss, end the game. The engine rolls
every die (initiative d6, attack die by World, capsule d6, resistance rolls), decides the
events, keeps the Vitality and the counters, and says each roll with its arithmetic.

It is pure: dice come from the injected ``random.Random``; no clock, no audio. The same
seed and commands give the same game, which is what undo and resume rely on.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import ClassVar

from assistant.engine import Command, NotAllowed, Output, Say
from assistant.games.msx_cards import phrases as P
from assistant.games.msx_cards.combat import (
    BOSS,
    ENEMY,
    PLAYER,
    Effect,
    Fighter,
    Strike,
    pentagon_bonus,
    strike,
)
from assistant.games.msx_cards.tables import Capsule, Card, Tables, World

NARRATOR = P.NARRATOR
DEFAULT_EVENT_CHANCE = 0.1

# Stages of a World; the phase (what is awaited) is derived from the stage and the fighters.
BATTLE, BONUS, BOSS_FIGHT, EXTRA, WON, LOST = "battle", "bonus", "boss", "extra", "won", "lost"
NEED_FIGHTER, NEED_ENEMY, FIGHT = "fighter", "enemy", "fight"


class MsxCards:
    """The game. ``handle`` takes a Command; every roll is announced with its arithmetic."""

    name: ClassVar[str] = "msx-cards"
    speakers: ClassVar[tuple[str, ...]] = (NARRATOR,)
    supports_undo: ClassVar[bool] = True

    def __init__(self, rng: random.Random, tables: Tables, event_chance: float = DEFAULT_EVENT_CHANCE,
                 enemies_per_world: int = 3, deaths_per_world: int = 3) -> None:
        self.rng = rng
        self.tables = tables
        self.event_chance = event_chance
        self.enemies_per_world = enemies_per_world
        self.deaths_per_world = deaths_per_world
        self.world_index = 0
        self.stage = BATTLE
        self.defeats = 0
        self.deaths = 0
        self.player: Fighter | None = None
        self.enemy: Fighter | None = None
        self.fighters: list[Fighter] = []
        self.effects: list[Effect] = []
        self.next_actor = PLAYER
        self.answer_pending = False
        self.after_event = False
        self.boss_first = False
        self.boss_turn = 0
        self.bonus_done = False
        self.player_name = ""
        self.outcome = ""
        self.events_seen = 0
        self._last: list[Output] = []

    # ------------------------------------------------------------------ Game protocol

    def start(self) -> list[Output]:
        out: list[Output] = [P.say(P.welcome(self.tables.mission, len(self.tables.worlds)))]
        if self.tables.examples:
            out.append(P.say(P.example_note(self.tables.examples)))
        out.append(P.say(P.world_intro(self.world_index, self.world, self.enemies_per_world)))
        out.append(P.say(P.FIRST_FIGHTER_HELP))
        self._last = out
        return out

    def handle(self, command: Command) -> list[Output]:
        intent = command.intent
        if intent == "repeat":
            return list(self._last) or [self._prompt()]
        if intent == "status":
            return [P.say(self.status())]
        if intent not in self.allowed_intents():
            raise NotAllowed(self._why_not(intent))
        out = self._actions()[intent](command.slots)
        if intent in ("capsules", "name"):
            return out
        if not self.is_over():
            out.append(self._prompt())
        self._last = out
        return out

    def advance(self, seconds: float) -> list[Output]:
        return []  # nothing in this game happens by the clock

    def next_event_in(self) -> float | None:
        return None

    def clock_running(self) -> bool:
        return False

    def is_over(self) -> bool:
        return self.stage in (WON, LOST)

    def allowed_intents(self) -> frozenset[str]:
        phase = self.phase
        if phase in (WON, LOST):
            return frozenset({"status", "repeat"})
        allowed = {"status", "repeat", "name"}
        if self.player is not None:
            allowed |= {"capsules", "set_stat"}
        if phase == NEED_FIGHTER:
            allowed |= {"fighter", "fighter_card"}
            if self.enemy is not None:
                allowed.add("set_stat")
            elif self.defeats < self.enemies_per_world:
                allowed |= {"enemy", "enemy_card", "draw_enemy"}
        elif phase == NEED_ENEMY:
            allowed |= {"enemy", "enemy_card", "draw_enemy"}
        elif phase in (FIGHT, BOSS_FIGHT):
            allowed |= {"attack", "roll"}
            if self.player is not None and not self.player.capsule_used:
                allowed.add("capsule")
        elif phase in (BONUS, EXTRA):
            allowed.add("roll")
        return frozenset(allowed)

    # ------------------------------------------------------------------ state

    @property
    def world(self) -> World:
        return self.tables.worlds[self.world_index]

    @property
    def die(self) -> int:
        return int(self.world.die)

    @property
    def phase(self) -> str:
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

    # ------------------------------------------------------------------ entering fighters

    def _card_from(self, slots: Mapping[str, str]) -> Card:
        return Card("", slots["race"], int(slots["attack"]), int(slots["defense"]),
                    int(slots["vitality"]), int(slots["pentagon"]))

    def _card_numbered(self, slots: Mapping[str, str]) -> Card:
        number = int(slots["card"])
        card = self.tables.card(number)
        if card is None:
            numbers = sorted(c.number for c in self.tables.cards if c.number is not None)
            known = (f"The cards go from {numbers[0]} to {numbers[-1]}." if numbers
                     else "The card file is empty.")
            raise NotAllowed(f"There is no card {number} in the card file. {known}")
        return card

    def _enter(self, side: str, card: Card) -> Fighter:
        fighter = Fighter(side, card.race, card.attack, card.defense, card.vitality, card.pentagon,
                          card.name, card.skill, card.number, self.world_index)
        self.fighters.append(fighter)
        if side == PLAYER:
            self.player = fighter
        else:
            self.enemy = fighter
        return fighter

    def _bring(self, side: str, card: Card, drawn: bool = False) -> list[Output]:
        out: list[Output] = [P.say(P.entered(self._enter(side, card), drawn))]
        self._proceed(out)
        return out

    def _actions(self) -> dict[str, Callable[[Mapping[str, str]], list[Output]]]:
        return {
            "fighter": self._do_fighter, "fighter_card": self._do_fighter_card, "enemy": self._do_enemy,
            "enemy_card": self._do_enemy_card, "draw_enemy": self._do_draw_enemy, "attack": self._do_attack,
            "capsule": self._do_capsule, "roll": self._do_roll, "set_stat": self._do_set_stat,
            "capsules": self._do_capsules, "name": self._do_name,
        }

    def _do_fighter(self, slots: Mapping[str, str]) -> list[Output]:
        return self._bring(PLAYER, self._card_from(slots))

    def _do_fighter_card(self, slots: Mapping[str, str]) -> list[Output]:
        return self._bring(PLAYER, self._card_numbered(slots))

    def _do_enemy(self, slots: Mapping[str, str]) -> list[Output]:
        return self._bring(ENEMY, self._card_from(slots))

    def _do_enemy_card(self, slots: Mapping[str, str]) -> list[Output]:
        return self._bring(ENEMY, self._card_numbered(slots))

    def _do_draw_enemy(self, slots: Mapping[str, str]) -> list[Output]:
        if not self.tables.cards:
            raise NotAllowed("The card file has no cards to draw. Say the enemy's numbers instead.")
        return self._bring(ENEMY, self.rng.choice(self.tables.cards), drawn=True)

    def _proceed(self, out: list[Output]) -> None:
        """After a fighter came or fell: start the next battle, the Boss, or wait for a card."""
        if self.stage != BATTLE or self.player is None:
            return
        if self.defeats >= self.enemies_per_world:
            self._world_cleared(out)
        elif self.enemy is not None:
            self._new_battle(out)

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
        if not self.tables.events or self.event_chance <= 0:
            return False
        return self.rng.random() < self.event_chance

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
                out.append(P.say(P.player_falls(self.deaths, self.deaths_per_world, self.world_index)))
            else:
                self.defeats += 1
                self.enemy = None
                out.append(P.say(P.enemy_falls(self.defeats, self.enemies_per_world, self.world_index)))
        if self.deaths >= self.deaths_per_world:
            self._lose(P.three_deaths(self.deaths_per_world, self.world_index), out)
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

    # ------------------------------------------------------------------ the Boss

    def _world_cleared(self, out: list[Output]) -> None:
        out.append(P.say(P.world_cleared(self.world_index)))
        if self.world.bonus and not self.bonus_done:
            self.stage = BONUS
            out.append(P.say(P.BONUS_SCREEN))
            return
        self._start_boss(out)

    def _start_boss(self, out: list[Output]) -> None:
        assert self.player is not None
        boss = self.world.boss
        self.stage = BOSS_FIGHT
        self.enemy = None
        self.effects.clear()
        self.answer_pending = False
        self.player.capsule_used = False
        self.boss_turn = 1
        out.append(P.say(P.boss_intro(boss.name, boss.turns)))
        self.boss_first = not self._initiative(out, boss.pentagon, "the Boss")
        out.append(P.say(P.BOSS_WHITE if self.boss_first else P.BOSS_GRAY))
        self._run_boss(out)

    def _boss_acts(self) -> bool:
        return self.stage == BOSS_FIGHT and (self.boss_turn % 2 == 1) == self.boss_first

    def _boss_value(self) -> int:
        boss = self.world.boss
        return int((boss.white if self.boss_first else boss.gray)[self.boss_turn - 1])

    def _run_boss(self, out: list[Output]) -> None:
        while self._boss_acts():
            self._boss_attack(out)

    def _boss_attack(self, out: list[Output]) -> None:
        assert self.player is not None
        turn = self.boss_turn
        result = strike(self._roll(self.die), self.die, self._boss_value(), self.player.defense,
                        (), self._capsules_of(PLAYER), attack_label=f"Boss attack on T{turn}")
        self.player.change_vitality(-result.damage)
        out.append(P.say(P.strike(BOSS, result, self.player)))
        self._tick(out)
        if self.player.vitality == 0:
            self._boss_kills(out)
            return
        self._boss_turn_done(out)

    def _boss_kills(self, out: list[Output]) -> None:
        assert self.player is not None
        self.player.fell_to_boss = True
        self.player.fell_in_world = self.world_index
        self._lose(P.LOST_TO_BOSS, out)

    def _boss_player_turn(self, slot: int | None, out: list[Output]) -> None:
        assert self.player is not None
        if slot is not None and not self._use_capsule(self.player, slot, out):
            return
        turn = self.boss_turn
        result = strike(self._roll(self.die), self.die, self.player.attack, self._boss_value(),
                        self._capsules_of(PLAYER), (), defense_label=f"Boss defense on T{turn}")
        out.append(P.say(P.boss_hit(result, turn)))
        self._tick(out)
        if result.damage <= 0:
            self._lose(P.no_damage_to_boss(turn), out)
            return
        self._boss_turn_done(out)
        self._run_boss(out)

    def _boss_turn_done(self, out: list[Output]) -> None:
        self.boss_turn += 1
        if self.boss_turn <= self.world.boss.turns:
            return
        boss = self.world.boss
        if self.world_index + 1 >= len(self.tables.worlds):
            self.stage = WON
            self.outcome = P.mission_complete(self.tables.mission)
            out.append(P.say(P.boss_destroyed(boss.name)))
            out.append(P.say(self.outcome))
            return
        self.stage = EXTRA
        out.append(P.say(P.boss_destroyed(boss.name)))
        out.append(P.say(P.EXTRA_SCREEN))

    # ------------------------------------------------------------------ commands

    def _do_attack(self, slots: Mapping[str, str], slot: int | None = None) -> list[Output]:
        out: list[Output] = []
        if self.stage == BOSS_FIGHT:
            self._boss_player_turn(slot, out)
        else:
            self._player_action(out, slot)
            self._run_enemy(out)
        return out

    def _do_capsule(self, slots: Mapping[str, str]) -> list[Output]:
        assert self.player is not None
        slot = int(slots["slot"])
        row = self.tables.row(self.player.race)
        if slot > len(row):
            raise NotAllowed(f"The {self.player.race} capsule row has {len(row)} slots.")
        if row[slot - 1] is None:
            raise NotAllowed(f"Slot {slot} of the {self.player.race} capsule row is empty. "
                             "Say which capsules do I have.")
        return self._do_attack(slots, slot)

    def _do_roll(self, slots: Mapping[str, str]) -> list[Output]:
        if self.stage in (BONUS, EXTRA):
            return self._screen_roll()
        return self._do_attack(slots)

    def _screen_roll(self) -> list[Output]:
        assert self.player is not None
        bonus = self.stage == BONUS
        screen = self.tables.bonus if bonus else self.tables.extra
        roll = self._roll(screen.die)
        gain = max(roll + screen.plus, 0)
        self.player.change_vitality(gain)
        kind = "Bonus" if bonus else "Extra"
        text = P.screen_roll(kind, roll, screen.die, screen.plus, gain, self.player.vitality)
        out: list[Output] = [P.say(text)]
        if bonus:
            self.bonus_done = True
            self._start_boss(out)
        else:
            self._next_world(out)
        return out

    def _next_world(self, out: list[Output]) -> None:
        self.world_index += 1
        self.stage = BATTLE
        self.defeats = self.deaths = 0
        self.bonus_done = False
        self.enemy = None
        self.effects.clear()
        out.append(P.say(P.world_intro(self.world_index, self.world, self.enemies_per_world)))

    def _do_set_stat(self, slots: Mapping[str, str]) -> list[Output]:
        who, stat, value = slots["who"], slots["stat"], int(slots["value"])
        fighter = self.player if who == PLAYER else self.enemy
        if fighter is None:
            raise NotAllowed("There is no enemy card in play." if who == ENEMY
                             else "You have no fighter in play.")
        if stat == "vitality" and value < 0:
            raise NotAllowed("Vitality cannot be below zero.")
        if stat == "vitality" and value == 0 and self.stage not in (BATTLE, BOSS_FIGHT):
            raise NotAllowed("Vitality must be at least 1 here.")
        if stat == "pentagon" and value < 0:
            raise NotAllowed("Pentagon resistance cannot be below zero.")
        if stat == "vitality":
            fighter.change_vitality(value - fighter.vitality)
        else:
            setattr(fighter, stat, value)
        out: list[Output] = [P.say(P.stat_set(who, stat, value))]
        if fighter.vitality == 0:
            if self.stage == BOSS_FIGHT:
                self._boss_kills(out)
            else:
                self._fall([fighter], out)
        return out

    def _do_capsules(self, slots: Mapping[str, str]) -> list[Output]:
        assert self.player is not None
        row = self.tables.row(self.player.race)
        names = [None if s is None else self.tables.capsules[s] for s in row]
        return [P.say(P.capsule_list(self.player.race, names, self.player.capsule_used))]

    def _do_name(self, slots: Mapping[str, str]) -> list[Output]:
        self.player_name = slots["name"]
        return [P.say(f"Hello {self.player_name}."), self._prompt()]

    # ------------------------------------------------------------------ words

    def _prompt(self) -> Say:
        phase = self.phase
        capsule = self.player is not None and not self.player.capsule_used
        if phase == NEED_FIGHTER:
            text = P.NEXT_FIGHTER if any(f.side == PLAYER for f in self.fighters) else P.FIRST_FIGHTER
        elif phase == NEED_ENEMY:
            text = P.NEXT_ENEMY
        elif phase == FIGHT:
            text = P.YOUR_TURN_CAPSULE if capsule else P.YOUR_TURN
        elif phase == BOSS_FIGHT:
            text = P.boss_turn_prompt(self.boss_turn, capsule)
        elif phase == BONUS:
            text = P.roll_prompt("Bonus", self.tables.bonus.die)
        elif phase == EXTRA:
            text = P.roll_prompt("Extra", self.tables.extra.die)
        else:
            text = self.outcome
        if self.player_name and phase in (FIGHT, BOSS_FIGHT, NEED_FIGHTER):
            first = text[0] if text[1].isdigit() else text[0].lower()  # "T4 is your turn" keeps its T
            text = f"{self.player_name}, {first}{text[1:]}"
        return P.say(text)

    def _why_not(self, intent: str) -> str:
        phase = self.phase
        if phase in (WON, LOST):
            return "The game is over. Say new game to play again."
        prompt = self._prompt().text
        if intent == "capsule" and self.player is not None and self.player.capsule_used:
            return f"You have used your capsule in this battle. {prompt}"
        if intent in ("fighter", "fighter_card") and self.player is not None:
            return f"Your fighter is still in play, with vitality {self.player.vitality}. {prompt}"
        if intent in ("enemy", "enemy_card", "draw_enemy"):
            if self.enemy is not None:
                return f"The enemy still has vitality {self.enemy.vitality}: defeat it first. {prompt}"
            if self.defeats >= self.enemies_per_world or self.stage != BATTLE:
                return f"No more enemies in this World. {prompt}"
        if intent in ("attack", "capsule", "roll"):
            if phase == NEED_FIGHTER:
                return f"You have no fighter in play. {prompt}"
            if phase == NEED_ENEMY:
                return f"There is no enemy yet. {prompt}"
        if intent in ("capsules", "set_stat") and self.player is None:
            return f"You have no fighter in play. {prompt}"
        return f"Not now. {prompt}"

    def status(self) -> str:
        if self.stage == WON:
            return f"{self.outcome} {len(self.tables.worlds)} Worlds passed."
        if self.stage == LOST:
            return f"Game over in {P.world_label(self.world_index, self.world)}. {self.outcome}"
        parts = [P.where(self.world_index, len(self.tables.worlds), self.world)]
        if self.stage == BOSS_FIGHT:
            parts.append(f"Boss fight against {self.world.boss.name}: turn T{self.boss_turn} of "
                         f"{self.world.boss.turns}.")
        else:
            parts.append(f"Defeats {self.defeats} of {self.enemies_per_world}, deaths {self.deaths} of "
                         f"{self.deaths_per_world}.")
        if self.player is not None:
            parts.append(P.fighter_status(self.player, self._capsules_of(PLAYER)))
        if self.enemy is not None:
            parts.append(P.fighter_status(self.enemy, self._capsules_of(ENEMY)))
        parts.append(self._prompt().text)
        return " ".join(parts)

