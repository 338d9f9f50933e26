"""The Boss of each World, and the bonus and extra screens between Worlds."""

from __future__ import annotations

from dataclasses import dataclass

from assistant.engine import Output
from assistant.games.msx_cards import phrases as P
from assistant.games.msx_cards.battle import Battle
from assistant.games.msx_cards.campaign import BATTLE, BONUS, BOSS_FIGHT, EXTRA, WON, Campaign
from assistant.games.msx_cards.combat import BOSS, PLAYER, strike


@dataclass
class BossFight:
    """A World's Boss, turn by turn (who strikes first, the turn), and the screens after it."""

    campaign: Campaign
    battle: Battle
    boss_first: bool = False
    boss_turn: int = 0
    bonus_done: bool = False

    # ------------------------------------------------------------------ the Boss

    def world_cleared(self, out: list[Output]) -> None:
        out.append(P.say(P.world_cleared(self.campaign.world_index)))
        if self.campaign.world.bonus and not self.bonus_done:
            self.campaign.stage = BONUS
            out.append(P.say(P.BONUS_SCREEN))
            return
        self._start_boss(out)

    def _start_boss(self, out: list[Output]) -> None:
        assert self.campaign.player is not None
        boss = self.campaign.world.boss
        self.campaign.stage = BOSS_FIGHT
        self.campaign.enemy = None
        self.campaign.effects.clear()
        self.battle.answer_pending = False
        self.campaign.player.capsule_used = False
        self.boss_turn = 1
        out.append(P.say(P.boss_intro(boss.name, boss.turns)))
        self.boss_first = not self.campaign.initiative(out, boss.pentagon, "the Boss")
        out.append(P.say(P.BOSS_WHITE if self.boss_first else P.BOSS_GRAY))
        self._run_boss(out)

    def _boss_acts(self) -> bool:
        return self.campaign.stage == BOSS_FIGHT and (self.boss_turn % 2 == 1) == self.boss_first

    def _boss_value(self) -> int:
        boss = self.campaign.world.boss
        return int((boss.white if self.boss_first else boss.gray)[self.boss_turn - 1])

    def _run_boss(self, out: list[Output]) -> None:
        while self._boss_acts():
            self._boss_attack(out)

    def _boss_attack(self, out: list[Output]) -> None:
        assert self.campaign.player is not None
        turn = self.boss_turn
        die = self.campaign.die
        result = strike(self.campaign.roll(die), die, self._boss_value(), self.campaign.player.defense,
                        (), self.campaign.capsules_of(PLAYER), attack_label=f"Boss attack on T{turn}")
        self.campaign.player.change_vitality(-result.damage)
        out.append(P.say(P.strike(BOSS, result, self.campaign.player)))
        self.campaign.tick(out)
        if self.campaign.player.vitality == 0:
            self.kills(out)
            return
        self._boss_turn_done(out)

    def kills(self, out: list[Output]) -> None:
        assert self.campaign.player is not None
        self.campaign.player.fell_to_boss = True
        self.campaign.player.fell_in_world = self.campaign.world_index
        self.campaign.lose(f"{P.LOST_TO_BOSS} {P.BOSS_ENDS_IT}", out)

    def player_turn(self, slot: int | None, out: list[Output]) -> None:
        assert self.campaign.player is not None
        if slot is not None and not self.battle.use_capsule(self.campaign.player, slot, out):
            return
        turn = self.boss_turn
        die = self.campaign.die
        result = strike(self.campaign.roll(die), die, self.campaign.player.attack, self._boss_value(),
                        self.campaign.capsules_of(PLAYER), (), defense_label=f"Boss defense on T{turn}")
        out.append(P.say(P.boss_hit(result, turn)))
        self.campaign.tick(out)
        if result.damage <= 0:
            self.campaign.lose(P.no_damage_to_boss(turn), out)
            return
        self._boss_turn_done(out)
        self._run_boss(out)

    def _boss_turn_done(self, out: list[Output]) -> None:
        self.boss_turn += 1
        if self.boss_turn <= self.campaign.world.boss.turns:
            return
        boss = self.campaign.world.boss
        if self.campaign.world_index + 1 >= len(self.campaign.tables.worlds):
            self.campaign.stage = WON
            self.campaign.outcome = P.mission_complete(self.campaign.tables.mission)
            out.append(P.say(P.boss_destroyed(boss.name)))
            out.append(P.say(self.campaign.outcome))
            return
        self.campaign.stage = EXTRA
        out.append(P.say(P.boss_destroyed(boss.name)))
        out.append(P.say(P.EXTRA_SCREEN))

    # ------------------------------------------------------------------ the screens between Worlds

    def screen_roll(self) -> list[Output]:
        assert self.campaign.player is not None
        bonus = self.campaign.stage == BONUS
        screen = self.campaign.tables.bonus if bonus else self.campaign.tables.extra
        roll = self.campaign.roll(screen.die)
        gain = max(roll + screen.plus, 0)
        self.campaign.player.change_vitality(gain)
        kind = "Bonus" if bonus else "Extra"
        text = P.screen_roll(kind, roll, screen.die, screen.plus, gain, self.campaign.player.vitality)
        out: list[Output] = [P.say(text)]
        if bonus:
            self.bonus_done = True
            self._start_boss(out)
        else:
            self._next_world(out)
        return out

    def _next_world(self, out: list[Output]) -> None:
        self.campaign.world_index += 1
        self.campaign.stage = BATTLE
        self.campaign.defeats = self.campaign.deaths = 0
        self.bonus_done = False
        self.campaign.enemy = None
        self.campaign.effects.clear()
        campaign = self.campaign
        out.append(P.say(P.world_intro(campaign.world_index, campaign.world, campaign.settings.enemies_per_world)))
