"""The microphone: a sounddevice input stream whose callback feeds a queue of 16 kHz blocks.

The device is chosen by a name substring (Pi cards are numbered differently from model to
model) and opened at a rate it supports: 16 kHz when it can, else 48 or 44.1 kHz or its
default, resampled here. Blocks are small (0.1 s by default) so the end of speech is
noticed quickly. Each block carries the time it was captured, so the loop can drop what
was heard while the assistant spoke.
"""

from __future__ import annotations

import math
import queue
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from assistant.hearing.audio import as_int16

RATE = 16000
TRY_RATES = (16000, 48000, 44100, 32000, 22050)


class MicrophoneError(RuntimeError):
    """The microphone cannot be used; the message says what to do."""


def import_sounddevice() -> Any:
    try:
        import sounddevice
    except OSError as error:  # PortAudio missing
        raise MicrophoneError("Sound needs the PortAudio library: sudo apt-get install libportaudio2") from error
    return sounddevice


def input_devices() -> list[tuple[int, str, int]]:
    """(index, name, default rate) of every device with input channels."""
    sd = import_sounddevice()
    found = []
    for index, device in enumerate(sd.query_devices()):
        if device["max_input_channels"] > 0:
            found.append((index, str(device["name"]), int(device["default_samplerate"])))
    return found


def find_input(query: str) -> tuple[int | None, str]:
    """The device whose name contains ``query`` (empty: the default input)."""
    devices = input_devices()
    if not devices:
        raise MicrophoneError("No microphone found. Plug one in (a USB microphone works) and try again.")
    if not query:
        sd = import_sounddevice()
        default = sd.default.device[0]
        for index, name, _ in devices:
            if index == default:
                return index, name
        return None, devices[0][1]
    for index, name, _ in devices:
        if query.lower() in name.lower():
            return index, name
    names = ", ".join(name for _, name, _ in devices)
    raise MicrophoneError(f"No microphone named like {query!r}. Found: {names}. "
                          "Set live.input_device in config.yaml to part of one of these names.")


class StreamResampler:
    """Turns a stream at ``rate`` into 16 kHz, block by block, without clicks at block edges."""

    def __init__(self, rate: int, taps: int = 63) -> None:
        self.rate = rate
        self.ratio = rate / RATE
        cutoff = 0.45 * RATE / rate  # just under 8 kHz, relative to the input rate
        n = np.arange(taps) - (taps - 1) / 2
        kernel = np.sinc(2 * cutoff * n) * np.hamming(taps)
        self.kernel = kernel / kernel.sum()
        self.history = np.zeros(taps - 1)
        self.position = 0.0  # next output sample, in input samples from the start of ``pending``
        self.pending = np.zeros(0)

    def process(self, samples: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        if self.rate == RATE:
            return samples
        joined = np.concatenate([self.history, samples])
        filtered = np.convolve(joined, self.kernel, mode="valid")
        self.history = joined[-(len(self.kernel) - 1):]
        data = np.concatenate([self.pending, filtered])
        count = int(math.floor((len(data) - 1 - self.position) / self.ratio)) + 1 if len(data) > 1 else 0
        if count <= 0:
            self.pending = data
            return np.zeros(0)
        points = self.position + self.ratio * np.arange(count)
        out = np.interp(points, np.arange(len(data)), data)
        used = int(points[-1])
        self.pending = data[used:]
        self.position = points[-1] + self.ratio - used
        return out


@dataclass
class Block:
    audio: bytes          # 16 kHz mono int16
    captured_at: float    # time.monotonic() at the end of the block


@dataclass
class Microphone:
    """A live input stream; ``read`` gives the next 16 kHz block (or None after ``timeout``)."""

    device: str = ""
    block_seconds: float = 0.1
    stream: Any = None
    device_name: str = ""
    rate: int = RATE
    blocks: queue.Queue[Block] = field(default_factory=queue.Queue)
    status_errors: int = 0
    _resampler: StreamResampler | None = None
    _carry: npt.NDArray[np.int16] = field(default_factory=lambda: np.zeros(0, dtype=np.int16))

    def open(self) -> None:
        sd = import_sounddevice()
        index, name = find_input(self.device)
        last_error: Exception | None = None
        for rate in TRY_RATES:
            try:
                sd.check_input_settings(device=index, samplerate=rate, channels=1, dtype="int16")
                stream = sd.RawInputStream(device=index, samplerate=rate, channels=1, dtype="int16",
                                           blocksize=int(rate * self.block_seconds), callback=self._callback)
                stream.start()
            except Exception as error:  # PortAudioError has no stable type across versions
                last_error = error
                continue
            self.stream, self.device_name, self.rate = stream, name, rate
            self._resampler = StreamResampler(rate)
            return
        raise MicrophoneError(f"The microphone {name!r} would not open ({last_error}). It may be unplugged, "
                              "or in use by another program; plug it in, close that program, or choose another "
                              "device.")

    def _callback(self, data: Any, frames: int, time_info: Any, status: Any) -> None:
        if status:
            self.status_errors += 1
        samples = np.frombuffer(bytes(data), dtype=np.int16)
        if self._resampler is not None and self.rate != RATE:
            out = self._resampler.process(samples.astype(np.float64))
            samples = as_int16(out)
        joined = np.concatenate([self._carry, samples])
        step = int(RATE * self.block_seconds)
        now = time.monotonic()
        while len(joined) >= step:
            self.blocks.put(Block(joined[:step].tobytes(), now))
            joined = joined[step:]
        self._carry = joined

    def read(self, timeout: float) -> Block | None:
        try:
            return self.blocks.get(timeout=timeout)
        except queue.Empty:
            return None

    def alive(self) -> bool:
        return self.stream is not None and bool(getattr(self.stream, "active", False))

    def drain(self) -> None:
        while True:
            try:
                self.blocks.get_nowait()
            except queue.Empty:
                return

    def close(self) -> None:
        if self.stream is not None:
            try:
                self.stream.stop()
                self.stream.close()
            except Exception:  # noqa: BLE001 - a device that vanished cannot be closed cleanly
                pass
            self.stream = None
