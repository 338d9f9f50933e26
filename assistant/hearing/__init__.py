"""Understanding speech: recognizers behind one interface, grammars from the sentence templates.

    recognizer: auto | hybrid | vosk-hybrid | whisper | vosk | pocketsphinx | text      (config.yaml)

``auto`` hears with the combination every published figure was measured with (``MEASURED``):
PocketSphinx, whose English model ships inside its wheel, as the streaming first pass, and
Whisper tiny.en as a second opinion when it is installed (the hybrid listener): the first pass
answers early when it is sure, and Whisper decides on an utterance it doubted, rejected or heard
nothing allowed in. Vosk first is the player's own choice (``vosk-hybrid``, or ``vosk`` alone;
``assistant setup --vosk`` downloads its model), never picked because its model is on disk: no
benchmark here has heard with it. ``RECOGNIZERS`` names each engine's factory and its settings
section; ``open_ear`` gives the ``Ear``: a recognizer plus the game's sentences, which turns audio
into allowed commands or into nothing.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from assistant.hearing.events import (
    Doubted,
    Event,
    Final,
    NearMiss,
    NotAllowedNow,
    NotRecognized,
    OverBudget,
    Partial,
    Transcript,
    Vetoed,
    event_from_dict,
)
from assistant.hearing.grammar import WordGraph, snap
from assistant.hearing.learning import TableVoices
from assistant.hearing.pipeline import STAGE_NAMES, Cascade
from assistant.hearing.recognizer import BaseRecognizer, Ear, ModelError, Recognizer, SecondOpinion, prompt_for
from assistant.hearing.settings import ENGINES, SETTINGS, HearingSettings
from assistant.hearing.spotting import Spotter
from assistant.hearing.whisper_engine import (
    WhisperTranscriber,
    find_model,
    model_label,
)
from assistant.schema import carried
from assistant.sentences import SentenceSet


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"' if value == "" else value
    return repr(value)


def settings_table() -> str:
    """docs/hearing.md's settings table, written from the declarations (tests/test_hearing_settings.py
    holds the docs to it and prints it when they differ)."""
    rows = ["| key | default | range | what it does |", "|---|---|---|---|"]
    for setting in SETTINGS:
        if setting.choices is not None:
            limits = ", ".join(_shown(c) for c in setting.choices)
        elif setting.minimum is not None or setting.maximum is not None:
            limits = f"{_shown(setting.minimum)} to {_shown(setting.maximum)}"
        else:
            limits = ""
        rows.append(f"| `{setting.key}` | {_shown(setting.default)} | {limits} | {setting.doc} |")
    stages = ["| stage | switch | a command it takes is |", "|---|---|---|"]
    for stage in Cascade().stages:
        stages.append(f"| {stage.name} | `{stage.switch}` | {'heard' if stage.sure else 'doubted'} |")
    return "\n".join(rows) + "\n\nThe hybrid's stages, in the order they run:\n\n" + "\n".join(stages) + "\n"


#: The hybrids by name, each with the first pass it puts before Whisper (``auto`` picks ``hybrid``).
HYBRIDS = {"hybrid": "pocketsphinx", "vosk-hybrid": "vosk"}
#: The combination every published hearing figure was heard with, and the file of those figures.
MEASURED = "PocketSphinx first, Whisper tiny.en second"
FIGURES = "bench/results/bench_accuracy.md"
#: The command that hears vosk-hybrid beside the measured combination on the player's own machine
#: (the held-out run of FIGURES, without the recorded people's clips, which are not shipped).
MEASURE_VOSK_HYBRID = (".venv/bin/python bench/bench_accuracy.py --engines hybrid,vosk-hybrid --sets held-out "
                       "--per-intent 1 --voices 1 --talk-voices 1 --talk-every 3 "
                       "--conditions 'clean,white 20 dB,talkers 10 dB' --fsdd '' --results ''")


@dataclass(frozen=True)
class Choice:
    """Which recognizer the setting picked, and why, for the player to read: ``engine`` streams
    (or is the only one); ``second`` is the engine that gives a second opinion, if any;
    ``combination`` names them in a few words ("PocketSphinx first, Whisper tiny.en second")."""

    engine: str
    note: str
    second: str | None = None
    combination: str = ""

    @property
    def name(self) -> str:
        """The name ``open_ear`` takes for this choice."""
        if self.second is None:
            return self.engine
        return next(name for name, first in HYBRIDS.items() if first == self.engine)


def whisper_installed(settings: HearingSettings) -> bool:
    """CTranslate2 and tokenizers importable and the configured Whisper model present (not loaded;
    base's pieces are joined into models/ the first time)."""
    if not all(importlib.util.find_spec(name) for name in ("ctranslate2", "tokenizers")):
        return False
    try:
        find_model(settings.whisper.model, settings.models_dir)
    except ModelError:
        return False
    return True


def choose(settings: HearingSettings) -> Choice:
    """The recognizer ``settings.recognizer`` names. ``auto`` and ``hybrid`` hear with PocketSphinx
    first whatever models are on disk (the measured combination); Vosk only when named."""
    wanted = settings.recognizer
    whisper = f"Whisper {model_label(settings.whisper.model)}"
    if wanted in ("pocketsphinx", "text", "whisper"):
        alone = {"pocketsphinx": "PocketSphinx alone", "whisper": f"{whisper} alone", "text": "typed lines"}
        return Choice(wanted, f"{wanted} (set in config.yaml)", combination=alone[wanted])
    vosk = f"Vosk with the model at {settings.vosk_folder}"
    if wanted == "vosk":
        return Choice("vosk", vosk, combination="Vosk alone")
    if wanted == "vosk-hybrid":
        return Choice("vosk", f"{vosk} first; {whisper} decides what it doubts (vosk-hybrid)", "whisper",
                      f"Vosk first, {whisper} second")
    first = "PocketSphinx (bundled English model)"
    if wanted == "hybrid" or whisper_installed(settings):
        return Choice("pocketsphinx", f"{first} first; {whisper} decides what it doubts", "whisper",
                      f"PocketSphinx first, {whisper} second")
    return Choice("pocketsphinx", f"{first}; Whisper is not installed (no second opinion)",
                  combination="PocketSphinx alone")


@dataclass(frozen=True)
class RecognizerSpec:
    """One engine: how to open it from the settings, and the config.yaml section of its settings."""

    name: str
    open: Callable[[HearingSettings, SentenceSet], Recognizer]
    section: str
    min_confidence: Callable[[HearingSettings], float] = lambda settings: 0.0


def _open_vosk(settings: HearingSettings, sentences: SentenceSet) -> Recognizer:
    from assistant.hearing.vosk_engine import VoskRecognizer

    return VoskRecognizer.load(settings.vosk_folder)


def _open_pocketsphinx(settings: HearingSettings, sentences: SentenceSet) -> Recognizer:
    from assistant.hearing.pocketsphinx_engine import PocketSphinxRecognizer, PocketSphinxTuning

    return PocketSphinxRecognizer(carried(settings, PocketSphinxTuning))


def _open_whisper(settings: HearingSettings, sentences: SentenceSet) -> Recognizer:
    from assistant.hearing.whisper_engine import WhisperRecognizer

    return WhisperRecognizer(open_transcriber(settings),
                             lambda graph: prompt_for(sentences.help_for(graph.intents)))


def _open_text(settings: HearingSettings, sentences: SentenceSet) -> Recognizer:
    from assistant.hearing.text_engine import TextRecognizer

    return TextRecognizer()


#: Every engine by its config.yaml name (``auto`` and ``hybrid`` combine these).
RECOGNIZERS: dict[str, RecognizerSpec] = {spec.name: spec for spec in (
    RecognizerSpec("vosk", _open_vosk, "hearing.vosk", lambda s: s.vosk_min_confidence),
    RecognizerSpec("pocketsphinx", _open_pocketsphinx, "hearing.pocketsphinx",
                   lambda s: s.pocketsphinx_min_confidence),
    RecognizerSpec("whisper", _open_whisper, "hearing.whisper"),
    RecognizerSpec("text", _open_text, ""),
)}

_transcribers: dict[tuple[str, int, int, int, float], WhisperTranscriber] = {}


def open_transcriber(settings: HearingSettings) -> WhisperTranscriber:
    """The configured Whisper model, loaded once per process and model (the same for every game)."""
    folder = find_model(settings.whisper.model, settings.models_dir)
    whisper = settings.whisper
    key = (str(folder), whisper.beam_size, whisper.threads, whisper.noise_suppression, whisper.trim)
    found = _transcribers.get(key)
    if found is None:
        found = _transcribers[key] = WhisperTranscriber.load(folder, settings.whisper)
    return found


def preload_whisper(settings: HearingSettings) -> None:
    """Load Whisper now (``open_ear`` then finds it loaded); a failure is left for ``open_ear``
    to report."""
    try:
        open_transcriber(settings)
    except ModelError:
        pass


def open_recognizer(settings: HearingSettings, engine: str | None = None,
                    sentences: SentenceSet | None = None) -> Recognizer:
    """The recognizer ``engine`` (default: the settings' choice of streaming engine). Raises
    ModelError for an engine without a usable model."""
    engine = engine or choose(settings).engine
    spec = RECOGNIZERS.get(engine)
    if spec is None:
        raise ValueError(f"unknown recognizer {engine!r}; choose one of {', '.join(RECOGNIZERS)}")
    return spec.open(settings, sentences or SentenceSet({"intents": {}}))


def open_ear(settings: HearingSettings, sentences: SentenceSet, intents: Iterable[str] | None = None,
             engine: str | None = None, warn: Callable[[str], object] | None = None,
             fallback: bool = True, voices: TableVoices | None = None) -> Ear:
    """An Ear on the chosen recognizer (``engine``: a name of RECOGNIZERS or HYBRIDS; None: the
    settings' choice). vosk-hybrid whose Vosk model will not load hears with PocketSphinx first
    instead (``warn`` hears why) unless ``fallback`` is False; Vosk alone raises ModelError. A
    hybrid whose Whisper cannot load goes on without the second opinion (``warn`` hears why).
    ``warn`` is also told about any command words the model cannot hear. ``voices``: what the
    hybrid has learnt of the table's voices (shared by the evening's ears; with ``hearing.learn``)."""
    if engine is None:
        engine = choose(settings).name
    second = "whisper" if engine in HYBRIDS else None
    engine = HYBRIDS.get(engine, engine)
    try:
        recognizer = open_recognizer(settings, engine, sentences)
    except ModelError as error:
        if not fallback or engine != "vosk" or second is None:
            raise
        if warn is not None:
            warn(f"{error} Hearing with PocketSphinx first instead, as `auto` does.")
        recognizer = open_recognizer(settings, "pocketsphinx", sentences)
    opinion: SecondOpinion | None = None
    spotter: Spotter | None = None
    if second is not None or recognizer.free_text:
        spotter = Spotter(sentences, settings=settings.spot)
    if second is not None:
        try:
            opinion = SecondOpinion(open_transcriber(settings), spotter or Spotter(sentences), settings,
                                    voices=voices if settings.learn else None)
            if spotter is not None:
                spotter.warm_up()  # its first spotting, inside the first command's budget, would cost more
        except ModelError as error:
            if not fallback:
                raise
            if warn is not None:
                warn(f"{error} Listening without Whisper's second opinion.")
    if opinion is not None and isinstance(recognizer, BaseRecognizer):
        recognizer.defer_reading = True  # Whisper's grammar search often decides without it
    spec = RECOGNIZERS[recognizer.name]
    ear = Ear(recognizer, sentences, intents, snap_edits=settings.snap_edits,
              min_confidence=spec.min_confidence(settings), spotter=spotter, second=opinion)
    unknown = ear.unknown_words()
    if unknown and warn is not None:
        warn(f"The {recognizer.name} model does not know these command words, so sentences with them cannot be "
             f"heard: {', '.join(unknown)}.")
    return ear


__all__ = [
    "ENGINES", "FIGURES", "HYBRIDS", "MEASURED", "MEASURE_VOSK_HYBRID", "RECOGNIZERS", "STAGE_NAMES",
    "BaseRecognizer", "Choice", "Doubted", "Ear", "TableVoices", "Event", "Final",
    "HearingSettings", "ModelError", "NearMiss", "NotAllowedNow", "NotRecognized", "OverBudget", "Partial",
    "Recognizer", "RecognizerSpec", "SecondOpinion", "Transcript", "Vetoed", "WordGraph", "choose", "event_from_dict",
    "open_ear",
    "open_recognizer", "preload_whisper", "snap",
]
