"""Omega Virus: Prologue through the real command line: a whole scripted game, and resume after kill -9."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.harness import Running, kill_then_resume, play_args, transcript, whole_game

#: A whole game as played at the table: "> " lines are typed, the others are what the
#: narrator must answer, in order. Seed 11, elapsed-time calls every 60 s.
WHOLE_GAME = transcript("prologue_whole_game")


def cli_args(tmp_path: Path, *extra: str, seed: int = 11) -> tuple[list[str], dict[str, str]]:
    return play_args(tmp_path, "prologue", "games:\n  prologue:\n    time_calls_seconds: 60\n", seed, *extra)


def test_whole_game_through_the_cli(tmp_path: Path) -> None:
    whole_game(tmp_path, WHOLE_GAME, cli_args, "prologue")


@pytest.mark.parametrize("cut, nth", [("how long", 1), ("ben", 1), ("done", 2), ("1", 1)])
def test_kill_minus_nine_then_resume_restores_the_same_game(tmp_path: Path, cut: str, nth: int) -> None:
    """Kill the CLI once the ``nth`` line ``cut`` is answered; --resume must go on as if nothing happened."""
    out, expected = kill_then_resume(tmp_path, WHOLE_GAME, cut, nth, cli_args)
    assert out[0] == "NARRATOR: Game resumed."
    # after the notice and the repeat of where things stand, the game goes on identically
    assert out[-len(expected):] == expected
    assert expected[-2] == "NARRATOR: Anna wins the game!"


def test_resume_mid_round_keeps_the_round_clock(tmp_path: Path) -> None:
    args, env = cli_args(tmp_path)
    first = Running(args, env, tmp_path)
    first.read_until("NARRATOR: Say ready when both players are ready.")
    for line in ["player one is anna", "ready", "wait 5", "wait 70", "how long"]:
        first.send(line)
    first.read_until("NARRATOR: Round 1: 1 minute 10 seconds.")
    first.kill()
    resumed_args, env = cli_args(tmp_path, "--resume")
    done = subprocess.run(resumed_args, input="wait 50\nhow long\ndone\nanna\n", capture_output=True,
                          text=True, timeout=60, env=env, cwd=tmp_path)
    assert done.stdout.splitlines() == [
        "NARRATOR: Game resumed.",
        "NARRATOR: Round 1 is on: 1 minute 10 seconds. Say done when someone has all three pieces of "
        "equipment.",
        "NARRATOR: 2 minutes.",
        "NARRATOR: Round 1: 2 minutes.",
        "NARRATOR: Stop! Who is done?",
        "NARRATOR: Say Anna or Player 2, or keep going.",
        "NARRATOR: Anna is done! Round 1 took 2 minutes.",
        "NARRATOR: Anna takes the speed bonus card: 1 point.",
        "NARRATOR: Scoring card 1 of 3: who achieved it? Say Anna, Player 2, tie, or nobody.",
    ]
