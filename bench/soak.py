"""Soak: seeded random games through the text contract, killed (SIGKILL) at random moments and
restarted, must end exactly as their uninterrupted twins.

For each engine and seed, a random table plays a whole game in this process (sentences from the
game's own templates, mostly ones allowed now, and ``wait S`` lines): that gives the typed script
and the twin's final state. The script is then fed to the real command line (``assistant play GAME
--text --clock virtual``), which is killed with SIGKILL at a random moment (after a random number
of answer lines, or a random time after launch), 0 to 3 times per game, and started again with
``--resume`` and the lines it had not taken yet. Which lines it took is read from its journal: a
line counts once its entries are there (a ``wait`` cut short goes on for the seconds left).

Checked for every game: each journal left by a kill is a prefix of what that stretch of play
writes (nothing wrong is ever written), and the game rebuilt from the final journal equals the
twin (every field, the random generator's state included).

    .venv/bin/python bench/soak.py [--games 200] [--seed 1] [--game planets ...]
"""

from __future__ import annotations

import argparse
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from assistant.config import Config  # noqa: E402
from assistant.games import GAMES, game_module, game_spec  # noqa: E402
from assistant.journal import Journal  # noqa: E402
from assistant.session import PrintAnnouncer, Session, replay  # noqa: E402
from assistant.textplay import handle_line  # noqa: E402
from tests.harness import RandomTable, state_of  # noqa: E402

MAX_LINES = 150
WAITS = (0.5, 1.0, 2.0, 5.0, 15.0, 30.0, 60.0)  # whole milliseconds, exact in binary


@dataclass
class Tally:
    games: int = 0
    kills: int = 0
    resumes: int = 0
    restarts: int = 0  # killed before anything was journaled: started afresh
    mismatches: list[str] = field(default_factory=list)


def quiet() -> PrintAnnouncer:
    return PrintAnnouncer(lambda line: None)


def script_for(name: str, seed: int, settings: dict[str, Any]) -> list[str]:
    """A random table's whole game as typed lines, played through a session like the CLI's."""
    table = RandomTable(game_spec(name), seed, settings)
    session = Session.new(name, seed, settings, quiet(), None)
    session.start()
    lines: list[str] = []
    while len(lines) < MAX_LINES and not session.game.is_over():
        if session.game.next_event_in() is not None and table.rng.random() < 0.3:
            line = f"wait {table.rng.choice(WAITS):g}"
        else:
            allowed = sorted(set(table.intents) & session.game.allowed_intents())
            intent = table.rng.choice(allowed if allowed and table.rng.random() < 0.85 else table.intents)
            line = " ".join(table.say(table.rng.choice(table.sentences.intents[intent].templates)))
        lines.append(line)
        handle_line(session, line, virtual=True)
    return lines


def reference(journal: Journal | None, name: str, seed: int, settings: dict[str, Any], lines: list[str],
              scratch: Path) -> tuple[list[dict[str, Any]], list[int], int]:
    """What the CLI writes for ``lines`` from ``journal`` (None: a new game): every entry, the
    entry count after each line, and how many lines it prints (the kill points)."""
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    printed: list[str] = []
    announcer = PrintAnnouncer(printed.append)
    if journal is None:
        session = Session.new(name, seed, settings, announcer, scratch)
        session.start()
    else:
        copy = scratch / journal.path.name
        shutil.copyfile(journal.path, copy)
        session = Session.resume(Journal.read(copy), announcer)
        session.resumed()
    assert session.journal is not None
    marks = [len(session.journal.entries)]
    for line in lines:
        handle_line(session, line, virtual=True)
        marks.append(len(session.journal.entries))
        if session.finished:
            break
    session.close()
    return list(session.journal.entries), marks, len(printed)


def current_journal(state: Path) -> Journal | None:
    """The newest journal with entries (one with just its header started nothing)."""
    for path in sorted(state.glob("*.jsonl"), key=lambda p: p.stat().st_mtime_ns, reverse=True):
        try:
            journal = Journal.read(path)
        except (OSError, ValueError):
            continue
        if journal.entries:
            return journal
    return None


def run_cli(command: list[str], lines: list[str], kill_after: Callable[[int, float], bool] | None,
            env: dict[str, str]) -> bool:
    """Feed ``lines``; with ``kill_after(lines_printed, seconds)``, SIGKILL when it says so.
    True if it was killed."""
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env=env, cwd=ROOT)
    assert proc.stdin is not None and proc.stdout is not None
    started = time.monotonic()
    try:
        proc.stdin.write("".join(f"{line}\n" for line in lines).encode())
        proc.stdin.close()
    except BrokenPipeError:
        pass
    printed = 0
    killed = False
    fd = proc.stdout.fileno()
    while True:
        if kill_after is not None and kill_after(printed, time.monotonic() - started):
            proc.send_signal(signal.SIGKILL)
            killed = True
            break
        ready, _, _ = select.select([fd], [], [], 0.002)
        if ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            printed += chunk.count(b"\n")
    proc.wait(timeout=60)
    proc.stdout.close()
    return killed and proc.returncode == -signal.SIGKILL


