"""Find what the assistant said in a recording of its speaker, by the sound itself.

The assistant's lines are rendered once and kept in the voice cache, so the test can render
each printed line the same way (``reference``) and look for that audio in the recording
(``find_said``): log-mel frames compared by cosine, aligned by dynamic time warping that lets
the recording run up to twice as slow as the reference or twice as fast in places (BSat1's
live glitches repeat 50 ms grains; the sink resamples). What a speech recognizer makes of the
characters' voices varies from run to run; the samples the speaker played do not, so the check
is exact where it can be and still fails on a silent, cut-off, reordered or wrong speaker.
It is made for a virtual speaker's recording, whose pauses are digital silence: the quiet
frames inside a line must be quiet in the recording too, so hiss 40 dB under the speech
already costs as much as a changed word (tests/test_speaker_check.py has it 53 dB under).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from assistant.voice.effects import resample_rate
from assistant.voice.voices import Voices

Frames = npt.NDArray[np.float32]

RATE = 16000
_WINDOW = 400  # 25 ms
_HOP = 160  # 10 ms
_BANDS = 40
_QUIET_DB = 40.0  # a frame this far below the loudest is silence

#: (mean, worst) for ``find_said``: a line is there where its mean cost per frame is at most 0.1
#: and no 0.2 s of it is above 0.2 on average. In two recordings of test_live_e2e every line
#: said was there at a mean of at most 0.035 and 0.2 s at most 0.064; a line one word away from
#: one said was not (0.2 s at 0.30 and more).
LIMITS = (0.1, 0.2)


def _mel_bank(rate: int = RATE, size: int = 512, bands: int = _BANDS) -> npt.NDArray[np.float64]:
    def mel(f: npt.ArrayLike) -> npt.NDArray[np.float64]:
        return 2595.0 * np.log10(1.0 + np.asarray(f, np.float64) / 700.0)

    edges = 700.0 * (10 ** (np.linspace(mel(60.0), mel(7600.0), bands + 2) / 2595.0) - 1.0)
    freqs = np.fft.rfftfreq(size, 1.0 / rate)
    bank = np.zeros((bands, len(freqs)))
    for b in range(bands):
        low, mid, high = edges[b], edges[b + 1], edges[b + 2]
        bank[b] = np.clip(np.minimum((freqs - low) / (mid - low), (high - freqs) / (high - mid)), 0.0, None)
    return bank


_BANK = _mel_bank()


def frames(samples: npt.NDArray[np.generic]) -> tuple[Frames, npt.NDArray[np.bool_]]:
    """Log-mel frames of 16 kHz audio, each centred and scaled to length 1 (so loudness does not
    count), and which frames are silence (more than 40 dB below the loudest)."""
    audio = np.asarray(samples, np.float64)
    if len(audio) < _WINDOW:
        audio = np.pad(audio, (0, _WINDOW - len(audio)))
    count = 1 + (len(audio) - _WINDOW) // _HOP
    index = np.arange(_WINDOW)[None, :] + _HOP * np.arange(count)[:, None]
    spectrum = np.abs(np.fft.rfft(audio[index] * np.hanning(_WINDOW), 512)) ** 2
    power = spectrum @ _BANK.T
    energy = power.sum(axis=1)
    quiet = energy < energy.max() * 10 ** (-_QUIET_DB / 10) if energy.max() > 0 else np.ones(count, bool)
    logmel = np.log(power + 1e-10)
    logmel -= logmel.mean(axis=1, keepdims=True)
    logmel /= np.maximum(np.linalg.norm(logmel, axis=1, keepdims=True), 1e-9)
    return logmel.astype(np.float32), quiet


def reference(voices: Voices, speaker: str, text: str) -> npt.NDArray[np.float32]:
    """``text`` as ``speaker``'s character says it (from the voice cache when it was said), at
    16 kHz, with the announcer's pause after each sentence and no silence at either end."""
    pause = voices.settings.pause_seconds
    pieces = []
    for rendered in voices.utterance(speaker, text):
        audio = resample_rate(rendered.audio, rendered.rate, RATE)
        pieces += [audio, np.zeros(int(pause * RATE), np.float32)]
    audio = np.concatenate(pieces)
    loud = np.flatnonzero(np.abs(audio) > 0.01 * np.abs(audio).max())
    return audio[loud[0]: loud[-1] + 1] if len(loud) else audio


