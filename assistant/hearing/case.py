"""One utterance on its way through the hybrid's stages (``pipeline.Cascade``): the ``Case``
each stage reads and writes, the ``Step`` it leaves in the trace, the ``Stage`` it is, and what
the stages use of Whisper (``Transcriber``)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Protocol

from assistant.engine import Command
from assistant.hearing.events import Doubted, Final, NotRecognized, Transcript
from assistant.hearing.grammar import has_numbers

if TYPE_CHECKING:
    from assistant.hearing.closed import Sentence
    from assistant.hearing.grammar import WordGraph
    from assistant.hearing.learning import TableVoices
    from assistant.hearing.settings import HearingSettings
    from assistant.hearing.spotting import Spotter
    from assistant.sentences import SentenceSet


class EarView(Protocol):
    """What the stages read of the utterance's ``recognizer.Ear`` (which runs them: a Protocol,
    so that the stages do not import the module that imports them)."""

    sentences: SentenceSet
    graph: WordGraph

    def prompt(self) -> str: ...

    def spot(self, text: str) -> Final: ...


class Transcriber(Protocol):
    """What the stages use of Whisper (``whisper_engine.WhisperTranscriber``)."""

    def transcribe(self, audio: bytes, prompt: str = "") -> str: ...

    def listen(self, audio: bytes, short: bool = False) -> bool: ...

    def held_to(self, graph: WordGraph, beam: int, keep: int = 8, span: float = ...) -> list[Sentence]: ...

    def own_reading(self) -> tuple[str, float]: ...

    def hypotheses(self, audio: bytes, prompt: str = "", count: int = 1, whole: bool = True) -> list[str]: ...

    def again(self, prompt: str = "", count: int = 1) -> list[str]: ...

    def score(self, texts: Sequence[str], ending: bool = True) -> list[float]: ...

    def let_go(self) -> None:
        """The utterance is decided: what was read of it need not be kept."""


def taken(final: Final | None) -> bool:
    """Whether ``final`` is a command taken (heard or doubted)."""
    return isinstance(final, Transcript) and final.command is not None


def command_of(final: Final | None) -> Command | None:
    return final.command if isinstance(final, Transcript) else None


def asked(decided: Transcript, why: str) -> Doubted:
    """A command taken, to be asked about (``why``: for the trace)."""
    return Doubted(decided.text, decided.confidence, decided.heard, decided.command, decided.snapped, decided.doubt,
                   why=why)


@dataclass
class Step:
    """One stage's part in one decision: what it decided (for traces), the CPU seconds it cost,
    and the command it took or confirmed, if any."""

    stage: str
    verdict: str
    seconds: float = 0.0
    command: Command | None = None
    #: when the budget stopped the stage: the CPU seconds spent on the utterance, and expected of it
    stopped: tuple[float, float] | None = None


@dataclass
class Case:
    """One utterance on its way: the first pass's judgement (or how to come by it), the audio,
    and what Whisper made of it (each written once, when a stage first needs it)."""

    ear: EarView
    transcriber: Transcriber
    spotter: Spotter
    settings: HearingSettings
    first_pass: Final | Callable[[], Final]
    audio: bytes
    texts: list[str] | None = None
    opinion: Final | None = None
    #: the veto's verdict, given when no later stage takes a command
    vetoed: NotRecognized | None = None
    steps: list[Step] = field(default_factory=list)
    #: the search's figures, for its step's verdict (traces, `assistant transcribe --json`)
    notes: dict[str, str] = field(default_factory=dict)
    #: what the grammar search found, searched once an utterance
    look: Look | None = None
    #: what hearing has learnt of the table's voices (None: nothing is learnt)
    voices: TableVoices | None = None
    #: the CPU seconds reading the first pass's judgement cost (0 until it is read), on ``clock``
    first_seconds: float = 0.0
    clock: Callable[[], float] = time.process_time

    @property
    def first(self) -> Final:
        """The first pass's judgement, read now if it has not been (its cost kept apart)."""
        if callable(self.first_pass):
            start = self.clock()
            self.first_pass = self.first_pass()
            self.first_seconds = self.clock() - start
        return self.first_pass

    @property
    def first_read(self) -> bool:
        return not callable(self.first_pass)

    @property
    def first_taken(self) -> Transcript | None:
        """The first pass's judgement when it took a command."""
        first = self.first
        return first if isinstance(first, Transcript) and first.command is not None else None

    @property
    def first_command(self) -> Command | None:
        return command_of(self.first)

    def written(self) -> list[str]:
        """Whisper's best transcripts, prompted with the examples of what may be said (its free
        text): over Whisper's whole window for what may hold digits (``counting``), else
        over a shorter one (``whisper_engine.FREE_TEXT_SECONDS``)."""
        if self.texts is None:
            self.texts = self.transcriber.hypotheses(self.audio, self.ear.prompt(), self.settings.hypotheses,
                                                     self.counting()) or [""]
        return self.texts

    def heard_as(self) -> list[tuple[str, ...]]:
        """The words hearing has for the utterance so far: the grammar search's likeliest sentence
        and the first pass's command (when read)."""
        said = [self.look.found[0].words] if self.look is not None and self.look.found else []
        taken = self.first_taken if self.first_read else None
        if taken is not None:
            said.append(tuple(taken.text.split()))
        return said

    def counting(self) -> bool:
        """Whether the utterance may hold digits to count: what it is heard as has a number word
        (``grammar.has_numbers``): "shields zero and two" over 10 s came out "shields 0 and 2, 0
        and 2"."""
        return any(has_numbers(words) for words in self.heard_as())

    def spotted(self) -> Final:
        """What is spotted in Whisper's best transcript."""
        if self.opinion is None:
            self.opinion = self.ear.spot(self.written()[0])
        return self.opinion


