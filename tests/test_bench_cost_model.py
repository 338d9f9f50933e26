"""bench/bench_cost.py's Pi estimate when the phone check runs beside Whisper
(tests/support/pi_model.py, ``beside``): the phone check delays the answer only by what
Whisper's look before the first pass is read does not cover, and slows Whisper while both run;
on the way (before), it adds all of itself."""

from __future__ import annotations

import pytest

from tests.support.pi_model import BESIDE_SLOWS, beside


def test_a_phone_check_covered_by_whisper_s_look_costs_only_the_slowdown() -> None:
    # here: 0.1 s of the first pass's end work, 0.04 of it the phone check; Whisper 0.3, 0.2 before the read
    on_the_way = 0.1 * 10 + 0.3 * 4
    got = beside(0.1, 0.04, 0.3, 0.2, ratio=4, per_core=10)
    assert got == pytest.approx(0.3 * 4 + 0.06 * 10 + 0.4 * BESIDE_SLOWS)
    assert got < on_the_way


def test_a_phone_check_longer_than_whisper_s_look_delays_by_the_rest() -> None:
    got = beside(0.1, 0.08, 0.3, 0.05, ratio=4, per_core=10)
    assert got == pytest.approx(0.3 * 4 + 0.02 * 10 + (0.8 - 0.2) + 0.2 * BESIDE_SLOWS)


def test_no_phone_check_is_the_first_pass_and_whisper_on_the_way() -> None:
    assert beside(0.1, 0.0, 0.3, 0.3, ratio=4, per_core=10) == pytest.approx(0.1 * 10 + 0.3 * 4)
