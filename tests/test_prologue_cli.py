"""Omega Virus: Prologue through the real command line: a whole scripted game, and resume after kill -9."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.harness import Running, kill_then_resume, play_args, whole_game

#: A whole game as played at the table: "> " lines are typed, the others are what the
#: narrator must answer, in order. Seed 11, elapsed-time calls every 60 s.
WHOLE_GAME = """\
NARRATOR: Omega Virus: Prologue. Two players, three rounds, real time.
NARRATOR: Setup: each player takes one deck of 18 floor plan cards.
NARRATOR: Put the key cards in three piles: red, yellow and blue.
NARRATOR: Shuffle the location cards and reveal one beside each key pile.
NARRATOR: Shuffle the scoring cards and reveal the top three.
NARRATOR: Stack the speed bonus cards face up, lowest value on top.
NARRATOR: You can tell me your names: say, for example, player one is Anna.
NARRATOR: Say ready when both players are ready.
> player one is anna
NARRATOR: Player 1 is Anna.
> player two is ben
NARRATOR: Player 2 is Ben.
> done
NARRATOR: No round is running. Say ready to start round 1.
> flibbertigibbet
NARRATOR: Say again? You can say: ready, player one is Anna, score, repeat, or what can I say.
> what can i say
NARRATOR: You can say: ready, player one is Anna, score, repeat, undo, what can I say, pause, new game.
> ready
NARRATOR: Round 1.
NARRATOR: 5
> wait 5
NARRATOR: 4
NARRATOR: 3
NARRATOR: 2
NARRATOR: 1
NARRATOR: GO!
> wait 125.5
NARRATOR: 1 minute.
NARRATOR: 2 minutes.
> how long
NARRATOR: Round 1: 2 minutes 5 seconds.
> anna is done
NARRATOR: Anna is done! Round 1 took 2 minutes 5 seconds.
NARRATOR: Anna takes the speed bonus card: 1 point.
NARRATOR: Scoring card 1 of 3: who achieved it? Say Anna, Ben, tie, or nobody.
> ben
NARRATOR: How many points is scoring card 1 worth?
> 3
NARRATOR: Ben: scoring card 1, 3 points.
NARRATOR: Scoring card 2 of 3: who achieved it? Say Anna, Ben, tie, or nobody.
> tie for 2 points
NARRATOR: A tie goes to Anna, who took the speed bonus: scoring card 2, 2 points.
NARRATOR: Scoring card 3 of 3: who achieved it? Say Anna, Ben, tie, or nobody.
> nobody
NARRATOR: Nobody takes scoring card 3.
NARRATOR: After round 1: Anna 3, Ben 3.
NARRATOR: Round 2.
NARRATOR: Return all key cards to their piles.
NARRATOR: Put the location cards in the box and reveal three new ones.
NARRATOR: Reveal three new scoring cards.
NARRATOR: Both players gather their floor plan cards and shuffle them into new decks.
NARRATOR: Say ready when both players are ready.
> ready
NARRATOR: Round 2.
NARRATOR: 5
> wait 5
NARRATOR: 4
NARRATOR: 3
NARRATOR: 2
NARRATOR: 1
NARRATOR: GO!
> wait 64
NARRATOR: 1 minute.
> done
NARRATOR: Stop! Who is done?
NARRATOR: Say Anna or Ben, or keep going.
> ben
NARRATOR: Ben is done! Round 2 took 1 minute 4 seconds.
NARRATOR: Ben takes the speed bonus card: 2 points.
NARRATOR: Scoring card 1 of 3: who achieved it? Say Anna, Ben, tie, or nobody.
> anna
NARRATOR: How many points is scoring card 1 worth?
> 2
NARRATOR: Anna: scoring card 1, 2 points.
NARRATOR: Scoring card 2 of 3: who achieved it? Say Anna, Ben, tie, or nobody.
> undo
NARRATOR: Undone.
NARRATOR: Round 2: Ben took the speed bonus.
NARRATOR: How many points is scoring card 1 worth?
> 4
NARRATOR: Anna: scoring card 1, 4 points.
NARRATOR: Scoring card 2 of 3: who achieved it? Say Anna, Ben, tie, or nobody.
> ben
NARRATOR: How many points is scoring card 2 worth?
> 1
NARRATOR: Ben: scoring card 2, 1 point.
NARRATOR: Scoring card 3 of 3: who achieved it? Say Anna, Ben, tie, or nobody.
> ben for 1 point
NARRATOR: Ben: scoring card 3, 1 point.
NARRATOR: After round 2: Anna 7, Ben 7.
NARRATOR: Round 3.
NARRATOR: Return all key cards to their piles.
NARRATOR: Put the location cards in the box and reveal three new ones.
NARRATOR: Reveal three new scoring cards.
NARRATOR: Both players gather their floor plan cards and shuffle them into new decks.
NARRATOR: Say ready when both players are ready.
> score
NARRATOR: Round 3 of 3 is next.
NARRATOR: Scores: Anna 7, Ben 7.
> ready
NARRATOR: Round 3.
NARRATOR: 5
> wait 5
NARRATOR: 4
NARRATOR: 3
NARRATOR: 2
NARRATOR: 1
NARRATOR: GO!
> wait 200
NARRATOR: 1 minute.
NARRATOR: 2 minutes.
NARRATOR: 3 minutes.
> ben is done
NARRATOR: Ben is done! Round 3 took 3 minutes 20 seconds.
NARRATOR: Ben takes the speed bonus card: 3 points.
NARRATOR: Scoring card 1 of 3: who achieved it? Say Anna, Ben, tie, or nobody.
> anna
NARRATOR: How many points is scoring card 1 worth?
> 5
NARRATOR: Anna: scoring card 1, 5 points.
NARRATOR: Scoring card 2 of 3: who achieved it? Say Anna, Ben, tie, or nobody.
> tie
NARRATOR: How many points is scoring card 2 worth?
> 3
NARRATOR: A tie goes to Ben, who took the speed bonus: scoring card 2, 3 points.
NARRATOR: Scoring card 3 of 3: who achieved it? Say Anna, Ben, tie, or nobody.
> anna
NARRATOR: How many points is scoring card 3 worth?
> 2
NARRATOR: Anna: scoring card 3, 2 points.
NARRATOR: After round 3: Anna 14, Ben 13.
NARRATOR: Final scores: Anna 14, Ben 13.
NARRATOR: Anna wins the game!
NARRATOR: If that was not right, say undo. Otherwise, say new game to play again.
"""


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
