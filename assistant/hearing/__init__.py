"""Understanding speech: recognizers behind one interface, grammars from the sentence templates.

    recognizer: auto | vosk | pocketsphinx | text      (config.yaml)

``auto`` takes Vosk when its model is installed (``assistant setup``), and otherwise
PocketSphinx, whose English model ships inside its wheel, so the assistant hears with no
download. ``open_ear`` gives the ``Ear``: a recognizer plus the game's sentences, which
turns audio into allowed commands or into nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from assistant.config import PROJECT_ROOT, Config
from assistant.hearing.events import Event, Final, NotRecognized, Partial, Transcript, event_from_dict
from assistant.hearing.grammar import WordGraph, snap
from assistant.hearing.recognizer import Ear, Recognizer
from assistant.hearing.vosk_engine import DEFAULT_MODEL, ModelError, is_model, model_folder
from assistant.sentences import SentenceSet

ENGINES = ("auto", "vosk", "pocketsphinx", "text")


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

    @classmethod
    def from_config(cls, config: Config) -> HearingSettings:
        d = cls()
        models = config.get("hearing.models_dir", "")
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
    """Which recognizer ``auto`` (or the setting) picked, and why, for the player to read."""

    engine: str
    note: str


def choose(settings: HearingSettings) -> Choice:
    wanted = settings.recognizer
    folder = settings.vosk_folder
    if wanted in ("pocketsphinx", "text"):
        return Choice(wanted, f"{wanted} (set in config.yaml)")
    if wanted == "vosk":
        return Choice("vosk", f"Vosk with the model at {folder}")
    if is_model(folder):
        return Choice("vosk", f"Vosk with the model at {folder}")
    return Choice("pocketsphinx", f"PocketSphinx (bundled English model); no Vosk model at {folder}, "
                                  "run `assistant setup` to download it")


def open_recognizer(settings: HearingSettings, engine: str | None = None) -> Recognizer:
    """The recognizer ``engine`` (default: the settings' choice). Raises ModelError for Vosk
    without a usable model."""
    engine = engine or choose(settings).engine
    if engine == "vosk":
        from assistant.hearing.vosk_engine import VoskRecognizer

        return VoskRecognizer.load(settings.vosk_folder)
    if engine == "pocketsphinx":
        from assistant.hearing.pocketsphinx_engine import PocketSphinxRecognizer

        return PocketSphinxRecognizer(fillers=settings.chatter_words, filler_entry=settings.chatter_entry,
                                      filler_loop=settings.chatter_loop, noise_floor=settings.noise_floor,
                                      phone_check=settings.phone_check,
                                      early_phone_check=settings.early_phone_check)
    if engine == "text":
        from assistant.hearing.text_engine import TextRecognizer

        return TextRecognizer()
    raise ValueError(f"unknown recognizer {engine!r}; choose one of {', '.join(ENGINES)}")


def open_ear(settings: HearingSettings, sentences: SentenceSet, intents: Iterable[str] | None = None,
             engine: str | None = None, warn: Callable[[str], object] | None = None,
             fallback: bool = True) -> Ear:
    """An Ear on the chosen recognizer. Under ``recognizer: auto`` a Vosk model that will not
    load falls back to PocketSphinx (``warn`` hears why) unless ``fallback`` is False; a Vosk
    chosen by name raises ModelError. ``warn`` is also told about any command words the model
    cannot hear."""
    try:
        recognizer = open_recognizer(settings, engine)
    except ModelError as error:
        if not fallback or settings.recognizer != "auto" or engine not in (None, "vosk"):
            raise
        if warn is not None:
            warn(f"{error} Using PocketSphinx instead.")
        recognizer = open_recognizer(settings, "pocketsphinx")
    name = recognizer.name
    min_confidence = {"vosk": settings.vosk_min_confidence,
                      "pocketsphinx": settings.pocketsphinx_min_confidence}.get(name, 0.0)
    ear = Ear(recognizer, sentences, intents, snap_edits=settings.snap_edits, min_confidence=min_confidence)
    unknown = ear.unknown_words()
    if unknown and warn is not None:
        warn(f"The {name} model does not know these command words, so sentences with them cannot be "
             f"heard: {', '.join(unknown)}.")
    return ear


__all__ = [
    "ENGINES", "Choice", "Ear", "Event", "Final", "HearingSettings", "ModelError", "NotRecognized", "Partial",
    "Recognizer", "Transcript", "WordGraph", "choose", "event_from_dict", "open_ear", "open_recognizer", "snap",
]
