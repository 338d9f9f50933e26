"""The text recognizer: typed lines instead of audio (the text contract, and a keyboard fallback).

It speaks the same interface as the audio recognizers so the live loop can run on a
keyboard: ``accept`` takes UTF-8 text, and every newline ends an utterance.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TextIO

from assistant.hearing.events import Partial, Transcript
from assistant.hearing.grammar import WordGraph
from assistant.hearing.recognizer import BaseRecognizer


class TextRecognizer(BaseRecognizer):
    name = "text"

    def __init__(self) -> None:
        self._buffer = ""

    def set_grammar(self, graph: WordGraph) -> None:
        """Typed words need no grammar; the Ear still checks them against the allowed sentences."""

    def accept(self, block: bytes) -> Partial | Transcript | None:
        self._buffer += block.decode("utf-8", errors="replace")
        if "\n" in self._buffer:
            line, _, self._buffer = self._buffer.partition("\n")
            return Transcript(line.strip(), 1.0)
        return Partial(self._buffer.strip()) if self._buffer.strip() else None

    def finish(self) -> Transcript:
        line, self._buffer = self._buffer.strip(), ""
        return Transcript(line, 1.0)

    def reset(self) -> None:
        self._buffer = ""


def lines(stream: TextIO) -> Iterator[bytes]:
    """Each line of ``stream`` as a block for ``TextRecognizer.accept``."""
    for line in stream:
        yield (line if line.endswith("\n") else line + "\n").encode("utf-8")
