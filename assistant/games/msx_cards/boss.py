"""The Boss of each World, and the bonus and extra screens between Worlds."""

from __future__ import annotations

from assistant.engine import Output
from assistant.games.msx_cards import phrases as P
from assistant.games.msx_cards.battle import BATTLE, BONUS, BOSS_FIGHT, EXTRA, WON, Battle
from assistant.games.msx_cards.combat import BOSS, PLAYER, strike


class BossFight(Battle):
    """A World's Boss, turn by turn, and the screens after it."""

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

    # ------------------------------------------------------------------ the screens between Worlds

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
        out.append(P.say(P.world_intro(self.world_index, self.world, self.settings.enemies_per_world)))
