"""Vosk (Kaldi): the recognizer the Raspberry Pi runs, once ``assistant setup`` fetched its model.

The grammar is a JSON phrase list plus "[unk]" (Vosk makes a bigram model of it, so a
handful of real sentences that use every word pair stands for all of them). Vosk drops
grammar words its model does not know with only a log line, so they are checked when
the grammar is set and reported in ``missing_words``. Vosk finds the end of an
utterance itself; a block then returns the final Transcript, whose confidence is the
lowest per-word confidence (``SetWords``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

from assistant.hearing.events import Partial, Transcript
from assistant.hearing.grammar import WordGraph
from assistant.hearing.recognizer import BaseRecognizer, ModelError

DEFAULT_MODEL = "vosk-model-small-en-us-0.15"
#: Files every Vosk model folder has (a half-unpacked folder lacks some).
MODEL_FILES = ("am/final.mdl", "conf/model.conf")


class VoskModel(Protocol):
    def vosk_model_find_word(self, word: str) -> int: ...


def model_folder(setting: str, models_dir: Path) -> Path:
    """Where the configured model lives: a folder name under models/, or a path."""
    path = Path(setting).expanduser()
    if path.is_absolute() or len(path.parts) > 1:
        return path
    return models_dir / setting


def is_model(folder: Path) -> bool:
    return all((folder / f).is_file() for f in MODEL_FILES)


def missing_words(model: VoskModel, words: Iterable[str]) -> list[str]:
    """Grammar words the model's vocabulary lacks (Vosk would silently drop them)."""
    return sorted(w for w in set(words) if model.vosk_model_find_word(w) < 0)


def load_model(folder: Path) -> Any:
    if not folder.is_dir():
        raise ModelError(f"No Vosk model at {folder}. Run `assistant setup` to download "
                         f"{DEFAULT_MODEL}, or set hearing.vosk_model to a model folder.")
    if not is_model(folder):
        raise ModelError(f"{folder} is not a complete Vosk model (no {' or '.join(MODEL_FILES)}). "
                         "Delete it and run `assistant setup` again.")
    import vosk

    vosk.SetLogLevel(-1)
    try:
        return vosk.Model(str(folder))
    except Exception as error:  # vosk raises a bare Exception("Failed to create a model")
        raise ModelError(f"Vosk could not load the model at {folder}: {error}") from error


class VoskRecognizer(BaseRecognizer):
    name = "vosk"

    def __init__(self, model: Any, *, sample_rate: int = 16_000,
                 make_recognizer: Callable[[Any, int, str], Any] | None = None) -> None:
        self.model = model
        self.sample_rate = sample_rate
        self.missing_words: set[str] = set()
        self._make = make_recognizer or _kaldi_recognizer
        self._rec: Any = None
        self._last_partial = ""

    @classmethod
    def load(cls, folder: Path) -> VoskRecognizer:
        return cls(load_model(folder))

    def unknown_words(self, words: Iterable[str]) -> set[str]:
        """Words the model's vocabulary lacks (Vosk would drop them from a grammar silently)."""
        return set(missing_words(self.model, words))

    def grammar_for(self, graph: WordGraph) -> str:
        """The phrase list for ``graph``, without the phrases that use words the model lacks."""
        missing = set(missing_words(self.model, graph.vocabulary()))
        self.missing_words |= missing
        phrases = [p for p in graph.covering_sentences() if not missing & set(p.split())]
        return json.dumps([*phrases, "[unk]"])

    def set_grammar(self, graph: WordGraph) -> None:
        grammar = self.grammar_for(graph)
        if self._rec is None:
            self._rec = self._make(self.model, self.sample_rate, grammar)
            self._rec.SetWords(True)
        else:
            self._rec.SetGrammar(grammar)
        self._last_partial = ""

    def accept(self, block: bytes) -> Partial | Transcript | None:
        if self._rec.AcceptWaveform(block):
            return self._final(self._rec.Result())
        text = str(json.loads(self._rec.PartialResult()).get("partial", ""))
        if text and text != self._last_partial:
            self._last_partial = text
            return Partial(text)
        return None

    def finish(self) -> Transcript:
        return self._final(self._rec.FinalResult())

    def reset(self) -> None:
        self._rec.Reset()
        self._last_partial = ""

    def _final(self, result: str) -> Transcript:
        self._last_partial = ""
        data = json.loads(result)
        text = str(data.get("text", ""))
        words = data.get("result") or []
        confidence = min((float(w.get("conf", 0.0)) for w in words), default=1.0 if text else 0.0)
        return Transcript(text, confidence)


def _kaldi_recognizer(model: Any, rate: int, grammar: str) -> Any:
    import vosk

    return vosk.KaldiRecognizer(model, rate, grammar)
