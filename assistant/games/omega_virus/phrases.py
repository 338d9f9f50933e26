"""Every sentence the Command Center says, built in one place.

The rulebook's quoted phrases appear here word for word; numbers are written as digits
("Code 0 1.", "25 minutes until I take over!"). Because every sentence is built from a
finite set of parts, ``all_phrases`` can list them all for the voice cache.
"""

from __future__ import annotations

from collections.abc import Iterator

from assistant.engine import Say

VIRUS = "VIRUS"
BSAT1 = "BSAT1"

AVDS = ("negatron", "disruptor", "decoder")
CARD_COLORS = ("red", "blue", "yellow")
TURN_PROMPTS = ("help me!", "do something!", "hurry!", "we are running out of time!")
PROBE_PROMPTS = ("hurry!", "help me!")
TAUNTS = ("You human scum!", "You fools!", "Fool!", "How amusing!", "You'll never find me, human scum!")


def title(color: str) -> str:
    return color.title()


def item_name(item: str) -> str:
    """"yellow card" -> "Yellow Access Card", "decoder" -> "Decoder", "probe" -> "Probe"."""
    if item.endswith(" card"):
        return f"{title(item.split()[0])} Access Card"
    return item.title()


def with_article(item: str) -> str:
    name = item_name(item)
    return f"a {name}" if not item.endswith(" card") else f"a {name}"


def time_left(seconds: int) -> str:
    if seconds >= 60:
        minutes = seconds // 60
        return f"{minutes} minute{'s' if minutes != 1 else ''} until I take over!"
    return f"{seconds} seconds until I take over!"


def enter_code(color: str) -> Say:
    return Say(BSAT1, f"{title(color)}, enter secret code.")


def turn_prompt(color: str, prompt: str) -> Say:
    return Say(BSAT1, f"{title(color)}, {prompt}")


def probe_prompt(color: str, prompt: str) -> Say:
    return Say(BSAT1, f"{title(color)} Probe, {prompt}")


def found(item: str) -> Say:
    return Say(BSAT1, f"{item_name(item)} found!")


def code(digits: str) -> Say:
    return Say(VIRUS, f"Code {digits[0]} {digits[1]}.")


def breach(room_code: str) -> Say:
    spoken = " ".join(room_code)
    return Say(BSAT1, f"Security breach! Security breach at {spoken}!")


def energize(color: str, n: int) -> Say:
    return Say(BSAT1, f"{title(color)}, energize {n} shield{'s' if n != 1 else ''}.")


def teleported(color: str, unit: str, bay: str, speaker: str = BSAT1) -> Say:
    who = title(color) if unit == "commando" else f"{title(color)} Probe"
    return Say(speaker, f"{who} teleported to {title(bay)} Docking Bay.")


def destroyed(color: str, item: str, speaker: str) -> Say:
    if item == "probe":
        return Say(speaker, f"{title(color)} Probe destroyed!")
    return Say(speaker, f"{title(color)}, {item_name(item)} destroyed!")


def steals(attacker: str, item: str) -> Say:
    return Say(BSAT1, f"{title(attacker)} steals {with_article(item)}!")


def attacking(attacker: str, attacker_unit: str, target: str, target_unit: str) -> Say:
    a = title(attacker) if attacker_unit == "commando" else f"{title(attacker)} Probe"
    t = title(target) if target_unit == "commando" else f"{title(target)} Probe"
    return Say(VIRUS, f"{a} is attacking {t}. Take your best shot!")


def missed(attacker: str) -> Say:
    return Say(BSAT1, f"{title(attacker)} missed!")


def sector_shut_down(sector: str) -> Say:
    return Say(VIRUS, f"{title(sector)} Sector shut down!")


def must_be_terminated(color: str) -> Say:
    return Say(VIRUS, f"{title(color)} must be terminated!")


def terminated(color: str) -> Say:
    return Say(VIRUS, f"{title(color)} terminated!")


FIXED: tuple[Say, ...] = (
    Say(BSAT1, "Enter skill."),
    Say(BSAT1, "Which room?"),
    Say(BSAT1, "Enter room code."),
    Say(BSAT1, "Access denied."),
    Say(BSAT1, "Nothing here!"),
    Say(VIRUS, "Wrong!"),
    Say(VIRUS, "I missed!"),
    Say(VIRUS, "You found me! Try and stop me!"),
    Say(VIRUS, "You win! I am terminated!"),
    Say(VIRUS, "Too late! This station is mine! I win!"),
    Say(BSAT1, "Take your shot on the keypad."),
)


def all_phrases(colors: tuple[str, ...] = ("red", "blue", "green", "yellow"),
                room_codes: tuple[str, ...] = (), max_minutes: int = 35) -> Iterator[Say]:
    """Every sentence the engine can say (for the voice cache), extras included."""
    from assistant.games.omega_virus import engine  # the engine's own extra sentences

    yield from FIXED
    yield from (Say(s, t) for s, t in engine.EXTRA_PHRASES)
    yield from (Say(VIRUS, t) for t in TAUNTS)
    for seconds in [*range(60, max_minutes * 60 + 1, 60), 30, 45, 15, 10]:
        yield Say(VIRUS, time_left(seconds))
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
        yield enter_code(color)
        yield must_be_terminated(color)
        yield terminated(color)
        yield missed(color)
        yield sector_shut_down(color)
        for prompt in TURN_PROMPTS:
            yield turn_prompt(color, prompt)
        for prompt in PROBE_PROMPTS:
            yield probe_prompt(color, prompt)
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