def killer(rng: random.Random, printed: int) -> Callable[[int, float], bool]:
    """A random moment: a random time after launch (start-up, journal creation), or once a random
    number of the lines this stretch prints are out (the process races on meanwhile)."""
    if rng.random() < 0.25:
        moment = rng.uniform(0.0, 0.6)
        return lambda lines_printed, seconds: seconds >= moment
    target = rng.randint(0, max(printed, 1))
    return lambda lines_printed, seconds: lines_printed >= target


def left_to_type(lines: list[str], marks: list[int], entries: list[dict[str, Any]], written: int) -> list[str]:
    """The lines not taken yet, given that ``written`` of the stretch's entries are on disk."""
    done = max(i for i, mark in enumerate(marks) if mark <= written)
    if done >= len(lines) or marks[done] == written:
        return lines[done:]
    partial = entries[marks[done]:written]
    if any("cmd" in e for e in partial):
        return lines[done + 1:]
    if lines[done].startswith("wait "):
        left = float(lines[done].split()[1]) - sum(float(e.get("advance", 0)) for e in partial)
        return ([f"wait {left:.3f}"] if left > 0.0005 else []) + lines[done + 1:]
    return lines[done:]


def soak_one(name: str, seed: int, rng: random.Random, work: Path, tally: Tally) -> None:
    module = game_module(name)
    config = Config()
    settings = module.settings_from_config(config)
    lines = script_for(name, seed, settings)
    twin_entries, _, _ = reference(None, name, seed, settings, lines, work / "twin")
    twin = state_of(replay(module, Journal.read(next((work / "twin").glob("*.jsonl"))).header, twin_entries))
    state = work / "state"
    shutil.rmtree(state, ignore_errors=True)
    empty = work / "config.yaml"
    empty.write_text("", encoding="utf-8")
    env = {**os.environ, "ASSISTANT_STATE_DIR": str(state)}
    base = [sys.executable, "-m", "assistant", "--config", str(empty), "play", name, "--text", "--clock", "virtual",
            "--seed", str(seed)]
    kills_left = rng.randint(0, 3)
    remaining = lines
    journal: Journal | None = None
    first = True
    while True:
        entries, marks, printed = reference(journal, name, seed, settings, remaining, work / "ref")
        kill_after = killer(rng, printed) if kills_left else None
        killed = run_cli(base + (["--new"] if first else ["--resume"]), remaining, kill_after, env)
        first = False
        if not killed:
            break
        tally.kills += 1
        kills_left -= 1
        after = current_journal(state)
        written = len(after.entries) if after is not None else 0
        if after is not None and after.entries != entries[:written]:
            tally.mismatches.append(f"{name} seed {seed}: a killed journal is not a prefix of what play writes")
            return
        if after is None:
            tally.restarts += 1
            remaining, journal, first = lines, None, True
            continue
        tally.resumes += 1
        remaining = left_to_type(remaining, marks, entries, written)
        journal = after
    final = current_journal(state)
    if final is None:
        tally.mismatches.append(f"{name} seed {seed}: no journal at the end")
        return
    got = state_of(replay(module, final.header, final.entries))
    if got != twin:
        tally.mismatches.append(f"{name} seed {seed}: the resumed game differs from its twin")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per engine")
    parser.add_argument("--seed", type=int, default=1, help="first seed (the kills are seeded too)")
    parser.add_argument("--game", action="append", choices=list(GAMES), help="only these engines")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    totals = Tally()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="soak-") as tmp:
        for name in args.game or list(GAMES):
            tally = Tally()
            for seed in range(args.seed, args.seed + args.games):
                soak_one(name, seed, rng, Path(tmp), tally)
                tally.games += 1
            print(f"{name}: games {tally.games}, kills {tally.kills}, resumes {tally.resumes}, "
                  f"restarts {tally.restarts}, mismatches {len(tally.mismatches)}", flush=True)
            for problem in tally.mismatches[:5]:
                print(f"  {problem}", flush=True)
            totals.games += tally.games
            totals.kills += tally.kills
            totals.resumes += tally.resumes
            totals.restarts += tally.restarts
            totals.mismatches += tally.mismatches
    print(f"all: games {totals.games}, kills {totals.kills}, resumes {totals.resumes}, restarts "
          f"{totals.restarts}, mismatches {len(totals.mismatches)} ({time.monotonic() - started:.0f} s)")
    return 1 if totals.mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
