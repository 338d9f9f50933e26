"""bench/bench_cost.py's Pi estimate when part of the first pass's work at the end runs beside
Whisper (tests/support/pi_model.py, ``beside``): it delays the answer only by what Whisper's
look before a stage asks for it does not cover, not at all when no stage asks, and slows
Whisper while both run; on the way, it adds all of itself."""

from __future__ import annotations

import pytest

from tests.support.pi_model import BESIDE_SLOWS, beside


def test_side_work_covered_by_whisper_s_look_costs_only_the_slowdown() -> None:
    # here: 0.1 s of the first pass's end work, 0.04 of it beside; Whisper 0.3, 0.2 before the read
    on_the_way = 0.1 * 10 + 0.3 * 4
    got = beside(0.06, 0.04, 0.3, 0.2, ratio=4, per_core=10)
    assert got == pytest.approx(0.3 * 4 + 0.06 * 10 + 0.4 * BESIDE_SLOWS)
    assert got < on_the_way


def test_side_work_longer_than_whisper_s_look_delays_by_the_rest() -> None:
    got = beside(0.02, 0.08, 0.3, 0.05, ratio=4, per_core=10)
    assert got == pytest.approx(0.3 * 4 + 0.02 * 10 + (0.8 - 0.2) + 0.2 * BESIDE_SLOWS)


def test_side_work_nobody_asked_for_only_slows_whisper() -> None:
    # read ahead, but the grammar search decided alone: the answer never waits for it
    got = beside(0.01, 0.08, 0.3, 0.3, ratio=4, per_core=10, needed=False)
    assert got == pytest.approx(0.3 * 4 + 0.01 * 10 + 0.8 * BESIDE_SLOWS)
    longer = beside(0.01, 0.5, 0.3, 0.3, ratio=4, per_core=10, needed=False)
    assert longer == pytest.approx(0.3 * 4 + 0.01 * 10 + 1.2 * BESIDE_SLOWS)  # only while Whisper runs


def test_nothing_beside_is_the_first_pass_and_whisper_on_the_way() -> None:
    assert beside(0.1, 0.0, 0.3, 0.3, ratio=4, per_core=10) == pytest.approx(0.1 * 10 + 0.3 * 4)
