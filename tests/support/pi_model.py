"""The Raspberry Pi estimate's model of the first pass's work beside Whisper (bench/bench_cost.py
uses it; tests/test_bench_cost_model.py holds it): what tests and benchmarks share lives here."""

from __future__ import annotations

from collections.abc import Sequence

#: The Pi's cores. Whisper's threads use all of them, so each side thread running takes one from
#: it: Whisper goes at (CORES - k) / CORES of its speed while k side threads run.
CORES = 4


def after_speech(on_way: float, sides: Sequence[tuple[float, bool]], whisper: float, looked: float, ratio: float,
                 per_core: float) -> float:
    """Pi 4 seconds from the end of speech to the answer. Whisper's work (``whisper`` CPU s here,
    times ``ratio``) goes first as far as ``looked`` (what it does before a stage asks for the
    first pass's reading); the side threads (``sides``: CPU s here, times ``per_core``, and
    whether the answer needs it), each started at the end of speech on a core of its own, slow
    it while they run; then the answer waits for the side work it needs, and Whisper does the
    rest; the first pass's work left at the end of speech (``on_way``) comes on top."""
    ends = sorted(seconds * per_core for seconds, _ in sides)

    def run(work: float, now: float) -> float:
        """When ``work`` Pi seconds of Whisper's, begun at ``now``, are done."""
        for end in [*ends, float("inf")]:
            if end <= now:
                continue
            speed = (CORES - sum(e > now for e in ends)) / CORES
            if now + work / speed <= end:
                return now + work / speed
            work -= (end - now) * speed
            now = end
        return now  # not reached: past the last side thread Whisper goes at full speed

    looked_at = run(min(looked, whisper) * ratio, 0.0)
    waited = max([looked_at] + [seconds * per_core for seconds, needed in sides if needed])
    return run(max(whisper - looked, 0.0) * ratio, waited) + on_way * per_core
