"""Whose turn it is to press in private and what each phone is shown (assistant/phone/turns.py,
with a test clock and a request the test sets)."""

from __future__ import annotations

import pytest

from assistant.games import PrivateRequest
from assistant.phone.access import Door
from assistant.phone.turns import IN_FLIGHT_S, NOTHING_ASKED, Turns

COLORS = ("red", "blue", "green", "yellow")


def code(color: str, entered: int = 0) -> PrivateRequest:
    name = color.title()
    return PrivateRequest(color, f"{name}, enter secret code.", 2, entered, f"{name} is entering a secret code.")


class Table:
    def __init__(self) -> None:
        self.now = 50.0
        self.request: PrivateRequest | None = None
        self.speaking = False
        self.presses: list[str] = []
        self.door = Door(COLORS, lambda: self.now)
        self.turns = Turns(self.door, lambda: self.now, lambda: self.request, lambda: self.speaking)
        self.tokens = {color: self.door.join(color, self.door.pin, color).token for color in COLORS}

    def press(self, color: str, button: str) -> str | None:
        return self.turns.press(self.tokens[color], button, self.presses.append)


@pytest.fixture
def table() -> Table:
    return Table()


def test_only_the_color_asked_presses_and_only_when_asked(table: Table) -> None:
    assert table.press("red", "1") == "Not now: the game is not asking for a private entry. Listen to BSat1."
    table.request = code("red")
    assert table.press("blue", "1") == "Not your turn: Red is entering a secret code."
    assert table.press("red", "x") == "Press 0, 1, 2 or R."
    table.speaking = True
    assert table.press("red", "1") == "Wait until BSat1 has finished speaking, then press."
    table.speaking = False
    assert table.press("red", "1") is None
    assert table.presses == ["1"]
    assert table.turns.press("nobody", "1", table.presses.append) == "This phone is not joined. Join with the PIN."


def test_presses_in_flight_count_against_the_entry_until_the_game_sees_them(table: Table) -> None:
    table.request = code("red")
    assert table.press("red", "1") is None and table.press("red", "2") is None
    assert table.press("red", "0") == "That entry is complete."  # would fall into Blue's entry
    table.request = code("red", entered=1)  # the game has seen one of the two
    assert table.press("red", "0") == "That entry is complete."
    table.request = code("blue")  # Red's entry done: Blue's starts with nothing in flight
    assert table.press("blue", "0") is None
    assert table.presses == ["1", "2", "0"]


def test_a_press_the_game_never_saw_is_given_up_after_a_while(table: Table) -> None:
    table.request = code("red", entered=1)
    assert table.press("red", "1") is None
    assert table.press("red", "2") == "That entry is complete."
    table.now += IN_FLIGHT_S
    assert table.press("red", "2") is None


def test_the_same_color_asked_again_starts_a_new_entry(table: Table) -> None:
    table.request = code("red", entered=1)
    table.turns.look()
    assert table.press("red", "1") is None
    table.request = code("red", entered=0)  # it timed out and is asked again: fewer entered
    assert table.press("red", "1") is None


def test_a_request_that_cannot_be_read_is_nothing_asked(table: Table) -> None:
    def broken() -> PrivateRequest | None:
        raise AttributeError("caught half-changed")

    table.turns.request = broken
    assert table.turns.look() is None
    assert str(table.press("red", "1")).startswith("Not now")


def test_each_phone_sees_its_own_prompt_and_count_and_only_who_else_is_entering(table: Table) -> None:
    for color in COLORS:
        assert table.turns.view(table.tokens[color], None) == {
            "type": "state", "color": color, "turn": "idle", "text": NOTHING_ASKED}
    table.request = code("red")
    table.press("red", "1")
    request = table.turns.look()
    assert table.turns.view(table.tokens["red"], request) == {
        "type": "state", "color": "red", "turn": "yours", "text": "Red, enter secret code.",
        "presses": 2, "entered": 1}
    for color in ("blue", "green", "yellow"):
        assert table.turns.view(table.tokens[color], request) == {
            "type": "state", "color": color, "turn": "other", "text": "Red is entering a secret code."}


def test_a_phone_put_out_is_told_why_and_a_waiting_phone_what_it_waits_for(table: Table) -> None:
    second = table.door.join("b", table.door.pin, "red")
    assert table.turns.view(second.token, None) == {
        "type": "waiting", "color": "red",
        "text": "Red is on another phone. That phone can tap Leave, or someone at the table can say: "
                "give red to the new phone."}
    table.door.hand_over("red")
    table.turns.goodbye[table.tokens["red"]] = "Another phone took Red, as the table agreed."
    assert table.turns.view(table.tokens["red"], None) == {
        "type": "signed_out", "reason": "Another phone took Red, as the table agreed."}
    assert table.turns.view("unknown", None)["type"] == "signed_out"
