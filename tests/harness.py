"""What the game tests share: a random table that plays any registered game through its spec,
and the command line run as a child process fed line by line."""

from __future__ import annotations

import copy
import enum
import os
import random
import select
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypeVar

from assistant.engine import Command, Game, NotAllowed, Output
from assistant.games import GameSpec
from assistant.sentences import Alt, Node, SentenceSet, Seq, SlotRef, Word
from assistant.session import SESSION_INTENTS

#: How many seeded random games each random-play test plays: 2,000 in ./test.sh (about 20 s for
#: the Command Center, Prologue and Planets together, about 5 s more for the MSX card battle); a longer
#: sweep is one variable away:
#: ``RANDOM_GAMES=10000 ./test.sh tests/test_omega_random.py ...`` (docs/development.md).
RANDOM_GAMES = int(os.environ.get("RANDOM_GAMES", "2000"))


def state_of(game: Game) -> object:
    """The whole state of a game, RNG included, as plain data (equal: the same game)."""
    return plain(game, set())


def plain(value: object, seen: set[int]) -> object:
    if value is None or isinstance(value, str | int | float | bool | enum.Enum):
        return value
    if isinstance(value, random.Random):
        return value.getstate()
    if isinstance(value, list | tuple):
        return [plain(v, seen) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(repr(plain(v, seen)) for v in value)
    if isinstance(value, dict):
        return {repr(k): plain(v, seen) for k, v in value.items()}
    if callable(value) and not hasattr(value, "__dict__"):
        return repr(type(value))
    if id(value) in seen:
        return "<seen>"
    fields = getattr(value, "__dict__", None)
    if fields is None:
        slots = getattr(type(value), "__slots__", ())
        fields = {name: getattr(value, name) for name in slots if hasattr(value, name)}
    return {"type": type(value).__name__, **{k: plain(v, seen | {id(value)}) for k, v in fields.items()}}


def with_short_lists(sentences: SentenceSet, longest: int = 25, keep: int = 3) -> SentenceSet:
    """The same sentences with each list of more than ``longest`` values (names, numbers up to
    99) cut to its first ``keep``: the structure, expandable whole."""
    short = copy.copy(sentences)
    short.lists = {name: values if len(values) <= longest else values[:keep]
                   for name, values in sentences.lists.items()}
    return short


G = TypeVar("G", bound=Game)


def handle_or_refuse(game: G, command: Command, snapshot: Callable[[G], object] = state_of
                     ) -> list[Output] | None:
    """The game's answer, or None when a rule refused the command: then with a reason, and
    with the game as it was (by ``snapshot``)."""
    before = snapshot(game)
    try:
        return game.handle(command)
    except NotAllowed as reason:
        assert str(reason), command
        assert snapshot(game) == before, command
        return None


@dataclass(frozen=True)
class Step:
    """One input of a random table and what came of it."""

    command: Command | None          # None: time passed instead
    seconds: float                   # how much, when time passed
    outputs: list[Output]
    refused: str = ""                # the spoken reason, when a rule refused the command


class RandomTable:
    """Players who say random sentences of the game (mostly ones allowed now, some not) and
    let random stretches of time pass; every sentence comes from the game's own templates."""

    def __init__(self, spec: GameSpec, seed: int, settings: dict[str, object] | None = None) -> None:
        self.spec = spec
        self.rng = random.Random(-seed - 1)
        self.game = spec.create(seed, settings or {})
        sentences = spec.sentences()
        self.sentences = sentences
        self.intents = sorted(i for i in sentences.intents if i not in SESSION_INTENTS)

    def command(self) -> Command:
        allowed = sorted(set(self.intents) & self.game.allowed_intents())
        intent = self.rng.choice(allowed if allowed and self.rng.random() < 0.85 else self.intents)
        text = " ".join(self.say(self.rng.choice(self.sentences.intents[intent].templates)))
        found = self.sentences.match(text, [intent])
        assert found is not None, (intent, text)
        return found

    def say(self, node: Node) -> list[str]:
        """A random sentence of one template."""
        if isinstance(node, Word):
            return [node.text]
        if isinstance(node, Seq):
            return [word for item in node.items for word in self.say(item)]
        if isinstance(node, Alt):
            return self.say(self.rng.choice(node.options))
        if isinstance(node, SlotRef):
            return self.say(self.rng.choice(self.sentences.lists[node.list_name]).node)
        return self.say(self.sentences.rules[node.name])

    def play(self, steps: int) -> Iterator[Step]:
        yield Step(None, 0.0, self.game.start())
        for _ in range(steps):
            if self.game.is_over():
                return
            if self.game.next_event_in() is not None and self.rng.random() < 0.25:
                seconds = round(self.rng.choice([0.001, 0.5, 2.0, self.rng.uniform(0, 60)]), 3)
                yield Step(None, seconds, self.game.advance(seconds))
                continue
            command = self.command()
            try:
                yield Step(command, 0.0, self.game.handle(command))
            except NotAllowed as reason:
                yield Step(command, 0.0, [], str(reason))


class Running:
    """The CLI as a child process fed line by line, its output read as it comes."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path, stderr: IO[str] | int = subprocess.DEVNULL
                 ) -> None:
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=stderr, env=env, cwd=cwd, bufsize=0)
        self.pending = b""
        self.lines: list[str] = []

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

    def read_until(self, last: str, timeout: float = 30.0) -> list[str]:
        """Lines up to and including ``last``."""
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        got: list[str] = []
        while True:
            while b"\n" in self.pending:
                raw, self.pending = self.pending.split(b"\n", 1)
                got.append(raw.decode())
                if got[-1] == last:
                    self.lines += got
                    return got
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {last!r} within {timeout} s; got {got}")
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    raise AssertionError(f"the CLI ended before {last!r}; got {got}")
                self.pending += chunk

    def kill(self) -> None:
        self.proc.kill()  # SIGKILL: no chance to tidy up
        self.proc.wait(timeout=10)
        assert self.proc.returncode == -9


def transcript(name: str) -> str:
    """A scripted game kept in tests/transcripts (data, one line a line, as printed)."""
    return (Path(__file__).parent / "transcripts" / f"{name}.txt").read_text(encoding="utf-8")


def split(transcript: str) -> tuple[str, list[str]]:
    """A transcript ("> " lines typed, the others answered) as the typed script and the answers."""
    lines = transcript.splitlines()
    script = "".join(line[2:] + "\n" for line in lines if line.startswith("> "))
    return script, [line for line in lines if not line.startswith("> ")]


def steps(transcript: str) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """The opening lines, then each typed line with the lines it must be answered with."""
    opening: list[str] = []
    out: list[tuple[str, list[str]]] = []
    for line in transcript.splitlines():
        if line.startswith("> "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
        else:
            opening.append(line)
    return opening, out


def play_args(tmp_path: Path, game: str, config: str, seed: int, *extra: str) -> tuple[list[str], dict[str, str]]:
    """``assistant play GAME --text`` on the virtual clock, journaling into tmp_path/state; the
    config file is written with ``config`` unless the test wrote one already."""
    path = tmp_path / "config.yaml"
    if not path.exists():
        path.write_text(config)
    env = dict(os.environ, ASSISTANT_STATE_DIR=str(tmp_path / "state"))
    args = [sys.executable, "-m", "assistant", "--config", str(path), "play", game, "--text",
            "--seed", str(seed), "--clock", "virtual", *extra]
    return args, env


def whole_game(tmp_path: Path, transcript: str, args: Callable[..., tuple[list[str], dict[str, str]]],
               game: str) -> None:
    """The transcript's typed lines in one go: the answers exactly, and a journal that ends over."""
    script, expected = split(transcript)
    play, env = args(tmp_path)
    done = subprocess.run(play, input=script, capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == expected
    journal = next((tmp_path / "state").glob(f"{game}-*.jsonl")).read_text().splitlines()
    assert journal[-1] == '{"end": "over"}'


def kill_then_resume(tmp_path: Path, transcript: str, cut: str, nth: int,
                     args: Callable[..., tuple[list[str], dict[str, str]]]) -> tuple[list[str], list[str]]:
    """Play ``transcript`` until the ``nth`` line ``cut`` is answered, kill -9, then --resume with
    the rest: the lines printed after the resume and the lines the rest must end with."""
    opening, played = steps(transcript)
    at = [i for i, (typed, _) in enumerate(played) if typed == cut][nth - 1]
    first_args, env = args(tmp_path)
    first = Running(first_args, env, tmp_path)
    assert first.read_until(opening[-1]) == opening
    for typed, answer in played[: at + 1]:
        first.send(typed)
        if answer:
            assert first.read_until(answer[-1]) == answer
    first.kill()
    rest = played[at + 1:]
    script = "".join(typed + "\n" for typed, _ in rest)
    expected = [line for _, answer in rest for line in answer]
    resumed_args, env = args(tmp_path, "--resume")
    done = subprocess.run(resumed_args, input=script, capture_output=True, text=True, timeout=60, env=env,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines(), expected
