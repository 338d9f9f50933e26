"""Understanding speech: recognizers behind one interface, grammars from the sentence templates.

    recognizer: auto | hybrid | whisper | vosk | pocketsphinx | text      (config.yaml)

The streaming engine is Vosk when its model is installed (``assistant setup``) and otherwise
PocketSphinx, whose English model ships inside its wheel. ``auto`` adds Whisper tiny.en as a
second opinion when it is installed (the hybrid listener): the streaming engine answers
early when it is sure, and Whisper decides on an utterance it doubted, rejected or heard
nothing allowed in. ``RECOGNIZERS`` names each engine's factory and its settings section;
``open_ear`` gives the ``Ear``: a recognizer plus the game's sentences, which turns audio
into allowed commands or into nothing.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from assistant.config import PROJECT_ROOT, Config
from assistant.hearing.events import Event, Final, NotRecognized, Partial, Transcript, event_from_dict
from assistant.hearing.grammar import WordGraph, snap
from assistant.hearing.recognizer import BaseRecognizer, Ear, ModelError, Recognizer, SecondOpinion, prompt_for
from assistant.hearing.spotting import SpotSettings, Spotter
from assistant.hearing.vosk_engine import DEFAULT_MODEL, is_model, model_folder
from assistant.hearing.whisper_engine import (
    WhisperSettings,
    WhisperTranscriber,
    find_model,
    model_label,
    model_score_distance,
)
from assistant.sentences import SentenceSet

ENGINES = ("auto", "hybrid", "whisper", "vosk", "pocketsphinx", "text")


@dataclass
class HearingSettings:
    recognizer: str = "auto"
    vosk_model: str = DEFAULT_MODEL
    models_dir: Path = field(default_factory=lambda: PROJECT_ROOT / "models")
    snap_edits: int = 1
    vosk_min_confidence: float = 0.6
    pocketsphinx_min_confidence: float = 0.0
    chatter_words: int = 30
    chatter_entry: float = 1e-25
    chatter_loop: float = 0.1
    noise_floor: float = 30.0
    phone_check: float = 1.2
    early_phone_check: float = 0.8
    whisper: WhisperSettings = field(default_factory=WhisperSettings)
    spot: SpotSettings = field(default_factory=SpotSettings)
    veto: bool = True
    confirm_distance: float = 0.4
    hypotheses: int = 3
    runner_up_distance: float = 0.6
    score_nearest: int = 3
    #: None ("auto"): the Whisper model's own (whisper_engine.KNOWN_MODELS)
    score_distance: float | None = None
    score_within: float = 4.0
    score_margin: float = 3.0
    first_within: float = 14.0
    unprompted: bool = True
    as_sentences: bool = False
    as_sentences_within: float = 4.0
    #: Whisper hears what it took nothing from again, through noise suppression at this level (0: off)
    again_suppressed: int = 4
    #: how near Whisper's own transcript a command weighed on that second hearing must come
    again_within: float = 3.0

    @property
    def weigh_distance(self) -> float:
        """score_distance, the model's own when it is "auto" (None)."""
        return self.score_distance if self.score_distance is not None else model_score_distance(self.whisper.model)

    @classmethod
    def from_config(cls, config: Config) -> HearingSettings:
        d = cls()
        models = config.get("hearing.models_dir", "")
        model = config.get("hearing.whisper.model", d.whisper.model)
        return cls(
            recognizer=config.get("recognizer", d.recognizer, choices=ENGINES),
            vosk_model=config.get("hearing.vosk_model", d.vosk_model),
            models_dir=_resolve(models, config) if models else d.models_dir,
            snap_edits=config.get("hearing.snap_edits", d.snap_edits, choices=[0, 1]),
            vosk_min_confidence=config.get("hearing.vosk.min_confidence", d.vosk_min_confidence,
                                           minimum=0.0, maximum=1.0),
            pocketsphinx_min_confidence=config.get("hearing.pocketsphinx.min_confidence",
                                                   d.pocketsphinx_min_confidence, minimum=0.0, maximum=1.0),
            chatter_words=config.get("hearing.pocketsphinx.chatter_words", d.chatter_words,
                                     minimum=0, maximum=300),
            chatter_entry=config.get("hearing.pocketsphinx.chatter_entry", d.chatter_entry,
                                     minimum=1e-30, maximum=1.0),
            chatter_loop=config.get("hearing.pocketsphinx.chatter_loop", d.chatter_loop,
                                    minimum=1e-30, maximum=1.0),
            noise_floor=config.get("hearing.pocketsphinx.noise_floor", d.noise_floor, minimum=0.0,
                                   maximum=3000.0),
            phone_check=config.get("hearing.pocketsphinx.phone_check", d.phone_check, minimum=0.0, maximum=100.0),
            early_phone_check=config.get("hearing.pocketsphinx.early_phone_check", d.early_phone_check,
                                         minimum=0.0, maximum=100.0),
            whisper=WhisperSettings(
                model=model,
                beam_size=config.get("hearing.whisper.beam_size", d.whisper.beam_size, minimum=1, maximum=10),
                threads=config.get("hearing.whisper.threads", d.whisper.threads, minimum=0, maximum=64),
                check_sha256=config.get("hearing.whisper.check_sha256", d.whisper.check_sha256),
                noise_suppression=config.get("hearing.whisper.noise_suppression", d.whisper.noise_suppression,
                                             minimum=0, maximum=4)),
            spot=SpotSettings(
                max_distance=config.get("hearing.whisper.max_distance", d.spot.max_distance, minimum=0.0,
                                        maximum=2.0),
                margin=config.get("hearing.whisper.margin", d.spot.margin, minimum=0.0, maximum=20.0),
                outside=config.get("hearing.whisper.outside", d.spot.outside, minimum=0.0, maximum=2.0),
                filler_share=config.get("hearing.whisper.filler_share", d.spot.filler_share, minimum=0.0,
                                        maximum=1.0)),
            veto=config.get("hearing.whisper.veto", d.veto),
            confirm_distance=config.get("hearing.whisper.confirm_distance", d.confirm_distance, minimum=0.0,
                                        maximum=5.0),
            hypotheses=config.get("hearing.whisper.hypotheses", d.hypotheses, minimum=1, maximum=5),
            runner_up_distance=config.get("hearing.whisper.runner_up_distance", d.runner_up_distance,
                                          minimum=0.0, maximum=5.0),
            score_nearest=config.get("hearing.whisper.score_nearest", d.score_nearest, minimum=0, maximum=10),
            score_distance=None if config.raw("hearing.whisper.score_distance", "auto") == "auto" else
            config.get("hearing.whisper.score_distance", model_score_distance(model), minimum=0.0, maximum=5.0),
            score_within=config.get("hearing.whisper.score_within", d.score_within, minimum=0.0, maximum=50.0),
            score_margin=config.get("hearing.whisper.score_margin", d.score_margin, minimum=0.0, maximum=50.0),
            first_within=config.get("hearing.whisper.first_within", d.first_within, minimum=0.0, maximum=50.0),
            unprompted=config.get("hearing.whisper.unprompted", d.unprompted),
            as_sentences=config.get("hearing.whisper.as_sentences", d.as_sentences),
            as_sentences_within=config.get("hearing.whisper.as_sentences_within", d.as_sentences_within,
                                           minimum=0.0, maximum=50.0),
            again_suppressed=config.get("hearing.whisper.again_suppressed", d.again_suppressed, minimum=0,
                                        maximum=4),
            again_within=config.get("hearing.whisper.again_within", d.again_within, minimum=0.0, maximum=50.0),
        )

    @property
    def vosk_folder(self) -> Path:
        return model_folder(self.vosk_model, self.models_dir)


