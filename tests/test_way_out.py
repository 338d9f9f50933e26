"""No game lost at a prompt, and a clean way out, through the real CLI as a player meets them:
the resume question at a terminal, Ctrl-C, SIGTERM and the end of input, and the unfinished
games a seed or a piped run leaves behind (issue 32, findings 1, 2 and 4)."""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assistant.journal import find_unfinished, unfinished_games
from tests.live_helpers import ctrl_c_reaches_it

ROOT = Path(__file__).resolve().parent.parent
KEPT = "The omega-virus game is kept; `assistant play omega-virus --text --resume` goes on with it."


def command(*options: str) -> list[str]:
    return [sys.executable, "-m", "assistant", "play", *options]


def env_for(state: Path) -> dict[str, str]:
    return {**os.environ, "ASSISTANT_STATE_DIR": str(state)}


def piped(state: Path, lines: list[str], *options: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command(*options), input="".join(f"{line}\n" for line in lines), capture_output=True,
                          text=True, env=env_for(state), cwd=ROOT, timeout=60)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done


def unfinished_game(state: Path) -> Path:
    """An Omega Virus game left unfinished (two moves made), as a piped run leaves it."""
    piped(state, ["skill zero", "code one two"], "omega-virus", "--text", "--clock", "virtual", "--seed", "7")
    found = find_unfinished(state, "omega-virus")
    assert found is not None
    return found.path


class AtATerminal:
    """The CLI with a terminal (a pty) as its input, as a player starts it; stdout and stderr
    piped apart so that what is printed where can be told."""

    def __init__(self, state: Path, *options: str) -> None:
        self.leader, follower = pty.openpty()
        self.proc = subprocess.Popen(command(*options), stdin=follower, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env_for(state), cwd=ROOT,
                                     preexec_fn=ctrl_c_reaches_it)
        os.close(follower)
        self.out = b""

    def type(self, text: str) -> None:
        os.write(self.leader, text.encode())

    def read_until(self, wanted: str, timeout: float = 30.0, times: int = 1) -> str:
        """All printed so far, once ``wanted`` is there ``times`` times."""
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while self.out.count(wanted.encode()) < times:
            left = deadline - time.monotonic()
            assert left > 0, f"no {wanted!r} within {timeout} s; got {self.out.decode()!r}"
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                assert chunk, f"the CLI ended before {wanted!r}; got {self.out.decode()!r}"
                self.out += chunk
        return self.out.decode()

    def end(self, timeout: float = 30.0) -> tuple[int, str, str]:
        """Wait for the CLI to end: its exit code, all it printed on stdout, and on stderr."""
        try:
            rest, err = self.proc.communicate(timeout=timeout)
        finally:
            os.close(self.leader)
        return self.proc.returncode, (self.out + rest).decode(), err.decode()


def test_a_bare_enter_or_a_typo_at_the_resume_question_keeps_the_game(tmp_path: Path) -> None:
    state = tmp_path / "state"
    old = unfinished_game(state)
    cli = AtATerminal(state, "omega-virus", "--text", "--clock", "virtual")
    cli.read_until("Type resume to go on with it, or new to start a new game.\n")
    cli.type("\n")
    cli.read_until("Type resume to go on with the game from ")
    cli.type("resme\n")
    cli.read_until("Type resume to go on with the game from ", times=2)
    cli.type("\x04")  # Ctrl-D: the end of input, with no answer given
    code, out, err = cli.end()
    assert code == 0 and "Traceback" not in err, err
    assert "BSAT1" not in out  # no game started
    assert err.strip().splitlines()[-1].startswith("No answer. The unfinished omega-virus game is kept")
    assert find_unfinished(state, "omega-virus") is not None and find_unfinished(state, "omega-virus").path == old
    assert "end" not in old.read_text().splitlines()[-1]  # not marked abandoned


