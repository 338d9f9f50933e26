"""The Raspberry Pi estimate's model of the first pass's work beside Whisper (bench/bench_cost.py
uses it; tests/test_bench_cost_model.py holds it): what tests and benchmarks share lives here."""

from __future__ import annotations

#: How much longer Whisper's work takes while the first pass's side thread runs beside it on a
#: Pi's four cores (Whisper's threads use all four: one of them shared)
BESIDE_SLOWS = 1 / 3


def beside(on_way: float, side: float, whisper: float, looked: float, ratio: float, per_core: float,
           needed: bool = True) -> float:
    """Pi 4 seconds from the end of speech to the answer when ``side`` CPU s here of the first
    pass's work at the end (one thread) run beside Whisper from the end of speech: Whisper
    (``whisper`` CPU s here, of it ``looked`` before a stage asked for the first pass's reading)
    and the rest of the first pass's work at the end (``on_way``) on the way; the side work
    delays the answer, when it is ``needed``, only by what Whisper's look does not cover (not at
    all when nobody asked for it), and slows Whisper while both run (``BESIDE_SLOWS``)."""
    side_pi, look_pi = side * per_core, (looked if needed else whisper) * ratio
    waited = max(0.0, side_pi - look_pi) if needed else 0.0
    return whisper * ratio + on_way * per_core + waited + min(side_pi, look_pi) * BESIDE_SLOWS
