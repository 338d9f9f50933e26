"""The Omega Virus Command Center: the whole electronic game as a pure state machine.

Inputs are button presses (0, 1, 2, R), the spoken commands that stand for them, and the
passing of game time (``advance``). Outputs are utterances tagged VIRUS or BSAT1, and
sounds. Randomness comes only from the seeded ``random.Random`` handed in, so a game
replays exactly from its seed and journal.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from assistant.engine import Command, NotAllowed, Output, Say, Sound
from assistant.games.omega_virus import phrases as P
from assistant.games.omega_virus.board import COLORS, Board

BUTTONS = ("0", "1", "2", "R")
AVDS = P.AVDS
CARDS = tuple(f"{c} card" for c in P.CARD_COLORS)
SUPPLY = {**{a: 4 for a in AVDS}, **{c: 4 for c in CARDS}}
#: What each room color can hold besides hazards (the rulebook's "What You May Find There").
ROOM_ITEMS: dict[str, tuple[str, ...]] = {
    "green": ("probe", "red card", "blue card", "yellow card"),
    "blue": ("disruptor", "probe", "red card", "yellow card"),
    "red": ("negatron", "probe", "blue card", "yellow card"),
    "yellow": ("decoder", "probe", "red card", "blue card"),
}
ITEM_WEIGHT = {"probe": 1.0, **{a: 3.0 for a in AVDS}, **{c: 2.0 for c in CARDS}}

#: The rulebook's Skill Level Time Chart: minutes for 1, 2, 3, 4 players.
DEFAULT_TIME_CHART: dict[str, list[int]] = {
    "0": [20, 25, 30, 35],
    "1": [15, 15, 20, 25],
    "2": [10, 10, 15, 15],
}


class Phase(enum.Enum):
    SKILL = "skill"
    SIGNON = "signon"
    MOVE = "move"              # waiting for the mover's option: 2 explore, 1 attack, 0 pass, R repeat
    ROOM_CODE = "room code"
    ATTACK_CODE = "attack code"
    SHOT = "shot"              # the attacker's secret press
    SHIELDS = "shields"
    TERMINATE = "terminate"
    OVER = "over"


@dataclass
class Settings:
    """Tunable numbers (config.yaml, games.omega_virus); stored in the journal header."""

    time_chart: dict[str, list[int]] = field(default_factory=lambda: {k: list(v)
                                                                      for k, v in DEFAULT_TIME_CHART.items()})
    secret_code_seconds: float = 10.0
    shields_seconds: float = 10.0
    shot_seconds: float = 10.0
    terminate_seconds: float = 10.0
    response_extra_seconds: float = 0.0
    attack_shot: str = "keypad"            # keypad: the attacker presses; random: the computer fires
    probe_weakness: int = 1                # shields more against a Probe's attack, fewer for a Probe
    wanted_chance: float = 0.6
    hazard_chance: float = 0.2
    persistence: float = 0.8
    teleport_trap_share: float = 0.4
    shutdown_minutes: list[float] = field(default_factory=lambda: [9.0, 6.0, 3.0])
    announce_minutes: list[float] = field(default_factory=lambda: [30, 25, 20, 15, 10, 5, 4, 3, 2, 1, 0.5])
    probe_loss_minutes: list[float] = field(default_factory=lambda: [2.5, 1.5, 0.75])
    probe_loss_chance: float = 0.3
    taunt_chance_start: float = 0.05
    taunt_chance_end: float = 0.4
    must_be_terminated_chance: float = 0.5
    board: dict[str, Any] = field(default_factory=Board.default_data)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Settings:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass
class Player:
    color: str
    code: str = ""
    playing: bool = False
    missed: int = 0
    cards: set[str] = field(default_factory=set)
    avds: set[str] = field(default_factory=set)
    probe: bool = False
    knows_virus: bool = False
    last_room: str | None = None

    def holds(self, item: str) -> bool:
        if item == "probe":
            return self.probe
        return item in self.cards or item in self.avds

    def take(self, item: str) -> None:
        if item == "probe":
            self.probe = True
        elif item in AVDS:
            self.avds.add(item)
        else:
            self.cards.add(item)

    def lose(self, item: str) -> None:
        if item == "probe":
            self.probe = False
        elif item in AVDS:
            self.avds.discard(item)
        else:
            self.cards.discard(item)

    def losable(self) -> list[str]:
        """Items an attack can take: never the green card, which is the player's own."""
        return sorted(c for c in self.cards if c != "green card") + sorted(self.avds)


