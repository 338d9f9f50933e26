"""Benchmark voices beyond the synthetic ones: real people's button entries, and other talkers.

**Recorded people** (``FSDD``): the Free Spoken Digit Dataset's takes of "zero", "one" and "two"
by six speakers (CC BY-SA 4.0; benchmark data, read from its folder, never copied into the
project). A button entry such as "one zero zero" is one speaker's takes joined with short
pauses. Three speakers are for choosing settings (``FSDD_TUNING``), three are only reported on
(``FSDD_HELD_OUT``); each set holds a US-neutral and a German accent, and one more (French-
Belgian for tuning, Greek held out).

**Other talkers** (``other_talkers``): one to three people across the table, each another
synthetic voice (espeak-ng voices of neither speaker set) saying its own sentences, not a
crowd's babble.
"""

from __future__ import annotations

import hashlib
import random
import wave
from pathlib import Path

import numpy as np

from assistant.hearing.audio import RATE, Float, Int16, as_int16, resample
from tests.support.spoken import (
    BABBLE_LINES,
    BABBLE_VOICES,
    HELD_OUT_SPEAKERS,
    PAD_S,
    TUNING_SPEAKERS,
    ClipMaker,
    Speaker,
    speech_power,
)

FSDD_DIR = Path("/work/shared/data/fsdd")
FSDD_TUNING = ("jackson", "nicolas", "yweweler")
FSDD_HELD_OUT = ("theo", "george", "lucas")
FSDD_ACCENTS = {"jackson": "US", "theo": "US", "nicolas": "Belgian French", "yweweler": "German",
                "lucas": "German", "george": "Greek"}
DIGITS = {"zero": 0, "one": 1, "two": 2}
FSDD_TAKES = 50
#: The int16 RMS each take is brought to (a player near the microphone)
TAKE_RMS = 3000.0


def fsdd_speaker(name: str) -> Speaker:
    return Speaker("fsdd", name)


TUNING_VOICES: tuple[Speaker, ...] = (*TUNING_SPEAKERS, *(fsdd_speaker(n) for n in FSDD_TUNING))
HELD_OUT_VOICES: tuple[Speaker, ...] = (*HELD_OUT_SPEAKERS, *(fsdd_speaker(n) for n in FSDD_HELD_OUT))


def family(speaker: Speaker) -> str:
    """The voice family a speaker belongs to, as the tables name it."""
    return {"piper": "Piper", "espeak": "espeak-ng", "fsdd": "people (FSDD)"}[speaker.engine]


def label(speaker: Speaker) -> str:
    if speaker.engine == "fsdd":
        return f"FSDD {speaker.voice} ({FSDD_ACCENTS.get(speaker.voice, '?')})"
    return speaker.label


def is_digit_entry(text: str) -> bool:
    words = text.split()
    return bool(words) and all(w in DIGITS for w in words)


class BenchClips(ClipMaker):
    """``ClipMaker`` that also says button entries in the FSDD speakers' own recorded voices."""

    def __init__(self, cache: Path | None = None, fsdd: Path | None = FSDD_DIR) -> None:
        super().__init__(cache)
        self.fsdd = fsdd
        self._takes: dict[tuple[str, int, int], Float] = {}

    def say(self, text: str, speaker: Speaker, pad_s: float = PAD_S) -> Int16:
        if speaker.engine != "fsdd":
            return super().say(text, speaker, pad_s)
        # a speaker at another "speed" is the same person saying it again: other takes
        return self.entry(text, speaker.voice, pad_s, "" if speaker.speed == 1.0 else f"|{speaker.speed}")

    def entry(self, text: str, name: str, pad_s: float = PAD_S, variant: str = "") -> Int16:
        """``text`` (digit words only) as ``name``'s takes joined by 0.15-0.35 s pauses; the
        takes and pauses are chosen from the text and the speaker (and ``variant``), so the clip
        is the same every run. Each take is brought to the same loudness."""
        if not is_digit_entry(text):
            raise ValueError(f"FSDD speakers say only zero, one and two, not {text!r}")
        seed = int.from_bytes(hashlib.sha1(f"{name}|{text}{variant}".encode()).digest()[:4], "big")
        rng = random.Random(seed)
        used: set[tuple[int, int]] = set()
        parts: list[Float] = [np.zeros(int(pad_s * RATE))]
        for n, word in enumerate(text.split()):
            digit = DIGITS[word]
            take = rng.randrange(FSDD_TAKES)
            while (digit, take) in used:  # the same digit twice in an entry: two different takes
                take = rng.randrange(FSDD_TAKES)
            used.add((digit, take))
            if n:
                parts.append(np.zeros(int(rng.uniform(0.15, 0.35) * RATE)))
            parts.append(self._take(name, digit, take))
        parts.append(np.zeros(int(pad_s * RATE)))
        return as_int16(np.concatenate(parts))

    def _take(self, name: str, digit: int, take: int) -> Float:
        key = (name, digit, take)
        if key not in self._takes:
            if self.fsdd is None:
                raise RuntimeError("no FSDD folder given")
            path = self.fsdd / f"{digit}_{name}_{take}.wav"
            with wave.open(str(path)) as w:
                if w.getnchannels() != 1 or w.getsampwidth() != 2:
                    raise ValueError(f"{path}: expected 16-bit mono")
                rate = w.getframerate()
                raw = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64)
            audio = resample(raw, rate, RATE)
            power = speech_power(as_int16(audio))
            self._takes[key] = audio * TAKE_RMS / max(np.sqrt(power), 1e-9)
        return self._takes[key]


#: How many different other-talker tracks a run uses (a clip's seed picks one)
TALKER_TRACKS = 12


class OtherTalkers:
    """Tracks of one to three other people talking across the table (``tracks``, made once)."""

    def __init__(self, maker: ClipMaker, seconds: float = 20.0) -> None:
        self.maker = maker
        self.seconds = seconds
        self._tracks: dict[int, Float] = {}

    def count(self, seed: int) -> int:
        """How many talkers a clip with ``seed`` hears: 1, 2 or 3."""
        return 1 + (seed % TALKER_TRACKS) % 3

    def track(self, seed: int) -> Float:
        """The talkers a clip with ``seed`` hears (int16-scaled floats, power about 1 per talker):
        each a different voice saying different sentences, looped from its own moment, the
        nearest at gain 1, the others at 0.8 and 0.65."""
        index = seed % TALKER_TRACKS
        if index not in self._tracks:
            rng = random.Random(1000 + index)
            length = int(self.seconds * RATE)
            voices = rng.sample(range(len(BABBLE_VOICES)), self.count(seed))
            track = np.zeros(length)
            for k, v in enumerate(voices):
                lines = rng.sample(BABBLE_LINES, 3)
                spoken = self.maker.say(" ".join(lines), Speaker("espeak", BABBLE_VOICES[v], 1.0, 40 + 6 * v),
                                        pad_s=0.5)
                talk: Float = spoken.astype(np.float64)
                talk /= max(np.sqrt(np.mean(talk ** 2)), 1e-9)
                track += (1.0, 0.8, 0.65)[k] * np.resize(np.roll(talk, rng.randrange(len(talk))), length)
            self._tracks[index] = track
        return self._tracks[index]
