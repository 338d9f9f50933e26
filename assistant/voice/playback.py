"""Where speech goes: a sounddevice output stream, a WAV file (``say -o``), or memory (tests).

The device is chosen by a substring of its name (card numbers differ between a Pi 4 and a
Pi 5). When it refuses the voice's sample rate, the stream opens at a rate it takes and the
audio is resampled. The first stream a process opens on PulseAudio can take a second to
start, so ``DeviceSink.open`` writes a moment of silence right away, at start-up.
"""

from __future__ import annotations

import atexit
import signal
import threading
import time
import wave
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from assistant.alsa import lean_alsa
from assistant.voice.effects import Audio, as_audio, resample_rate, to_int16


class AudioUnavailable(RuntimeError):
    """No usable output device (the message says what to do)."""


class AudioSink(Protocol):
    rate: int

    def begin(self) -> None:
        """Ready to play an utterance."""
        ...

    def write(self, audio: Audio, rate: int) -> None:
        """Queue audio; may block while the device plays earlier audio."""
        ...

    def end(self) -> None:
        """Returns when everything written has been heard."""
        ...

    def close(self) -> None: ...


class MemorySink:
    """Keeps what would have been played (one list of arrays per utterance)."""

    def __init__(self, rate: int = 22050) -> None:
        self.rate = rate
        self.utterances: list[list[Audio]] = []
        self._open = False

    def begin(self) -> None:
        self.utterances.append([])
        self._open = True

    def write(self, audio: Audio, rate: int) -> None:
        if not self._open:
            self.begin()
        self.utterances[-1].append(resample_rate(audio, rate, self.rate))

    def end(self) -> None:
        self._open = False

    def close(self) -> None:
        pass

    def audio(self) -> Audio:
        parts = [a for u in self.utterances for a in u]
        return as_audio(np.concatenate(parts)) if parts else np.zeros(0, np.float32)


class WavFileSink:
    """Writes what would have been played into a 16-bit mono WAV file as it comes, so memory
    stays flat however long the speech (``say -o``)."""

    def __init__(self, path: Path, rate: int = 22050) -> None:
        self.rate = rate
        self.frames = 0
        self.peak = 0.0
        self.error: OSError | None = None  # the first write that failed (a full disk)
        self._file = path.open("wb")
        self._wav = wave.open(self._file, "wb")
        self._wav.setnchannels(1)
        self._wav.setsampwidth(2)
        self._wav.setframerate(rate)

    def begin(self) -> None:
        pass

    def write(self, audio: Audio, rate: int) -> None:
        samples = resample_rate(audio, rate, self.rate)
        if len(samples):
            self.peak = max(self.peak, float(np.max(np.abs(samples))))
        try:
            self._wav.writeframes(np.ascontiguousarray(to_int16(samples), dtype="<i2").tobytes())
        except OSError as error:
            self.error = self.error or error
            raise
        self.frames += len(samples)

    def end(self) -> None:
        pass

    def close(self) -> None:
        """Finish the file (its header holds the length); a failure is kept in ``error``."""
        try:
            self._wav.close()
        except OSError as error:
            self.error = self.error or error
        finally:
            self._file.close()


def output_devices() -> list[dict[str, Any]]:
    sd = import_sounddevice()
    return [dict(d) for d in sd.query_devices() if d["max_output_channels"] > 0]


def import_sounddevice() -> Any:
    lean_alsa()  # before PortAudio lists the devices (assistant.alsa)
    try:
        import sounddevice
    except OSError as error:  # the PortAudio library itself is missing
        raise AudioUnavailable(f"no audio output: {error}. Install PortAudio "
                               "(Debian/Raspberry Pi OS: sudo apt install libportaudio2).") from error
    return sounddevice


def rescan_devices() -> None:
    """Have PortAudio list the audio devices again, so one plugged in (or an audio server
    started) since it was first asked is found. PortAudio only lists devices when it starts;
    restarting it closes every stream, so the caller closes its streams first."""
    sd = import_sounddevice()
    with interrupts_held():
        sd._terminate()
        sd._initialize()


