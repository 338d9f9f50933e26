"""Effect chains that turn one Piper voice into distinct characters (numpy only).

Audio is mono float32 in [-1, 1]. Every effect is a small frozen dataclass with
``apply(audio, rate)``; a chain is a tuple of them, built from config data
(``[{type: pitch, semitones: -4}, ...]``) by ``parse_chain``. Chains are deterministic, so
their output can be cached; ``Glitch`` is the one live effect (it depends on how urgent
the game is and on chance) and is applied at playback, after the cache.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar, dataclass_transform

import numpy as np
import numpy.typing as npt

from assistant.hearing.audio import as_int16

Audio = npt.NDArray[np.float32]


def as_audio(samples: npt.ArrayLike) -> Audio:
    return np.ascontiguousarray(samples, dtype=np.float32).reshape(-1)


# --------------------------------------------------------------------------- building blocks


def _smooth(n: int) -> bool:
    """Whether ``n`` has only small prime factors (fast FFT sizes)."""
    for p in (2, 3, 5, 7, 11):
        while n % p == 0:
            n //= p
    return n == 1


def fast_size(n: int) -> int:
    """The smallest FFT size >= ``n`` with only small prime factors. An FFT of a size with a
    large prime factor (a sentence's length often has one) takes Bluestein's way round: for a
    10 s sentence about 70 MB of working memory instead of 16, hands-free play's highest peak."""
    size = max(1, n)
    while not _smooth(size):
        size += 1
    return size


def _fft_sizes(n: int, n_out: int) -> tuple[int, int]:
    """Padded input and output sizes >= n + padding, both fast, in (nearly) the ratio n_out / n."""
    ratio = n_out / n
    start = n + min(n, 2048)
    for size in range(start, start + 4096):
        out = int(round(size * ratio))
        if _smooth(size) and _smooth(out):
            return size, out
    return start, int(round(start * ratio))


def resample(audio: Audio, n_out: int) -> Audio:
    """Band-limited resampling to ``n_out`` samples (FFT; zero padding keeps the ends clean)."""
    n = len(audio)
    if n_out == n or n == 0:
        return as_audio(audio)
    if n_out <= 0:
        return np.zeros(0, np.float32)
    size_in, size_out = _fft_sizes(n, n_out)
    spectrum = np.fft.rfft(audio.astype(np.float64), size_in)
    bins = size_out // 2 + 1
    if bins <= len(spectrum):
        new = spectrum[:bins].copy()
    else:
        new = np.zeros(bins, np.complex128)
        new[: len(spectrum)] = spectrum
    out = np.fft.irfft(new, size_out) * (size_out / size_in)
    return as_audio(out[:n_out])


def resample_rate(audio: Audio, rate_in: int, rate_out: int) -> Audio:
    if rate_in == rate_out:
        return as_audio(audio)
    return resample(audio, int(round(len(audio) * rate_out / rate_in)))


#: Frames an STFT effect transforms at a time: its memory stays a few MB whatever the
#: sentence's length (all of a 10 s sentence's frames at once took 50-90 MB: docs/voices.md)
FRAME_BLOCK = 128


class _Frames:
    """Hann-windowed frames ``hop`` apart covering ``audio`` (padded by half a frame at both
    ends), handed out a block at a time (``blocks``), and an overlap-add for what an effect
    makes of them (``overlap_add``): a frame-by-frame effect then holds a block of frames, not
    all of them."""

    def __init__(self, audio: Audio, size: int, hop: int) -> None:
        self.size, self.hop = size, hop
        self.half = size // 2
        self.count = max(1, int(math.ceil((len(audio) + 2 * self.half - size) / hop)) + 1)
        self.padded = np.zeros((self.count - 1) * hop + size, np.float64)
        self.padded[self.half: self.half + len(audio)] = audio
        self.window = np.hanning(size)

    def blocks(self) -> Iterator[tuple[int, npt.NDArray[np.float64]]]:
        """(index of the first frame, windowed frames) for each block of FRAME_BLOCK frames."""
        windows = np.lib.stride_tricks.sliding_window_view(self.padded, self.size)[::self.hop][:self.count]
        for first in range(0, self.count, FRAME_BLOCK):
            yield first, windows[first: first + FRAME_BLOCK] * self.window

    def overlap_add(self, size: int) -> _OverlapAdd:
        """An overlap-add of output frames of ``size`` samples at this hop."""
        return _OverlapAdd(self.count, self.hop, size)


class _OverlapAdd:
    """Windowed overlap-add of frames ``hop`` apart, added a block at a time."""

    def __init__(self, count: int, hop: int, size: int) -> None:
        self.hop, self.size = hop, size
        self.window = np.hanning(size)
        self.out = np.zeros((count - 1) * hop + size, np.float64)
        self.norm = np.zeros_like(self.out)

    def add(self, first: int, frames: npt.NDArray[np.float64]) -> None:
        windowed = frames * self.window
        square = self.window * self.window
        hop, size = self.hop, self.size
        for i, frame in enumerate(windowed, start=first):
            self.out[i * hop: i * hop + size] += frame
            self.norm[i * hop: i * hop + size] += square

    def result(self, start: int, length: int) -> Audio:
        """The audio, beginning at output sample ``start``, ``length`` samples long."""
        out = self.out / np.maximum(self.norm, 1e-3 * self.norm.max())
        result = out[start: start + length]
        if len(result) < length:
            result = np.concatenate([result, np.zeros(length - len(result))])
        return as_audio(result)


def _envelope(log_magnitude: npt.NDArray[np.float64], keep: int) -> npt.NDArray[np.float64]:
    """Smooth spectral envelope by cepstral liftering (the formants, without the harmonics)."""
    cepstrum = np.fft.irfft(log_magnitude, axis=1)
    cepstrum[:, keep:-keep] = 0
    return np.asarray(np.fft.rfft(cepstrum, axis=1).real)


def pitch_shift(audio: Audio, semitones: float, keep_formants: bool = True, size: int = 1024,
                hop: int = 256) -> Audio:
    """Pitch moved by ``semitones``, same duration (phase vocoder, resampling folded into synthesis).

    Each frame's phases advance as if the sound were time-stretched by the pitch factor ``f``;
    the frame is then inverse-transformed at ``size / f`` samples, which resamples it, and
    overlap-added at the analysis hop. With ``keep_formants`` every frame is also given the
    spectral envelope of the original, so the voice gets deeper without getting bigger.
    Frames are transformed a block at a time, the phases carried from one block to the next.
    """
    if semitones == 0 or len(audio) == 0:
        return as_audio(audio)
    out_size = int(round(size / 2.0 ** (semitones / 12)))
    factor = size / out_size
    frames = _Frames(audio, size, hop)
    added = frames.overlap_add(out_size)
    bins, out_bins = size // 2 + 1, out_size // 2 + 1
    keep = min(bins, out_bins)
    omega = 2 * np.pi * hop * np.arange(bins) / size
    if keep_formants:
        source = np.arange(bins) * factor
        inside = source <= bins - 1
        left = np.minimum(source.astype(int), bins - 2)
        frac = source - left
    last: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] | None = None  # the last frame's angles, phase
    for first, block in frames.blocks():
        spectra = np.fft.rfft(block, axis=1)
        angles = np.angle(spectra)
        delta = np.diff(angles if last is None else np.vstack([last[0], angles]), axis=0) - omega
        delta = delta - 2 * np.pi * np.round(delta / (2 * np.pi)) + omega
        steps = np.cumsum(factor * delta, axis=0)
        # the first frame keeps its own phases; every later one advances from the frame before
        phase = angles[0] + np.vstack([np.zeros((1, bins)), steps]) if last is None else last[1] + steps
        last = angles[-1], phase[-1]
        magnitude = np.abs(spectra)
        if keep_formants:
            envelope = _envelope(np.log(magnitude + 1e-6), max(8, int(size * 0.03)))
            target = np.where(inside, (1 - frac) * envelope[:, left] + frac * envelope[:, left + 1],
                              envelope[:, -1:] - 6.0)
            magnitude = magnitude * np.exp(np.clip(target - envelope, -6, 6))
        shifted = np.zeros((len(spectra), out_bins), np.complex128)
        shifted[:, :keep] = (magnitude * np.exp(1j * phase))[:, :keep]
        added.add(first, np.fft.irfft(shifted, out_size, axis=1) * (out_size / size))
    return added.result(out_size // 2, len(audio))


# --------------------------------------------------------------------------- effects

#: Every effect by its ``type`` (the lower-case class name), in the order they are defined.
EFFECTS: dict[str, type[Effect]] = {}


@dataclass_transform(frozen_default=True)
@dataclass(frozen=True)
class Effect:
    """What every effect is: a frozen dataclass of its settings, known in ``EFFECTS`` by its
    lower-case class name, with ``apply(audio, rate)``."""

    type: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.type = cls.__name__.lower()
        dataclass(frozen=True)(cls)
        EFFECTS[cls.type] = cls

    def apply(self, audio: Audio, rate: int) -> Audio:
        raise NotImplementedError


class Speed(Effect):
    """Tape-speed change: pitch, formants and length move together (-4 = lower, bigger, slower)."""

    semitones: float = 0.0

    def apply(self, audio: Audio, rate: int) -> Audio:
        factor = 2.0 ** (self.semitones / 12)
        return resample(audio, int(round(len(audio) / factor)))


class Pitch(Effect):
    """Moves the voice's pitch by ``semitones``, same length; formants stay put unless ``formants``."""

    semitones: float = 0.0
    formants: bool = False

    def apply(self, audio: Audio, rate: int) -> Audio:
        return pitch_shift(audio, self.semitones, keep_formants=not self.formants)


class Layer(Effect):
    """Mixes in a copy shifted by ``semitones`` with the same timing (-12 = a sub-octave growl).

    ``ring`` (Hz, 0 = off) ring-modulates only the copy: the voice on top stays clean and
    the growl underneath turns mechanical.
    """

    semitones: float = -12.0
    mix: float = 0.4
    ring: float = 0.0

    def apply(self, audio: Audio, rate: int) -> Audio:
        copy = pitch_shift(audio, self.semitones, keep_formants=False)
        if self.ring > 0:
            copy = Ring(self.ring, 1.0).apply(copy, rate)
        return as_audio(audio + self.mix * copy)


class Robot(Effect):
    """Phase-zeroing robotization: a monotone buzz at ``pitch_hz`` carrying the words."""

    pitch_hz: float = 140.0
    mix: float = 1.0

    def apply(self, audio: Audio, rate: int) -> Audio:
        hop = max(16, int(round(rate / self.pitch_hz)))
        size = 1 << int(math.ceil(math.log2(max(4 * hop, int(rate * 0.04)))))
        frames = _Frames(audio, size, hop)
        added = frames.overlap_add(size)
        for first, block in frames.blocks():
            magnitude = np.abs(np.fft.rfft(block, axis=1))
            added.add(first, np.fft.fftshift(np.fft.irfft(magnitude, size, axis=1), axes=1))
        robot = added.result(frames.half, len(audio))
        robot *= _rms(audio) / max(_rms(robot), 1e-9)
        return as_audio((1 - self.mix) * audio + self.mix * robot)


class Ring(Effect):
    """Ring modulation by a sine: 30-50 Hz gives the classic sinister machine."""

    frequency: float = 30.0
    mix: float = 0.5

    def apply(self, audio: Audio, rate: int) -> Audio:
        t = np.arange(len(audio)) / rate
        carrier = np.sin(2 * np.pi * self.frequency * t)
        return as_audio(audio * ((1 - self.mix) + self.mix * carrier))


class Crush(Effect):
    """Bit-crush to ``bits`` and sample-and-hold every ``hold`` samples: a cheap 1990s sampler.

    Quantization is mu-law (``linear: false``), as in 8-bit telephone audio: the grain is
    there, but quiet syllables keep enough levels to stay words. ``linear: true`` crushes
    harder.
    """

    bits: int = 8
    hold: int = 1
    linear: bool = False

    def apply(self, audio: Audio, rate: int) -> Audio:
        out = audio
        if self.hold > 1:
            out = np.repeat(audio[:: self.hold], self.hold)[: len(audio)]
        if self.bits < 16 and len(out):
            levels = 2 ** (self.bits - 1)
            peak = max(float(np.max(np.abs(out))), 1e-9)
            x = out / peak
            if self.linear:
                x = np.round(x * levels) / levels
            else:
                mu = 255.0
                y = np.sign(x) * np.log1p(mu * np.abs(x)) / np.log1p(mu)
                y = np.round(y * levels) / levels
                x = np.sign(y) * np.expm1(np.abs(y) * np.log1p(mu)) / mu
            out = x * peak
        return as_audio(out)


class Band(Effect):
    """Keeps ``low``-``high`` Hz (soft edges): thin radio or telephone sound."""

    low: float = 300.0
    high: float = 4000.0

    def apply(self, audio: Audio, rate: int) -> Audio:
        if len(audio) == 0:
            return as_audio(audio)
        n = len(audio)
        size = fast_size(2 * n)  # padded at least to twice its length: the filter does not wrap round
        spectrum = np.fft.rfft(audio.astype(np.float64), size)
        freqs: npt.NDArray[np.float64] = np.fft.rfftfreq(size, 1 / rate).astype(np.float64)
        if self.low > 0:
            spectrum *= _soft_step(freqs, self.low / 1.25, self.low)  # in place: a sentence's spectrum is MBs
        if self.high < rate / 2:
            spectrum *= 1 - _soft_step(freqs, self.high, self.high * 1.25)
        del freqs
        return as_audio(np.fft.irfft(spectrum, size)[:n])


def _soft_step(x: npt.NDArray[np.float64], start: float, end: float) -> npt.NDArray[np.float64]:
    t = np.clip((x - start) / max(end - start, 1e-9), 0, 1)
    return np.asarray(0.5 - 0.5 * np.cos(np.pi * t))


class Echo(Effect):
    """Repeats after ``delay`` seconds, each ``feedback`` times quieter; adds a tail."""

    delay: float = 0.12
    feedback: float = 0.35
    mix: float = 0.4
    repeats: int = 4

    def apply(self, audio: Audio, rate: int) -> Audio:
        step = max(1, int(round(self.delay * rate)))
        out = np.zeros(len(audio) + step * self.repeats, np.float32)
        out[: len(audio)] += audio
        for i in range(1, self.repeats + 1):
            out[i * step: i * step + len(audio)] += self.mix * self.feedback ** (i - 1) * audio
        return out


class Drive(Effect):
    """Soft saturation (tanh): grit without clipping."""

    amount: float = 2.0

    def apply(self, audio: Audio, rate: int) -> Audio:
        if self.amount <= 0:
            return as_audio(audio)
        peak = max(float(np.max(np.abs(audio))) if len(audio) else 0.0, 1e-9)
        return as_audio(np.tanh(self.amount * audio / peak) / math.tanh(self.amount) * peak)


class Compress(Effect):
    """Evens out loudness: parts above ``threshold`` dB (re the peak) are turned down by ``ratio``.

    After the chain's final levelling this lifts quiet syllables (the last word of a sentence,
    which Piper lets fall away) for a noisy table.
    """

    threshold: float = -24.0
    ratio: float = 3.0

    def apply(self, audio: Audio, rate: int) -> Audio:
        hop = max(1, rate // 100)
        count = len(audio) // hop
        if count < 3:
            return as_audio(audio)
        frames = audio[: count * hop].reshape(count, hop).astype(np.float64)
        level = np.sqrt(np.mean(frames * frames, axis=1))
        level = np.convolve(level, np.ones(3) / 3, mode="same")
        peak = max(float(level.max()), 1e-9)
        level_db = 20 * np.log10(np.maximum(level, 1e-9) / peak)
        over = np.maximum(level_db - self.threshold, 0.0)
        gain_db = -over * (1 - 1 / self.ratio)
        centres = (np.arange(count) + 0.5) * hop
        gain = 10 ** (np.interp(np.arange(len(audio)), centres, gain_db) / 20)
        return as_audio(audio * gain)


class Tremolo(Effect):
    """Amplitude wobble at ``frequency`` Hz."""

    frequency: float = 8.0
    depth: float = 0.3

    def apply(self, audio: Audio, rate: int) -> Audio:
        t = np.arange(len(audio)) / rate
        return as_audio(audio * (1 - self.depth * (0.5 + 0.5 * np.sin(2 * np.pi * self.frequency * t))))


class Glitch(Effect):
    """Live failures: stutters (a short grain repeated, nothing removed) and digital bursts.

    ``rate`` events per second of speech when calm, rising to ``urgent_rate`` as urgency
    goes from 0 to 1 (for BSat1: time running out). Applied at playback, never cached.
    """

    rate: float = 0.2
    urgent_rate: float = 1.5
    grain: float = 0.05
    repeats: int = 2

    def apply(self, audio: Audio, rate: int) -> Audio:
        return self.apply_live(audio, rate, 0.0, random.Random(0))

    def apply_live(self, audio: Audio, rate: int, urgency: float, rng: random.Random) -> Audio:
        urgency = min(max(urgency, 0.0), 1.0)
        per_second = self.rate + (self.urgent_rate - self.rate) * urgency
        expected = per_second * len(audio) / rate
        count = int(expected) + (1 if rng.random() < expected - int(expected) else 0)
        grain = max(1, int(self.grain * rate))
        if count == 0 or len(audio) < 4 * grain:
            return as_audio(audio)
        loud = np.flatnonzero(_frame_rms(audio, grain) > 0.3 * _rms(audio))
        if len(loud) == 0:
            return as_audio(audio)
        starts = sorted(int(rng.choice(loud.tolist())) * grain for _ in range(count))
        pieces: list[Audio] = []
        last = 0
        for start in starts:
            end = min(start + grain, len(audio))
            if start < last:
                continue
            pieces.append(audio[last:end])
            piece = audio[start:end]
            for _ in range(self.repeats):
                if rng.random() < 0.5:
                    piece = Crush(bits=4).apply(piece, rate)
                pieces.append(piece * np.float32(rng.uniform(0.6, 1.0)))
            last = end
        pieces.append(audio[last:])
        return as_audio(np.concatenate(pieces))


def _rms(audio: npt.NDArray[Any]) -> float:
    return float(np.sqrt(np.mean(np.square(audio, dtype=np.float64)))) if len(audio) else 0.0


def _frame_rms(audio: Audio, size: int) -> npt.NDArray[np.float64]:
    count = len(audio) // size
    frames = audio[: count * size].reshape(count, size).astype(np.float64)
    return np.asarray(np.sqrt(np.mean(frames * frames, axis=1)))


#: Limits per parameter: (minimum, maximum). Everything else is rejected by ``parse_effect``.
LIMITS: dict[str, tuple[float, float]] = {
    "semitones": (-24, 24), "mix": (0, 1), "pitch_hz": (40, 400), "frequency": (0.1, 2000),
    "bits": (2, 16), "hold": (1, 16), "low": (0, 20000), "high": (100, 24000), "delay": (0.01, 2),
    "feedback": (0, 0.95), "repeats": (1, 8), "amount": (0, 20), "depth": (0, 1), "rate": (0, 20),
    "urgent_rate": (0, 20), "grain": (0.01, 0.3), "threshold": (-60, 0), "ratio": (1, 20), "ring": (0, 2000),
}


def parse_effect(spec: Any) -> tuple[Effect | None, list[str]]:
    """One effect from ``{type: ..., param: value}``; unusable parts are named in the problems."""
    if not isinstance(spec, Mapping) or "type" not in spec:
        return None, ["each effect must be a group like {type: echo, delay: 0.1}"]
    name = str(spec["type"]).lower()
    cls = EFFECTS.get(name)
    if cls is None:
        return None, [f"unknown effect type {spec['type']!r}; known: {', '.join(EFFECTS)}"]
    problems: list[str] = []
    kwargs: dict[str, Any] = {}
    known = {f.name: f for f in fields(cls)}
    for key, value in spec.items():
        if key == "type":
            continue
        if key not in known:
            problems.append(f"{name}: unknown setting {key!r} (known: {', '.join(known) or 'none'})")
            continue
        default = known[key].default
        if isinstance(default, bool):
            if isinstance(value, bool):
                kwargs[key] = value
            else:
                problems.append(f"{name}.{key} = {value!r} must be true or false; using {default}")
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            problems.append(f"{name}.{key} = {value!r} must be a number; using {default}")
            continue
        if isinstance(default, int) and not float(value).is_integer():
            problems.append(f"{name}.{key} = {value!r} must be a whole number; using {default}")
            continue
        lo, hi = LIMITS.get(key, (-math.inf, math.inf))
        if not lo <= value <= hi:
            problems.append(f"{name}.{key} = {value!r} must be between {lo:g} and {hi:g}; using {default}")
            continue
        kwargs[key] = int(value) if isinstance(default, int) else float(value)
    return cls(**kwargs), problems


def parse_chain(specs: Sequence[Any]) -> tuple[tuple[Effect, ...], list[tuple[int, str]]]:
    """A chain from config data; problems come with the index of their effect."""
    chain: list[Effect] = []
    problems: list[tuple[int, str]] = []
    for index, spec in enumerate(specs):
        effect, found = parse_effect(spec)
        problems.extend((index, p) for p in found)
        if effect is not None:
            chain.append(effect)
    return tuple(chain), problems


def describe(chain: Sequence[Effect]) -> list[dict[str, Any]]:
    """The chain as data (for cache keys and ``doctor``)."""
    return [{"type": e.type, **asdict(e)} for e in chain]


def fixed_part(chain: Sequence[Effect]) -> tuple[Effect, ...]:
    return tuple(e for e in chain if not isinstance(e, Glitch))


def glitch_of(chain: Sequence[Effect]) -> Glitch | None:
    return next((e for e in chain if isinstance(e, Glitch)), None)


def run_chain(audio: Audio, rate: int, chain: Sequence[Effect], level: float = 1.0) -> Audio:
    """Apply the cacheable effects in order, then bring the result to a common loudness."""
    out = as_audio(audio)
    for effect in fixed_part(chain):
        out = effect.apply(out, rate)
    return normalize(out, level)


def normalize(audio: Audio, level: float = 1.0, target_rms: float = 0.12) -> Audio:
    """Same loudness for every character (RMS of the speech), peaks kept below full scale."""
    if len(audio) == 0:
        return as_audio(audio)
    frame = 512
    rms = _frame_rms(audio, frame) if len(audio) >= frame else np.array([_rms(audio)])
    speech = rms[rms > 0.1 * rms.max()] if rms.max() > 0 else rms
    loudness = float(np.sqrt(np.mean(speech * speech))) if len(speech) else 0.0
    peak = float(np.max(np.abs(audio)))
    if loudness < 1e-6 or peak < 1e-6:
        return as_audio(audio)
    gain = min(target_rms * level / loudness, 0.95 / peak)
    return as_audio(audio * gain)


def to_int16(audio: Audio) -> npt.NDArray[np.int16]:
    return as_int16(audio.astype(np.float64) * 32767)


def from_int16(samples: npt.NDArray[np.int16]) -> Audio:
    return as_audio(samples.astype(np.float32) / 32768)

