"""Who may press: the PIN, the limits on guessing it, one phone per color (rules of
assistant/phone/access.py, with a test clock)."""

from __future__ import annotations

import pytest

from assistant.phone.access import ALL_TRIES, CLIENT_TRIES, PIN_TRIES, WINDOW_S, Door, Refused

COLORS = ("red", "blue", "green", "yellow")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def door(clock: Clock) -> Door:
    return Door(COLORS, clock)


def wrong(door: Door) -> str:
    return "0000" if door.pin != "0000" else "1111"


def refused(door: Door, client: str, pin: str, color: str = "red") -> Refused:
    with pytest.raises(Refused) as error:
        door.join(client, pin, color)
    return error.value


def test_the_pin_is_four_digits_and_new_when_renewed(door: Door) -> None:
    assert len(door.pin) == 4 and door.pin.isdigit()
    pins = {door.renew_pin() for _ in range(20)}
    assert len(pins) > 1 and all(len(p) == 4 and p.isdigit() for p in pins)


def test_a_wrong_pin_is_refused_and_the_right_one_lets_in(door: Door) -> None:
    assert refused(door, "a", wrong(door)).status == 403
    phone = door.join("a", door.pin, "red")
    assert phone.color == "red" and not phone.waiting and len(phone.token) >= 24
    assert door.phone(phone.token) is phone and door.owner("red") is phone


def test_a_malformed_pin_or_a_color_not_in_the_game_is_refused_without_costing_a_try(door: Door) -> None:
    for _ in range(CLIENT_TRIES + 1):
        assert refused(door, "a", "12a4").status == 400
        assert "4 digits" in str(refused(door, "a", "123"))
    reason = refused(door, "a", door.pin, "purple")
    assert reason.status == 400 and "red, blue, green, yellow" in str(reason)
    assert door.join("a", door.pin, "red").color == "red"


def test_one_phone_that_keeps_guessing_must_wait_and_others_may_still_join(door: Door, clock: Clock) -> None:
    for _ in range(CLIENT_TRIES):
        refused(door, "a", wrong(door))
    reason = refused(door, "a", door.pin)  # even the right PIN, while it waits
    assert reason.status == 429 and "from this phone" in str(reason) and "60 seconds" in str(reason)
    assert door.join("b", door.pin, "blue").color == "blue"
    clock.now += WINDOW_S
    assert door.join("a", door.pin, "red").color == "red"


def test_guessing_from_many_addresses_makes_everyone_wait(door: Door, clock: Clock) -> None:
    for client in range(ALL_TRIES):
        clock.now += 1
        refused(door, f"10.0.0.{client}", wrong(door))
    reason = refused(door, "10.0.1.1", door.pin)
    assert reason.status == 429 and "on this network" in str(reason)
    clock.now += WINDOW_S
    assert door.join("10.0.1.1", door.pin, "red").color == "red"


def test_a_pin_guessed_at_too_often_is_retired_until_a_new_one_is_made(door: Door, clock: Clock) -> None:
    for attempt in range(PIN_TRIES):
        clock.now += WINDOW_S / CLIENT_TRIES  # slowly enough for the per-minute limits
        refused(door, f"10.0.0.{attempt % 200}", wrong(door))
    assert door.retired
    reason = refused(door, "10.0.9.9", door.pin)
    assert reason.status == 429 and "closed" in str(reason)
    door.renew_pin()
    assert not door.retired and door.join("10.0.9.9", door.pin, "red").color == "red"


def test_a_second_phone_for_a_color_waits_and_gets_it_when_the_first_leaves(door: Door) -> None:
    first = door.join("a", door.pin, "red")
    second = door.join("b", door.pin, "red")
    assert second.waiting and door.owner("red") is first and door.waiting_colors() == ("red",)
    third = door.join("c", door.pin, "red")  # the latest to ask waits; the one before is out
    assert door.phone(second.token) is None and door.phone(third.token) is third
    assert door.leave(first.token) is third
    assert not third.waiting and door.owner("red") is third and door.phone(first.token) is None
    assert door.waiting_colors() == ()


def test_the_table_can_hand_a_color_to_the_waiting_phone(door: Door) -> None:
    first = door.join("a", door.pin, "red")
    assert door.hand_over("red") is None  # nobody waits
    second = door.join("b", door.pin, "red")
    moved = door.hand_over("red")
    assert moved == (first, second)
    assert door.phone(first.token) is None and door.owner("red") is second and not second.waiting


def test_a_phone_that_joins_again_gives_up_its_old_color(door: Door) -> None:
    first = door.join("a", door.pin, "red")
    again = door.join("a", door.pin, "blue", token=first.token)
    assert door.phone(first.token) is None and door.owner("red") is None and door.owner("blue") is again


def test_a_waiting_phone_that_leaves_leaves_the_color_to_its_owner(door: Door) -> None:
    first = door.join("a", door.pin, "red")
    second = door.join("b", door.pin, "red")
    assert door.leave(second.token) is None
    assert door.owner("red") is first and door.waiting_colors() == ()


def test_a_new_pin_keeps_the_phones_in(door: Door) -> None:
    phone = door.join("a", door.pin, "red")
    old = door.pin
    while door.renew_pin() == old:
        pass
    assert door.phone(phone.token) is phone
    assert refused(door, "b", old).status == 403


def test_a_game_without_private_presses_lets_no_phone_in(clock: Clock) -> None:
    door = Door((), clock)
    reason = refused(door, "a", door.pin)
    assert reason.status == 400 and "no phone keypad needed" in str(reason)
