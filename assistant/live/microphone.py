"""The microphone: 16 kHz blocks from the input device, captured in a process of its own.

The device is chosen by a name substring (Pi cards are numbered differently from model to
model) and opened at a rate it supports: 16 kHz when it can, else 48 or 44.1 kHz or its
default, resampled here. Blocks are small (0.1 s by default) so the end of speech is
noticed quickly. Each block carries the time it was captured, so the loop can drop what
was heard while the assistant spoke.

The stream itself runs in ``assistant.live.mic_worker``, a child process: a stream whose
sound server died can hang PortAudio for ever (see there), and a process can always be
killed. What the child prints (PortAudio's complaints about a dead device come by the
hundred thousand) reaches stderr only in part: its first lines, then how many more.
"""

from __future__ import annotations

import json
import math
import queue
import select
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from typing import IO

import numpy as np
import numpy.typing as npt

from assistant.hearing.audio import as_int16
from assistant.live.mic_worker import (
    FRAME,
    RATE,
    MicrophoneError,
    find_input,
    input_devices,
)

__all__ = ["RATE", "Block", "Microphone", "MicrophoneError", "StreamResampler", "find_input", "input_devices"]

#: How many of the microphone processes' stderr lines are passed on, from the last time one
#: worked: a device that stays away is retried every few seconds, and each try's complaints
#: are the same.
STDERR_LINES = 12


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
    device_name: str = ""
    rate: int = RATE
    blocks: queue.Queue[Block] = field(default_factory=queue.Queue)
    #: the child gives up on a device that sent nothing for this long (the loop then reopens)
    stall_seconds: float = 2.0
    open_timeout: float = 15.0
    stderr: IO[str] = field(default_factory=lambda: sys.stderr)
    #: the microphone process's command (tests give another)
    command: list[str] = field(default_factory=lambda: [sys.executable, "-m", "assistant.live.mic_worker"])
    _told: int = 0       # stderr lines passed on since the microphone last worked
    _untold: int = 0     # and those left out
    _process: subprocess.Popen[bytes] | None = None
    _threads: list[threading.Thread] = field(default_factory=list)
    _resampler: StreamResampler | None = None
    _carry: npt.NDArray[np.int16] = field(default_factory=lambda: np.zeros(0, dtype=np.int16))

    def open(self) -> None:
        self.close()
        process = subprocess.Popen(
            [*self.command, "--device", self.device, "--block-seconds", str(self.block_seconds),
             "--stall-seconds", str(self.stall_seconds)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert process.stdout is not None and process.stderr is not None
        self._process = process
        relay = threading.Thread(target=self._relay_stderr, args=(process.stderr,), name="microphone-stderr",
                                 daemon=True)
        relay.start()
        self._threads = [relay]
        header = self._header(process)
        if "error" in header:
            self.close()
            raise MicrophoneError(str(header["error"]))
        self.device_name, self.rate = str(header["name"]), int(str(header["rate"]))
        self._told = self._untold = 0
        self._resampler = StreamResampler(self.rate)
        self._carry = np.zeros(0, dtype=np.int16)
        reader = threading.Thread(target=self._read_frames, args=(process.stdout,), name="microphone",
                                  daemon=True)
        reader.start()
        self._threads.append(reader)

    def _header(self, process: subprocess.Popen[bytes]) -> dict[str, object]:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], self.open_timeout)
        line = process.stdout.readline() if ready else b""
        try:
            header = json.loads(line)
            if isinstance(header, dict) and ("error" in header or "rate" in header):
                return header
        except ValueError:
            pass
        self.close()
        why = "it took too long" if not ready else f"it ended with code {process.poll()}"
        raise MicrophoneError(f"The microphone could not be started ({why}). Check that the sound system "
                              "works (python -m assistant doctor), then try again.")

    def _relay_stderr(self, stream: IO[bytes]) -> None:
        """Pass on the child's lines while fewer than STDERR_LINES were since the microphone last
        worked, then say how many more there were (read in big pieces: a dead device can make
        PortAudio print without end until the child is gone)."""
        more = 0
        pending = b""
        while True:
            chunk = stream.read1(65536)  # type: ignore[attr-defined]
            if not chunk:
                break
            if self._told >= STDERR_LINES:
                more += chunk.count(b"\n")
                continue
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if self._told < STDERR_LINES:
                    self._tell(line.decode("utf-8", "replace"))
                    self._told += 1
                else:
                    more += 1
        if more and self._untold == 0:  # said once; its like is said again after the next success
            self._tell(f"microphone: {more} more lines from the sound library, not shown")
        self._untold += more

    def _tell(self, line: str) -> None:
        try:
            print(line, file=self.stderr, flush=True)
        except (OSError, ValueError):
            pass

    def _read_frames(self, stream: IO[bytes]) -> None:
        while True:
            head = stream.read(FRAME.size)
            if len(head) < FRAME.size:
                return  # the child ended
            captured_at, size = FRAME.unpack(head)
            data = stream.read(size)
            if len(data) < size:
                return
            self._take(np.frombuffer(data, dtype=np.int16), captured_at)

    def _take(self, samples: npt.NDArray[np.int16], captured_at: float) -> None:
        if self._resampler is not None and self.rate != RATE:
            samples = as_int16(self._resampler.process(samples.astype(np.float64)))
        joined = np.concatenate([self._carry, samples])
        step = int(RATE * self.block_seconds)
        while len(joined) >= step:
            self.blocks.put(Block(joined[:step].tobytes(), captured_at))
            joined = joined[step:]
        self._carry = joined

    def read(self, timeout: float) -> Block | None:
        try:
            return self.blocks.get(timeout=timeout)
        except queue.Empty:
            return None

    def alive(self) -> bool:
        """Whether the stream is running: its process is, and sends audio."""
        return (self._process is not None and self._process.poll() is None
                and len(self._threads) == 2 and self._threads[1].is_alive())

    def drain(self) -> None:
        while True:
            try:
                self.blocks.get_nowait()
            except queue.Empty:
                return

    def close(self) -> None:
        """Stop the stream: its process is killed (it has nothing to tidy up)."""
        process, self._process = self._process, None
        if process is not None:
            process.kill()
            process.wait()
        for thread in self._threads:  # they end at the pipes' end, now the process is gone
            if thread is not threading.current_thread():
                thread.join(timeout=2)
        self._threads = []
        if process is not None:
            for pipe in (process.stdin, process.stdout, process.stderr):
                if pipe is not None:
                    pipe.close()
