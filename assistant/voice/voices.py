"""All the characters, ready to speak: settings, voices, the phrase cache and the sounds.

``Voices.sentence`` is the one place audio for a sentence comes from: memory, then the
disk cache, then Piper (and the result is cached). Models load in the background at
start-up, so a game whose opening lines are cached speaks before its voice has loaded.
"""

from __future__ import annotations

import atexit
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from assistant.config import PROJECT_ROOT, Config
from assistant.engine import Say
from assistant.voice.cache import PhraseCache, phrase_key
from assistant.voice.characters import CharacterSpec, character_for, character_names
from assistant.voice.effects import Audio, from_int16, to_int16
from assistant.voice.sounds import SoundBoard, sound_table
from assistant.voice.synth import VoiceBank, VoiceMissing, resolve_voice, voice_id
from assistant.voice.text import default_pronounce, spoken_sentences
from assistant.voice.vocoder import parts_dir


@dataclass(frozen=True)
class VoiceSettings:
    """The ``voice:`` section of config.yaml."""

    output_device: str = ""
    cache_dir: Path = PROJECT_ROOT / "voices" / "cache"
    voices_dir: Path = PROJECT_ROOT / "voices"
    threads: int = 0
    render_at_start: bool = True
    memory_cache_mb: int = 16
    pause_seconds: float = 0.12
    pronounce: dict[str, str] = field(default_factory=default_pronounce)

    @classmethod
    def from_config(cls, config: Config) -> VoiceSettings:
        pronounce = default_pronounce()
        table: dict[str, Any] = config.value("voice.pronounce")
        for written, spoken in table.items():
            if not isinstance(spoken, str | int | float) or isinstance(spoken, bool):
                config.problems.append(f"{config.where(f'voice.pronounce.{written}')}: voice.pronounce."
                                       f"{written} must be the words to say; ignored.")
                continue
            pronounce[str(written)] = str(spoken)
        return cls(
            output_device=config.value("voice.output_device"),
            cache_dir=_project_path(config.value("voice.cache_dir")),
            voices_dir=_project_path(config.value("voice.voices_dir")),
            threads=config.value("voice.threads"),
            render_at_start=config.value("voice.render_at_start"),
            memory_cache_mb=config.value("voice.memory_cache_mb"),
            pause_seconds=config.value("voice.pause_seconds"),
            pronounce=pronounce,
        )


def _project_path(text: str) -> Path:
    path = Path(text).expanduser()
    return path if path.is_absolute() else PROJECT_ROOT / path


@dataclass
class Rendered:
    """One sentence of one character, ready to play."""

    samples: npt.NDArray[np.int16]
    rate: int
    cached: bool
    seconds_to_make: float

    @property
    def audio(self) -> Audio:
        return from_int16(self.samples)