def _resolve(path: str, config: Config) -> Path:
    p = Path(path).expanduser()
    if p.is_absolute():
        return p
    base = config.path.parent if config.path is not None else Path.cwd()
    return base / p


@dataclass(frozen=True)
class Choice:
    """Which recognizer the setting picked, and why, for the player to read: ``engine`` streams
    (or is the only one); ``second`` is the engine that gives a second opinion, if any."""

    engine: str
    note: str
    second: str | None = None

    @property
    def name(self) -> str:
        """The name ``open_ear`` takes for this choice."""
        return "hybrid" if self.second else self.engine


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


def _streaming(settings: HearingSettings) -> Choice:
    folder = settings.vosk_folder
    if is_model(folder):
        return Choice("vosk", f"Vosk with the model at {folder}")
    return Choice("pocketsphinx", f"PocketSphinx (bundled English model); no Vosk model at {folder}, "
                                  "run `assistant setup` to download it")


def choose(settings: HearingSettings) -> Choice:
    wanted = settings.recognizer
    if wanted in ("pocketsphinx", "text", "whisper"):
        return Choice(wanted, f"{wanted} (set in config.yaml)")
    if wanted == "vosk":
        return Choice("vosk", f"Vosk with the model at {settings.vosk_folder}")
    first = _streaming(settings)
    if wanted == "hybrid" or whisper_installed(settings):
        return Choice(first.engine, f"{first.note}; Whisper {model_label(settings.whisper.model)} decides what it "
                                    "doubts", "whisper")
    return Choice(first.engine, f"{first.note}; Whisper is not installed (no second opinion)")


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

    return PocketSphinxRecognizer(PocketSphinxTuning(
        fillers=settings.chatter_words, filler_entry=settings.chatter_entry, filler_loop=settings.chatter_loop,
        noise_floor=settings.noise_floor, phone_check=settings.phone_check,
        early_phone_check=settings.early_phone_check))


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

