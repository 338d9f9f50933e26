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
import os
import queue
import select
import subprocess
import sys
import threading
import time
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
    _told: int = 0       # stderr lines passed on since the microphone last worked (relay thread only)
    _untold: int = 0     # and those left out
    _process: subprocess.Popen[bytes] | None = None
    _threads: list[threading.Thread] = field(default_factory=list)
    _unreaped: list[subprocess.Popen[bytes]] = field(default_factory=list)
    _resampler: StreamResampler | None = None
    _carry: npt.NDArray[np.int16] = field(default_factory=lambda: np.zeros(0, dtype=np.int16))

    def open(self) -> None:
        self.close()
        self._unreaped = [p for p in self._unreaped if p.poll() is None]
        heard = threading.Event()  # set at the first audio: the microphone works
        try:
            process = subprocess.Popen(
                [*self.command, "--device", self.device, "--block-seconds", str(self.block_seconds),
                 "--stall-seconds", str(self.stall_seconds)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            assert process.stdout is not None and process.stderr is not None
            self._process = process
            relay = threading.Thread(target=self._relay_stderr, args=(process.stderr, heard),
                                     name="microphone-stderr", daemon=True)
            relay.start()
            self._threads = [relay]
        except (OSError, RuntimeError) as error:  # no such program, or no process or thread to be had
            self.close()
            raise MicrophoneError(f"The microphone's process could not be started ({error}). Check the "
                                  "installation (run ./start.sh again), then try again.") from error
        header = self._header(process)
        if "error" in header:
            self.close()
            raise MicrophoneError(str(header["error"]))
        self.device_name, self.rate = str(header["name"]), int(str(header["rate"]))
        self._resampler = StreamResampler(self.rate)
        self._carry = np.zeros(0, dtype=np.int16)
        reader = threading.Thread(target=self._read_frames, args=(process.stdout, heard), name="microphone",
                                  daemon=True)
        try:
            reader.start()
        except RuntimeError as error:
            self.close()
            raise MicrophoneError(f"The microphone could not be read ({error}); the game waits.") from error
        self._threads.append(reader)

    def _header(self, process: subprocess.Popen[bytes]) -> dict[str, object]:
        """The child's first line, read within ``open_timeout`` (a byte at a time, so nothing after
        it is taken from the buffered reader the frames are read with)."""
        assert process.stdout is not None
        fd = process.stdout.fileno()
        line = b""
        deadline = time.monotonic() + self.open_timeout
        ended = False
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(0.0, left))
            if not ready:
                break
            byte = os.read(fd, 1)
            if not byte:
                ended = True
                break
            line += byte
        try:
            header = json.loads(line)
            if isinstance(header, dict) and ("error" in header or "rate" in header):
                return header
        except ValueError:
            pass
        self.close()
        why = f"it ended with code {process.poll()}" if ended else "it took too long"
        raise MicrophoneError(f"The microphone could not be started ({why}). Check that the sound system "
                              "works (python -m assistant doctor), then try again.")

    def _relay_stderr(self, stream: IO[bytes], heard: threading.Event) -> None:
        """Pass on the child's lines while fewer than STDERR_LINES were since the microphone last
        worked (gave audio), then say how many more there were (read in big pieces: a dead device
        can make PortAudio print without end until the child is gone)."""
        more = 0
        counted_from_start = True
        pending = b""
        try:
            while True:
                chunk = stream.read1(65536)  # type: ignore[attr-defined]
                if not chunk:
                    break
                if counted_from_start and heard.is_set():  # it works: its complaints are news again
                    self._told = self._untold = more = 0
                    counted_from_start = False
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
        finally:
            stream.close()
        if more and self._untold == 0:  # said once; its like is said again after the next success
            self._tell(f"microphone: {more} more lines from the sound library, not shown")
        self._untold += more

    def _tell(self, line: str) -> None:
        try:
            print(line, file=self.stderr, flush=True)
        except (OSError, ValueError):
            pass

    def _read_frames(self, stream: IO[bytes], heard: threading.Event) -> None:
        largest = 2 * max(self.rate, RATE)  # a second of audio; more is not a frame of ours
        try:
            while True:
                head = stream.read(FRAME.size)
                if len(head) < FRAME.size:
                    return  # the child ended
                captured_at, size = FRAME.unpack(head)
                if size > largest or size % 2:
                    self._tell(f"microphone: its process sent a frame of {size} bytes; starting it again")
                    return
                data = stream.read(size)
                if len(data) < size:
                    return
                heard.set()
                self._take(np.frombuffer(data, dtype=np.int16), captured_at)
        finally:
            stream.close()

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
        """Stop the stream: its process is killed (it has nothing to tidy up). Never waits long: a
        process stuck in the kernel (a USB driver) is left to be reaped at the next open."""
        process, self._process = self._process, None
        if process is not None:
            process.kill()
            try:
                process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self._unreaped.append(process)
            if process.stdin is not None:
                try:
                    process.stdin.close()
                except OSError:
                    pass
        for thread in self._threads:  # they end at their pipe's end, and close it
            if thread is not threading.current_thread():
                thread.join(timeout=2)
        if process is not None and not any(thread.is_alive() for thread in self._threads):
            for pipe in (process.stdout, process.stderr):  # one no thread read (an open that failed)
                if pipe is not None:
                    pipe.close()
        self._threads = []
