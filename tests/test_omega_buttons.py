"""Spoken commands as Command Center keypad presses, with the board's real Command Code table."""

from __future__ import annotations

import pytest

from assistant.config import Config
from assistant.engine import Command
from assistant.games import game_module
from assistant.games.omega_virus import board_command_code
from assistant.games.omega_virus.buttons import command_center_buttons

OMEGA = game_module("omega-virus").sentences()


@pytest.mark.parametrize("said, buttons", [
    ("explore two one zero", "2 2 1 0"),
    ("explore room oh oh one", "2 0 0 1"),
    ("pass", "0"),
    ("teleport", "0"),
    ("repeat that", "R"),
    ("skip", "R"),
    ("not playing", "R"),
    ("enter skill level two", "2"),
    ("code one oh", "1 0"),
    ("shields zero two are", "0 2 R"),
    ("energize shields one and r", "1 R"),
    ("zero", "0"),
    ("two one and one are", "2 1 1 R"),
    ("terminate with two", "2"),
    ("how much time is left", None),
    ("what do i have", None),
    ("what can i say", None),
    ("pause the game", None),
])
def test_buttons(said: str, buttons: str | None) -> None:
    command = OMEGA.match(said)
    assert command is not None
    assert command_center_buttons(command, lambda color, unit: "00") == buttons


def test_attack_uses_the_boards_command_codes() -> None:
    code = board_command_code(Config())
    assert code is not None
    red = command_center_buttons(Command("attack", {"target": "red", "unit": "commando"}), code)
    assert red == "1 0 0"  # the rulebook's example: Red Commando is 1.0.0
    default_unit = command_center_buttons(Command("attack", {"target": "blue"}), code)
    assert default_unit == "1 " + " ".join(code("blue", "commando"))
    probes = {command_center_buttons(Command("attack", {"target": c, "unit": "probe"}), code)
              for c in ("red", "blue", "green", "yellow")}
    assert len(probes) == 4 and all(p is not None and p.startswith("1 ") for p in probes)


def test_attack_without_a_code_table_has_no_buttons() -> None:
    assert command_center_buttons(Command("attack", {"target": "red"}), None) is None