@contextmanager
def interrupts_held() -> Iterator[None]:
    """Ctrl-C (and SIGTERM, which the CLI turns into Ctrl-C) wait until the block is done.

    sounddevice counts PortAudio's starts in Python after the C call returns: an interrupt
    landing just after PortAudio stopped, before the count went down, left the count at one
    with PortAudio stopped, and at exit sounddevice stopped it again and printed a traceback.
    Python only runs signal handlers in the main thread; elsewhere there is nothing to hold."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[signal.Signals] = []
    wanted = [signal.SIGINT, signal.SIGTERM]
    def hold(got: int, _frame: object) -> None:
        caught.append(signal.Signals(got))

    before = {number: signal.signal(number, hold) for number in wanted}
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)
        if caught:
            handler = before[caught[0]]
            if callable(handler):
                handler(caught[0], None)
            elif handler == signal.SIG_DFL:
                signal.raise_signal(caught[0])


def find_output(query: str) -> tuple[int | None, str, list[str]]:
    """(device index or None for the default, its name, problems) for a name substring."""
    sd = import_sounddevice()
    try:
        devices = list(sd.query_devices())
    except Exception as error:
        raise AudioUnavailable(f"cannot list audio devices: {error}") from error
    outputs = [(i, str(d["name"])) for i, d in enumerate(devices) if d["max_output_channels"] > 0]
    if not outputs:
        raise AudioUnavailable("no audio output device found. Plug in a speaker (or start PulseAudio) "
                               "and check `aplay -l`.")
    if query:
        for index, name in outputs:
            if query.lower() in name.lower():
                return index, name, []
        names = ", ".join(repr(n) for _, n in outputs)
        problem = (f"no output device matches voice.output_device = {query!r}; using the default. "
                   f"Devices: {names}.")
        return None, _default_name(sd, outputs), [problem]
    return None, _default_name(sd, outputs), []


def _default_name(sd: Any, outputs: list[tuple[int, str]]) -> str:
    try:
        return str(sd.query_devices(kind="output")["name"])
    except Exception:
        return outputs[0][1]


class DeviceSink:
    """A sounddevice output stream kept open; each utterance starts and drains it."""

    def __init__(self, stream: Any, rate: int, channels: int, device_name: str) -> None:
        self.stream = stream
        self.rate = rate
        self.channels = channels
        self.device_name = device_name
        self.first_write_at: float | None = None
        self.closed = False
        # an output stream still open when Python exits aborts the process (PortAudio's thread)
        atexit.register(self.close)

    @classmethod
    def open(cls, query: str, preferred_rate: int, problems: list[str] | None = None) -> DeviceSink:
        sd = import_sounddevice()
        device, name, found = find_output(query)
        if problems is not None:
            problems.extend(found)
        try:
            info = sd.query_devices(device, kind="output") if device is not None else \
                sd.query_devices(kind="output")
            default_rate = int(info["default_samplerate"])
        except Exception:
            default_rate = 48000
        tried: list[str] = []
        for rate in dict.fromkeys([preferred_rate, default_rate, 48000, 44100]):
            for channels in (1, 2):
                try:
                    sd.check_output_settings(device=device, samplerate=rate, channels=channels,
                                             dtype="float32")
                    stream = sd.OutputStream(device=device, samplerate=rate, channels=channels,
                                             dtype="float32")
                except Exception as error:
                    tried.append(f"{rate} Hz x{channels}: {error}")
                    continue
                sink = cls(stream, rate, channels, name)
                sink.warm_up()
                return sink
        raise AudioUnavailable(f"the output device {name!r} refused every format: {'; '.join(tried)}")

    def warm_up(self) -> None:
        self.begin()
        self.write(np.zeros(int(0.05 * self.rate), np.float32), self.rate)
        self.end()

    def begin(self) -> None:
        self.first_write_at = None
        if not self.stream.active:
            self.stream.start()

    def write(self, audio: Audio, rate: int) -> None:
        data = resample_rate(audio, rate, self.rate)
        frames = data.reshape(-1, 1)
        if self.channels > 1:
            frames = np.repeat(frames, self.channels, axis=1)
        if self.first_write_at is None:
            self.first_write_at = time.monotonic()
        self.stream.write(np.ascontiguousarray(frames, dtype=np.float32))

    def end(self) -> None:
        if self.stream.active:
            self.stream.stop()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        atexit.unregister(self.close)
        try:
            self.stream.close()
        except Exception:  # closing a stream whose device vanished: nothing left to do
            pass

    @property
    def latency(self) -> float:
        return float(self.stream.latency)