@dataclass
class Defense:
    """Shields being energized against the Virus (attacker None) or another player."""

    color: str
    unit: str
    n: int
    hidden: str
    attacker: tuple[str, str] | None = None
    room: str | None = None
    pressed: list[str] = field(default_factory=list)


class CommandCenter:
    """The electronic game. ``press`` is the keypad; ``handle`` takes spoken commands too."""

    name: ClassVar[str] = "omega-virus"
    speakers: ClassVar[tuple[str, ...]] = (P.BSAT1, P.VIRUS)
    supports_undo: ClassVar[bool] = False

    def __init__(self, seed: int, settings: Settings | None = None) -> None:
        self.rng = random.Random(seed)
        self.settings = settings or Settings()
        self.board = Board.from_data(self.settings.board)
        self.players = {c: Player(c) for c in self.board.seat_order}
        self.supply = dict(SUPPLY)
        self.phase = Phase.SKILL
        self.skill: int | None = None
        self.signon_queue: list[str] = []
        self.asking: str | None = None
        self.entry: list[str] = []
        self.mover: tuple[str, str] | None = None
        self.defense: Defense | None = None
        self.pending_attack: tuple[str, str, str, str] | None = None  # attacker, unit, target, unit
        self.explored_room: str | None = None
        self.clock_ms = 0
        self.used_ms = 0
        self.limit_ms = 0
        self.deadline_ms: int | None = None
        self.marks: list[tuple[int, str]] = []   # (remaining ms, kind), soonest last
        self.queued: list[str] = []              # events waiting for a quiet moment
        self.virus_room = ""
        self.termination_button = ""
        self.shutdown_order: list[str] = []
        self.shut: list[str] = []
        self.nature: dict[tuple[str, str], str] = {}
        self.hazard_kind: dict[str, str] = {}
        self.room_codes: dict[tuple[str, str], str] = {}
        self.winner: str | None = None
        self.last_announcement: list[Output] = []
        self.last_prompt: list[Output] = []
        self._out: list[Output] = []
        self._announced = False  # an announcement was made since the last flush

    # ------------------------------------------------------------------ protocol

    def start(self) -> list[Output]:
        self._prompt_skill()
        return self._flush()

    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def clock_running(self) -> bool:
        return self.phase not in (Phase.SKILL, Phase.OVER)

    def countdown_running(self) -> bool:
        return self.phase not in (Phase.SKILL, Phase.SIGNON, Phase.OVER)

    @property
    def remaining_ms(self) -> int:
        return max(self.limit_ms - self.used_ms, 0)

    def playing(self) -> list[str]:
        return [c for c in self.board.seat_order if self.players[c].playing]

    def solo(self) -> bool:
        return len(self.playing()) == 1

    def allowed_intents(self) -> frozenset[str]:
        phase = self.phase
        common = {"press", "repeat"}
        if phase is Phase.SKILL:
            return frozenset(common | {"skill", "buttons"})
        if phase is Phase.SIGNON:
            return frozenset(common | {"code", "skip", "buttons"})
        if phase is Phase.OVER:
            return frozenset({"repeat"})
        queries = {"time_left", "inventory"}
        if phase is Phase.MOVE:
            # No bare buttons: players say what they do ("explore one zero zero", "pass"), and
            # listening for bare digits here turns table talk and misheard words into moves.
            moves = {"explore", "pass", "teleport"}
            if not self.solo():
                moves.add("attack")
            return frozenset(common | queries | moves)
        if phase is Phase.ROOM_CODE:
            return frozenset(common | queries | {"buttons"} | ({"explore"} if not self.entry else set()))
        if phase is Phase.ATTACK_CODE:
            return frozenset(common | queries | {"buttons"})
        if phase is Phase.SHOT:
            return frozenset(common | queries)
        if phase is Phase.SHIELDS:
            return frozenset(common | queries | {"shields", "buttons"})
        return frozenset(common | queries | {"terminate", "buttons"})

    def next_event_in(self) -> float | None:
        times: list[int] = []
        if self.deadline_ms is not None and self.phase is not Phase.OVER:
            times.append(self.deadline_ms - self.clock_ms)
        if self.countdown_running():
            next_mark = self.marks[-1][0] if self.marks else 0
            times.append(self.remaining_ms - next_mark)
        if not times:
            return None
        return max(min(times), 0) / 1000

    # ------------------------------------------------------------------ time

    def advance(self, seconds: float) -> list[Output]:
        left = round(seconds * 1000)
        while left > 0 and self.phase is not Phase.OVER:
            step = left
            if self.deadline_ms is not None:
                step = min(step, max(self.deadline_ms - self.clock_ms, 0))
            if self.countdown_running():
                next_mark = self.marks[-1][0] if self.marks else 0
                step = min(step, max(self.remaining_ms - next_mark, 0))
            self.clock_ms += step
            if self.countdown_running():
                self.used_ms += step
            left -= step
            self._fire_due()
        return self._flush()

    def _fire_due(self) -> None:
        if self.deadline_ms is not None and self.clock_ms >= self.deadline_ms:
            self.deadline_ms = None
            self._timeout()
        if not self.countdown_running():
            return
        if self.remaining_ms <= 0:
            self._time_up()
            return
        fired = False
        while self.marks and self.remaining_ms <= self.marks[-1][0]:
            _, kind = self.marks.pop()
            self.queued.append(kind)
            fired = True
        if fired and self.phase is Phase.MOVE:
            said = len(self._out)
            self._run_queued()
            if self.phase is Phase.MOVE and self.mover is not None:
                color, unit = self.mover
                if unit == "probe" and not self.players[color].probe:
                    self._next_player()  # the probe whose move it was is gone
                elif len(self._out) > said:
                    self._say_prompt()  # something was said: whose move it is, again

    def _deadline(self, seconds: float) -> None:
        total = seconds + self.settings.response_extra_seconds
        self.deadline_ms = self.clock_ms + round(total * 1000)

    # ------------------------------------------------------------------ commands

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
            return self._flush()
        if intent not in self.allowed_intents():
            raise NotAllowed(self._why_not(intent))
        self._spoken()[intent](slots)
        return self._flush()

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
        {
            Phase.SKILL: self._press_skill,
            Phase.SIGNON: self._press_signon,
            Phase.MOVE: self._press_move,
            Phase.ROOM_CODE: self._press_room_code,
            Phase.ATTACK_CODE: self._press_attack_code,
            Phase.SHOT: self._press_shot,
            Phase.SHIELDS: self._press_shield,
            Phase.TERMINATE: self._press_terminate,
            Phase.OVER: lambda b: None,
        }[self.phase](button)

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
        phase = self.phase
        if phase is Phase.SKILL:
            return P.SAY_SKILL
        if phase is Phase.SIGNON:
            return P.code_or_skip(self.asking or "")
        if phase is Phase.MOVE:
            return P.your_move(self._mover_name(), self.solo())
        if phase is Phase.ROOM_CODE:
            return P.ENTER_THE_ROOM_CODE
        if phase is Phase.ATTACK_CODE:
            return P.ENTER_COMMAND_CODE
        if phase is Phase.SHOT:
            attacker = self.pending_attack[0] if self.pending_attack else ""
            return P.take_your_shot(attacker)
        if phase is Phase.SHIELDS and self.defense is not None:
            return P.energize_more(self.defense.color, self.defense.n - len(self.defense.pressed))
        return P.PRESS_TERMINATION

    def _mover_name(self) -> str:
        if self.mover is None:
            return ""
        return P.unit_name(*self.mover)

    def _buttons(self, slots: Mapping[str, str]) -> list[str]:
        return [slots[k] for k in ("b1", "b2", "b3", "b4") if k in slots]

    def _cmd_repeat(self, slots: Mapping[str, str]) -> None:
        if self.phase is Phase.MOVE:
            self.press("R")
        elif self.phase is Phase.OVER:
            self._out.extend(self.last_announcement)
        else:
            self._out.extend(self.last_prompt)

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
        digits = all(b != "R" for b in buttons)
        phase, n = self.phase, len(buttons)
        if phase is Phase.SKILL:
            return n == 1 and digits
        if phase is Phase.SIGNON:
            return (n == 2 - len(self.entry) and digits) or buttons == ["R"]
        if phase is Phase.MOVE:
            if buttons in (["0"], ["R"]):
                return True
            rest = buttons[1:]
            if buttons[0] == "2":
                return len(rest) == 3 and all(b != "R" for b in rest)
            return buttons[0] == "1" and len(rest) == 2 and all(b != "R" for b in rest) and not self.solo()
        if phase is Phase.ROOM_CODE:
            return (n == 3 - len(self.entry) and digits) or buttons == ["R"]
        if phase is Phase.ATTACK_CODE:
            return (n == 2 - len(self.entry) and digits) or buttons == ["R"]
        if phase is Phase.TERMINATE:
            return n == 1
        return False

    def _cmd_explore(self, slots: Mapping[str, str]) -> None:
        digits = [slots["d1"], slots["d2"], slots["d3"]]
        if self.phase is Phase.MOVE:
            self.press("2")
            self._out.clear()  # the spoken command already named the room: no "Which room?"
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
        if seconds >= 60:
            seconds = seconds // 60 * 60
        self._out.append(Say(P.VIRUS, P.time_left(seconds)))

    def _cmd_inventory(self, slots: Mapping[str, str]) -> None:
        assert self.mover is not None
        self._out.append(Say(P.BSAT1, self.inventory_sentence(self.mover[0])))

    def inventory_sentence(self, color: str) -> str:
        player = self.players[color]
        return P.inventory(color, [c for c in ("green card", *CARDS) if c in player.cards],
                           [a for a in AVDS if a in player.avds], player.probe)

    # ------------------------------------------------------------------ sign-on

    def _prompt_skill(self) -> None:
        self._prompt([P.ENTER_SKILL])

    def _press_skill(self, button: str) -> None:
        if button == "R":
            self._out.extend(self.last_prompt)
            return
        self.skill = int(button)
        for player in self.players.values():
            player.playing, player.missed, player.code = False, 0, ""
            player.cards, player.avds, player.probe = set(), set(), False
        self.supply = dict(SUPPLY)
        self.signon_queue = list(self.board.seat_order)
        self.phase = Phase.SIGNON
        self._ask_next_code()

    def _ask_next_code(self) -> None:
        self.entry = []
        if not self.signon_queue:
            self._begin_mission()
            return
        self.asking = self.signon_queue.pop(0)
        self._deadline(self.settings.secret_code_seconds)
        self._prompt([P.enter_code(self.asking)])

    def _press_signon(self, button: str) -> None:
        assert self.asking is not None
        if button == "R":
            self.deadline_ms = None
            self._ask_next_code()
            return
        self.entry.append(button)
        if len(self.entry) == 2:
            player = self.players[self.asking]
            player.code, player.playing = "".join(self.entry), True
            player.cards = {"green card"}  # each player's own, from the start
            self.deadline_ms = None
            self._ask_next_code()

    def _signon_timeout(self) -> None:
        assert self.asking is not None
        player = self.players[self.asking]
        player.missed += 1
        if player.missed < 2:
            self.signon_queue.append(self.asking)
        self._ask_next_code()

    def _begin_mission(self) -> None:
        colors = self.playing()
        if not colors:
            self.phase = Phase.SKILL
            self._prompt([P.NO_ONE_SIGNED_ON])
            return
        assert self.skill is not None
        minutes = self.settings.time_chart[str(self.skill)][len(colors) - 1]
        self.limit_ms = int(minutes * 60_000)
        self.used_ms = 0
        rooms = self.board.rooms
        self.virus_room = self.rng.choice(rooms).code
        virus_sector = self.board.room(self.virus_room).sector  # type: ignore[union-attr]
        self.termination_button = self.rng.choice(BUTTONS)
        others = [s for s in self.board.sectors if s != virus_sector]
        self.rng.shuffle(others)
        self.shutdown_order = others
        for room in rooms:
            trap = self.rng.random() < self.settings.teleport_trap_share
            self.hazard_kind[room.code] = "teleport" if trap else "breach"
        self._draw_natures([r.code for r in rooms])
        self._schedule_marks()
        self._say(Say(P.VIRUS, P.time_left(self.limit_ms // 1000)))
        self.phase = Phase.MOVE
        self._start_turn(self.rng.choice(colors))

    def _schedule_marks(self) -> None:
        marks: list[tuple[int, str]] = []
        limit = self.limit_ms
        for minutes in self.settings.announce_minutes:
            ms = int(minutes * 60_000)
            if 0 < ms < limit:
                marks.append((ms, "time"))
        if self.skill != 2:
            for minutes in self.settings.shutdown_minutes[:3]:
                ms = int(minutes * 60_000)
                if 0 < ms < limit:
                    marks.append((ms, "shutdown"))
        for minutes in self.settings.probe_loss_minutes:
            ms = int(minutes * 60_000)
            if 0 < ms < limit:
                marks.append((ms, "probes"))
        order = {"shutdown": 0, "time": 1, "probes": 2}
        self.marks = sorted(marks, key=lambda m: (m[0], -order[m[1]]))

    def _draw_natures(self, codes: list[str]) -> None:
        for color in self.playing():
            for code in codes:
                self.nature[(color, code)] = self._draw_nature()

    def _draw_nature(self) -> str:
        r = self.rng.random()
        if r < self.settings.wanted_chance:
            return "wanted"
        if r < self.settings.wanted_chance + self.settings.hazard_chance:
            return "hazard"
        return "nothing"

    # ------------------------------------------------------------------ turns

    def _start_turn(self, color: str) -> None:
        self.mover = (color, "commando")
        self._prompt_mover(new_turn=True)

    def _prompt_mover(self, new_turn: bool = False) -> None:
        self.phase = Phase.MOVE
        self.entry = []
        self.deadline_ms = None
        self._run_queued()
        if self.phase is Phase.OVER:
            return
        assert self.mover is not None
        color, unit = self.mover
        if unit == "probe" and not self.players[color].probe:
            self._next_player()
            return
        if new_turn:
            self._maybe_taunt()
        self._say_prompt()

    def _say_prompt(self) -> None:
        assert self.mover is not None
        color, unit = self.mover
        if unit == "commando":
            prompts = list(P.TURN_PROMPTS)
            if self.remaining_ms > self.limit_ms / 3:
                prompts.remove("we are running out of time!")
            self._prompt([P.turn_prompt(color, self.rng.choice(prompts))])
        else:
            self._prompt([P.probe_prompt(color, self.rng.choice(P.PROBE_PROMPTS))])

    def _maybe_taunt(self) -> None:
        s = self.settings
        frac = self.used_ms / self.limit_ms if self.limit_ms else 0.0
        chance = s.taunt_chance_start + (s.taunt_chance_end - s.taunt_chance_start) * frac
        if self.rng.random() < chance:
            self._say(Say(P.VIRUS, self.rng.choice(P.TAUNTS)))

    def _end_move(self) -> None:
        if self.phase is Phase.OVER:
            return
        assert self.mover is not None
        color, unit = self.mover
        self.defense = None
        self.pending_attack = None
        if unit == "commando" and self.players[color].probe:
            self.mover = (color, "probe")
            self._prompt_mover()
        else:
            self._next_player()

    def _next_player(self) -> None:
        assert self.mover is not None
        colors = self.playing()
        i = colors.index(self.mover[0])
        self._start_turn(colors[(i + 1) % len(colors)])

    def _press_move(self, button: str) -> None:
        if button == "0":
            self._end_move()
        elif button == "R":  # the same words again: repeating draws nothing from the RNG
            self._out.extend(self.last_announcement)
            self._out.extend(self.last_prompt)
        elif button == "2":
            self.phase = Phase.ROOM_CODE
            self.entry = []
            self._prompt([self.rng.choice((P.WHICH_ROOM, P.ENTER_ROOM_CODE))])
        elif self.solo():
            self._wrong()
        else:
            self.phase = Phase.ATTACK_CODE
            self.entry = []

    def _wrong(self) -> None:
        """Buzz, "Wrong!", and the mover starts the move again."""
        self._say(Sound("buzz"))
        self._say(P.WRONG)
        self.phase = Phase.MOVE
        self.entry = []
        self._say_prompt()

    # ------------------------------------------------------------------ explore

    def _press_room_code(self, button: str) -> None:
        if button == "R":
            self.entry = []
            self._prompt([P.WHICH_ROOM])
            return
        self.entry.append(button)
        if len(self.entry) == 3:
            code = "".join(self.entry)
            self.entry = []
            if self.board.room(code) is None:
                self._wrong()
            else:
                self._explore(code)

    def _explore(self, code: str) -> None:
        assert self.mover is not None
        color, unit = self.mover
        player = self.players[color]
        room = self.board.room(code)
        assert room is not None
        if room.sector in self.shut or f"{room.color} card" not in player.cards:
            self._announce([P.ACCESS_DENIED])
            self._end_move()
            return
        if code == self.virus_room and unit == "commando" and player.avds >= set(AVDS):
            player.last_room = code
            self.phase = Phase.TERMINATE
            self._deadline(self.settings.terminate_seconds)
            self._announce([P.FOUND_ME])
            self.last_prompt = list(self.last_announcement)
            return
        self.explored_room = code
        if player.last_room == code:
            self._announce([P.NOTHING_HERE])
            self._finish_explore()
            return
        player.last_room = code
        nature = self.nature[(color, code)]
        if self.rng.random() >= self.settings.persistence:
            nature = self._draw_nature()
            self.nature[(color, code)] = nature
        if nature == "wanted":
            item = self._choose_item(player, room.color)
            if item is None:
                self._announce([P.NOTHING_HERE])
            else:
                self._give(player, item)
                self._announce([P.found(item)])
            self._finish_explore()
        elif nature == "hazard" and self.hazard_kind[code] == "teleport":
            self._announce([P.teleported(color, unit, self._random_bay(), P.BSAT1)])
            self._finish_explore()
        elif nature == "hazard":
            n = self.rng.randint(1, 3)
            self.defense = Defense(color, unit, n, self.rng.choice(BUTTONS), None, code)
            self.phase = Phase.SHIELDS
            self._deadline(self.settings.shields_seconds)
            self._announce([P.breach(code), P.energize(color, n)])
            self.last_prompt = [P.energize(color, n)]
        else:
            self._announce([P.NOTHING_HERE])
            self._finish_explore()

    def _finish_explore(self) -> None:
        """Every explore ends with the Room's code for the explorer."""
        assert self.mover is not None and self.explored_room is not None
        color = self.mover[0]
        player = self.players[color]
        code = self.explored_room
        if code == self.virus_room:
            digits = player.code
            player.knows_virus = True
        else:
            key = (color, code)
            if key not in self.room_codes:
                others = [a + b for a in "012" for b in "012" if a + b != player.code]
                self.room_codes[key] = self.rng.choice(others)
            digits = self.room_codes[key]
        self.last_announcement.append(P.code(digits))
        self._say(P.code(digits))
        self.explored_room = None
        self._end_move()

    def _choose_item(self, player: Player, room_color: str) -> str | None:
        wanted = [i for i in ROOM_ITEMS[room_color] if not player.holds(i)
                  and (i == "probe" or self.supply[i] > 0)]
        if not wanted:
            return None
        weights = [ITEM_WEIGHT[i] for i in wanted]
        return self.rng.choices(wanted, weights)[0]

    def _give(self, player: Player, item: str) -> None:
        if item != "probe":
            self.supply[item] -= 1
        player.take(item)

    def _return(self, player: Player, item: str) -> None:
        player.lose(item)
        if item != "probe":
            self.supply[item] += 1

    def _random_bay(self) -> str:
        return self.rng.choice([s for s in self.board.sectors if s not in self.shut])

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
                self._announce([P.I_MISSED])
            else:
                self._announce([self._virus_wins(defense.color, defense.unit)])
            self._finish_explore()
            return
        attacker = defense.attacker[0]
        if blocked:
            self._announce([P.missed(attacker)])
        else:
            self._announce([self._attack_wins(attacker, defense.color, defense.unit)])
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
        self.pending_attack = (me, my_unit, color, unit)
        self._announce([P.attacking(me, my_unit, color, unit)])
        self.last_prompt = list(self.last_announcement)
        if self.settings.attack_shot == "random":
            self._shoot(self.rng.choice(BUTTONS))
        else:
            self.phase = Phase.SHOT
            self._deadline(self.settings.shot_seconds)

    def _press_shot(self, button: str) -> None:
        self.deadline_ms = None
        self._shoot(button)

    def _shoot(self, shot: str) -> None:
        assert self.pending_attack is not None
        me, my_unit, color, unit = self.pending_attack
        n = self.rng.randint(1, 3)
        # "A Probe is weaker in battle than your Commando" (rulebook; how is not known): the
        # defender of a Probe's attack energizes more shields, a Probe attacked fewer.
        n += self.settings.probe_weakness * ((my_unit == "probe") - (unit == "probe"))
        n = min(max(n, 1), 3)
        self.defense = Defense(color, unit, n, shot, (me, my_unit))
        self.phase = Phase.SHIELDS
        self._deadline(self.settings.shields_seconds)
        self._prompt([P.energize(color, n)])

    # ------------------------------------------------------------------ the Virus

    def _press_terminate(self, button: str) -> None:
        self.deadline_ms = None
        assert self.mover is not None
        if button == self.termination_button:
            self.winner = self.mover[0]
            self._announce([P.YOU_WIN])
            self._game_over()
        else:
            self._announce([Sound("buzz"), P.WRONG])
            self._end_move()

    def _time_up(self) -> None:
        lines: list[Output] = [P.TOO_LATE]
        lines.extend(P.terminated(c) for c in self.playing())
        self._announce(lines)
        self._game_over()

    def _game_over(self) -> None:
        self.phase = Phase.OVER
        self.deadline_ms = None
        self.marks = []
        self.queued = []

    # ------------------------------------------------------------------ timed events

    def _timeout(self) -> None:
        if self.phase is Phase.SIGNON:
            self._signon_timeout()
        elif self.phase is Phase.SHOT:
            self._shoot(self.rng.choice(BUTTONS))  # a fair shot fired for the slow attacker
        elif self.phase is Phase.SHIELDS:
            self._resolve_defense()
        elif self.phase is Phase.TERMINATE:
            self._press_terminate("")

    def _run_queued(self) -> None:
        while self.queued and self.phase is not Phase.OVER:
            kind = self.queued.pop(0)
            if kind == "time":
                self._announce_time()
            elif kind == "shutdown":
                self._shutdown()
            elif kind == "probes":
                self._destroy_probes()

    def _announce_time(self) -> None:
        seconds = round(self.remaining_ms / 1000)
        if seconds >= 60:
            seconds = round(seconds / 60) * 60
        self._special(Say(P.VIRUS, P.time_left(seconds)))
        knowing = [c for c in self.playing() if self.players[c].knows_virus]
        if knowing and self.rng.random() < self.settings.must_be_terminated_chance:
            self._special(P.must_be_terminated(self.rng.choice(knowing)))

    def _shutdown(self) -> None:
        if not self.shutdown_order:
            return
        sector = self.shutdown_order.pop(0)
        self.shut.append(sector)
        self._special(P.sector_shut_down(sector))
        open_rooms = [r.code for r in self.board.rooms if r.sector not in self.shut]
        self._draw_natures(open_rooms)  # items shift; the Virus stays where it is

    def _destroy_probes(self) -> None:
        for color in self.playing():
            player = self.players[color]
            if player.probe and self.rng.random() < self.settings.probe_loss_chance:
                player.probe = False
                self._special(P.destroyed(color, "probe", P.VIRUS))

    # ------------------------------------------------------------------ output

    def _say(self, output: Output) -> None:
        self._out.append(output)

    def _announce(self, outputs: list[Output]) -> None:
        """Something R can repeat: what was found, stolen or lost."""
        self.last_announcement = list(outputs)
        self._announced = True
        self._out.extend(outputs)

    def _special(self, output: Output) -> None:
        """Another announcement R repeats (a shutdown, the time left, a lost probe), together
        with whatever else was announced at the same moment."""
        if not self._announced:
            self.last_announcement = []
        self.last_announcement.append(output)
        self._announced = True
        self._out.append(output)

    def _prompt(self, outputs: list[Output]) -> None:
        self.last_prompt = list(outputs)
        self._out.extend(outputs)

    def _flush(self) -> list[Output]:
        out, self._out = self._out, []
        self._announced = False
        return out

    # ------------------------------------------------------------------ checks

    def item_count(self, item: str) -> int:
        """Supply plus every player's holding: always the starting supply (nothing made or lost)."""
        return self.supply[item] + sum(1 for p in self.players.values() if p.holds(item))


__all__ = ["COLORS", "CommandCenter", "Phase", "Settings"]
