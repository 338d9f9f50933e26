"""Rendered sentences kept in memory and on disk, keyed by everything the sound depends on.

A key is a hash of the character's fingerprint (voice file, synthesis settings, effect
chain, volume) and the sentence text: change any of them and the sentence is rendered
anew; the old file is simply never asked for again. Files are 16-bit mono WAVs, written
atomically, so several processes can share one folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import threading
import wave
from collections import OrderedDict
from pathlib import Path

import numpy as np
import numpy.typing as npt

CACHE_VERSION = 1


def phrase_key(fingerprint: str, sentence: str) -> str:
    return hashlib.sha256(f"{CACHE_VERSION}\n{fingerprint}\n{sentence}".encode()).hexdigest()[:32]


def write_wav(path: Path, samples: npt.NDArray[np.int16], rate: int) -> None:
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(np.ascontiguousarray(samples, dtype="<i2").tobytes())


def read_wav(path: Path) -> tuple[npt.NDArray[np.int16], int]:
    with wave.open(str(path), "rb") as wav:
        if wav.getsampwidth() != 2:
            raise ValueError(f"{path}: not 16-bit audio")
        frames = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2")
        channels = wav.getnchannels()
        if channels > 1:
            frames = frames.reshape(-1, channels)[:, 0]
        return frames.astype(np.int16), wav.getframerate()


class PhraseCache:
    """Memory (least recently used, bounded) in front of a folder of WAV files."""

    def __init__(self, folder: Path | None, memory_limit_bytes: int = 64 << 20) -> None:
        self.folder = folder
        self.memory_limit = memory_limit_bytes
        self._memory: OrderedDict[str, tuple[npt.NDArray[np.int16], int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits_memory = 0
        self.hits_disk = 0
        self.misses = 0
        self.write_problem: str | None = None
        if folder is not None:
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                self.write_problem = f"cannot create the voice cache folder {folder}: {error}"

    def _path(self, key: str) -> Path | None:
        return None if self.folder is None else self.folder / f"{key}.wav"

    def in_memory(self, key: str) -> bool:
        with self._lock:
            return key in self._memory

    def on_disk(self, key: str) -> bool:
        path = self._path(key)
        return path is not None and path.is_file()

    def get(self, key: str) -> tuple[npt.NDArray[np.int16], int] | None:
        with self._lock:
            found = self._memory.get(key)
            if found is not None:
                self._memory.move_to_end(key)
                self.hits_memory += 1
                return found
        path = self._path(key)
        if path is not None and path.is_file():
            try:
                samples, rate = read_wav(path)
            except (OSError, EOFError, ValueError, wave.Error):
                with contextlib.suppress(OSError):  # a read-only cache keeps it; it is rendered anyway
                    path.unlink(missing_ok=True)  # a torn or foreign file: render it again
            else:
                self._remember(key, samples, rate)
                with self._lock:
                    self.hits_disk += 1
                return samples, rate
        with self._lock:
            self.misses += 1
        return None

    def put(self, key: str, samples: npt.NDArray[np.int16], rate: int) -> None:
        self._remember(key, samples, rate)
        path = self._path(key)
        if path is None or self.write_problem is not None:
            return
        tmp: str | None = None
        try:
            fd, tmp = tempfile.mkstemp(suffix=".tmp", dir=path.parent)
            os.close(fd)
            write_wav(Path(tmp), samples, rate)
            os.replace(tmp, path)
        except OSError as error:
            self.write_problem = f"cannot write to the voice cache folder {path.parent}: {error}"
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)

    def _remember(self, key: str, samples: npt.NDArray[np.int16], rate: int) -> None:
        with self._lock:
            if key in self._memory:
                return
            self._memory[key] = (samples, rate)
            self._bytes += samples.nbytes
            while self._bytes > self.memory_limit and len(self._memory) > 1:
                _, (old, _) = self._memory.popitem(last=False)
                self._bytes -= old.nbytes

    @property
    def memory_bytes(self) -> int:
        return self._bytes
