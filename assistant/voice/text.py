"""From what a game prints to what a voice says, one sentence at a time.

Rules (the players' ears decide, so they are simple and documented):

- Names from the pronunciation table first: ``BSat1`` is said "B Sat one" (each game
  declares its own in its GameSpec; ``voice.pronounce`` in config.yaml adds or overrides
  entries).
- A number followed by a counting word (``5 minutes``, ``30 seconds``, ``2 shields``) is a
  quantity: "five minutes". So is any other number of one or two digits without a leading
  zero ("player 2" -> "player two").
- Every other number is read digit by digit, the way the games' codes and rooms are
  spoken: ``Code 01`` -> "Code zero one", ``room 100`` -> "room one zero zero".
- ``4:30`` is a countdown: "four minutes thirty seconds". ``2.5`` is "two point five".
- Letters stay letters: espeak already says ``R`` as "ar".
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from assistant.games import pronunciations
from assistant.games.words import minutes_seconds
from assistant.sentences import number_words


def default_pronounce() -> dict[str, str]:
    """The games' own pronunciations (their GameSpecs'), which ``voice.pronounce`` adds to."""
    return pronunciations()


#: Words after which a number is a quantity ("5 minutes"), not a code.
COUNTING_WORDS = frozenset(
    "second seconds minute minutes hour hours shield shields point points player players card cards "
    "turn turns time times round rounds step steps space spaces life lives unit units commando "
    "commandos probe probes percent damage energy sectors sector rooms left more".split()
)

_SYMBOLS = {"%": " percent", "&": " and ", "+": " plus ", "=": " equals ", "#": " number "}
_DIGITS = "zero one two three four five six seven eight nine".split()


def quantity_words(n: int) -> str:
    """Words for any whole number ("one thousand two hundred five")."""
    if n < 0:
        return "minus " + quantity_words(-n)
    if n < 1000:
        return number_words(n)
    for size, name in ((10**9, "billion"), (10**6, "million"), (1000, "thousand")):
        if n >= size:
            high, rest = divmod(n, size)
            return f"{quantity_words(high)} {name}" + (f" {quantity_words(rest)}" if rest else "")
    return number_words(n)


def digit_words(digits: str) -> str:
    return " ".join(_DIGITS[int(d)] for d in digits)


def _apply_pronounce(text: str, pronounce: Mapping[str, str]) -> str:
    for written in sorted(pronounce, key=len, reverse=True):
        pattern = r"(?<![\w-])" + re.escape(written) + r"(?![\w])"
        text = re.sub(pattern, pronounce[written], text, flags=re.IGNORECASE)
    return text


_CLOCK = re.compile(r"(?<![\d:])(\d{1,3}):([0-5]\d)(?![\d:])")
_NUMBER = re.compile(r"(?<![\w.])(-?)(\d+)(?:\.(\d+))?(?![\d])")
_NEXT_WORD = re.compile(r"\s*([A-Za-z]+)")


def _clock(match: re.Match[str]) -> str:
    return minutes_seconds(int(match.group(1)), int(match.group(2)), quantity_words)


def _number(match: re.Match[str]) -> str:
    sign, whole, fraction = match.group(1), match.group(2), match.group(3)
    after = _NEXT_WORD.match(match.string, match.end())
    counted = (after is not None and after.group(1).lower() in COUNTING_WORDS) or \
        match.string[match.end():].lstrip().startswith("%")
    minus = "minus " if sign else ""
    if fraction is not None:
        return f"{minus}{quantity_words(int(whole))} point {digit_words(fraction)}"
    if counted or sign or (len(whole) <= 2 and not (len(whole) == 2 and whole[0] == "0")):
        return minus + quantity_words(int(whole))
    return digit_words(whole)


def speakable(text: str, pronounce: Mapping[str, str] | None = None) -> str:
    """``text`` with names, numbers and symbols written out as words (names from ``pronounce``,
    else from the games' own tables)."""
    table = default_pronounce() if pronounce is None else pronounce
    text = _apply_pronounce(text, table)
    text = _CLOCK.sub(_clock, text)
    text = _NUMBER.sub(_number, text)
    for symbol, words in _SYMBOLS.items():
        text = text.replace(symbol, words)
    return re.sub(r"\s+", " ", text).strip()


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def split_sentences(text: str) -> list[str]:
    """Sentences as a voice says them (each is synthesized and cached on its own)."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


#: The longest piece of text given to Piper at once. Its memory grows much faster than the
#: length of what it is given (1,769 characters without a full stop took 2.3 GB; 150 take
#: about 130 MB above the model), so a long sentence is said in pieces: at its clauses, else
#: between words. The longest sentence any game says is 127 characters.
MAX_CHUNK_CHARS = 150

_CLAUSE_END = re.compile(r"(?<=[,;:])\s+|\s+(?=[-\u2013\u2014(]\s)")


def bounded_chunks(sentence: str, limit: int = MAX_CHUNK_CHARS) -> list[str]:
    """``sentence`` cut into pieces of at most ``limit`` characters, at clause ends where it
    can be, else between words, else (a "word" longer than the limit) anywhere."""
    if len(sentence) <= limit:
        return [sentence]
    pieces: list[str] = []
    for clause in _CLAUSE_END.split(sentence):
        words = clause.split() if len(clause) > limit else [clause]
        for word in words:
            parts = [word[i:i + limit] for i in range(0, len(word), limit)] or [word]
            for part in parts:
                if pieces and len(pieces[-1]) + 1 + len(part) <= limit:
                    pieces[-1] = f"{pieces[-1]} {part}"
                else:
                    pieces.append(part)
    return [piece for piece in pieces if piece.strip()]


def spoken_sentences(text: str, pronounce: Mapping[str, str] | None = None) -> list[str]:
    """What a voice says, one bounded piece at a time: sentences, long ones cut at clauses."""
    return [chunk for part in split_sentences(text)
            for chunk in bounded_chunks(speakable(part, pronounce)) if chunk]