def test_new_at_the_resume_question_is_confirmed_first(tmp_path: Path) -> None:
    state = tmp_path / "state"
    old = unfinished_game(state)
    cli = AtATerminal(state, "omega-virus", "--text", "--clock", "virtual")
    cli.read_until("or new to start a new game.\n")
    cli.type("new\n")
    cli.read_until("will be lost. Type yes or no.\n")
    cli.type("no\n")
    cli.read_until("is kept. Type resume to go on with it, or new to start a new game.\n")
    cli.type("new\n")
    cli.read_until("will be lost. Type yes or no.\n", times=2)
    cli.type("yes\n")
    cli.read_until("BSAT1: Enter skill.\n")
    cli.type("\x04")
    code, out, err = cli.end()
    assert code == 0 and "Traceback" not in err, err
    assert old.read_text().splitlines()[-1] == '{"end": "abandoned"}'


def test_resume_at_the_question_goes_on_with_the_game(tmp_path: Path) -> None:
    state = tmp_path / "state"
    unfinished_game(state)
    cli = AtATerminal(state, "omega-virus", "--text", "--clock", "virtual")
    cli.read_until("or new to start a new game.\n")
    cli.type("resume\nrepeat\n")
    cli.read_until("BSAT1: Game resumed.\nBSAT1: Blue, enter secret code.\nBSAT1: Blue, enter secret code.\n")
    cli.type("\x04")
    code, _, err = cli.end()
    assert code == 0 and err.strip().splitlines()[-1] == f"End of input. {KEPT}", err


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_and_sigterm_leave_with_one_line_and_the_game_kept(tmp_path: Path, how: signal.Signals) -> None:
    """On the real clock, at a terminal: the moves made and the time played are kept."""
    state = tmp_path / "state"
    cli = AtATerminal(state, "omega-virus", "--text")
    cli.read_until("BSAT1: Enter skill.\n")
    cli.type("skill zero\n")
    cli.read_until("BSAT1: Red, enter secret code.\n")
    cli.type("code one two\n")
    cli.read_until("BSAT1: Blue, enter secret code.\n")
    time.sleep(0.5)
    cli.proc.send_signal(how)
    code, _, err = cli.end()
    assert code == 0, err
    assert err.strip().splitlines() == [f"Stopped. {KEPT}"]
    found = find_unfinished(state, "omega-virus")
    assert found is not None
    assert [e["cmd"]["intent"] for e in found.entries if "cmd" in e] == ["skill", "code"]


def test_ctrl_c_at_the_resume_question_keeps_the_game(tmp_path: Path) -> None:
    state = tmp_path / "state"
    old = unfinished_game(state)
    cli = AtATerminal(state, "omega-virus", "--text")
    cli.read_until("or new to start a new game.\n")
    cli.proc.send_signal(signal.SIGINT)
    code, _, err = cli.end()
    assert code == 0 and err.strip().splitlines() == ["Stopped. Any unfinished omega-virus game is kept."], err
    assert "end" not in old.read_text().splitlines()[-1]


def test_ctrl_c_in_the_menu_leaves_with_one_line(tmp_path: Path) -> None:
    cli = AtATerminal(tmp_path / "state", "--text")
    cli.read_until("NARRATOR: Which game?")
    cli.proc.send_signal(signal.SIGINT)
    code, _, err = cli.end()
    assert code == 0 and err.strip().splitlines() == ["Stopped."], err


def test_the_end_of_piped_input_says_the_game_is_kept(tmp_path: Path) -> None:
    state = tmp_path / "state"
    done = piped(state, ["skill zero"], "omega-virus", "--text", "--clock", "virtual")
    assert done.stderr.strip().splitlines() == [f"End of input. {KEPT}"]
    over = piped(state, ["skill zero", "code one two", "wait 2000"], "omega-virus", "--text", "--clock", "virtual",
                 "--new")
    assert over.stdout.splitlines()[-1] == "BSAT1: Say new game to play again."  # time ran out: nothing to keep
    assert "kept" not in over.stderr


