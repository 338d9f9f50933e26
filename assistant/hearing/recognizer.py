"""The one small interface every recognizer offers, and the Ear that judges what it hears.

A recognizer is fed 16 kHz mono int16 audio in blocks of 0.1-0.2 s. It answers a block
with nothing, a ``Partial`` (words so far), or, when it detects the end of an utterance,
a ``Transcript``. ``finish()`` ends the utterance now (end of a file, or the live loop's
own end-of-speech), ``reset()`` drops it (e.g. while the assistant itself speaks).
``set_grammar`` may only be called between utterances; the ``Ear`` guarantees that by
holding a new grammar back until the current utterance is over.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, runtime_checkable

import numpy as np

from assistant.hearing.audio import Int16, blocks
from assistant.hearing.events import Final, NotRecognized, Partial, Transcript
from assistant.hearing.grammar import WordGraph, snap
from assistant.sentences import SentenceSet

#: Words recognizers use for "something that is not in the grammar".
UNKNOWN_WORDS = frozenset({"[unk]", "<unk>", "[noise]", "<noise>"})


@runtime_checkable
class Recognizer(Protocol):
    name: str

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


class Ear:
    """A recognizer plus the game's sentences: audio in, allowed commands (or nothing) out.

    Every final transcript is checked against the intents allowed now: an exact sentence
    passes, a near miss is snapped to the single command it can only mean, and [unk],
    low confidence, silence, ambiguity or a command not allowed now give NotRecognized.
    """

    def __init__(self, recognizer: Recognizer, sentences: SentenceSet, intents: Iterable[str] | None = None,
                 *, snap_edits: int = 1, min_confidence: float = 0.0) -> None:
        self.recognizer = recognizer
        self.sentences = sentences
        self.snap_edits = snap_edits
        self.min_confidence = min_confidence
        self.graph = WordGraph(sentences, intents)
        self._pending: WordGraph | None = None
        self._in_utterance = False
        self._graphs: dict[frozenset[str], WordGraph] = {self.graph.intents: self.graph}
        recognizer.set_grammar(self.graph)

    @property
    def intents(self) -> frozenset[str]:
        return (self._pending or self.graph).intents

    def set_intents(self, intents: Iterable[str]) -> None:
        """Listen for these intents from the next utterance on (now, if none is under way)."""
        key = frozenset(n for n in self.sentences.intents if n in set(intents))
        if key == self.intents:
            return
        graph = self._graphs.get(key)
        if graph is None:
            graph = self._graphs[key] = WordGraph(self.sentences, key)
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
        if self._pending is not None:
            self._use(self._pending)

    def feed(self, block: bytes) -> Partial | Final | None:
        self._in_utterance = True
        event = self.recognizer.accept(block)
        if isinstance(event, Transcript):
            final = self.judge(event)  # under the grammar it was spoken under
            self._between_utterances()
            return final
        if isinstance(event, Partial):
            words = self.sentences.words(event.text)
            complete = (bool(words) and self.sentences.match(words, self.graph.intents) is not None
                        and not self.sentences.is_prefix(words, self.graph.intents))
            return Partial(event.text, complete)
        return None

    def finish(self) -> Final:
        final = self.judge(self.recognizer.finish())
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
        if isinstance(final, NotRecognized) and result is not None and not final.heard:
            return result
        return final

    def doubt(self, partial: str) -> str:
        """Why the partial words of the utterance under way should not be acted on yet ("" if
        they may): the recognizer's own check where it has one (for answering early)."""
        check = getattr(self.recognizer, "doubt", None)
        return str(check(partial)) if check is not None else ""

    def unknown_words(self) -> list[str]:
        """Words of the game's sentences the recognizer's model cannot hear (checked at start-up)."""
        check = getattr(self.recognizer, "unknown_words", None)
        return sorted(check(self.sentences.vocabulary())) if check is not None else []

    def judge(self, transcript: Transcript) -> Final:
        """The allowed command a recognizer's transcript stands for, or why there is none."""
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
            reason = (f"{anywhere.intent} is not allowed now" if anywhere is not None else result.reason)
            return NotRecognized(heard, reason, transcript.confidence, result.candidates)
        return Transcript(result.text, transcript.confidence, heard, result.command, result.edits > 0)
