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
from dataclasses import dataclass, field, replace
from pathlib import Path

from assistant.config import PROJECT_ROOT, Config
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
from assistant.hearing.pipeline import STAGE_NAMES, Cascade, field_name
from assistant.hearing.recognizer import BaseRecognizer, Ear, ModelError, Recognizer, SecondOpinion, prompt_for
from assistant.hearing.settings import ENGINES, setting_field
from assistant.hearing.spotting import SpotSettings, Spotter
from assistant.hearing.vosk_engine import model_folder
from assistant.hearing.whisper_engine import (
    WhisperSettings,
    WhisperTranscriber,
    find_model,
    model_label,
)
from assistant.schema import carried, read_declared
from assistant.sentences import SentenceSet


@dataclass
class HearingSettings:
    """Hearing's settings, each field made from its declaration (settings.SETTINGS): the field
    of a key is ``pipeline.field_name(key)``; the Whisper model's and the spotter's are nested."""

    recognizer: str = setting_field("recognizer")
    vosk_model: str = setting_field("hearing.vosk_model")
    models_dir: Path = field(default_factory=lambda: PROJECT_ROOT / "models")  # hearing.models_dir: ""
    snap_edits: int = setting_field("hearing.snap_edits")
    vosk_min_confidence: float = setting_field("hearing.vosk.min_confidence")
    pocketsphinx_min_confidence: float = setting_field("hearing.pocketsphinx.min_confidence")
    chatter_words: int = setting_field("hearing.pocketsphinx.chatter_words")
    chatter_entry: float = setting_field("hearing.pocketsphinx.chatter_entry")
    chatter_loop: float = setting_field("hearing.pocketsphinx.chatter_loop")
    noise_floor: float = setting_field("hearing.pocketsphinx.noise_floor")
    phone_check: float = setting_field("hearing.pocketsphinx.phone_check")
    early_phone_check: float = setting_field("hearing.pocketsphinx.early_phone_check")
    whisper: WhisperSettings = field(default_factory=WhisperSettings)
    spot: SpotSettings = field(default_factory=SpotSettings)
    spotting: bool = setting_field("hearing.whisper.spotting")
    hypotheses: int = setting_field("hearing.whisper.hypotheses")
    veto: bool = setting_field("hearing.whisper.veto")
    confirm_distance: float = setting_field("hearing.whisper.confirm_distance")
    as_sentences: bool = setting_field("hearing.whisper.as_sentences")
    as_sentences_within: float = setting_field("hearing.whisper.as_sentences_within")
    budget_seconds: float = setting_field("hearing.budget_seconds")
    closed: bool = setting_field("hearing.whisper.closed")
    closed_beam: int = setting_field("hearing.whisper.closed_beam")
    closed_margin: float = setting_field("hearing.whisper.closed_margin")
    closed_agree_margin: float = setting_field("hearing.whisper.closed_agree_margin")
    closed_agree_fit: float = setting_field("hearing.whisper.closed_agree_fit")
    closed_fit: float = setting_field("hearing.whisper.closed_fit")
    closed_ask_fit: float = setting_field("hearing.whisper.closed_ask_fit")
    closed_stop: float = setting_field("hearing.whisper.closed_stop")
    closed_reject_fit: float = setting_field("hearing.whisper.closed_reject_fit")
    closed_tail: int = setting_field("hearing.whisper.closed_tail")

    def without(self, *stages: str) -> HearingSettings:
        """These settings with the named stages of the hybrid switched off (an ablation):
        names from pipeline.STAGE_NAMES; each stage's switch is its first declared setting."""
        switches = {stage.name: stage.SETTINGS[0] for stage in Cascade().stages}
        unknown = set(stages) - set(switches)
        if unknown:
            raise ValueError(f"no stage {', '.join(sorted(unknown))}; the stages are {', '.join(STAGE_NAMES)}")
        return replace(self, **{field_name(switches[name].key): type(switches[name].default)(0) for name in stages})

    @classmethod
    def from_config(cls, config: Config) -> HearingSettings:
        """The settings in ``config``, each checked against its declaration (a bad value is
        reported and its default used)."""
        models = config.value("hearing.models_dir")
        return read_declared(cls, config, whisper=read_declared(WhisperSettings, config),
                             spot=read_declared(SpotSettings, config),
                             **({"models_dir": _resolve(models, config)} if models else {}))

    @property
    def vosk_folder(self) -> Path:
        return model_folder(self.vosk_model, self.models_dir)


def _resolve(path: str, config: Config) -> Path:
    p = Path(path).expanduser()
    if p.is_absolute():
        return p
    base = config.path.parent if config.path is not None else Path.cwd()
    return base / p


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
             fallback: bool = True) -> Ear:
    """An Ear on the chosen recognizer (``engine``: a name of RECOGNIZERS or HYBRIDS; None: the
    settings' choice). vosk-hybrid whose Vosk model will not load hears with PocketSphinx first
    instead (``warn`` hears why) unless ``fallback`` is False; Vosk alone raises ModelError. A
    hybrid whose Whisper cannot load goes on without the second opinion (``warn`` hears why).
    ``warn`` is also told about any command words the model cannot hear."""
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
            opinion = SecondOpinion(open_transcriber(settings), spotter or Spotter(sentences), settings)
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
    "BaseRecognizer", "Choice", "Doubted", "Ear", "Event", "Final",
    "HearingSettings", "ModelError", "NearMiss", "NotAllowedNow", "NotRecognized", "OverBudget", "Partial",
    "Recognizer", "RecognizerSpec", "SecondOpinion", "Transcript", "Vetoed", "WordGraph", "choose", "event_from_dict",
    "open_ear",
    "open_recognizer", "preload_whisper", "snap",
]
