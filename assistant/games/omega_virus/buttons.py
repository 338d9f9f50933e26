"""What a spoken Omega Virus command means on the 1992 Command Center's keypad (0 1 2 R).

    explore one zero zero      -> 2 1 0 0        pass, teleport   -> 0
    attack the red commando    -> 1 + that unit's Command Code (board data)
    shields zero two r         -> 0 2 R          repeat, skip     -> R

Commands with no keypad form (help, time left, inventory, pause...) have none (None).
"""

from __future__ import annotations

from collections.abc import Callable

from assistant.engine import Command

CommandCode = Callable[[str, str], str]


def command_center_buttons(command: Command, command_code: CommandCode | None) -> str | None:
    """The buttons ``command`` stands for, space separated, or None if it has no keypad form.

    ``command_code(color, unit)`` gives the two digits after 1 that attack that unit; without
    it an attack has no buttons.
    """
    slots = command.slots
    intent = command.intent
    if intent == "explore":
        return " ".join(["2", slots["d1"], slots["d2"], slots["d3"]])
    if intent in ("pass", "teleport"):
        return "0"
    if intent in ("repeat", "skip"):
        return "R"
    if intent == "skill":
        return slots["level"]
    if intent == "code":
        return f"{slots['d1']} {slots['d2']}"
    if intent in ("shields", "buttons"):
        return " ".join(slots[k] for k in ("b1", "b2", "b3", "b4") if k in slots)
    if intent == "terminate":
        return slots["b1"]
    if intent == "attack" and command_code is not None:
        code = command_code(slots["target"], slots.get("unit", "commando"))
        return " ".join(["1", *code])
    return None