class Stage:
    """One stage: ``run`` returns a decision that ends the free text's stages, or None."""

    #: the stable short name (ablation tables, traces, ``HearingSettings.without``)
    name: ClassVar[str]
    #: the key of its switch setting (declared in settings.py with the stage's other settings)
    switch: ClassVar[str]
    #: False: a command this stage takes is doubted (it guesses)
    sure: ClassVar[bool] = False
    #: CPU seconds one run typically costs here (for a 2 s utterance when it ``scales``): the
    #: budget's estimate until this process has timed it
    typical_seconds: ClassVar[float] = 0.0
    #: True: its cost grows with the utterance (the search encodes the utterance alone)
    scales: ClassVar[bool] = False

    def per(self, audio: bytes) -> float:
        """What the stage's expected cost is counted per: seconds of audio when it ``scales``."""
        return max(len(audio) / BYTES_PER_SECOND, MIN_AUDIO) if self.scales else 1.0

    def on(self, settings: HearingSettings) -> bool:
        return bool(getattr(settings, field_name(self.switch)))

    def run(self, case: Case) -> Final | None:
        raise NotImplementedError

    def skipped(self, case: Case) -> Final | None:
        """The decision when the stage is switched off (None: go on without it)."""
        return None


#: The audio length a stage's typical_seconds is for, and the least length a cost is scaled to
TYPICAL_AUDIO = 2.0
MIN_AUDIO = 1.0
BYTES_PER_SECOND = 32_000  # 16 kHz, 16-bit


def field_name(key: str) -> str:
    """The HearingSettings field of a hearing key: its last part ("hearing.whisper.veto" -> veto),
    the engine's name before it where two engines share it (vosk_min_confidence)."""
    parts = key.split(".")
    return f"{parts[-2]}_{parts[-1]}" if parts[-1] == "min_confidence" else parts[-1]


#: ``HeldTo.first`` when the first pass's judgement was not read (the rule heard without it)
UNREAD = "unread"


def relation(first: Command | None, command: Command) -> str:
    """``HeldTo.first``: whether the first pass took ``command`` ("same"), another or none."""
    return "none" if first is None else "same" if first == command else "other"


@dataclass(frozen=True)
class HeldTo:
    """What the grammar search found, in Whisper's log probabilities: the likeliest allowed
    sentence (and its words), the likeliest of another command, Whisper's own unconstrained
    reading; and whether the first pass took the same command ("same"), another, none, or was not
    read (``UNREAD``)."""

    best: float
    other: float
    own: float
    words: int = 1
    first: str = "none"
    #: the best sentence's ``closed.Sentence.stop``: 0 when Whisper would stop writing after it
    stop: float = 0.0
    #: how far its command is from Whisper's own reading (``Spotter.distance``; inf: not at all)
    reads: float = math.inf
    #: how many words Whisper's own reading goes on after a sentence of that command at its start
    tail: int = 0
    #: whether Whisper's own reading, repeats cut, is that command and nothing more ("Status. Status.")
    whole: bool = False

    @property
    def margin(self) -> float:
        """How much likelier the best sentence is than any sentence of another command."""
        return self.best - self.other

    @property
    def fit(self) -> float:
        """How much less likely the best sentence is than Whisper's own reading, per token (its
        words and its end): table talk forced onto a short command strays far at every token."""
        return (self.best - self.own) / (self.words + 1)

    def note(self) -> str:
        return (f"best {self.best:.2f} other {self.other:.2f} own {self.own:.2f} words {self.words} "
                f"first {self.first} stop {self.stop:.2f} reads {self.reads:.2f} tail {self.tail} "
                f"whole {int(self.whole)}")


@dataclass(frozen=True)
class Look:
    """What the grammar search found for one utterance: the likeliest allowed sentences and their
    commands, Whisper's own reading and its log probability, and the figures the rule reads (None
    when no allowed sentence was found, or the best is no command)."""

    found: list[Sentence]
    commands: list[Command | None]
    reading: str
    own: float
    held: HeldTo | None
