"""Every sentence the Command Center says, built in one place: announcements, prompts, and
the reasons a command is refused.

The rulebook's quoted phrases appear here word for word; numbers are written as digits
("Code 0 1.", "25 minutes until I take over!"). Because every announcement is built from a
finite set of parts, ``all_phrases`` can list them all for the voice cache. The engine
imports this module; this module imports nothing of the engine.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from assistant.engine import Say
from assistant.games.words import plural, with_a

VIRUS = "VIRUS"
BSAT1 = "BSAT1"

AVDS = ("negatron", "disruptor", "decoder")
CARD_COLORS = ("red", "blue", "yellow")
TURN_PROMPTS = ("help me!", "do something!", "hurry!", "we are running out of time!")
PROBE_PROMPTS = ("hurry!", "help me!")
TAUNTS = ("You human scum!", "You fools!", "Fool!", "How amusing!", "You'll never find me, human scum!")


def title(color: str) -> str:
    return color.title()


def unit_name(color: str, unit: str) -> str:
    """"Red" for the Commando, "Red Probe" for the Probe."""
    return title(color) if unit == "commando" else f"{title(color)} Probe"


@dataclass(frozen=True)
class OfColor:
    """A sentence about one player: ``{color}`` in ``text`` is said as the color's name."""

    text: str

    def __call__(self, color: str) -> str:
        return self.text.format(color=title(color))


@dataclass(frozen=True)
class SaidOfColor:
    """An announcement about one player, by its speaker: ``{color}`` as in ``OfColor``."""

    speaker: str
    text: str

    def __call__(self, color: str) -> Say:
        return Say(self.speaker, self.text.format(color=title(color)))


# --------------------------------------------------------------------------- said as they are

ENTER_SKILL = Say(BSAT1, "Enter skill.")
NO_ONE_SIGNED_ON = Say(BSAT1, "No one signed on. Enter skill.")
WHICH_ROOM = Say(BSAT1, "Which room?")
ENTER_ROOM_CODE = Say(BSAT1, "Enter room code.")
ACCESS_DENIED = Say(BSAT1, "Access denied.")
NOTHING_HERE = Say(BSAT1, "Nothing here!")
WRONG = Say(VIRUS, "Wrong!")
I_MISSED = Say(VIRUS, "I missed!")
FOUND_ME = Say(VIRUS, "You found me! Try and stop me!")
YOU_WIN = Say(VIRUS, "You win! I am terminated!")
TOO_LATE = Say(VIRUS, "Too late! This station is mine! I win!")

# --------------------------------------------------------------------------- refusals (reasons)

PRESS_A_BUTTON = "Press 0, 1, 2 or R."
GAME_OVER = "The game is over. Say new game to play again."
NO_ONE_TO_ATTACK = "There is no one to attack in solo play."
COUNTDOWN_NOT_STARTED = "The countdown has not started yet."
SAY_SKILL = "Say the skill level: skill zero, one or two."
ENTER_THE_ROOM_CODE = "Enter the room code."
ENTER_COMMAND_CODE = "Enter the rest of the Command Code."
PRESS_TERMINATION = "Press one termination button: say terminate and a button."
CANNOT_ATTACK_YOURSELF = "You cannot attack yourself."
SHIELDS_DIFFER = "Each shield needs a different button."
SHIELD_ALREADY_ON = "That shield is already energized."
TIME_RAN_OUT = "Time ran out: the Virus took over."


code_or_skip = OfColor("{color}, enter your secret code on the keypad, or say skip.")
take_your_shot = OfColor("{color}, take your shot on the keypad.")
not_playing = OfColor("{color} is not playing.")
has_no_probe = OfColor("{color} has no probe.")


def your_move(mover: str, solo: bool) -> str:
    if solo:
        return f"{mover}, explore a room or pass."
    return f"{mover}, explore a room, attack, or pass."


def energize_more(color: str, left: int, started: bool) -> str:
    """The shields still asked for: "2 shields" before any is on, "1 more shield" after."""
    shields = plural(left, "more shield" if started else "shield")
    return f"{title(color)}, energize {shields}: say shields and different buttons."


def energize_count(left: int, given: int) -> str:
    return f"Energize {plural(left, 'shield')}, not {given}."


def inventory(color: str, cards: list[str], avds: list[str], probe: bool) -> str:
    """What a player holds: "Red has the Green, Blue Access Cards; a Negatron; the Probe."."""
    names = [c.split()[0].title() for c in cards]
    parts = []
    if names:
        parts.append(", ".join(names) + (" Access Cards" if len(names) > 1 else " Access Card"))
    parts.extend(with_a(a.title()) for a in avds)
    if probe:
        parts.append("the Probe")
    if not parts:
        return f"{title(color)} has nothing."
    return f"{title(color)} has the " + "; ".join(parts) + "."


def item_name(item: str) -> str:
    """"yellow card" -> "Yellow Access Card", "decoder" -> "Decoder", "probe" -> "Probe"."""
    if item.endswith(" card"):
        return f"{title(item.split()[0])} Access Card"
    return item.title()


def with_article(item: str) -> str:
    """"a Negatron", "a Yellow Access Card"."""
    return with_a(item_name(item))


