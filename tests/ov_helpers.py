"""Helpers to drive the Command Center engine in tests."""

from __future__ import annotations

import random
from typing import Any

from assistant.engine import Command, Output
from assistant.games.omega_virus.engine import CommandCenter, Settings

SEATS = ("red", "blue", "green", "yellow")
CODES = {"red": "12", "blue": "01", "green": "20", "yellow": "22"}


def press(cc: CommandCenter, buttons: str) -> list[Output]:
    return cc.handle(Command("press", {"buttons": " ".join(buttons.replace(" ", ""))}))


def say(cc: CommandCenter, intent: str, **slots: str) -> list[Output]:
    return cc.handle(Command(intent, slots))


def lines(outputs: list[Output]) -> list[str]:
    return [o.line() for o in outputs]


def signed_on(seed: int = 1, players: tuple[str, ...] = ("red", "blue"), skill: int = 0,
              codes: dict[str, str] | None = None, **settings: Any) -> tuple[CommandCenter, list[str]]:
    """A game after "Enter skill." and every sign-on, with the opening lines."""
    codes = codes or CODES
    cc = CommandCenter(random.Random(seed), Settings(**settings))
    out = lines(cc.start())
    out += lines(press(cc, str(skill)))
    for color in SEATS:
        out += lines(press(cc, codes[color] if color in players else "R"))
    return cc, out


def give(cc: CommandCenter, color: str, *items: str) -> None:
    """Hand items from the supply to a player (a dealt hand, as OpenSpiel tests do)."""
    player = cc.players[color]
    for item in items:
        if item != "probe":
            cc.supply[item] -= 1
        player.take(item)


def to_turn(cc: CommandCenter, color: str, unit: str = "commando") -> None:
    """Pass until it is ``color``'s ``unit`` to move."""
    for _ in range(20):
        if cc.mover == (color, unit):
            return
        press(cc, "0")
    raise AssertionError(f"never reached {color} {unit}")


def explore(cc: CommandCenter, room: str) -> list[Output]:
    """The spoken "explore 1 0 0": the room code comes with it, so no "Which room?"."""
    return cc.handle(Command("explore", {"d1": room[0], "d2": room[1], "d3": room[2]}))
