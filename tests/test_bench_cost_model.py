"""bench/bench_cost.py's Pi estimate when part of the first pass's work at the end runs beside
Whisper on threads of their own (tests/support/pi_model.py, ``after_speech``): each slows Whisper
by a core while it runs; the answer waits only for the side work it needs, and only for what
Whisper's look before a stage asks for it does not cover."""

from __future__ import annotations

import pytest

from tests.support.pi_model import CORES, after_speech


def test_nothing_beside_is_whisper_and_the_first_pass_on_the_way() -> None:
    assert after_speech(0.1, [], 0.3, 0.2, ratio=4, per_core=10) == pytest.approx(0.3 * 4 + 0.1 * 10)


def test_side_work_covered_by_whisper_s_look_costs_only_the_core_it_takes() -> None:
    # Whisper: 1.2 Pi s, 0.8 of it before the reading is asked for; the side thread 0.4 Pi s
    got = after_speech(0.0, [(0.04, True)], 0.3, 0.2, ratio=4, per_core=10)
    assert got == pytest.approx(1.2 + 0.4 / CORES)  # a quarter of Whisper's speed lost for 0.4 s
    assert got < after_speech(0.04, [], 0.3, 0.2, ratio=4, per_core=10)  # on the way


def test_side_work_longer_than_whisper_s_look_is_waited_for() -> None:
    # the side thread 1.0 Pi s; Whisper's look (0.2 Pi s at 3/4 speed) done long before it
    got = after_speech(0.0, [(0.1, True)], 0.3, 0.05, ratio=4, per_core=10)
    assert got == pytest.approx(1.0 + (1.2 - 0.2))


def test_side_work_nobody_needs_only_slows_whisper() -> None:
    got = after_speech(0.0, [(0.1, False)], 0.3, 0.05, ratio=4, per_core=10)
    assert got == pytest.approx(1.0 + (1.2 - 0.75))  # 3/4 of its speed while the 1.0 s side thread runs
    longer = after_speech(0.0, [(0.5, False)], 0.3, 0.3, ratio=4, per_core=10)
    assert longer == pytest.approx(1.6)  # 1.2 s of work at 3/4 speed, done while the side thread still runs


def test_two_side_threads_end_sooner_than_one_doing_both() -> None:
    # the reading's two decodes, 0.06 and 0.06 CPU s here: one thread one after the other, or two
    one = after_speech(0.0, [(0.12, True)], 0.3, 0.05, ratio=4, per_core=10)
    two = after_speech(0.0, [(0.06, True), (0.06, True)], 0.3, 0.05, ratio=4, per_core=10)
    assert one == pytest.approx(1.2 + 1.0)  # waits for the 1.2 s side thread, then Whisper's 1.0 s left
    assert two == pytest.approx(0.6 + 1.0) and two < one  # the look (0.2 s at half speed: 0.4) is covered
