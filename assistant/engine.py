"""What every game engine speaks in: commands in, utterances and sounds out.

Engines are pure: no audio, no clock reads, no module-level ``random``. They receive a
seeded ``random.Random`` and are told how much game time passed (``advance``), so a game
replays exactly from its seed and the journal of its inputs.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, runtime_checkable


@dataclass(frozen=True)
class Say:
    """One utterance, tagged with who says it (VIRUS, BSAT1, NARRATOR, ...)."""

    speaker: str
    text: str

    def line(self) -> str:
        return f"{self.speaker}: {self.text}"


@dataclass(frozen=True)
class Sound:
    """A non-speech sound effect such as ``buzz``."""

    name: str

    def line(self) -> str:
        return f"SOUND: {self.name}"


Output = Say | Sound


@dataclass(frozen=True)
class Command:
    """A recognised command: an intent name and its slot values (all strings)."""

    intent: str
    slots: Mapping[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"intent": self.intent, "slots": dict(self.slots)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Command:
        return cls(str(data["intent"]), {str(k): str(v) for k, v in data.get("slots", {}).items()})

    def __hash__(self) -> int:
        return hash((self.intent, tuple(sorted(self.slots.items()))))


class NotAllowed(ValueError):
    """Understood, but a rule forbids it now. ``str(error)`` is the spoken reason."""


@runtime_checkable
class Game(Protocol):
    """The interface every game engine offers to the session driver."""

    name: ClassVar[str]
    #: Speakers this game uses, first one answers the driver's own messages.
    speakers: ClassVar[tuple[str, ...]]
    #: Whether the session may take the last command back (its GameSpec says the same).
    supports_undo: ClassVar[bool]

    def start(self) -> list[Output]:
        """Opening announcements."""
        ...

    def handle(self, command: Command) -> list[Output]:
        """Apply a command; raise NotAllowed (changing nothing) when a rule forbids it.

        ``repeat`` is always allowed, in every phase and after the end: it says again what
        the players need to hear now and changes nothing (not even the RNG), since the session
        sends it unjournaled after a pause, a resume or an undo.
        """
        ...

    def advance(self, seconds: float) -> list[Output]:
        """Let ``seconds`` of game time pass (only called while nothing is spoken)."""
        ...

    def allowed_intents(self) -> frozenset[str]:
        """Intents that make sense right now (feeds grammars and the matcher)."""
        ...

    def next_event_in(self) -> float | None:
        """Seconds of game time until the engine speaks by itself, or None."""
        ...

    def is_over(self) -> bool: ...

    def clock_running(self) -> bool:
        """Whether game time matters now (a countdown or a response limit is running)."""
        ...


def make_rng(seed: int) -> random.Random:
    return random.Random(seed)
