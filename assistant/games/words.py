"""Counted words as every game says them ("1 point", "3 minutes 12 seconds"), written once.

The count is digits unless ``number`` writes it otherwise: the voice reads a clock ("4:30")
with the same rule, in words.
"""

from __future__ import annotations

from collections.abc import Callable


def plural(n: int, word: str, number: Callable[[int], str] = str) -> str:
    """"1 point", "0 points", "2 more shields"."""
    return f"{number(n)} {word}{'s' if n != 1 else ''}"


def minutes_seconds(minutes: int, seconds: int, number: Callable[[int], str] = str) -> str:
    """"3 minutes 12 seconds", "1 minute", "45 seconds"; no time at all is "0 seconds"."""
    parts = []
    if minutes:
        parts.append(plural(minutes, "minute", number))
    if seconds or not minutes:
        parts.append(plural(seconds, "second", number))
    return " ".join(parts)
