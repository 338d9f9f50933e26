"""Measurements of voices: median pitch, brightness, duration (for the tests and
bench/bench_voice.py; the product does not use them)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from assistant.voice.effects import Audio, resample_rate


@dataclass(frozen=True)
class VoiceMeasure:
    seconds: float
    median_pitch_hz: float
    voiced_fraction: float
    centroid_hz: float
    low_share: float
    rms: float


def median_pitch(audio: Audio, rate: int, low: float = 50.0, high: float = 400.0) -> tuple[float, float]:
    """Median fundamental frequency of the voiced frames (autocorrelation), and their share.

    Returns (0.0, 0.0) when nothing voiced is found.
    """
    x = resample_rate(audio, rate, 16000).astype(np.float64)
    rate = 16000
    size, hop = 640, 160
    if len(x) < size:
        return 0.0, 0.0
    frames = np.lib.stride_tricks.sliding_window_view(x, size)[::hop]
    frames = frames - frames.mean(axis=1, keepdims=True)
    energy = np.sqrt(np.mean(frames * frames, axis=1))
    loud = energy > 0.2 * np.percentile(energy, 95)
    spectra = np.fft.rfft(frames * np.hanning(size), 2 * size, axis=1)
    corr = np.fft.irfft(np.abs(spectra) ** 2, axis=1)[:, :size]
    lag_lo, lag_hi = int(rate / high), int(rate / low)
    window_corr = np.fft.irfft(np.abs(np.fft.rfft(np.hanning(size), 2 * size)) ** 2)[:size]
    corr = corr / np.maximum(window_corr, 1e-9)
    corr = corr / np.maximum(corr[:, :1], 1e-12)
    region = corr[:, lag_lo:lag_hi]
    best = np.argmax(region, axis=1)
    strength = region[np.arange(len(region)), best]
    voiced = loud & (strength > 0.5)
    if not voiced.any():
        return 0.0, 0.0
    pitches = rate / (best[voiced] + lag_lo)
    return float(np.median(pitches)), float(voiced.sum() / max(loud.sum(), 1))


def spectral_centroid(audio: Audio, rate: int) -> float:
    if len(audio) == 0:
        return 0.0
    spectrum = np.abs(np.fft.rfft(audio.astype(np.float64)))
    freqs = np.fft.rfftfreq(len(audio), 1 / rate)
    return float((spectrum * freqs).sum() / max(spectrum.sum(), 1e-12))


def low_share(audio: Audio, rate: int, cutoff: float = 250.0) -> float:
    """Share of the energy below ``cutoff`` Hz: high for a deep, big voice, near 0 for a thin one."""
    if len(audio) == 0:
        return 0.0
    power = np.abs(np.fft.rfft(audio.astype(np.float64))) ** 2
    freqs = np.fft.rfftfreq(len(audio), 1 / rate)
    return float(power[freqs < cutoff].sum() / max(power.sum(), 1e-12))


def measure(audio: Audio, rate: int) -> VoiceMeasure:
    pitch, voiced = median_pitch(audio, rate)
    rms = float(np.sqrt(np.mean(np.square(audio, dtype=np.float64)))) if len(audio) else 0.0
    return VoiceMeasure(len(audio) / rate, pitch, voiced, spectral_centroid(audio, rate),
                        low_share(audio, rate), rms)
