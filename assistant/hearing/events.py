"""What hearing produces: small typed events, one per thing that happened (wyoming style).

A recognizer turns audio into ``Partial`` (words so far, unreliable) and, at the end of an
utterance, a ``Transcript`` (what it heard, with a confidence). The ``Ear`` checks a
transcript against the sentences allowed now and gives the live loop one of four outcomes,
each its own type, so the loop acts on the type and never reads a reason string:

- heard: a ``Transcript`` whose ``text`` is an allowed sentence (``heard`` keeps the raw words);
- doubted: a ``Doubted`` transcript, a command only a doubtful stage of the hybrid took (the
  loop asks before acting on a costly one);
- not allowed now: ``NotAllowedNow``, a command the rules refuse at this moment (its reason is
  spoken);
- not understood: ``NotRecognized`` (table talk, silence: nothing is said), ``NearMiss`` (words
  near one allowed command but not near enough) and ``Vetoed`` (a command the first pass took and
  Whisper heard otherwise): nothing is said, but the same command missed again at once is asked
  about; or ``OverBudget`` (the hybrid ran out of time on it: the player is asked to say it
  again).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from assistant.engine import Command


@dataclass(frozen=True)
class Partial:
    """Words recognized so far in an utterance that has not ended.

    ``command`` is set by the Ear (matched once, there) when the words already are a whole
    command that no longer sentence can extend, so a live loop may act on it before the end of
    speech (``complete``).
    """

    text: str
    command: Command | None = None

    @property
    def complete(self) -> bool:
        return self.command is not None

    def to_dict(self) -> dict[str, Any]:
        return {"type": "partial", "text": self.text,
                "command": self.command.to_json() if self.command is not None else None}


@dataclass(frozen=True)
class Transcript:
    """A finished utterance.

    From a recognizer: ``text`` is what it heard. From the Ear: ``text`` is the allowed
    sentence it stands for (after snapping), ``heard`` the recognizer's words, and
    ``command`` the command the sentence means. ``doubt`` is a recognizer's reason not to
    trust its own words (the Ear then takes no action); empty when it has none.
    """

    text: str
    confidence: float = 1.0
    heard: str = ""
    command: Command | None = None
    snapped: bool = False
    doubt: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"type": "transcript", "text": self.text, "confidence": self.confidence,
                "heard": self.heard,
                "command": self.command.to_json() if self.command else None, "snapped": self.snapped,
                "doubt": self.doubt}


def _nothing_to_read() -> Transcript:
    return Transcript("", 0.0)


@dataclass(frozen=True)
class Deferred(Transcript):
    """A recognizer's transcript whose reading is not finished: ``text`` holds what its live
    pass heard, ``settle()`` gives the reading itself, and does the work that costs (PocketSphinx
    decodes the whole utterance again in one piece and checks its phones) only when called. The
    Ear settles it before judging it, or, in the hybrid, when a stage needs the first pass's
    command: the grammar search often decides without it. Never crosses a process boundary."""

    settle: Callable[[], Transcript] = field(default=_nothing_to_read, compare=False, repr=False)


@dataclass(frozen=True)
class NotRecognized:
    """An utterance that stands for no allowed command; ``reason`` says why (for logs)."""

    heard: str = ""
    reason: str = ""
    confidence: float = 0.0
    alternatives: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {"type": "not-recognized", "heard": self.heard, "reason": self.reason,
                "confidence": self.confidence, "alternatives": list(self.alternatives)}


@dataclass(frozen=True)
class Doubted(Transcript):
    """A command taken with doubt: ``why`` names the hybrid's verdict that took it (a stage that
    guesses, or Whisper alone against the first pass). Acting on it may be a wrong move."""

    why: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "doubted": self.why}


@dataclass(frozen=True)
class NotAllowedNow(NotRecognized):
    """A command the rules do not allow at this moment: the game says why."""

    command: Command | None = None

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "type": "not-allowed",
                "command": self.command.to_json() if self.command else None}


@dataclass(frozen=True)
class NearMiss(NotRecognized):
    """Words near one allowed command (``command``, its sentence ``text``) that hearing did not
    take: Whisper wrote something close to it, not close enough. Not understood, and nothing is
    said (table talk comes near commands too); but the live loop keeps it, and the same command
    missed again at once (the player saying it again, unanswered) is asked about."""

    command: Command | None = None
    text: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "type": "near-miss",
                "command": self.command.to_json() if self.command else None, "text": self.text}


@dataclass(frozen=True)
class Vetoed(NearMiss):
    """A command the first pass took (``command``, its sentence ``text``) that Whisper's veto
    dropped: it heard other words. Kept by the live loop as any near miss is."""

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "type": "vetoed"}


@dataclass(frozen=True)
class OverBudget(NotRecognized):
    """The hybrid stopped before it could decide (hearing.budget_seconds): the player is asked to
    say it again at once instead of waiting for a late answer."""

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "type": "over-budget"}


Event = Partial | Transcript | NotRecognized
Final = Transcript | NotRecognized


def event_from_dict(data: dict[str, Any]) -> Event:
    """The inverse of ``to_dict`` (events cross process boundaries as JSON lines)."""
    kind = data.get("type")
    command = data.get("command")
    if kind == "partial":
        return Partial(str(data["text"]), Command.from_json(command) if command else None)
    if kind == "transcript":
        heard = (str(data["text"]), float(data.get("confidence", 1.0)), str(data.get("heard", "")),
                 Command.from_json(command) if command else None, bool(data.get("snapped", False)),
                 str(data.get("doubt", "")))
        return Doubted(*heard, why=str(data["doubted"])) if "doubted" in data else Transcript(*heard)
    if kind in ("not-recognized", "not-allowed", "over-budget", "vetoed", "near-miss"):
        why = (str(data.get("heard", "")), str(data.get("reason", "")), float(data.get("confidence", 0.0)),
               tuple(str(a) for a in data.get("alternatives", [])))
        if kind == "not-allowed":
            return NotAllowedNow(*why, command=Command.from_json(command) if command else None)
        if kind in ("vetoed", "near-miss"):
            near = Vetoed if kind == "vetoed" else NearMiss
            return near(*why, command=Command.from_json(command) if command else None, text=str(data.get("text", "")))
        return OverBudget(*why) if kind == "over-budget" else NotRecognized(*why)
    raise ValueError(f"not a hearing event: {data!r}")