def _costs(needle: tuple[Frames, npt.NDArray[np.bool_]],
           hay: tuple[Frames, npt.NDArray[np.bool_]]) -> npt.NDArray[np.float32]:
    (a, a_quiet), (b, b_quiet) = needle, hay
    cost = np.clip(1.0 - a @ b.T, 0.0, 2.0).astype(np.float32)
    cost[a_quiet[:, None] != b_quiet[None, :]] = 1.0
    cost[a_quiet[:, None] & b_quiet[None, :]] = 0.0
    return cost


def _align(cost: npt.NDArray[np.float32]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
    """The best alignment of the whole needle (rows) ending at each hay frame (columns), starting
    anywhere: steps of one frame in both, or two in one and one in the other (a slope between
    1/2 and 2 everywhere, so no stretch of the needle can sit on one hay frame), every needle
    frame counted once. Its mean cost per needle frame, and each cell's step (0: one and one,
    1: two hay frames, 2: two needle frames)."""
    inf = np.float32(np.inf)

    def shifted(row: npt.NDArray[np.float32], by: int) -> npt.NDArray[np.float32]:
        return np.concatenate([np.full(by, inf, np.float32), row[:-by]])

    steps = np.zeros(cost.shape, np.int8)
    before, total = np.full(cost.shape[1], inf, np.float32), cost[0].copy()
    for i in range(1, len(cost)):
        options = np.stack([shifted(total, 1), shifted(total, 2), shifted(before, 1) + cost[i - 1]])
        steps[i] = np.argmin(options, axis=0)
        before, total = total, cost[i] + options.min(axis=0)
    return np.asarray(total / len(cost), np.float32), steps


def _path_costs(cost: npt.NDArray[np.float32], steps: npt.NDArray[np.int8], end: int) -> npt.NDArray[np.float32]:
    """The cost of each needle frame on the best alignment ending at hay frame ``end``."""
    out = np.zeros(len(cost), np.float32)
    i, j = len(cost) - 1, end
    while i >= 0:
        out[i] = cost[i, j]
        step = steps[i, j] if i > 0 else 0
        if step == 2:
            out[i - 1] = cost[i - 1, j]
            i -= 2
        else:
            i -= 1
        j -= 1 + (step == 1)
    return out


@dataclass(frozen=True)
class Found:
    """Where a reference was found (its last frame in the recording; -1: nowhere), the mean cost
    of its frames there and of its worst 0.2 s."""

    end: int
    mean: float
    worst: float


def find_said(references: Sequence[npt.NDArray[np.float32]], recording: npt.NDArray[np.generic],
              mean_limit: float, worst_limit: float) -> list[Found]:
    """Each reference looked for in ``recording`` in order, each after where the one before it
    ended: the first place its whole sound is there (a mean cost per frame of at most
    ``mean_limit``, and no 0.2 s stretch of it worse than ``worst_limit`` on average, so a word
    said differently is not the same line). Not there: end -1, with the figures of the place
    it came nearest."""
    hay = frames(recording)
    found: list[Found] = []
    start = 0
    for audio in references:
        cost = _costs(frames(audio), (hay[0][start:], hay[1][start:]))
        means, steps = _align(cost)
        # the places it could end: each lowest point of a stretch under the mean limit, in order
        under = means <= mean_limit
        runs = np.split(np.arange(len(means)), np.flatnonzero(np.diff(under.astype(np.int8))) + 1)
        places = [int(run[np.argmin(means[run])]) for run in runs if len(run) and under[run[0]]]
        here = next((f for f in (_found_at(cost, steps, means, start, end) for end in places)
                     if f.worst <= worst_limit), None)
        if here is None and not np.isfinite(means).any():  # less recording left than the line
            found.append(Found(-1, float("inf"), float("inf")))
        elif here is None:
            nearest = _found_at(cost, steps, means, start, int(np.argmin(means)))
            found.append(Found(-1, nearest.mean, nearest.worst))
        else:
            found.append(here)
            start = here.end + 1
    return found


def _found_at(cost: npt.NDArray[np.float32], steps: npt.NDArray[np.int8], means: npt.NDArray[np.float32],
              start: int, end: int) -> Found:
    width = min(20, len(cost))
    path = _path_costs(cost, steps, end)
    worst = float(np.convolve(path, np.ones(width) / width, "valid").max())
    return Found(start + end, float(means[end]), worst)
