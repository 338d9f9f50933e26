"""The Omega Virus Command Center: the whole electronic game as a pure state machine.

Inputs are button presses (0, 1, 2, R), the spoken commands that stand for them, and the
passing of game time (``advance``). Outputs are utterances tagged VIRUS or BSAT1, and
sounds. Randomness comes only from the seeded ``random.Random`` handed in, so a game
replays exactly from its seed and journal.

What each phase takes and waits for is one table, ``PHASES``. The engine holds the state every
phase shares (the ``Station``, ``station.py``) and one object per phase beside it, each with
its own state and work: the ``Mission`` (sign-on and the countdown, ``mission.py``), the
``Exploration`` (``explore.py``) and the ``Battle`` (attacks, shields and termination,
``battle.py``); the moves, the turns and the spoken commands are here.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from assistant.engine import Command, NotAllowed, Output, Say, Sound
from assistant.games.omega_virus import phrases as P
from assistant.games.omega_virus.battle import Battle
from assistant.games.omega_virus.board import COLORS, Board
from assistant.games.omega_virus.explore import Exploration
from assistant.games.omega_virus.mission import Mission
from assistant.games.omega_virus.state import (
    AVDS,
    BUTTONS,
    CARDS,
    DEFAULT_TIME_CHART,
    ROOM_ITEMS,
    SUPPLY,
    Attack,
    Defense,
    Phase,
    Player,
    Settings,
    SignOn,
    Speech,
)
from assistant.games.omega_virus.station import Station
from assistant.games.parts import Held


@dataclass(frozen=True)
class PhaseRules:
    """What one phase of the Command Center takes and waits for."""

    #: Spoken intents it takes, besides press and repeat (and the queries once the countdown runs).
    intents: frozenset[str]
    #: What one button does.
    press: Callable[[CommandCenter, str], None]
    #: What the players are asked for (the reason given for a command it does not take).
    waits_for: Callable[[CommandCenter], str]
    #: How many bare digits make a whole entry (0: bare buttons are not an entry), and
    #: whether R alone is one (it cancels the entry).
    entry: int = 0
    r_cancels: bool = False
    #: Its time limit (from the settings) and what happens when it runs out.
    time_limit: Callable[[Settings], float] | None = None
    timeout: Callable[[CommandCenter], None] | None = None


class CommandCenter:
    """The electronic game. ``press`` is the keypad; ``handle`` takes spoken commands too."""

    name: ClassVar[str] = "omega-virus"
    speakers: ClassVar[tuple[str, ...]] = (P.BSAT1, P.VIRUS)
    supports_undo: ClassVar[bool] = False

    def __init__(self, rng: random.Random, settings: Settings | None = None) -> None:
        self.station = Station(rng, settings)
        self.mission = Mission(self.station, self)
        self.battle = Battle(self.station, self)
        self.exploration = Exploration(self.station, self, self.mission, self.battle)

    # ------------------------------------------------------------------ the station, as read from outside

    rng: Held[random.Random] = Held("station")
    settings: Held[Settings] = Held("station")
    board: Held[Board] = Held("station")
    players: Held[dict[str, Player]] = Held("station")
    supply: Held[dict[str, int]] = Held("station")
    phase: Held[Phase] = Held("station")
    entry: Held[list[str]] = Held("station")
    mover: Held[tuple[str, str] | None] = Held("station")
    clock_ms: Held[int] = Held("station")
    used_ms: Held[int] = Held("station")
    limit_ms: Held[int] = Held("station")
    deadline_ms: Held[int | None] = Held("station")
    virus_room: Held[str] = Held("station")
    termination_button: Held[str] = Held("station")
    shut: Held[list[str]] = Held("station")
    nature: Held[dict[tuple[str, str], str]] = Held("station")
    hazard_kind: Held[dict[str, str]] = Held("station")
    winner: Held[str | None] = Held("station")
    speech: Held[Speech] = Held("station")

    @property
    def signon(self) -> SignOn:
        return self.mission.signon

    @property
    def attack(self) -> Attack | None:
        return self.battle.attack

    @property
    def defense(self) -> Defense | None:
        return self.battle.defense

    @property
    def remaining_ms(self) -> int:
        return self.station.remaining_ms

    def is_over(self) -> bool:
        return self.station.is_over()

    def clock_running(self) -> bool:
        return self.station.clock_running()

    def countdown_running(self) -> bool:
        return self.station.countdown_running()

    def playing(self) -> list[str]:
        return self.station.playing()

    def solo(self) -> bool:
        return self.station.solo()

    def inventory_sentence(self, color: str) -> str:
        return self.station.inventory_sentence(color)

    def item_count(self, item: str) -> int:
        return self.station.item_count(item)

    # ------------------------------------------------------------------ protocol and commands

    def start(self) -> list[Output]:
        self.mission.prompt_skill()
        return self.speech.flush()

    def next_event_in(self) -> float | None:
        return self.mission.next_event_in()

    def advance(self, seconds: float) -> list[Output]:
        return self.mission.advance(seconds)

    def allowed_intents(self) -> frozenset[str]:
        if self.phase is Phase.OVER:  # what the players had and the time are still told
            return frozenset({"repeat", "time_left", "inventory"} if self.mover else {"repeat"})
        intents = set(PHASES[self.phase].intents) | {"press", "repeat"}
        if self.countdown_running():
            intents |= {"time_left", "inventory"}
        if self.phase is Phase.MOVE and self.solo():
            intents.discard("attack")
        if self.phase is Phase.ROOM_CODE and self.entry:
            intents.discard("explore")
        return frozenset(intents)

    def handle(self, command: Command) -> list[Output]:
        intent, slots = command.intent, command.slots
        if intent == "press":
            buttons = slots.get("buttons", "").split()
            if not buttons or any(b not in BUTTONS for b in buttons):
                raise NotAllowed(P.PRESS_A_BUTTON)
            self._check_not_over()
            for b in buttons:
                if self.phase is Phase.OVER:
                    break
                self.press(b)
            return self.speech.flush()
        if intent not in self.allowed_intents():
            raise NotAllowed(self._why_not(intent))
        self._spoken()[intent](slots)
        return self.speech.flush()

    def _spoken(self) -> dict[str, Callable[[Mapping[str, str]], None]]:
        """What each spoken intent does (``press`` is handled above, button by button)."""
        return {
            "repeat": self._cmd_repeat, "skill": self._cmd_skill, "code": self._cmd_code, "skip": self._cmd_skip,
            "buttons": self._cmd_buttons, "explore": self._cmd_explore, "pass": self._cmd_pass,
            "teleport": self._cmd_pass, "attack": self._cmd_attack, "shields": self._cmd_shields,
            "terminate": self._cmd_terminate, "time_left": self._cmd_time_left, "inventory": self._cmd_inventory,
        }

    def press(self, button: str) -> None:
        """One button of the Command Center, in the current phase."""
        PHASES[self.phase].press(self, button)

    def enter(self, phase: Phase) -> None:
        self.phase = phase
        limit = PHASES[phase].time_limit
        if limit is not None:
            self.station.set_deadline(limit(self.settings))

    def timeout(self) -> None:
        timeout = PHASES[self.phase].timeout
        if timeout is not None:
            timeout(self)

    def game_over(self) -> None:
        self.mission.game_over()

    def _check_not_over(self) -> None:
        if self.phase is Phase.OVER:
            raise NotAllowed(P.GAME_OVER)

    def _why_not(self, intent: str) -> str:
        phase = self.phase
        if phase is Phase.OVER:
            return P.GAME_OVER
        if intent == "attack" and phase is Phase.MOVE and self.solo():
            return P.NO_ONE_TO_ATTACK
        if intent in ("time_left", "inventory") and not self.countdown_running():
            return P.COUNTDOWN_NOT_STARTED
        return self._expecting()

    def _expecting(self) -> str:
        return PHASES[self.phase].waits_for(self)

    def _buttons(self, slots: Mapping[str, str]) -> list[str]:
        return [slots[k] for k in ("b1", "b2", "b3", "b4") if k in slots]

    def _cmd_repeat(self, slots: Mapping[str, str]) -> None:
        if self.phase is Phase.MOVE:
            self.press("R")
        elif self.phase is Phase.OVER:
            self.speech.repeat_announcement()
        else:
            self.speech.repeat_prompt()

    def _cmd_skill(self, slots: Mapping[str, str]) -> None:
        self.press(slots["level"])

    def _cmd_code(self, slots: Mapping[str, str]) -> None:
        self.entry = []
        self.press(slots["d1"])
        self.press(slots["d2"])

    def _cmd_skip(self, slots: Mapping[str, str]) -> None:
        self.entry = []
        self.press("R")

    def _cmd_buttons(self, slots: Mapping[str, str]) -> None:
        """Bare buttons ("zero two"), taken only when they make exactly one whole entry now."""
        buttons = self._buttons(slots)
        if self.phase is Phase.SHIELDS:
            self._cmd_shields(slots)
            return
        if not self.whole_entry(buttons):
            raise NotAllowed(self._expecting())
        for b in buttons:
            if self.phase is Phase.OVER:
                break
            self.press(b)

    def whole_entry(self, buttons: list[str]) -> bool:
        """Whether these bare buttons make exactly one whole entry now (only then are they taken)."""
        if self.phase is Phase.MOVE:
            return self._whole_move(buttons)
        if self.phase is Phase.TERMINATE:
            return len(buttons) == 1
        rules = PHASES[self.phase]
        if rules.entry and len(buttons) == rules.entry - len(self.entry) and "R" not in buttons:
            return True
        return rules.r_cancels and buttons == ["R"]

    def _whole_move(self, buttons: list[str]) -> bool:
        if buttons in (["0"], ["R"]):
            return True
        rest = buttons[1:]
        if buttons[0] == "2":
            return len(rest) == 3 and all(b != "R" for b in rest)
        return buttons[0] == "1" and len(rest) == 2 and all(b != "R" for b in rest) and not self.solo()

    def _cmd_explore(self, slots: Mapping[str, str]) -> None:
        digits = [slots["d1"], slots["d2"], slots["d3"]]
        if self.phase is Phase.MOVE:
            self.press("2")
            self.speech.out.clear()  # the spoken command already named the room: no "Which room?"
        for d in digits:
            self.press(d)

    def _cmd_pass(self, slots: Mapping[str, str]) -> None:
        self.press("0")

    def _cmd_attack(self, slots: Mapping[str, str]) -> None:
        assert self.mover is not None
        target, unit = slots["target"], slots.get("unit", "commando")
        me = self.mover[0]
        if target == me:
            raise NotAllowed(P.CANNOT_ATTACK_YOURSELF)
        if not self.players[target].playing:
            raise NotAllowed(P.not_playing(target))
        if unit == "probe" and not self.players[target].probe:
            raise NotAllowed(P.has_no_probe(target))
        code = self.board.command_code(target, unit)
        self.press("1")
        self.press(code[0])
        self.press(code[1])

    def _cmd_shields(self, slots: Mapping[str, str]) -> None:
        if self.phase is not Phase.SHIELDS or self.defense is None:
            raise NotAllowed(self._expecting())
        buttons = self._buttons(slots)
        left = self.defense.n - len(self.defense.pressed)
        if len(set(buttons)) != len(buttons):
            raise NotAllowed(P.SHIELDS_DIFFER)
        if any(b in self.defense.pressed for b in buttons):
            raise NotAllowed(P.SHIELD_ALREADY_ON)
        if len(buttons) != left:
            raise NotAllowed(P.energize_count(left, len(buttons)))
        for b in buttons:
            self.press(b)

    def _cmd_terminate(self, slots: Mapping[str, str]) -> None:
        self.press(slots["b1"])

    def _cmd_time_left(self, slots: Mapping[str, str]) -> None:
        seconds = -(-self.remaining_ms // 1000)
        if seconds >= 60:  # to the nearest minute: a few seconds into 20 minutes is still 20
            seconds = (seconds + 30) // 60 * 60
        if self.phase is Phase.OVER:
            self.speech.say(Say(P.BSAT1, P.time_at_end(seconds if self.winner else 0)))
        else:
            self.speech.say(Say(P.VIRUS, P.time_left(seconds)))

    def _cmd_inventory(self, slots: Mapping[str, str]) -> None:
        assert self.mover is not None
        self.speech.say(Say(P.BSAT1, self.inventory_sentence(self.mover[0])))

    # ------------------------------------------------------------------ turns

    def start_turn(self, color: str) -> None:
        self.mover = (color, "commando")
        self._prompt_mover(new_turn=True)

    def _prompt_mover(self, new_turn: bool = False) -> None:
        self.phase = Phase.MOVE
        self.entry = []
        self.deadline_ms = None
        self.mission.run_queued()
        if self.phase is Phase.OVER:
            return
        assert self.mover is not None
        color, unit = self.mover
        if unit == "probe" and not self.players[color].probe:
            self.next_player()
            return
        if new_turn:
            self._maybe_taunt()
        self.say_prompt()

    def say_prompt(self) -> None:
        assert self.mover is not None
        color, unit = self.mover
        if unit == "commando":
            prompts = list(P.TURN_PROMPTS)
            if self.remaining_ms > self.limit_ms / 3:
                prompts.remove("we are running out of time!")
        else:
            prompts = list(P.PROBE_PROMPTS)
        self.speech.prompt([P.mover_prompt(color, unit, self.rng.choice(prompts))])

    def _maybe_taunt(self) -> None:
        s = self.settings
        frac = self.used_ms / self.limit_ms if self.limit_ms else 0.0
        chance = s.taunt_chance_start + (s.taunt_chance_end - s.taunt_chance_start) * frac
        if self.rng.random() < chance:
            self.speech.say(Say(P.VIRUS, self.rng.choice(P.TAUNTS)))

    def end_move(self) -> None:
        if self.phase is Phase.OVER:
            return
        assert self.mover is not None
        color, unit = self.mover
        self.battle.defense = None
        self.battle.attack = None
        if unit == "commando" and self.players[color].probe:
            self.mover = (color, "probe")
            self._prompt_mover()
        else:
            self.next_player()

    def next_player(self) -> None:
        assert self.mover is not None
        colors = self.playing()
        i = colors.index(self.mover[0])
        self.start_turn(colors[(i + 1) % len(colors)])

    def _press_move(self, button: str) -> None:
        if button == "0":
            self.speech.last_announcement = []  # a pass: what was found before is no news to repeat
            self.end_move()
        elif button == "R":  # the same words again: repeating draws nothing from the RNG
            self.speech.repeat_announcement()
            self.speech.repeat_prompt()
        elif button == "2":
            self.phase = Phase.ROOM_CODE
            self.entry = []
            self.speech.prompt([self.rng.choice((P.WHICH_ROOM, P.ENTER_ROOM_CODE))])
        elif self.solo():
            self.wrong()
        else:
            self.phase = Phase.ATTACK_CODE
            self.entry = []

    def wrong(self) -> None:
        """Buzz, "Wrong!", and the mover starts the move again."""
        self.speech.say(Sound("buzz"))
        self.speech.say(P.WRONG)
        self.phase = Phase.MOVE
        self.entry = []
        self.say_prompt()

    def finish_explore(self) -> None:
        self.exploration.finish()


def _waiting_for_shields(cc: CommandCenter) -> str:
    if cc.defense is None:
        return P.PRESS_TERMINATION
    pressed = len(cc.defense.pressed)
    return P.energize_more(cc.defense.color, cc.defense.n - pressed, started=pressed > 0)


#: Each phase: what it takes, what a button does, what it waits for, its time limit.
PHASES: dict[Phase, PhaseRules] = {
    Phase.SKILL: PhaseRules(frozenset({"skill", "buttons"}), lambda cc, b: cc.mission.press_skill(b),
                            lambda cc: P.SAY_SKILL, entry=1),
    Phase.SIGNON: PhaseRules(frozenset({"code", "skip", "buttons"}), lambda cc, b: cc.mission.press_signon(b),
                             lambda cc: P.code_or_skip(cc.signon.asking or ""), entry=2, r_cancels=True,
                             time_limit=lambda s: s.secret_code_seconds,
                             timeout=lambda cc: cc.mission.signon_timeout()),
    # No bare buttons at a move: players say what they do ("explore one zero zero", "pass"), and
    # listening for bare digits here turns table talk and misheard words into moves.
    Phase.MOVE: PhaseRules(frozenset({"explore", "pass", "teleport", "attack"}), CommandCenter._press_move,
                           lambda cc: P.your_move(cc.station.mover_name(), cc.solo())),
    Phase.ROOM_CODE: PhaseRules(frozenset({"buttons", "explore"}), lambda cc, b: cc.exploration.press_room_code(b),
                                lambda cc: P.ENTER_THE_ROOM_CODE, entry=3, r_cancels=True),
    Phase.ATTACK_CODE: PhaseRules(frozenset({"buttons"}), lambda cc, b: cc.battle.press_attack_code(b),
                                  lambda cc: P.ENTER_COMMAND_CODE, entry=2, r_cancels=True),
    Phase.SHOT: PhaseRules(frozenset(), lambda cc, b: cc.battle.press_shot(b),
                           lambda cc: P.take_your_shot(cc.attack.attacker if cc.attack else ""),
                           time_limit=lambda s: s.shot_seconds,
                           timeout=lambda cc: cc.battle.shoot(cc.rng.choice(BUTTONS))),  # a fair shot for the slow
    Phase.SHIELDS: PhaseRules(frozenset({"shields", "buttons"}), lambda cc, b: cc.battle.press_shield(b),
                              _waiting_for_shields,
                              time_limit=lambda s: s.shields_seconds, timeout=lambda cc: cc.battle.resolve_defense()),
    Phase.TERMINATE: PhaseRules(frozenset({"terminate", "buttons"}), lambda cc, b: cc.battle.press_terminate(b),
                                lambda cc: P.PRESS_TERMINATION, time_limit=lambda s: s.terminate_seconds,
                                timeout=lambda cc: cc.battle.press_terminate("")),
    Phase.OVER: PhaseRules(frozenset(), lambda cc, button: None, lambda cc: P.GAME_OVER),
}

__all__ = ["AVDS", "BUTTONS", "CARDS", "COLORS", "DEFAULT_TIME_CHART", "PHASES", "ROOM_ITEMS", "SUPPLY",
           "CommandCenter", "Defense", "Phase", "Player", "Settings", "Say", "Sound"]
