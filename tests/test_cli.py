"""The ``assistant`` command itself: its help, and whose board ``assistant board`` shows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOARD = ROOT / "assistant" / "games" / "omega_virus" / "board.yaml"


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "assistant", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=60)


def test_help_says_what_the_assistant_is() -> None:
    done = run("--help")
    assert done.returncode == 0
    assert "``" not in done.stdout and "offline voice game-master" in done.stdout


def test_board_says_first_that_it_is_the_shipped_default_and_how_to_change_it(tmp_path: Path) -> None:
    done = run("board")
    first = done.stdout.splitlines()[0]
    assert "shipped default board" in first and "games.omega_virus.board" in first and "copy" in first
    own = tmp_path / "my-board.yaml"
    own.write_text(BOARD.read_text(encoding="utf-8"), encoding="utf-8")
    config = tmp_path / "config.yaml"
    config.write_text(f"games:\n  omega_virus:\n    board: {own}\n", encoding="utf-8")
    mine = run("--config", str(config), "board")
    assert mine.stdout.splitlines()[0].startswith(f"Your board from {own}")
    assert mine.stdout.splitlines()[1:] == done.stdout.splitlines()[1:]
    broken = tmp_path / "broken.yaml"
    broken.write_text("rooms: []\n", encoding="utf-8")
    config.write_text(f"games:\n  omega_virus:\n    board: {broken}\n", encoding="utf-8")
    fallback = run("--config", str(config), "board")
    assert "the board has no rooms; using the default board" in fallback.stderr
    assert "shipped default board" in fallback.stdout.splitlines()[0]
    missing = run("board", "--board", str(tmp_path / "nowhere.yaml"))
    assert missing.returncode == 1 and "Traceback" not in missing.stderr
    assert f"cannot read board file {tmp_path / 'nowhere.yaml'}" in missing.stderr


def test_output_cut_short_by_its_reader_is_no_error() -> None:
    done = subprocess.run(f"{sys.executable} -m assistant board | head -1", shell=True, capture_output=True,
                          text=True, cwd=ROOT, timeout=60)
    assert "Traceback" not in done.stderr and "shipped default board" in done.stdout
