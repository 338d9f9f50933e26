"""Battle: attacks between players (the Command Code, the attacker's secret shot, the
defender's shields), the Virus's attack in a breached room, and its termination."""

from __future__ import annotations

from assistant.engine import Say, Sound
from assistant.games.omega_virus import phrases as P
from assistant.games.omega_virus.mission import Mission
from assistant.games.omega_virus.state import BUTTONS, Attack, Defense, Phase


class Battle(Mission):
    """Attacks, shields and termination."""

    # ------------------------------------------------------------------ attacks

    def _press_attack_code(self, button: str) -> None:
        assert self.mover is not None
        if button == "R":
            self.entry = []
            self.phase = Phase.MOVE
            self._say_prompt()
            return
        self.entry.append(button)
        if len(self.entry) < 2:
            return
        digits = "".join(self.entry)
        self.entry = []
        target = self.board.target(digits)
        me, my_unit = self.mover
        if (target is None or target[0] == me or not self.players[target[0]].playing
                or (target[1] == "probe" and not self.players[target[0]].probe)):
            self._wrong()
            return
        color, unit = target
        self.attack = Attack(me, my_unit, color, unit)
        self.speech.announce([P.attacking(me, my_unit, color, unit)])
        self.speech.prompt_is_announcement()
        if self.settings.attack_shot == "random":
            self._shoot(self.rng.choice(BUTTONS))
        else:
            self._enter(Phase.SHOT)

    def _press_shot(self, button: str) -> None:
        self.deadline_ms = None
        self._shoot(button)

    def _shoot(self, shot: str) -> None:
        assert self.attack is not None
        me, my_unit, color, unit = self.attack.attacker, self.attack.unit, self.attack.target, self.attack.target_unit
        n = self.rng.randint(1, 3)
        # "A Probe is weaker in battle than your Commando" (rulebook; how is not known): the
        # defender of a Probe's attack energizes more shields, a Probe attacked fewer.
        n += self.settings.probe_weakness * ((my_unit == "probe") - (unit == "probe"))
        n = min(max(n, 1), 3)
        self.defense = Defense(color, unit, n, shot, (me, my_unit))
        self._enter(Phase.SHIELDS)
        self.speech.prompt([P.energize(color, n)])

    # ------------------------------------------------------------------ shields

    def _press_shield(self, button: str) -> None:
        assert self.defense is not None
        if button not in self.defense.pressed:
            self.defense.pressed.append(button)
        if len(self.defense.pressed) >= self.defense.n:
            self.deadline_ms = None
            self._resolve_defense()

    def _resolve_defense(self) -> None:
        defense = self.defense
        assert defense is not None
        self.defense = None
        blocked = defense.hidden in defense.pressed
        if defense.attacker is None:
            if blocked:
                self.speech.announce([P.I_MISSED])
            else:
                self.speech.announce([self._virus_wins(defense.color, defense.unit)])
            self._finish_explore()
            return
        attacker = defense.attacker[0]
        if blocked:
            self.speech.announce([P.missed(attacker)])
        else:
            self.speech.announce([self._attack_wins(attacker, defense.color, defense.unit)])
        self._end_move()

    def _virus_wins(self, color: str, unit: str) -> Say:
        player = self.players[color]
        options: list[str] = list(player.losable())
        if player.probe:
            options.append("probe")
        options.append("teleport")
        choice = self.rng.choice(options)
        if choice == "teleport":
            return P.teleported(color, unit, self._random_bay(), P.VIRUS)
        self._return(player, choice)
        return P.destroyed(color, choice, P.VIRUS)

    def _attack_wins(self, attacker: str, color: str, unit: str) -> Say:
        thief, victim = self.players[attacker], self.players[color]
        if unit == "probe":
            outcome = self.rng.choices(["probe", "item", "teleport"], [0.5, 0.3, 0.2])[0]
        else:
            outcome = self.rng.choices(["steal", "destroy", "teleport"], [0.5, 0.25, 0.25])[0]
        if outcome == "item":
            outcome = "steal"
        if outcome == "probe":
            self._return(victim, "probe")
            return P.destroyed(color, "probe", P.BSAT1)
        if outcome == "steal":
            loot = [i for i in victim.losable() if not thief.holds(i)]
            if loot:
                item = self.rng.choice(loot)
                victim.lose(item)
                thief.take(item)
                return P.steals(attacker, item)
            outcome = "destroy"
        if outcome == "destroy" and victim.losable():
            item = self.rng.choice(victim.losable())
            self._return(victim, item)
            return P.destroyed(color, item, P.BSAT1)
        return P.teleported(color, unit, self._random_bay(), P.BSAT1)

    # ------------------------------------------------------------------ the Virus

    def _press_terminate(self, button: str) -> None:
        self.deadline_ms = None
        assert self.mover is not None
        if button == self.termination_button:
            self.winner = self.mover[0]
            self.speech.announce([P.YOU_WIN])
            self._game_over()
        else:
            self.speech.announce([Sound("buzz"), P.WRONG])
            self._end_move()