def test_a_new_game_replaces_the_unfinished_one_at_its_first_move(tmp_path: Path) -> None:
    """Each game keeps one unfinished game (issue 60, finding C): a new one started beside it (piped
    input, a seed) replaces it once it has a move on disk, never before; --resume names the game
    it goes on with briefly, never by its path."""
    state = tmp_path / "state"
    first = unfinished_game(state)
    idle = piped(state, [], "omega-virus", "--text", "--clock", "virtual")  # started, no move made
    assert ("Starting a new omega-virus game. At its first move it replaces the unfinished omega-virus game from "
            in idle.stderr), idle.stderr
    assert "(2 moves)" in idle.stderr
    assert [j.path for j in unfinished_games(state, "omega-virus")] == [first]  # still there to resume
    piped(state, ["skill one"], "omega-virus", "--text", "--clock", "virtual")
    [newest] = unfinished_games(state, "omega-virus")
    assert newest.path != first and list(state.glob("*.jsonl")) == [newest.path]  # the idle start's went too
    resumed = piped(state, ["repeat"], "omega-virus", "--text", "--clock", "virtual", "--resume")
    assert resumed.stdout.splitlines()[:2] == ["BSAT1: Game resumed.", "BSAT1: Red, enter secret code."]
    assert "older" not in resumed.stderr
    # A newer game that ended replaced it all the same (--new says so too): nothing unfinished is left.
    ended = piped(state, ["skill zero", "code one two", "wait 2000"], "omega-virus", "--text", "--clock", "virtual",
                  "--new")
    assert "At its first move it replaces the unfinished omega-virus game from " in ended.stderr, ended.stderr
    assert unfinished_games(state, "omega-virus") == []


def test_older_unfinished_games_an_older_version_kept_are_counted_and_given_up(tmp_path: Path) -> None:
    """An older version kept every unfinished game: --resume goes on with the newest, says how many
    older ones there are and from when, not where, and they go at its next move."""
    state = tmp_path / "state"
    newest = unfinished_game(state)
    header, entries = newest.read_text().split("\n", 1)
    for day in (1, 2, 3):
        older = state / f"omega-virus-2026110{day}-200000-{day}.jsonl"
        older.write_text(json.dumps({**json.loads(header), "started": f"2026-11-0{day} 20:0{day}:00"}) + "\n" + entries)
        os.utime(older, (newest.stat().st_mtime - 100 * (4 - day),) * 2)
    assert len(unfinished_games(state, "omega-virus")) == 4
    resumed = piped(state, ["repeat"], "omega-virus", "--text", "--clock", "virtual", "--resume")
    told = resumed.stderr.splitlines()[0]
    assert told.startswith("Going on with the omega-virus game from "), told
    assert told.endswith(" 3 older unfinished omega-virus games go at the next move (the oldest from 2026-11-01 "
                         "20:01): each game keeps one."), told
    assert str(state) not in resumed.stderr
    assert list(state.glob("*.jsonl")) == [newest]


def test_a_seed_in_the_menu_starts_a_new_game_and_keeps_the_old_one_until_its_first_move(tmp_path: Path) -> None:
    state = tmp_path / "state"
    piped(state, ["battle of the planets", "red, blue and green"], "--text", "--clock", "virtual", "--seed", "3")
    old = find_unfinished(state, "planets")
    lines = ["battle of the planets", "what can I say"]
    resumed = piped(state, lines, "--text", "--clock", "virtual")
    assert "Game resumed." in resumed.stdout
    seeded = piped(state, lines, "--text", "--clock", "virtual", "--seed", "1")
    assert "Game resumed." not in seeded.stdout
    fresh = piped(tmp_path / "fresh", lines, "--text", "--clock", "virtual", "--seed", "1")
    assert seeded.stdout == fresh.stdout  # the seed's own game
    assert "Starting a new planets game. At its first move it replaces the unfinished planets game from " \
           in seeded.stderr
    assert old is not None and [j.path for j in unfinished_games(state, "planets")] == [old.path]  # no move yet
    # A game of this run, set aside by "main menu" (after a "new game" in it), is resumed by its name.
    again = piped(state, ["battle of the planets", "new game", "yes", "red and blue", "main menu", "yes",
                          "battle of the planets"], "--text", "--clock", "virtual", "--seed", "2")
    assert again.stdout.splitlines()[-2].endswith("Game resumed. Say new game to start over."), again.stdout