class Voices:
    def __init__(self, settings: VoiceSettings, specs: dict[str, CharacterSpec], bank: VoiceBank,
                 cache: PhraseCache, fingerprints: dict[str, str], sounds: SoundBoard,
                 report: Callable[[str], Any] | None = None) -> None:
        self.settings = settings
        self.specs = specs
        self.bank = bank
        self.cache = cache
        self.fingerprints = fingerprints
        self.sounds = sounds
        self._report = report or (lambda message: print(f"voice: {message}", file=sys.stderr, flush=True))
        self._loader: threading.Thread | None = None
        self.loaded_at: float | None = None
        self._workers: list[tuple[threading.Thread, threading.Event | None]] = []
        self._rendering: dict[str, threading.Event] = {}  # sentences being made now, by any thread
        self._rendering_lock = threading.Lock()

    # ----------------------------------------------------------------- set-up

    @classmethod
    def from_config(cls, config: Config, load: str = "background") -> Voices:
        """Characters from config (problems appended to ``config.problems``).

        ``load``: "background" starts loading the models now in a thread, "now" loads them
        before returning, "lazy" waits for the first synthesis.
        A configured voice that is missing falls back to the bundled one, with a problem noted.
        Raises VoiceMissing only when not even the bundled voice is there.
        """
        settings = VoiceSettings.from_config(config)
        cache = PhraseCache(settings.cache_dir, settings.memory_cache_mb << 20)
        if cache.write_problem:
            config.problems.append(f"{config.where('voice.cache_dir')}: {cache.write_problem}; "
                                   "phrases are kept in memory only.")
        bank = VoiceBank(settings.voices_dir, settings.threads,
                         parts_dir(None if cache.write_problem else settings.cache_dir))
        specs: dict[str, CharacterSpec] = {}
        fingerprints: dict[str, str] = {}
        ids: dict[Path, str] = {}
        for name in character_names(config):
            spec = CharacterSpec.from_config(config, name)
            try:
                path = resolve_voice(spec.voice, settings.voices_dir)
            except VoiceMissing as error:
                config.problems.append(f"{config.where(f'characters.{name}.voice')}: {error}; "
                                       "using the bundled voice en_US-joe-medium.")
                spec = replace(spec, voice="")
                path = resolve_voice("", settings.voices_dir)
            if path not in ids:
                ids[path] = voice_id(path)
            specs[name] = spec
            fingerprints[name] = spec.fingerprint(ids[path])
        sounds = SoundBoard(sound_table(config), _rate_of(next(iter(ids))))
        voices = cls(settings, specs, bank, cache, fingerprints, sounds)
        if load == "now":
            voices.load_models()
        elif load == "background":
            voices.start_loading()
        return voices

    def load_models(self) -> None:
        """Load every voice in use and synthesize once (the first call to a model is slow)."""
        try:
            in_use = {s.voice: s for s in self.specs.values()}.values()
            for spec in in_use:
                self.bank.load(spec.voice)
            for spec in in_use:
                if not self.bank.someone_waiting():  # a real sentence warms it up just as well
                    self.bank.synthesize(spec, "Ready.", foreground=False)
        except VoiceMissing:
            pass  # raised again, and reported, when a sentence needs that voice
        self.loaded_at = time.monotonic()

    def start_loading(self) -> threading.Thread:
        if self._loader is None:
            self._loader = self._start(self.load_models, "voice-load", None)
        return self._loader

    def _start(self, target: Callable[[], None], name: str, stop: threading.Event | None) -> threading.Thread:
        if not self._workers:
            # a synthesis cut off by the interpreter's exit aborts the process: let it finish
            atexit.register(self.shutdown)
        thread = threading.Thread(target=target, name=name, daemon=True)
        self._workers.append((thread, stop))
        thread.start()
        return thread

    def shutdown(self) -> None:
        """Stop background rendering and wait for the synthesis under way."""
        for _, stop in self._workers:
            if stop is not None:
                stop.set()
        for thread, _ in self._workers:
            if thread is not threading.current_thread():
                thread.join()

    def wait_loaded(self, timeout: float | None = None) -> None:
        if self._loader is not None:
            self._loader.join(timeout)

    # ----------------------------------------------------------------- speech

    def character(self, speaker: str) -> str:
        return character_for(speaker, self.specs)

    def sentences(self, text: str) -> list[str]:
        return spoken_sentences(text, self.settings.pronounce)

    def key(self, character: str, sentence: str) -> str:
        return phrase_key(self.fingerprints[character], sentence)

    def is_cached(self, speaker: str, text: str) -> bool:
        character = self.character(speaker)
        return all(self.cache.in_memory(self.key(character, s)) or self.cache.on_disk(self.key(character, s))
                   for s in self.sentences(text))

    def sentence(self, character: str, sentence: str, foreground: bool = True) -> Rendered:
        """A sentence's audio: from memory, the disk cache, or made now (and cached)."""
        start = time.monotonic()
        key = self.key(character, sentence)
        found = self.cache.get(key)
        if found is not None:
            return Rendered(found[0], found[1], True, time.monotonic() - start)
        with self._rendering_lock:
            busy = self._rendering.get(key)
            if busy is None:
                self._rendering[key] = threading.Event()
        if busy is not None:  # another thread is making this very sentence (the first answer is
            busy.wait()       # often the first phrase the background renders): wait, not twice
            found = self.cache.get(key)
            if found is not None:
                return Rendered(found[0], found[1], True, time.monotonic() - start)
            return self.sentence(character, sentence, foreground)
        try:
            return self._render(character, sentence, foreground, start)
        finally:
            with self._rendering_lock:
                self._rendering.pop(key).set()

    def _render(self, character: str, sentence: str, foreground: bool, start: float) -> Rendered:
        spec = self.specs[character]
        try:
            audio, rate = self.bank.render(spec, sentence, foreground)
        except VoiceMissing as error:
            if spec.voice == "":
                raise
            self._report(f"{error}; the {character} character now uses the bundled voice.")
            self.specs[character] = spec = replace(spec, voice="")
            self.fingerprints[character] = spec.fingerprint(voice_id(resolve_voice("", self.settings.voices_dir)))
            return self.sentence(character, sentence, foreground)
        samples = to_int16(audio)
        self.cache.put(self.key(character, sentence), samples, rate)
        return Rendered(samples, rate, False, time.monotonic() - start)

    def utterance(self, speaker: str, text: str, foreground: bool = True) -> Iterator[Rendered]:
        """The sentences of ``text`` in the speaker's character, one at a time (streaming)."""
        character = self.character(speaker)
        for sentence in self.sentences(text):
            yield self.sentence(character, sentence, foreground)

    def sound(self, name: str) -> tuple[Audio, int]:
        return self.sounds.audio(name), self.sounds.rate

    # ----------------------------------------------------------------- preparing

    def pieces(self, phrases: Iterable[Say]) -> list[tuple[str, str]]:
        """The distinct (character, sentence) pieces that saying ``phrases`` takes, in order."""
        seen: dict[str, tuple[str, str]] = {}
        for phrase in phrases:
            character = self.character(phrase.speaker)
            for sentence in self.sentences(phrase.text):
                seen.setdefault(self.key(character, sentence), (character, sentence))
        return list(seen.values())

    def prepare(self, phrases: Iterable[Say], stop: threading.Event | None = None,
                foreground: bool = True, progress: Callable[[], object] | None = None) -> tuple[int, int]:
        """Render every sentence of ``phrases`` not cached yet; returns (rendered, already cached).

        ``progress()`` is called after each sentence, cached or made."""
        rendered = cached = 0
        for character, sentence in self.pieces(phrases):
            if stop is not None and stop.is_set():
                return rendered, cached
            if self.cache.get(self.key(character, sentence)) is not None:
                cached += 1
            else:
                self.sentence(character, sentence, foreground)
                rendered += 1
            if progress is not None:
                progress()
        return rendered, cached

    def prepare_in_background(self, phrases: Sequence[Say]) -> tuple[threading.Thread, threading.Event]:
        stop = threading.Event()

        def run() -> None:
            try:
                self.prepare(phrases, stop, foreground=False)
            except Exception as error:  # never take the game down for a cache warm-up
                self._report(f"preparing phrases stopped: {error}")

        return self._start(run, "voice-prepare", stop), stop


def _rate_of(model: Path) -> int:
    import json

    try:
        return int(json.loads(Path(f"{model}.json").read_text(encoding="utf-8"))["audio"]["sample_rate"])
    except (OSError, ValueError, KeyError, TypeError):
        return 22050
