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


def play_menu(lines: list[str], state: Path, *options: str, config: Path | None = None, seed: str | None = "5"
              ) -> subprocess.CompletedProcess[str]:
    """`assistant play --text` with no game: the spoken menu, typed (a seed: every game new)."""
    env = {**os.environ, "ASSISTANT_STATE_DIR": str(state)}
    settings = ["--config", str(config)] if config is not None else []
    return subprocess.run([sys.executable, "-m", "assistant", *settings, "play", "--text", "--clock", "virtual",
                           *(["--seed", seed] if seed else []), *options], input="".join(f"{line}\n" for line in lines),
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)


MENU = "NARRATOR: Which game? The Omega Virus, Prologue, the card battle, or Battle of the Planets."


def test_the_menu_switching_and_resuming_by_text(tmp_path: Path) -> None:
    state = tmp_path / "state"
    done = play_menu(["prologue", "player one is anna", "main menu", "no", "switch game", "yes",
                      "press R", "press 0", "skill zero", "main menu", "yes", "the prologue", "what can I say"],
                     state)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == MENU
    assert "NARRATOR: Player 1 is Anna." in lines
    asked = "NARRATOR: Go to the main menu? This game is kept. Say yes or no."
    assert lines.count(asked) == 2 and "NARRATOR: Carrying on." in lines
    assert lines.count(MENU) == 3
    assert "NARRATOR: The Omega Virus." in lines and "BSAT1: Enter skill." in lines
    assert "BSAT1: Red, enter secret code." in lines
    resumed = lines.index("NARRATOR: Game resumed. Say new game to start over.")
    assert resumed > lines.index("BSAT1: Red, enter secret code.")
    assert lines[-1].startswith("NARRATOR: You can say: ready, player one is Anna")
    journals = sorted(path.name.split("-2")[0] for path in state.glob("*.jsonl"))
    assert journals == ["omega-virus", "prologue"]  # each game once: the prologue was resumed, not new
    # Next time, the Omega Virus is resumed by its name too (with no seed: a seed asks for a new game).
    again = play_menu(["the omega virus"], state, seed=None)
    assert again.stdout.splitlines()[1:] == ["BSAT1: Game resumed. Say new game to start over.",
                                             "BSAT1: Red, enter secret code."]
    # --new: the menu starts every game afresh.
    fresh = play_menu(["the omega virus"], state, "--new")
    assert fresh.stdout.splitlines()[1:] == ["BSAT1: Enter skill."]


def test_volume_listening_and_shut_down_by_text(tmp_path: Path) -> None:
    state = tmp_path / "state"
    done = play_menu(["the omega virus", "quieter", "volume eleven", "volume three", "louder",
                      "stop listening", "skill zero", "press 1", "wait 30", "shut down", "start listening",
                      "skill zero", "shut down", "yes", "skill one"], state)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout.splitlines()[1:] == [
        "BSAT1: Enter skill.",
        "BSAT1: Volume 9.",
        "BSAT1: The volume goes from 0 to 10: say volume five, for example.",
        "BSAT1: Volume 3.",
        "BSAT1: Volume 4.",
        "BSAT1: I stopped listening, and the game waits. Say start listening to go on.",
        "BSAT1: Listening again.",
        "BSAT1: Red, enter secret code.",
        "BSAT1: Shut down? Say yes or no.",
        "BSAT1: Goodbye. The assistant stops; the box stays on, as allow_poweroff is off in the settings.",
    ]  # and the line after the goodbye is not read
    assert (state / "volume.json").read_text() == '{"volume": 4}\n'
    again = play_menu(["louder"], state)
    assert again.stdout.splitlines()[1:] == ["NARRATOR: Volume 5."]  # kept across the restart


def test_shut_down_runs_the_power_off_command_only_when_allowed(tmp_path: Path) -> None:
    marker = tmp_path / "powered-off"
    config = tmp_path / "config.yaml"
    for allowed in ("false", "true"):
        config.write_text(f"allow_poweroff: {allowed}\npoweroff_command: touch {marker}\n", encoding="utf-8")
        done = play_menu(["shut down", "yes"], tmp_path / "state", config=config)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        assert marker.exists() == (allowed == "true")
    assert done.stdout.splitlines()[-1] == "NARRATOR: Shutting down. Goodbye."
    config.write_text(f"allow_poweroff: true\npoweroff_command: {tmp_path}/no-such-command\n", encoding="utf-8")
    failed = play_menu(["shut down", "yes"], tmp_path / "state", config=config)
    assert failed.returncode == 0
    assert failed.stdout.splitlines()[-1] == "NARRATOR: I could not power off. Switch the box off at the plug."
    assert "no-such-command failed" in failed.stderr


def test_a_game_named_on_the_command_line_has_the_box_commands_too(tmp_path: Path) -> None:
    done = play("planets", ["volume seven", "main menu", "yes", "what can I say"], tmp_path)
    lines = done.stdout.splitlines()
    assert "ZARK: Volume 7." in lines and MENU in lines
    assert lines[-1].startswith("NARRATOR: Say a game's name: The Omega Virus, Prologue, the card battle")
