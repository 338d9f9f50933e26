"""Audio as the recognizers want it: 16 kHz, mono, 16-bit, from any WAV file.

WAV files come in many shapes (22.05 or 48 kHz, stereo, 8/16/24/32-bit integer or float,
WAVE_FORMAT_EXTENSIBLE); ``read_wav`` reads them all with the standard library and numpy,
and ``to_16k_mono`` mixes down and resamples (band-limited, by FFT).
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

RATE = 16_000
Int16 = npt.NDArray[np.int16]
Float = npt.NDArray[np.float64]

_PCM, _FLOAT, _EXTENSIBLE = 1, 3, 0xFFFE


class SpeechEdges:
    """PocketSphinx's voice-activity endpointer over blocks of any size.

    ``frames(block)`` cuts the audio so far into the endpointer's frames and yields each with
    whether speech was under way before it and after it. A caller that stops at an edge calls
    ``hold_rest()``: the frames it did not take wait, with any part-frame, in ``leftover`` for
    the next block (the next utterance may begin in this one)."""

    def __init__(self) -> None:
        self.leftover = b""
        self._rest = b""
        self.endpointer: Any = None
        self.restart()

    def restart(self) -> None:
        """A fresh endpointer (between utterances); ``leftover`` is kept."""
        from pocketsphinx import Endpointer

        self.endpointer = Endpointer()

    def frames(self, block: bytes) -> Iterator[tuple[bytes, bool, bool]]:
        data = self.leftover + block
        size = self.endpointer.frame_bytes
        usable = len(data) - len(data) % size
        self.leftover = data[usable:]
        for i in range(0, usable, size):
            frame = data[i:i + size]
            before = bool(self.endpointer.in_speech)
            self.endpointer.process(frame)
            self._rest = data[i + size:]
            yield frame, before, bool(self.endpointer.in_speech)

    def hold_rest(self) -> None:
        self.leftover = self._rest


class AudioError(ValueError):
    """A file that is not audio we can read."""


def read_wav(path: str | Path) -> tuple[Float, int]:
    """Samples as float64 in [-1, 1], shape (frames, channels), and the sample rate."""
    data = Path(path).read_bytes()
    if len(data) < 12 or data[:4] not in (b"RIFF", b"RF64") or data[8:12] != b"WAVE":
        raise AudioError(f"{path}: not a WAV file (no RIFF/WAVE header)")
    fmt: tuple[int, int, int, int] | None = None
    pos = 12
    while pos + 8 <= len(data):
        chunk, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        body = data[pos + 8:pos + 8 + size]
        if chunk == b"fmt ":
            tag, channels, rate = struct.unpack("<HHI", body[:8])
            bits = struct.unpack("<H", body[14:16])[0]
            if tag == _EXTENSIBLE and len(body) >= 26:
                tag = struct.unpack("<H", body[24:26])[0]
            fmt = (tag, channels, rate, bits)
        elif chunk == b"data":
            if fmt is None:
                raise AudioError(f"{path}: WAV data before its format chunk")
            if size in (0, 0xFFFFFFFF) or pos + 8 + size > len(data):  # streamed WAVs leave the size open
                body = data[pos + 8:]
            return _decode(body, *fmt, path=str(path))
        pos += 8 + size + (size & 1)
    raise AudioError(f"{path}: WAV file without audio data")


def _decode(body: bytes, tag: int, channels: int, rate: int, bits: int, path: str) -> tuple[Float, int]:
    if channels < 1 or rate < 1000:
        raise AudioError(f"{path}: unusable WAV format ({channels} channels at {rate} Hz)")
    width = bits // 8
    usable = len(body) - len(body) % (width * channels)
    body = body[:usable]
    if tag == _PCM and bits == 8:
        samples = (np.frombuffer(body, np.uint8).astype(np.float64) - 128.0) / 128.0
    elif tag == _PCM and bits == 16:
        samples = np.frombuffer(body, "<i2").astype(np.float64) / 32768.0
    elif tag == _PCM and bits == 24:
        raw = np.frombuffer(body, np.uint8).reshape(-1, 3).astype(np.int32)
        value = raw[:, 0] | (raw[:, 1] << 8) | (raw[:, 2] << 16)
        samples = np.where(value >= 1 << 23, value - (1 << 24), value).astype(np.float64) / float(1 << 23)
    elif tag == _PCM and bits == 32:
        samples = np.frombuffer(body, "<i4").astype(np.float64) / float(1 << 31)
    elif tag == _FLOAT and bits in (32, 64):
        samples = np.frombuffer(body, "<f4" if bits == 32 else "<f8").astype(np.float64)
    else:
        raise AudioError(f"{path}: WAV sample format {tag} with {bits} bits is not supported "
                         "(use 8/16/24/32-bit PCM or 32/64-bit float)")
    return samples.reshape(-1, channels), rate


#: Longer recordings are resampled in pieces of ``PIECE_SECONDS`` (each with a second of the
#: signal around it): one FFT over minutes of audio is a native call of seconds that Ctrl-C waits out.
LONG_SECONDS = 60
PIECE_SECONDS = 30


def resample(samples: Float, rate: int, new_rate: int = RATE) -> Float:
    """Band-limited resampling of a mono signal (FFT; padded so the ends do not wrap); a long
    one piece by piece, each with a second of context on either side."""
    if rate == new_rate or len(samples) == 0:
        return samples.astype(np.float64)
    if len(samples) <= LONG_SECONDS * rate:
        return _resample(samples, rate, new_rate)
    step, margin = PIECE_SECONDS * rate, rate  # whole seconds: each maps to whole samples at new_rate
    pieces = []
    for start in range(0, len(samples), step):
        lo, end = max(0, start - margin), min(len(samples), start + step)
        part = _resample(samples[lo:min(len(samples), end + margin)], rate, new_rate)
        offset = (start - lo) * new_rate // rate
        pieces.append(part[offset:offset + round((end - start) * new_rate / rate)])
    return np.concatenate(pieces)


def _resample(samples: Float, rate: int, new_rate: int) -> Float:
    pad = int(0.05 * rate)
    padded = np.concatenate([np.zeros(pad), samples, np.zeros(pad)])
    n_out = round(len(padded) * new_rate / rate)
    spectrum = np.fft.rfft(padded)
    keep = min(len(spectrum), n_out // 2 + 1)
    out_spec = np.zeros(n_out // 2 + 1, dtype=complex)
    out_spec[:keep] = spectrum[:keep]
    if new_rate < rate and n_out % 2 == 0:
        out_spec[-1] = out_spec[-1].real  # the Nyquist bin of the shorter signal is real
    out = np.fft.irfft(out_spec, n_out) * (n_out / len(padded))
    cut = round(pad * new_rate / rate)
    return out[cut:cut + round(len(samples) * new_rate / rate)]


def to_16k_mono(samples: Float, rate: int) -> Int16:
    """Mix down to mono, resample to 16 kHz, and convert to int16."""
    mono = samples.mean(axis=1) if samples.ndim == 2 else samples
    return to_int16(resample(mono, rate, RATE))


def to_int16(samples: Float) -> Int16:
    """Float audio in [-1, 1] as int16 samples."""
    return as_int16(np.asarray(samples, dtype=np.float64) * 32768.0)


def as_int16(values: npt.ArrayLike) -> Int16:
    """Values already on the int16 scale (mixed, filtered, resampled), rounded and clipped: the
    one place audio becomes int16 again."""
    return np.asarray(np.clip(np.round(np.asarray(values, dtype=np.float64)), -32768, 32767), dtype=np.int16)


def load_16k(path: str | Path) -> Int16:
    samples, rate = read_wav(path)
    return to_16k_mono(samples, rate)


def write_wav(path: str | Path, samples: Int16, rate: int = RATE) -> None:
    """A 16-bit mono WAV (for tests and the benchmark's clip cache)."""
    import wave

    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(np.asarray(samples, dtype="<i2").tobytes())


def blocks(samples: Int16, seconds: float = 0.1) -> list[bytes]:
    """The audio cut into blocks as a microphone would deliver them."""
    step = max(1, int(RATE * seconds))
    return [samples[i:i + step].tobytes() for i in range(0, len(samples), step)]


#: WebRTC's noise suppression levels (webrtc-noise-gain): 0 off, 1 (mild) to 4 (strongest)
NOISE_SUPPRESSION_LEVELS = range(5)
_BLOCK = RATE // 100  # WebRTC's audio processing works on 10 ms blocks


def suppress_noise(samples: Int16, level: int) -> Int16:
    """``samples`` (16 kHz int16) through WebRTC's noise suppressor at ``level`` (1-4; 0: as
    they are), the one Home Assistant's voice satellites use, with automatic gain off. The
    suppressor hears the samples twice and gives what it makes of them the second time: started
    cold it takes the first half second's sounds for noise, and cuts the hiss of a command's
    first "s" or "sh" by about 5 dB; warmed on the same samples, its noise estimate is theirs
    from the start. The last part-block is kept unprocessed."""
    if level not in NOISE_SUPPRESSION_LEVELS:
        raise ValueError(f"noise suppression level {level} is not 0-4")
    if level == 0 or len(samples) < _BLOCK:
        return samples
    from webrtc_noise_gain import AudioProcessor

    processor = AudioProcessor(0, level)
    data = np.ascontiguousarray(samples, dtype=np.int16).tobytes()
    step = 2 * _BLOCK
    whole = len(data) - len(data) % step
    for i in range(0, whole, step):
        processor.Process10ms(data[i:i + step])
    out = [processor.Process10ms(data[i:i + step]).audio for i in range(0, whole, step)]
    out.append(data[whole:])
    return np.frombuffer(b"".join(out), dtype=np.int16).copy()


#: Speech kept before and after the loud part ``loud_part`` finds (a word's soft ending or start).
LOUD_MARGIN_S = 0.2
#: Whisper's free text keeps more of the room each side: it hears the words whole, and not the
#: seconds of a quiet room before them, after which Whisper writes a short command over and over
#: ("0 0 0 0" for a recorded speaker's "zero"; chosen on the tuning voices: docs/hearing.md)
FREE_TEXT_MARGIN_S = 0.5


def loud_part(samples: Int16, below_db: float, margin_s: float = LOUD_MARGIN_S) -> Int16:
    """``samples`` from the first to the last 20 ms frame within ``below_db`` of their loudest
    (a frame's level: the middle one of the five around it, so a click is no level), and
    ``margin_s`` more each side; all of them when ``below_db`` is 0 or they are shorter than
    100 ms. What is cut is the talk, noise or silence before and after the player's words that
    is far quieter than them: the room since the last utterance, another person across the table."""
    frame = RATE // 50
    count = len(samples) // frame
    if below_db <= 0 or count < 5:
        return samples
    energy = (samples[:count * frame].astype(np.float64).reshape(count, frame) ** 2).mean(axis=1)
    held = np.median(np.lib.stride_tricks.sliding_window_view(np.pad(energy, 2, mode="edge"), 5), axis=1)
    loud = np.flatnonzero(held >= float(held.max()) / 10 ** (below_db / 10))
    if len(loud) == 0:  # all silent
        return samples
    margin = int(margin_s * RATE)
    return samples[max(0, int(loud[0]) * frame - margin):min(len(samples), (int(loud[-1]) + 1) * frame + margin)]


#: The longest utterance handed to Whisper (its window); longer talk keeps its last part.
MAX_SECONDS = 30.0
# Whisper's input: an 80-band log-mel spectrogram of 16 kHz audio, 25 ms windows every 10 ms,
# always 30 s long (3000 frames) whatever the speech's length.
N_FFT = 400
HOP = 160
N_MELS = 80
FRAMES = int(MAX_SECONDS * RATE) // HOP


@functools.lru_cache(maxsize=1)
def mel_filters() -> npt.NDArray[np.float32]:
    """The 80 triangular mel filters over the FFT bins (Slaney's mel scale: linear to 1 kHz,
    logarithmic above; each filter normalized to unit area), as Whisper was trained with."""
    bins = np.fft.rfftfreq(N_FFT, 1.0 / RATE)
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    min_log_mel, logstep = min_log_hz / f_sp, np.log(6.4) / 27.0

    def to_mel(hz: float) -> float:
        return hz / f_sp if hz < min_log_hz else min_log_mel + float(np.log(hz / min_log_hz)) / logstep

    mels = np.linspace(0.0, to_mel(RATE / 2), N_MELS + 2)
    hz = np.where(mels < min_log_mel, mels * f_sp, min_log_hz * np.exp(logstep * (mels - min_log_mel)))
    lower, centre, upper = hz[:-2, None], hz[1:-1, None], hz[2:, None]
    rising = (bins[None, :] - lower) / (centre - lower)
    falling = (upper - bins[None, :]) / (upper - centre)
    weights = np.maximum(0.0, np.minimum(rising, falling)) * (2.0 / (upper - lower))
    return weights.astype(np.float32)


def log_mel(samples: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Whisper's input for ``samples`` (float, 16 kHz): shape (80, 3000); the frames after the
    speech are zeros, as in the original decoder's padding."""
    x = np.pad(samples.astype(np.float32), (N_FFT // 2, N_FFT // 2 + HOP), mode="reflect")
    count = 1 + (len(x) - N_FFT) // HOP
    frames = np.lib.stride_tricks.sliding_window_view(x, N_FFT)[::HOP][:count]
    window = np.hanning(N_FFT + 1)[:-1].astype(np.float32)
    power = np.abs(np.fft.rfft(frames * window, axis=1).astype(np.complex64)) ** 2   # (count, 201)
    mel = mel_filters() @ power[:-1].T                                                 # (80, count - 1)
    spec = np.log10(np.maximum(mel, 1e-10))
    spec = (np.maximum(spec, spec.max() - 8.0) + 4.0) / 4.0
    out = np.zeros((N_MELS, FRAMES), dtype=np.float32)
    used = min(FRAMES, spec.shape[1] - 1)  # the last frame is the padding's own
    out[:, :used] = spec[:, :used]
    return out
