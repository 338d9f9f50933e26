"""Counted words as every game says them ("1 point", "3 minutes 12 seconds"), and the
article before a name ("a Negatron", "an Access Card"), written once.

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


#: Words spelled with a vowel but said with a consonant first ("a unit", "a one"), and spelled
#: with an h that is not said ("an hour"): the beginnings that decide, lower case.
_SAID_WITH_A_CONSONANT = ("eu", "ewe", "one", "once", "uni", "unanim", "ura", "ure", "uri", "use", "usu",
                          "uten", "uti", "uto")
_SILENT_H = ("heir", "honest", "honor", "honour", "hour")


def with_a(name: str) -> str:
    """"a Negatron", "an Access Card", "a Unit", "an Hour": a or an by the name's first sound."""
    word = name.lower()
    vowel_sound = (word[:1] in ("a", "e", "i", "o", "u") and not word.startswith(_SAID_WITH_A_CONSONANT)
                   or word.startswith(_SILENT_H))
    return f"{'an' if vowel_sound else 'a'} {name}"
