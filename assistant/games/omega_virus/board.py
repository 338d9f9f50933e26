"""The board as data: rooms (code, color, sector), seats and the Command Code table.

The printed board's table is not known (see board.yaml); an owner edits the YAML to match
their board, and ``Board.from_data`` checks it so a typo is reported, not played.
"""

from __future__ import annotations

import copy
import functools
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assistant.games.data import GameDataError, read_yaml

COLORS = ("red", "blue", "green", "yellow")
UNITS = ("commando", "probe")
DIGITS = ("0", "1", "2")
#: What a room of each color is called on the board.
ROOM_NAMES = {"green": "Supply Depot", "blue": "Disruptor Bank", "red": "Negatron Lab",
              "yellow": "Decoder Station"}


@functools.cache
def _default_data() -> dict[str, Any]:
    data: dict[str, Any] = read_yaml(__package__, "board.yaml")
    return data


class BoardError(GameDataError):
    """A board file that cannot be played."""


@dataclass(frozen=True)
class Room:
    code: str
    color: str
    sector: str

    @property
    def spoken_code(self) -> str:
        return " ".join(self.code)


@dataclass(frozen=True)
class Board:
    rooms: tuple[Room, ...]
    seat_order: tuple[str, ...]
    sectors: tuple[str, ...]
    command_codes: Mapping[tuple[str, str], str]

    @classmethod
    def default_data(cls) -> dict[str, Any]:
        return copy.deepcopy(_default_data())

    @classmethod
    def load_data(cls, path: str | Path | None) -> dict[str, Any]:
        """The board data from ``path`` (or the packaged default), checked."""
        if not path:
            return cls.default_data()
        try:
            data = read_yaml(__package__, "board.yaml", path, what="board file")
        except GameDataError as error:
            raise BoardError(str(error)) from error
        cls.from_data(data)
        return dict(data)

    @classmethod
    def from_data(cls, data: Any) -> Board:
        if not isinstance(data, dict):
            raise BoardError("a board file needs seat_order, sectors, rooms and command_codes")
        seats = tuple(str(c).lower() for c in data.get("seat_order", COLORS))
        if sorted(seats) != sorted(COLORS):
            raise BoardError(f"seat_order must name each of {', '.join(COLORS)} once")
        sectors = tuple(str(c).lower() for c in data.get("sectors", COLORS))
        if sorted(sectors) != sorted(COLORS):
            raise BoardError(f"sectors must name each of {', '.join(COLORS)} once")
        rooms: list[Room] = []
        for i, item in enumerate(data.get("rooms") or []):
            if not isinstance(item, dict):
                raise BoardError(f"room {i + 1}: expected {{code, color, sector}}")
            code = str(item.get("code", "")).replace(".", "").replace(" ", "")
            color = str(item.get("color", "")).lower()
            sector = str(item.get("sector", "")).lower()
            if len(code) != 3 or any(d not in DIGITS for d in code):
                raise BoardError(f"room {i + 1}: code {item.get('code')!r} must be 3 digits of 0, 1, 2")
            if color not in COLORS or sector not in COLORS:
                raise BoardError(f"room {code}: color and sector must each be one of {', '.join(COLORS)}")
            rooms.append(Room(code, color, sector))
        if not rooms:
            raise BoardError("the board has no rooms")
        duplicates = [c for c, n in Counter(r.code for r in rooms).items() if n > 1]
        if duplicates:
            raise BoardError(f"room code {duplicates[0]} appears twice")
        for sector in COLORS:
            if not any(r.sector == sector for r in rooms):
                raise BoardError(f"the {sector} sector has no rooms")
        codes: dict[tuple[str, str], str] = {}
        raw_codes = data.get("command_codes") or {}
        for color in COLORS:
            for unit in UNITS:
                value = str(raw_codes.get(f"{color} {unit}", "")).replace(".", "").replace(" ", "")
                if len(value) == 3 and value.startswith("1"):
                    value = value[1:]
                if len(value) != 2 or any(d not in DIGITS for d in value):
                    raise BoardError(f"command_codes: '{color} {unit}' must be two digits of 0, 1, 2")
                codes[(color, unit)] = value
        clashes = [c for c, n in Counter(codes.values()).items() if n > 1]
        if clashes:
            raise BoardError(f"command code 1{clashes[0]} is given to two targets")
        return cls(tuple(rooms), seats, sectors, codes)

    def room(self, code: str) -> Room | None:
        for room in self.rooms:
            if room.code == code:
                return room
        return None

    def command_code(self, color: str, unit: str) -> str:
        """The two digits after 1 that attack ``color``'s ``unit``."""
        return self.command_codes[(color, unit)]

    def target(self, digits: str) -> tuple[str, str] | None:
        for key, value in self.command_codes.items():
            if value == digits:
                return key
        return None

    def text(self) -> str:
        """The tables an owner checks against the printed board."""
        lines = ["Rooms (code, color, sector):"]
        for sector in self.sectors:
            for room in (r for r in self.rooms if r.sector == sector):
                dotted = ".".join(room.code)
                lines.append(f"  {dotted}  {room.color:<6} {ROOM_NAMES[room.color]:<16} "
                             f"{room.sector} sector")
        lines.append("")
        lines.append("Command Codes (press 1, then the two digits):")
        for unit in UNITS:
            for color in self.seat_order:
                code = self.command_codes[(color, unit)]
                lines.append(f"  1.{code[0]}.{code[1]}  {color.title()} {unit.title()}")
        lines.append("")
        seats = ", ".join(c.title() for c in self.seat_order)
        lines.append(f"Seat order (sign-on, then clockwise play): {seats}")
        return "\n".join(lines)
