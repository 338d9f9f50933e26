"""A game engine made of parts: the state every phase shares, and one object per phase with
its own state, all held by the engine. ``Held`` lets the engine show a part's field as its
own (``cc.players`` is ``cc.station.players``), which is how the session, the phones and the
tests read the game."""

from __future__ import annotations

from operator import attrgetter
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Held(Generic[T]):
    """A field of one of the engine's parts (named by the attribute that holds it), read and
    written through the engine."""

    def __init__(self, part: str) -> None:
        self.part = part
        self.name = ""
        self._read: Any = None

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self._read = attrgetter(f"{self.part}.{name}")  # one C call per read: engines read these a lot

    def __get__(self, engine: object, owner: type | None = None) -> T:
        return self._read(engine)  # type: ignore[no-any-return]

    def __set__(self, engine: object, value: T) -> None:
        setattr(getattr(engine, self.part), self.name, value)