_transcribers: dict[tuple[str, int, int, int], WhisperTranscriber] = {}


def open_transcriber(settings: HearingSettings) -> WhisperTranscriber:
    """The configured Whisper model, loaded once per process and model (the same for every game)."""
    folder = find_model(settings.whisper.model, settings.models_dir)
    key = (str(folder), settings.whisper.beam_size, settings.whisper.threads, settings.whisper.noise_suppression)
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
    """An Ear on the chosen recognizer (``engine``: a name of RECOGNIZERS, or ``hybrid``; None:
    the settings' choice). A Vosk model that will not load falls back to PocketSphinx (``warn``
    hears why) unless ``fallback`` is False or Vosk was chosen by name; a hybrid whose Whisper
    cannot load goes on without the second opinion (``warn`` hears why). ``warn`` is also told
    about any command words the model cannot hear."""
    choice = choose(settings)
    if engine is None:
        engine, second = choice.engine, choice.second
    elif engine == "hybrid":
        engine, second = _streaming(settings).engine, "whisper"
    else:
        second = None
    try:
        recognizer = open_recognizer(settings, engine, sentences)
    except ModelError as error:
        if not fallback or settings.recognizer not in ("auto", "hybrid") or engine != "vosk":
            raise
        if warn is not None:
            warn(f"{error} Using PocketSphinx instead.")
        recognizer = open_recognizer(settings, "pocketsphinx", sentences)
    opinion: SecondOpinion | None = None
    spotter: Spotter | None = None
    if second is not None or recognizer.free_text:
        spotter = Spotter(sentences, settings=settings.spot)
    if second is not None:
        again = settings.again_suppressed
        if again and importlib.util.find_spec("webrtc_noise_gain") is None:
            problem = ("hearing.whisper.again_suppressed needs the webrtc-noise-gain package: "
                       "`.venv/bin/pip install webrtc-noise-gain` (./start.sh installs it).")
            if not fallback:
                raise ModelError(problem)
            if warn is not None:
                warn(f"{problem} Whisper hears each utterance once.")
            again = 0
        try:
            opinion = SecondOpinion(open_transcriber(settings), spotter or Spotter(sentences), settings.veto,
                                    settings.confirm_distance, hypotheses=settings.hypotheses,
                                    runner_up_distance=settings.runner_up_distance,
                                    score_nearest=settings.score_nearest, score_distance=settings.weigh_distance,
                                    score_within=settings.score_within, score_margin=settings.score_margin,
                                    first_within=settings.first_within, unprompted=settings.unprompted,
                                    as_sentences=settings.as_sentences,
                                    as_sentences_within=settings.as_sentences_within,
                                    again_suppressed=again, again_within=settings.again_within)
        except ModelError as error:
            if not fallback:
                raise
            if warn is not None:
                warn(f"{error} Listening without Whisper's second opinion.")
    spec = RECOGNIZERS[recognizer.name]
    ear = Ear(recognizer, sentences, intents, snap_edits=settings.snap_edits,
              min_confidence=spec.min_confidence(settings), spotter=spotter, second=opinion)
    unknown = ear.unknown_words()
    if unknown and warn is not None:
        warn(f"The {recognizer.name} model does not know these command words, so sentences with them cannot be "
             f"heard: {', '.join(unknown)}.")
    return ear


__all__ = [
    "ENGINES", "RECOGNIZERS", "BaseRecognizer", "Choice", "Ear", "Event", "Final", "HearingSettings", "ModelError",
    "NotRecognized", "Partial", "Recognizer", "RecognizerSpec", "SecondOpinion", "Transcript", "WordGraph", "choose",
    "event_from_dict", "open_ear", "open_recognizer", "preload_whisper", "snap",
]
