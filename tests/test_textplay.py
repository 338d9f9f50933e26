"""The text contract's own inputs: ``wait`` takes a bounded number of seconds in every game."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.games import GAMES
from assistant.textplay import MAX_WAIT_S, parse_wait

ROOT = Path(__file__).resolve().parent.parent
BAD = ["inf", "nan", "1e308", "-5", "-inf", "1e20", "soon", ""]


def play(game: str, lines: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ASSISTANT_STATE_DIR": str(tmp_path / "state")}
    return subprocess.run([sys.executable, "-m", "assistant", "play", game, "--text", "--clock", "virtual",
                           "--seed", "5", "--new"], input="".join(f"{line}\n" for line in lines),
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)


@pytest.mark.parametrize("game", list(GAMES))
def test_wait_refuses_numbers_out_of_bounds_in_every_game(game: str, tmp_path: Path) -> None:
    plain = play(game, ["what can I say"], tmp_path)
    bad = play(game, [f"wait {value}" for value in BAD] + ["what can I say"], tmp_path)
    assert bad.returncode == 0 and "Traceback" not in bad.stderr, bad.stderr
    lines = bad.stdout.splitlines()
    refusals = [line for line in lines if line.startswith("(wait needs a number of seconds from 0 to 86400")]
    assert len(refusals) == len(BAD)
    assert [line for line in lines if line not in refusals] == plain.stdout.splitlines()  # nothing changed


def test_parse_wait_bounds() -> None:
    assert parse_wait("30") == 30.0
    assert parse_wait("0") == 0.0
    assert parse_wait(str(MAX_WAIT_S)) == MAX_WAIT_S
    for value in BAD + [str(MAX_WAIT_S + 1)]:
        assert parse_wait(value) is None
