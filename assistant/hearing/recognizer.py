"""The one small interface every recognizer offers, and the Ear that judges what it hears.

A recognizer is fed 16 kHz mono int16 audio in blocks of 0.1-0.2 s. It answers a block
with nothing, a ``Partial`` (words so far), or, when it detects the end of an utterance,
a ``Transcript``. ``finish()`` ends the utterance now (end of a file, or the live loop's
own end-of-speech), ``reset()`` drops it (e.g. while the assistant itself speaks).
``set_grammar`` may only be called between utterances; the ``Ear`` guarantees that by
holding a new grammar back until the current utterance is over.

A grammar recognizer's words are checked against the allowed sentences (exact, or snapped
one edit away); a free recognizer's (``free_text``: Whisper) are searched for an allowed
command said inside them (``spotting``). The hybrid listener gives the Ear a
``SecondOpinion``: Whisper's stages (``pipeline``) decide on the same utterance's audio when
the streaming engine doubts, rejects or hears nothing allowed, and can veto a command the
first pass took from table talk.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from assistant.engine import Command
from assistant.hearing.audio import Int16, blocks
from assistant.hearing.events import Deferred, Final, NearMiss, NotAllowedNow, NotRecognized, Partial, Transcript
from assistant.hearing.grammar import WordGraph, snap
from assistant.hearing.pipeline import (
    Cascade,
    Case,
    Closed,
    Step,
    Transcriber,
    prompt_as_sentences,
    written,
)
from assistant.hearing.spotting import Spotter
from assistant.sentences import SentenceSet

if TYPE_CHECKING:
    from assistant.hearing.learning import TableVoices
    from assistant.hearing.settings import HearingSettings

__all__ = ["UNKNOWN_WORDS", "BaseRecognizer", "Ear", "ModelError", "Recognizer", "SecondOpinion", "Transcriber",
           "prompt_as_sentences", "prompt_for", "written"]

#: Words recognizers use for "something that is not in the grammar".
UNKNOWN_WORDS = frozenset({"[unk]", "<unk>", "[noise]", "<noise>"})



class ModelError(RuntimeError):
    """No usable model for an engine: the message says where it was looked for and what to do."""


def prompt_for(help_sentences: Iterable[str]) -> str:
    """Whisper's prompt: the example sentences of what may be said now."""
    return ", ".join(dict.fromkeys(s.strip() for s in help_sentences if s.strip())) + "."


@runtime_checkable
class Recognizer(Protocol):
    name: str
    #: True for a recognizer that writes free text (no grammar): the Ear spots commands in it.
    free_text: bool

    def set_grammar(self, graph: WordGraph) -> None:
        """Listen for the sentences of ``graph`` from the next utterance on."""
        ...

    def accept(self, block: bytes) -> Partial | Transcript | None:
        """Take a block of 16 kHz mono int16 audio; a Transcript means the utterance ended."""
        ...

    def finish(self) -> Transcript:
        """End the current utterance and return what was heard (text may be empty)."""
        ...

    def reset(self) -> None:
        """Forget the current utterance."""
        ...

    def doubt(self, partial: str) -> str:
        """Why the partial words of the utterance under way should not be acted on yet ("" if
        they may)."""
        ...

    def unknown_words(self, words: Iterable[str]) -> set[str]:
        """Which of ``words`` the recognizer's model cannot hear."""
        ...


class BaseRecognizer:
    """What a recognizer has unless it knows better: no doubts, every word known, a grammar."""

    name = "recognizer"
    free_text = False
    #: end an utterance with a ``Deferred`` transcript, its costly work put off until it is read
    #: (the hybrid sets it; a recognizer with such work looks at it: PocketSphinx)
    defer_reading = False

    def doubt(self, partial: str) -> str:
        return ""

    def unknown_words(self, words: Iterable[str]) -> set[str]:
        return set()


@dataclass
class SecondOpinion:
    """Whisper's say on an utterance (the hybrid listener): its transcriber, the spotter that
    finds commands in what it writes, the hearing settings its stages read, and the cascade of
    stages that decides (assistant/hearing/pipeline.py)."""

    transcriber: Transcriber
    spotter: Spotter
    settings: HearingSettings
    cascade: Cascade = field(default_factory=Cascade)
    #: the longest stretch of an utterance Whisper hears (its last seconds)
    max_seconds: float = 15.0
    #: what hearing has learnt of the table's voices, shared by every ear of the evening (None: nothing)
    voices: TableVoices | None = None


