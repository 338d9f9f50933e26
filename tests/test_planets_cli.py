"""Battle of the Planets through the real command line: a whole scripted game, and resume after kill -9."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.harness import kill_then_resume, play_args, split, transcript, whole_game

#: A whole game from set-up to the winner: "> " lines are typed, the others are 7-Zark-7's
#: answers, in order. Seed 4, the packaged spinner, three players.
WHOLE_GAME = transcript("planets_whole_game")


def cli_args(tmp_path: Path, *extra: str, seed: int = 4) -> tuple[list[str], dict[str, str]]:
    return play_args(tmp_path, "planets", "games:\n  planets: {}\n", seed, *extra)


def test_whole_game_through_the_cli(tmp_path: Path) -> None:
    whole_game(tmp_path, WHOLE_GAME, cli_args, "planets")


def test_the_entry_that_ended_the_game_can_be_undone(tmp_path: Path) -> None:
    """A misheard "reached Earth" must not be final: undo reopens the game, also after a restart."""
    script, expected = split(WHOLE_GAME)
    args, env = cli_args(tmp_path)
    done = subprocess.run(args, input=script + "undo\nstatus\n", capture_output=True, text=True, timeout=60,
                          env=env, cwd=tmp_path)
    out = done.stdout.splitlines()
    assert out[:len(expected)] == expected
    assert out[len(expected)] == "ZARK: Undone."
    assert "ZARK: Anna: 3 Monster cards, 0 safe, on the board." in out[len(expected):]
    journal = next((tmp_path / "state").glob("planets-*.jsonl")).read_text().splitlines()
    assert journal[-2:] == ['{"undo": true}', '{"cmd": {"intent": "status", "slots": {}}}']  # open again
    resumed = subprocess.run([*args, "--resume"], input="anna reached earth\nnew game\n", capture_output=True,
                             text=True, timeout=60, env=env, cwd=tmp_path)
    lines = resumed.stdout.splitlines()
    assert lines[0] == "ZARK: Game resumed."
    assert "ZARK: Anna wins the Battle of the Planets!" in lines
    win = lines.index("ZARK: Anna wins the Battle of the Planets!")
    assert lines[win + 2].startswith("ZARK: ") and "new game" not in lines[win + 2]  # a new game began


def test_configured_players_skip_the_question(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("games:\n  planets:\n    players: [yellow, white]\n")
    args, env = cli_args(tmp_path)
    done = subprocess.run(args, input="next\nnext\nspin\n", capture_output=True, text=True, timeout=60,
                          env=env, cwd=tmp_path)
    out = done.stdout.splitlines()
    assert out[1] == "ZARK: Yellow and White are playing, in that order. Every ship starts on the Blast-Off area."
    assert out[-2] == "ZARK: Yellow's turn. Say spin."
    assert out[-1].startswith("ZARK: Intruder moves ")


@pytest.mark.parametrize("cut, nth", [("red is anna", 1), ("the intruder landed on blue", 1), ("undo", 1),
                                      ("status", 1)])
def test_kill_minus_nine_then_resume_restores_the_same_game(tmp_path: Path, cut: str, nth: int) -> None:
    """Kill the CLI once the ``nth`` line ``cut`` is answered; --resume must go on as if nothing happened."""
    out, expected = kill_then_resume(tmp_path, WHOLE_GAME, cut, nth, cli_args)
    assert out[0] == "ZARK: Game resumed."
    assert out[-len(expected):] == expected
    assert expected[-2] == "ZARK: Anna wins the Battle of the Planets!"
