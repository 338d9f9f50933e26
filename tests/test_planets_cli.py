"""Battle of the Planets through the real command line: a whole scripted game, and resume after kill -9."""
# ruff: noqa: E501  (the transcript below holds whole spoken lines, exactly as printed)

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.harness import kill_then_resume, play_args, split, whole_game

#: A whole game from set-up to the winner: "> " lines are typed, the others are 7-Zark-7's
#: answers, in order. Seed 4, the packaged spinner, three players.
WHOLE_GAME = """\
ZARK: 7-Zark-7 here! I spin for the Intruder and G-Force and keep track of the Monster cards. Put the Intruder on Spectra and the 12 Monster cards in a pile.
ZARK: Who is playing? Say the ship colors in turn order, first player first: for example, red, blue and green.
> spin
ZARK: First tell me who is playing. Say the ship colors in turn order, first player first: for example, red, blue and green.
> red, blue and green
ZARK: Red, Blue and Green are playing, in that order. Every ship starts on the Blast-Off area.
ZARK: You can give names: say, for example, red is Anna.
ZARK: Red, blast off: put your ship on a red-dot space, not on another ship or the Intruder. No spin this turn. Then say next.
> red is anna
ZARK: Red is Anna.
> next
ZARK: Blue, blast off: put your ship on a red-dot space, not on another ship or the Intruder. No spin this turn. Then say next.
> next
ZARK: Green, blast off: put your ship on a red-dot space, not on another ship or the Intruder. No spin this turn. Then say next.
> blue landed on the intruder
ZARK: It is Green's turn, not Blue's.
> next
ZARK: Anna's turn. Say spin.
> spin
ZARK: Intruder moves 4. G-Force moves 2.
> anna landed on the intruder
ZARK: Anna caught the Intruder! Take a Monster card. Anna has 1 Monster card, 1 unsafe. 11 left in the pile.
ZARK: Rocket away in a straight line, as far as you like, but not onto another ship.
ZARK: Say next when your move is done.
> next
ZARK: Blue's turn. Say spin.
> spin
ZARK: Intruder moves 5. G-Force moves 3.
> blue landed on anna
ZARK: Blue takes an unsafe Monster card from Anna. Blue has 1 Monster card; Anna has no Monster cards.
ZARK: Rocket away in a straight line, as far as you like, but not onto another ship or the Intruder.
ZARK: Say next when your move is done.
> next
ZARK: Green's turn. Say spin.
> spin
ZARK: Intruder moves 2. G-Force moves 6.
> the intruder landed on blue
ZARK: The Intruder got Blue! Blue loses 1 Monster card to the pile, now 12.
ZARK: Blue, back to the Blast-Off area; blast off on your next turn.
> green caught the intruder
ZARK: Green caught the Intruder! Take a Monster card. Green has 1 Monster card, 1 unsafe. 11 left in the pile.
ZARK: Rocket away in a straight line, as far as you like, but not onto another ship.
ZARK: Say next when your move is done.
> next
ZARK: Anna's turn. Say spin.
> spin
ZARK: Intruder moves 6. G-Force moves 4.
> anna caught the intruder
ZARK: Anna caught the Intruder! Take a Monster card. Anna has 1 Monster card, 1 unsafe. 10 left in the pile.
ZARK: Rocket away in a straight line, as far as you like, but not onto another ship.
ZARK: Say next when your move is done.
> next
ZARK: Blue, blast off: put your ship on a red-dot space, not on another ship or the Intruder. No spin this turn. Then say next.
> next
ZARK: Green's turn. Say spin.
> spin
ZARK: Intruder moves 1. G-Force moves 5.
> green reached earth
ZARK: Green reached Earth! 1 Monster card made safe; Green has 1 safe.
ZARK: Green, back to the Blast-Off area; blast off on your next turn.
ZARK: Anna's turn. Say spin.
> spin
ZARK: Intruder moves 2. G-Force moves 3.
> landed on the intruder
ZARK: Anna caught the Intruder! Take a Monster card. Anna has 2 Monster cards, 2 unsafe. 9 left in the pile.
ZARK: Rocket away in a straight line, as far as you like, but not onto another ship.
ZARK: Say next when your move is done.
> next
ZARK: Blue's turn. Say spin.
> spin
ZARK: Intruder moves 3. Red spot! Rocket your ship as far as you like in a straight line.
> blue landed on green
ZARK: Green is on the Blast-Off area, not on the board.
> blue landed on anna
ZARK: Blue takes an unsafe Monster card from Anna. Blue has 1 Monster card; Anna has 1 Monster card.
ZARK: Rocket away in a straight line, as far as you like, but not onto another ship or the Intruder.
ZARK: Say next when your move is done.
> undo
ZARK: Undone.
ZARK: Blue's turn. Intruder moves 3. Red spot! Rocket your ship as far as you like in a straight line.
ZARK: Say next when your move is done.
> next
ZARK: Green, blast off: put your ship on a red-dot space, not on another ship or the Intruder. No spin this turn. Then say next.
> next
ZARK: Anna's turn. Say spin.
> spin
ZARK: Intruder moves 2. G-Force moves 6.
> anna caught the intruder
ZARK: Anna caught the Intruder! Take a Monster card. Anna has 3 Monster cards, 3 unsafe. 8 left in the pile.
ZARK: Rocket away in a straight line, as far as you like, but not onto another ship.
ZARK: Anna, head for Earth to win!
ZARK: Say next when your move is done.
> next
ZARK: Blue's turn. Say spin.
> status
ZARK: Anna: 3 Monster cards, 0 safe, on the board.
ZARK: Blue: no Monster cards, on the board.
ZARK: Green: 1 Monster card, 1 safe, on the board.
ZARK: 8 Monster cards in the pile.
ZARK: It is Blue's turn.
> spin
ZARK: Intruder moves 2. G-Force moves 6.
> next
ZARK: Green's turn. Say spin.
> spin
ZARK: Intruder moves 1. G-Force moves 4.
> next
ZARK: Anna's turn. Say spin.
> spin
ZARK: Intruder moves 1. G-Force moves 5.
> what can i say
ZARK: You can say: red is Anna, next, red landed on the Intruder, red landed on blue, the Intruder landed on blue, green reached Earth, status, repeat, undo, what can I say, pause, new game.
> anna reached earth
ZARK: Anna reached Earth with 3 Monster cards!
ZARK: Anna wins the Battle of the Planets!
ZARK: If that was not right, say undo. Otherwise, say new game to play again.
"""


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
