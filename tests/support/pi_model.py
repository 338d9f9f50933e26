"""The Raspberry Pi estimate's model of the phone check beside Whisper (bench/bench_cost.py uses
it; tests/test_bench_cost_model.py holds it): what tests and benchmarks share lives here."""

from __future__ import annotations

#: How much longer Whisper's work takes while the phone check's thread runs beside it on a Pi's
#: four cores (Whisper's threads use all four: one of them shared)
BESIDE_SLOWS = 1 / 3


def beside(end: float, phone: float, whisper: float, looked: float, ratio: float, per_core: float) -> float:
    """Pi 4 seconds from the end of speech to the answer when the phone check (``phone`` CPU s
    here, one thread) runs beside Whisper from the end of speech: Whisper (``whisper``, of it
    ``looked`` before the first pass is read) and the rest of the first pass's work at the end
    on the way; the phone check only where Whisper's look does not cover it; Whisper slowed
    while both run (``BESIDE_SLOWS``)."""
    phone_pi, look_pi = phone * per_core, looked * ratio
    together = min(phone_pi, look_pi)
    return whisper * ratio + (end - phone) * per_core + max(0.0, phone_pi - look_pi) + together * BESIDE_SLOWS
