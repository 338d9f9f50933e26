"""PocketSphinx's pronouncing dictionary (CMUdict, 135,000 words), looked up from Python.

PocketSphinx loads a dictionary into each decoder as a hash table of every word: about 21 MB
for CMUdict, though a game's grammars use a few hundred of its words. Here the file is kept as
its bytes (3.3 MB) with where each line starts, and a word is found by bisection: the file is
sorted by word, a word's other pronunciations (``word(2)``...) on the lines after it. The
decoders are given only the words their grammars use (``PocketSphinxRecognizer``).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np


class PronouncingError(RuntimeError):
    """The dictionary file is not what this lookup needs (the message says why)."""


class Pronouncing:
    """A pronouncing dictionary file (``word PH ONES`` a line, sorted by word), read once."""

    def __init__(self, path: Path) -> None:
        self.path = path
        data = path.read_bytes()
        newlines = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
        starts = np.concatenate([[0], newlines + 1])
        ends = np.concatenate([newlines, [len(data)]])
        keep = ends > starts  # no empty lines
        self._data = data
        self._starts, self._ends = starts[keep], ends[keep]
        words = [self._word(i) for i in range(len(self._starts))]
        if any(a > b for a, b in zip(words, words[1:], strict=False)):
            raise PronouncingError(f"{path} is not sorted by word: it cannot be looked up by bisection")

    def __len__(self) -> int:
        return len(self._starts)

    def _line(self, i: int) -> bytes:
        return self._data[self._starts[i]:self._ends[i]]

    def _word(self, i: int) -> bytes:
        """Line ``i``'s word, without the number of another pronunciation."""
        key = self._line(i).split(b" ", 1)[0]
        return key.split(b"(", 1)[0] if key.endswith(b")") else key

    def variants(self, word: str) -> list[str]:
        """``word``'s pronunciations (space-separated phones), in the file's order (``word``,
        ``word(2)``...); none for a word the dictionary lacks."""
        key = word.encode()
        lo, hi = 0, len(self._starts)
        while lo < hi:
            mid = (lo + hi) // 2
            if self._word(mid) < key:
                lo = mid + 1
            else:
                hi = mid
        found = []
        while lo < len(self._starts) and self._word(lo) == key:
            found.append(self._line(lo).split(b" ", 1)[1].decode().strip())
            lo += 1
        return found


@functools.lru_cache(maxsize=4)
def pronouncing(path: Path) -> Pronouncing:
    """The dictionary at ``path``, read once a process."""
    return Pronouncing(path)
