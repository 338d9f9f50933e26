"""Battle: attacks between players (the Command Code, the attacker's secret shot, the
defender's shields), the Virus's attack in a breached room, and its termination."""

from __future__ import annotations

from assistant.engine import Say, Sound
from assistant.games.omega_virus import phrases as P
from assistant.games.omega_virus.state import BUTTONS, Attack, Defense, Phase
from assistant.games.omega_virus.station import Moves, Station


class Battle:
    """Attacks, shields and termination: the attack declared and waiting for its shot, and
    the shields being energized (against another player or the Virus)."""

    def __init__(self, station: Station, moves: Moves) -> None:
        self.station = station
        self.moves = moves
        self.attack: Attack | None = None
        self.defense: Defense | None = None

    # ------------------------------------------------------------------ attacks

    def press_attack_code(self, button: str) -> None:
        assert self.station.mover is not None
        if button == "R":
            self.station.entry = []
            self.station.phase = Phase.MOVE
            self.moves.say_prompt()
            return
        self.station.entry.append(button)
        if len(self.station.entry) < 2:
            return
        digits = "".join(self.station.entry)
        self.station.entry = []
        target = self.station.board.target(digits)
        me, my_unit = self.station.mover
        if (target is None or target[0] == me or not self.station.players[target[0]].playing
                or (target[1] == "probe" and not self.station.players[target[0]].probe)):
            self.moves.wrong()
            return
        color, unit = target
        self.attack = Attack(me, my_unit, color, unit)
        self.station.speech.announce([P.attacking(me, my_unit, color, unit)])
        self.station.speech.prompt_is_announcement()
        if self.station.settings.attack_shot == "random":
            self.shoot(self.station.rng.choice(BUTTONS))
        else:
            self.moves.enter(Phase.SHOT)

    def press_shot(self, button: str) -> None:
        self.station.deadline_ms = None
        self.shoot(button)

    def shoot(self, shot: str) -> None:
        assert self.attack is not None
        me, my_unit, color, unit = self.attack.attacker, self.attack.unit, self.attack.target, self.attack.target_unit
        n = self.station.rng.randint(1, 3)
        # "A Probe is weaker in battle than your Commando" (rulebook; how is not known): the
        # defender of a Probe's attack energizes more shields, a Probe attacked fewer.
        n += self.station.settings.probe_weakness * ((my_unit == "probe") - (unit == "probe"))
        n = min(max(n, 1), 3)
        self.defense = Defense(color, unit, n, shot, (me, my_unit))
        self.moves.enter(Phase.SHIELDS)
        self.station.speech.prompt([P.energize(color, n)])

    # ------------------------------------------------------------------ shields

    def press_shield(self, button: str) -> None:
        assert self.defense is not None
        if button not in self.defense.pressed:
            self.defense.pressed.append(button)
        if len(self.defense.pressed) >= self.defense.n:
            self.station.deadline_ms = None
            self.resolve_defense()

    def resolve_defense(self) -> None:
        defense = self.defense
        assert defense is not None
        self.defense = None
        blocked = defense.hidden in defense.pressed
        if defense.attacker is None:
            if blocked:
                self.station.speech.announce([P.I_MISSED])
            else:
                self.station.speech.announce([self._virus_wins(defense.color, defense.unit)])
            self.moves.finish_explore()
            return
        attacker = defense.attacker[0]
        if blocked:
            self.station.speech.announce([P.missed(attacker)])
        else:
            self.station.speech.announce([self._attack_wins(attacker, defense.color, defense.unit)])
        self.moves.end_move()

    def _virus_wins(self, color: str, unit: str) -> Say:
        player = self.station.players[color]
        options: list[str] = list(player.losable())
        if player.probe:
            options.append("probe")
        options.append("teleport")
        choice = self.station.rng.choice(options)
        if choice == "teleport":
            return P.teleported(color, unit, self.station.random_bay(), P.VIRUS)
        self.station.give_back(player, choice)
        return P.destroyed(color, choice, P.VIRUS)

    def _attack_wins(self, attacker: str, color: str, unit: str) -> Say:
        thief, victim = self.station.players[attacker], self.station.players[color]
        if unit == "probe":
            outcome = self.station.rng.choices(["probe", "item", "teleport"], [0.5, 0.3, 0.2])[0]
        else:
            outcome = self.station.rng.choices(["steal", "destroy", "teleport"], [0.5, 0.25, 0.25])[0]
        if outcome == "item":
            outcome = "steal"
        if outcome == "probe":
            self.station.give_back(victim, "probe")
            return P.destroyed(color, "probe", P.BSAT1)
        if outcome == "steal":
            loot = [i for i in victim.losable() if not thief.holds(i)]
            if loot:
                item = self.station.rng.choice(loot)
                victim.lose(item)
                thief.take(item)
                return P.steals(attacker, item)
            outcome = "destroy"
        if outcome == "destroy" and victim.losable():
            item = self.station.rng.choice(victim.losable())
            self.station.give_back(victim, item)
            return P.destroyed(color, item, P.BSAT1)
        return P.teleported(color, unit, self.station.random_bay(), P.BSAT1)

    # ------------------------------------------------------------------ the Virus

    def press_terminate(self, button: str) -> None:
        self.station.deadline_ms = None
        assert self.station.mover is not None
        if button == self.station.termination_button:
            self.station.winner = self.station.mover[0]
            self.station.speech.announce([P.YOU_WIN])
            self.moves.game_over()
        else:
            self.station.speech.announce([Sound("buzz"), P.WRONG])
            self.moves.end_move()