def time_left(seconds: int) -> str:
    if seconds >= 60:
        minutes = seconds // 60
        return f"{plural(minutes, 'minute')} until I take over!"
    return f"{seconds} seconds until I take over!"


def time_at_end(seconds: int) -> str:
    """The time left asked after the game ended: how much the winner had, or none."""
    if seconds <= 0:
        return TIME_RAN_OUT
    if seconds >= 60:
        return f"The Virus was terminated with {plural(seconds // 60, 'minute')} left."
    return f"The Virus was terminated with {plural(seconds, 'second')} left."


enter_code = SaidOfColor(BSAT1, "{color}, enter secret code.")
missed = SaidOfColor(BSAT1, "{color} missed!")
sector_shut_down = SaidOfColor(VIRUS, "{color} Sector shut down!")
must_be_terminated = SaidOfColor(VIRUS, "{color} must be terminated!")
terminated = SaidOfColor(VIRUS, "{color} terminated!")
#: Everything said of each color in the same words.
OF_EACH_COLOR = (enter_code, must_be_terminated, terminated, missed, sector_shut_down)


def mover_prompt(color: str, unit: str, prompt: str) -> Say:
    """BSat1 hurries the mover: "Red, hurry!", "Red Probe, help me!"."""
    return Say(BSAT1, f"{unit_name(color, unit)}, {prompt}")


def found(item: str) -> Say:
    return Say(BSAT1, f"{item_name(item)} found!")


def code(digits: str) -> Say:
    return Say(VIRUS, f"Code {digits[0]} {digits[1]}.")


def breach(room_code: str) -> Say:
    spoken = " ".join(room_code)
    return Say(BSAT1, f"Security breach! Security breach at {spoken}!")


def energize(color: str, n: int) -> Say:
    return Say(BSAT1, f"{title(color)}, energize {plural(n, 'shield')}.")


def teleported(color: str, unit: str, bay: str, speaker: str = BSAT1) -> Say:
    return Say(speaker, f"{unit_name(color, unit)} teleported to {title(bay)} Docking Bay.")


def destroyed(color: str, item: str, speaker: str) -> Say:
    if item == "probe":
        return Say(speaker, f"{title(color)} Probe destroyed!")
    return Say(speaker, f"{title(color)}, {item_name(item)} destroyed!")


def steals(attacker: str, item: str) -> Say:
    return Say(BSAT1, f"{title(attacker)} steals {with_article(item)}!")


def attacking(attacker: str, attacker_unit: str, target: str, target_unit: str) -> Say:
    a, t = unit_name(attacker, attacker_unit), unit_name(target, target_unit)
    return Say(VIRUS, f"{a} is attacking {t}. Take your best shot!")


FIXED: tuple[Say, ...] = (
    ENTER_SKILL, WHICH_ROOM, ENTER_ROOM_CODE, ACCESS_DENIED, NOTHING_HERE, WRONG, I_MISSED, FOUND_ME, YOU_WIN,
    TOO_LATE, Say(BSAT1, "Take your shot on the keypad."),
    # the engine's own, beyond the rulebook's
    NO_ONE_SIGNED_ON, Say(BSAT1, SAY_SKILL), Say(VIRUS, COUNTDOWN_NOT_STARTED),
)


def all_phrases(colors: tuple[str, ...] = ("red", "blue", "green", "yellow"),
                room_codes: tuple[str, ...] = (), max_minutes: int = 35) -> Iterator[Say]:
    """Every sentence the engine can say (for the voice cache), extras included."""
    yield from FIXED
    yield from (Say(VIRUS, t) for t in TAUNTS)
    for seconds in [*range(60, max_minutes * 60 + 1, 60), 30, 45, 15, 10]:
        yield Say(VIRUS, time_left(seconds))
    for seconds in [0, *range(60, max_minutes * 60 + 1, 60), *range(1, 60)]:
        yield Say(BSAT1, time_at_end(seconds))
    for digits in (a + b for a in "012" for b in "012"):
        yield code(digits)
    for room in room_codes:
        yield breach(room)
    for item in (*AVDS, *(f"{c} card" for c in CARD_COLORS), "probe"):
        yield found(item)
    for n in (1, 2, 3):
        for color in colors:
            yield energize(color, n)
    for color in colors:
        yield from (said(color) for said in OF_EACH_COLOR)
        for prompt in TURN_PROMPTS:
            yield mover_prompt(color, "commando", prompt)
        for prompt in PROBE_PROMPTS:
            yield mover_prompt(color, "probe", prompt)
        for item in (*AVDS, *(f"{c} card" for c in CARD_COLORS), "probe"):
            for speaker in (VIRUS, BSAT1):
                yield destroyed(color, item, speaker)
            if item != "probe":
                yield steals(color, item)
        for bay in colors:
            for unit in ("commando", "probe"):
                for speaker in (VIRUS, BSAT1):
                    yield teleported(color, unit, bay, speaker)
        for target in colors:
            if target != color:
                for au in ("commando", "probe"):
                    for tu in ("commando", "probe"):
                        yield attacking(color, au, target, tu)
