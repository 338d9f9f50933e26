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
from typing import ClassVar

from assistant.engine import Command, NotAllowed, Output, Say
from assistant.games.msx_cards import phrases as P
from assistant.games.msx_cards.battle import Battle
from assistant.games.msx_cards.boss import BossFight
from assistant.games.msx_cards.campaign import (
    BATTLE,
    BONUS,
    BOSS_FIGHT,
    EXTRA,
    FIGHT,
    LOST,
    NEED_ENEMY,
    NEED_FIGHTER,
    WON,
    Campaign,
    MsxSettings,
    Phase,
)
from assistant.games.msx_cards.combat import ENEMY, PLAYER, Effect, Fighter
from assistant.games.msx_cards.tables import Card, Tables, World
from assistant.games.parts import Held

NARRATOR = P.NARRATOR


class MsxCards:
    """The game. ``handle`` takes a Command; every roll is announced with its arithmetic. It
    holds the campaign (the state every stage shares), the battle and the Boss fight."""

    name: ClassVar[str] = "msx-cards"
    speakers: ClassVar[tuple[str, ...]] = (NARRATOR,)
    supports_undo: ClassVar[bool] = True

    def __init__(self, rng: random.Random, settings: MsxSettings | None = None) -> None:
        self.campaign = Campaign(rng, settings or MsxSettings())
        self.battle = Battle(self.campaign, self)
        self.boss = BossFight(self.campaign, self.battle)

    # ------------------------------------------------------------------ the parts, as read from outside

    rng: Held[random.Random] = Held("campaign")
    settings: Held[MsxSettings] = Held("campaign")
    world_index: Held[int] = Held("campaign")
    stage: Held[Phase] = Held("campaign")
    defeats: Held[int] = Held("campaign")
    deaths: Held[int] = Held("campaign")
    player: Held[Fighter | None] = Held("campaign")
    enemy: Held[Fighter | None] = Held("campaign")
    fighters: Held[list[Fighter]] = Held("campaign")
    effects: Held[list[Effect]] = Held("campaign")
    player_name: Held[str] = Held("campaign")
    outcome: Held[str] = Held("campaign")
    events_seen: Held[int] = Held("campaign")
    next_actor: Held[str] = Held("battle")
    boss_turn: Held[int] = Held("boss")
    boss_first: Held[bool] = Held("boss")

    @property
    def tables(self) -> Tables:
        return self.campaign.tables

    @property
    def world(self) -> World:
        return self.campaign.world

    @property
    def phase(self) -> Phase:
        return self.campaign.phase

    # ------------------------------------------------------------------ Game protocol

    def start(self) -> list[Output]:
        out: list[Output] = [P.say(P.welcome(self.tables.mission, len(self.tables.worlds)))]
        if self.tables.examples:
            out.append(P.say(P.example_note(self.tables.examples)))
        out.append(P.say(P.world_intro(self.world_index, self.world, self.settings.enemies_per_world)))
        out.append(P.say(P.FIRST_FIGHTER_HELP))
        return out

    def handle(self, command: Command) -> list[Output]:
        intent = command.intent
        if intent == "repeat":
            return [self.recap()]
        if intent == "status":
            return [P.say(self.status())]
        if intent not in self.allowed_intents():
            raise NotAllowed(self._why_not(intent))
        out = self._actions()[intent](command.slots)
        if intent in ("capsules", "name"):
            return out
        if not self.is_over():
            out.append(self._prompt())
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
            elif self.defeats < self.settings.enemies_per_world:
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
        self.proceed(out)
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
        deck = self.enemy_deck()
        if not deck:
            raise NotAllowed(P.NO_CARD_TO_DRAW)
        return self._bring(ENEMY, self.rng.choice(deck), drawn=True)

    def enemy_deck(self) -> list[Card]:
        """The cards an enemy is drawn from, in file order: not the one your fighter is, and none
        met in this game (a card is discarded when its Vitality reaches zero, the manual); when
        every card has been met, the discards come back, all but the enemy just defeated."""
        cards = self.tables.cards
        fresh = [c for c in cards if not any(f.is_card(c) for f in self.fighters)]
        if fresh:
            return fresh
        last = next((f for f in reversed(self.fighters) if f.side == ENEMY), None)
        return [c for c in cards if not any(f is not None and f.is_card(c) for f in (self.player, last))]

    def boss_kills(self, out: list[Output]) -> None:
        self.boss.kills(out)

    def proceed(self, out: list[Output]) -> None:
        """After a fighter came or fell: start the next battle, the Boss, or wait for a card."""
        if self.stage != BATTLE or self.player is None:
            return
        if self.defeats >= self.settings.enemies_per_world:
            self.boss.world_cleared(out)
        elif self.enemy is not None:
            self.battle.start(out)

    # ------------------------------------------------------------------ commands

    def _do_attack(self, slots: Mapping[str, str], slot: int | None = None) -> list[Output]:
        out: list[Output] = []
        if self.stage == BOSS_FIGHT:
            self.boss.player_turn(slot, out)
        else:
            self.battle.player_action(out, slot)
            self.battle.run_enemy(out)
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
            return self.boss.screen_roll()
        return self._do_attack(slots)

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
                self.boss.kills(out)
            else:
                self.battle.fall([fighter], out)
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
            if self.defeats >= self.settings.enemies_per_world or self.stage != BATTLE:
                return f"No more enemies in this World. {prompt}"
        if intent in ("attack", "capsule", "roll"):
            if phase == NEED_FIGHTER:
                return f"You have no fighter in play. {prompt}"
            if phase == NEED_ENEMY:
                return f"There is no enemy yet. {prompt}"
        if intent in ("capsules", "set_stat") and self.player is None:
            return f"You have no fighter in play. {prompt}"
        return f"Not now. {prompt}"

    def recap(self) -> Say:
        """What ``repeat`` says (and so the session after an undo or a resume): where the fight
        stands and what to say now. Never a roll read again: said again, it sounds like a new one."""
        if self.is_over():
            return P.say(self.status())
        if not self.fighters:
            return P.say(P.FIRST_FIGHTER_HELP)
        player, enemy = self.player, self.enemy
        parts = []
        if self.stage == BOSS_FIGHT:
            parts.append(f"Boss fight against {self.world.boss.name}, turn T{self.boss_turn} of "
                         f"{self.world.boss.turns}.")
        standing = P.standing(None if player is None else player.vitality, None if enemy is None else enemy.vitality,
                              self.campaign.capsules_of(PLAYER), self.campaign.capsules_of(ENEMY))
        return P.say(" ".join([*parts, standing, self._prompt().text]).strip())

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
            parts.append(f"Defeats {self.defeats} of {self.settings.enemies_per_world}, deaths {self.deaths} of "
                         f"{self.settings.deaths_per_world}.")
        if self.player is not None:
            parts.append(P.fighter_status(self.player, self.campaign.capsules_of(PLAYER)))
        if self.enemy is not None:
            parts.append(P.fighter_status(self.enemy, self.campaign.capsules_of(ENEMY)))
        parts.append(self._prompt().text)
        return " ".join(parts)


__all__ = ["BATTLE", "BONUS", "BOSS_FIGHT", "EXTRA", "FIGHT", "LOST", "NEED_ENEMY", "NEED_FIGHTER", "WON",
           "MsxCards", "MsxSettings"]
