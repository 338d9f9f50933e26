"""The shape of an engine that answers each command by its handler (Prologue, Battle of the
Planets): a table from intent to handler, what is allowed now, and one ``handle`` for both."""

from __future__ import annotations

import abc
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from assistant.engine import Command, NotAllowed, Output, Say

#: One command's handler: its slots in, what the game says out (or NotAllowed, changing nothing).
Handler = Callable[[Mapping[str, str]], list[Output]]


@dataclass
class HandlerGame(abc.ABC):
    """``handle`` looks the intent up in ``_handlers()``: an intent the game does not know is
    "not part of" it, one not in ``allowed_intents()`` now is refused with ``_not_now``'s reason."""

    #: The game as the players call it: "That is not part of Prologue."
    title: ClassVar[str]
    speakers: ClassVar[tuple[str, ...]]
    supports_undo: ClassVar[bool] = True

    rng: random.Random

    def handle(self, command: Command) -> list[Output]:
        handler = self._handlers().get(command.intent)
        if handler is None:
            raise NotAllowed(f"That is not part of {self.title}.")
        if command.intent not in self.allowed_intents():
            raise NotAllowed(self._not_now(command))
        return handler(command.slots)

    def _say(self, text: str) -> Output:
        """Said by the game's own voice (its first speaker)."""
        return Say(self.speakers[0], text)

    @abc.abstractmethod
    def allowed_intents(self) -> frozenset[str]: ...

    @abc.abstractmethod
    def _handlers(self) -> dict[str, Handler]: ...

    @abc.abstractmethod
    def _not_now(self, command: Command) -> str:
        """Why ``command``, a part of the game, is not allowed now."""