class Ear:
    """A recognizer plus the game's sentences: audio in, allowed commands (or nothing) out.

    Every final transcript is checked against the intents allowed now: an exact sentence
    passes, a near miss is snapped to the single command it can only mean, and [unk],
    low confidence, silence, ambiguity or a command not allowed now give NotRecognized.
    """

    def __init__(self, recognizer: Recognizer, sentences: SentenceSet, intents: Iterable[str] | None = None,
                 *, snap_edits: int = 1, min_confidence: float = 0.0, spotter: Spotter | None = None,
                 second: SecondOpinion | None = None) -> None:
        self.recognizer = recognizer
        self.sentences = sentences
        self.snap_edits = snap_edits
        self.min_confidence = min_confidence
        self.second = second
        self.spotter = spotter or (second.spotter if second is not None else None)
        if recognizer.free_text and self.spotter is None:
            self.spotter = Spotter(sentences)
        self._audio: list[bytes] = []
        self._audio_bytes = 0
        self.graph = WordGraph(sentences, intents)
        self._pending: WordGraph | None = None
        self._in_utterance = False
        self._graphs: dict[frozenset[str], WordGraph] = {self.graph.intents: self.graph}
        #: what the first pass and each of Whisper's stages decided on the last utterance, and its cost
        self.steps: list[Step] = []
        recognizer.set_grammar(self.graph)

    @property
    def intents(self) -> frozenset[str]:
        return (self._pending or self.graph).intents

    def graph_for(self, intents: Iterable[str]) -> WordGraph:
        """The word graph of these intents (built once)."""
        key = frozenset(n for n in self.sentences.intents if n in set(intents))
        graph = self._graphs.get(key)
        if graph is None:
            graph = self._graphs[key] = WordGraph(self.sentences, key)
        return graph

    def set_intents(self, intents: Iterable[str]) -> None:
        """Listen for these intents from the next utterance on (now, if none is under way)."""
        graph = self.graph_for(intents)
        if graph.intents == self.intents:
            return
        if self._in_utterance:
            self._pending = graph
        else:
            self._use(graph)

    def _use(self, graph: WordGraph) -> None:
        self._pending = None
        if graph is not self.graph:
            self.graph = graph
            self.recognizer.set_grammar(graph)

    def _between_utterances(self) -> None:
        self._in_utterance = False
        self._audio, self._audio_bytes = [], 0
        if self._pending is not None:
            self._use(self._pending)

    def _keep(self, block: bytes) -> None:
        """The utterance's audio, for the second opinion (the last ``max_seconds`` of it)."""
        if self.second is None:
            return
        self._audio.append(block)
        self._audio_bytes += len(block)
        limit = int(self.second.max_seconds * 16_000 * 2)
        while self._audio_bytes - len(self._audio[0]) > limit:
            self._audio_bytes -= len(self._audio.pop(0))

    def feed(self, block: bytes) -> Partial | Final | None:
        self._in_utterance = True
        self._keep(block)
        event = self.recognizer.accept(block)
        if isinstance(event, Transcript):
            final = self.decide(event)  # under the grammar it was spoken under
            self._between_utterances()
            return final
        if isinstance(event, Partial):
            words = self.sentences.words(event.text)
            command = self.sentences.match(words, self.graph.intents) if words else None
            if command is not None and self.sentences.is_prefix(words, self.graph.intents):
                command = None  # a longer sentence may still follow ("attack the red" ... "commando")
            return Partial(event.text, command)
        return None

    def finish(self) -> Final:
        final = self.decide(self.recognizer.finish())
        self._between_utterances()
        return final

    def reset(self) -> None:
        self.recognizer.reset()
        self._between_utterances()

    def hear(self, samples: Int16, block_seconds: float = 0.1) -> Final:
        """One whole utterance (a file, a test clip): the first final result, or the end's."""
        result: Final | None = None
        for block in blocks(np.asarray(samples, dtype=np.int16), block_seconds):
            event = self.feed(block)
            if isinstance(event, Transcript):
                self.reset()  # the rest of the clip is not part of the next one
                return event
            if isinstance(event, NotRecognized) and result is None and event.heard:
                result = event
        final = self.finish()
        if isinstance(final, NotRecognized) and result is not None:
            return result  # what the speech was heard as, not its echo's ("Okay." for a room's tail)
        return final

    def doubt(self, partial: Partial) -> str:
        """Why the partial words of the utterance under way (``feed``'s, with the command they
        already are) should not be acted on yet ("" if they may): the recognizer's own check (for
        answering early), and in the hybrid with Whisper held to the grammar, Whisper's: the
        allowed sentence it finds likeliest for the audio so far must be the same command
        (``pipeline.Closed.confirms``)."""
        if partial.command is None:
            return "not a command"
        own = self.recognizer.doubt(partial.text)
        second = self.second
        if own or second is None or not second.settings.closed:
            return own
        why = Closed.confirms(self, second.transcriber, second.settings, b"".join(self._audio), partial.command)
        # nothing reads on from the audio so far (an early answer is said next; a wait hears the
        # whole utterance, encoded anew): its voice's peak need not sit on top of the search's reading
        second.transcriber.let_go()
        return why

    def unknown_words(self) -> list[str]:
        """Words of the game's sentences the recognizer's model cannot hear (checked at start-up)."""
        return sorted(self.recognizer.unknown_words(self.sentences.vocabulary()))

    def decide(self, transcript: Transcript) -> Final:
        """The first pass's judgement, and the second opinion's where there is one: Whisper's
        stages decide when the first pass took nothing, and may veto what it took. ``steps``
        keeps what each stage decided and cost. A ``Deferred`` transcript is read only when
        the judgement is needed (the first step says "not read" when it never was)."""
        self.steps = [Step("first", "not read: the grammar search decided without it")]
        audio = b"".join(self._audio) if self.second is not None else b""
        second = self.second
        if second is None or len(audio) < 16_000 * 2 // 5:  # under 0.2 s: nothing for Whisper to say
            return self._first(transcript)
        first: Final | Callable[[], Final] = (functools.partial(self._first, transcript)
                                              if isinstance(transcript, Deferred) else self._first(transcript))
        final = second.cascade.decide(Case(self, second.transcriber, second.spotter, second.settings, first, audio,
                                           steps=self.steps, voices=second.voices))
        second.transcriber.let_go()  # before the answer is said: its voice's peak need not sit on top
        return final

    def confirm(self, command: Command, how: str = "acted") -> bool:
        """The table confirmed ``command`` (acted on and not taken back, ``how`` "acted"; a yes to
        its question, "yes"): the utterance it was heard from is remembered as that player's take
        of its sentence (``learning.TableVoices``). False when nothing was kept to remember."""
        voices = self.second.voices if self.second is not None else None
        return voices is not None and voices.confirm(command, how)

    def _first(self, transcript: Transcript) -> Final:
        """The first pass's judgement of ``transcript`` (settled first if ``Deferred``), with what
        it cost, as the first of the ``steps``."""
        start = time.process_time()
        first = self.judge(transcript.settle() if isinstance(transcript, Deferred) else transcript)
        self.steps[0] = Step("first", "took" if isinstance(first, Transcript) and first.command else "nothing",
                             time.process_time() - start, first.command if isinstance(first, Transcript) else None)
        return first

    def prompt(self) -> str:
        """Whisper's prompt: the examples of what may be said now."""
        return prompt_for(self.sentences.help_for(self.graph.intents))

    def spot(self, text: str) -> Final:
        """The allowed command said somewhere in free text, or why there is none (a command the
        rules do not allow now is named, so its reason can be spoken)."""
        assert self.spotter is not None
        heard = text.strip()
        found = self.spotter.spot(heard, self.graph.intents)
        if found.command is not None:
            refused = self.spotter.refused(heard, self.graph.intents) if found.distance > 0 else None
            if refused is not None and refused.command is not None:
                return NotAllowedNow(refused.sentence, f"{refused.command.intent} is not allowed now", 0.0,
                                     command=refused.command)
            return Transcript(found.sentence, max(0.0, 1.0 - found.distance), heard, found.command,
                              found.distance > 0)
        if found.sentence and self.sentences.words(heard):
            anywhere = self.spotter.spot(heard)
            if anywhere.command is not None and anywhere.command.intent not in self.graph.intents:
                return NotAllowedNow(anywhere.sentence, f"{anywhere.command.intent} is not allowed now", 0.0,
                                     command=anywhere.command)
        if found.near is not None:
            return NearMiss(heard, found.reason, 0.0, command=found.near, text=found.sentence)
        return NotRecognized(heard, found.reason or "nothing heard", 0.0)

    def judge(self, transcript: Transcript) -> Final:
        """The allowed command a recognizer's transcript stands for, or why there is none."""
        if self.recognizer.free_text:
            return self.spot(transcript.text)
        heard = transcript.text.strip()
        words = self.sentences.words(heard)
        if not words:
            return NotRecognized(heard, "nothing heard", transcript.confidence)
        if UNKNOWN_WORDS & set(heard.lower().split()):
            return NotRecognized(heard, "words outside the commands", transcript.confidence)
        if transcript.doubt:
            return NotRecognized(heard, transcript.doubt, transcript.confidence)
        if transcript.confidence < self.min_confidence:
            return NotRecognized(heard, f"low confidence {transcript.confidence:.2f}", transcript.confidence)
        result = snap(words, self.graph, self.sentences, self.snap_edits)
        if result.command is None:
            anywhere = self.sentences.match(words)
            if anywhere is not None:
                return NotAllowedNow(heard, f"{anywhere.intent} is not allowed now", transcript.confidence,
                                     result.candidates, command=anywhere)
            return NotRecognized(heard, result.reason, transcript.confidence, result.candidates)
        return Transcript(result.text, transcript.confidence, heard, result.command, result.edits > 0)
