"""The learning matcher's parts (assistant/hearing/learning.py): DTW, the bounded memory of takes,
the decisions, cutting entries at their pauses and scoring connected words. Synthetic frames and
tones only: fast."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.hearing.learning import (
    Decision,
    Take,
    TakeMemory,
    WholeMatcher,
    WordMatcher,
    connected_costs,
    dtw_distances,
    features,
    log_mel_frames,
    voiced_runs,
)


def frames(seed: int, count: int, dims: int = 13) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(count, dims)).astype(np.float32)


def slow_dtw(a: np.ndarray, b: np.ndarray) -> float:
    n, m = len(a), len(b)
    total = np.full((n + 1, m + 1), np.inf)
    total[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            c = float(np.linalg.norm(a[i - 1] - b[j - 1]))
            total[i, j] = min(total[i - 1, j] + c, total[i, j - 1] + c, total[i - 1, j - 1] + 2 * c)
    return float(total[n, m]) / (n + m)


def test_dtw_of_identical_sequences_is_zero() -> None:
    a = frames(1, 30)
    assert dtw_distances(a, [a])[0] == pytest.approx(0.0, abs=1e-3)


def test_dtw_matches_the_textbook_recursion_for_templates_of_any_length() -> None:
    query = frames(2, 17)
    templates = [frames(3, 9), frames(4, 25), frames(5, 17)]
    got = dtw_distances(query, templates)
    assert got == pytest.approx([slow_dtw(query, t) for t in templates], rel=1e-4)


def test_dtw_is_blind_to_a_slower_saying() -> None:
    a = frames(6, 20)
    slow = np.repeat(a, 2, axis=0)
    other = frames(7, 40)
    near, far = dtw_distances(a, [slow, other])
    assert near < 0.5 * far


def test_dtw_of_nothing_is_infinite() -> None:
    assert np.isinf(dtw_distances(frames(8, 0), [frames(9, 5)])).all()
    assert np.isinf(dtw_distances(frames(8, 5), [frames(9, 0)])).all()


def test_memory_drops_the_oldest_take_of_a_sentence_past_its_cap() -> None:
    memory = TakeMemory(per_sentence=2, total=10)
    takes = [Take(frames(n, 3), "one") for n in range(3)]
    for take in takes:
        memory.add(take)
    assert memory.takes("one") == takes[1:]
    assert len(memory) == 2


def test_memory_drops_the_oldest_take_past_its_total() -> None:
    memory = TakeMemory(per_sentence=5, total=2)
    memory.add(Take(frames(1, 3), "one"))
    memory.add(Take(frames(2, 3), "two"))
    memory.add(Take(frames(3, 3), "two"))
    assert memory.sentences() == ["two"]
    assert memory.nbytes() == 2 * frames(1, 3).nbytes


def test_whole_matcher_abstains_with_no_or_one_sentence_remembered() -> None:
    matcher = WholeMatcher()
    assert matcher.decide(frames(1, 10)).taken(0.0) is None
    matcher.remember(frames(1, 10), "one")
    matcher.remember(frames(2, 10), "one")
    decision = matcher.decide(frames(1, 10))
    assert decision.sentence == "one" and decision.other is None
    assert decision.taken(0.0) is None


def test_whole_matcher_takes_the_near_sentence_by_its_margin() -> None:
    matcher = WholeMatcher()
    one, two = frames(1, 12), frames(2, 12)
    matcher.remember(one, "one")
    matcher.remember(two, "two")
    said = one + np.float32(0.05) * frames(3, 12)
    decision = matcher.decide(said)
    assert decision.sentence == "one" and decision.other == "two"
    assert decision.margin > 0.8
    assert decision.taken(0.5) == "one"
    assert decision.taken(0.5, distance=0.01) is None  # not close enough to its takes
    assert matcher.decide(said, allowed={"two", "zero"}).sentence == "two"


def test_a_decision_without_a_rival_has_no_margin() -> None:
    assert Decision("one", 1.0).margin == 0.0
    assert Decision("one", 1.0, "two", 4.0).margin == pytest.approx(0.75)


def test_connected_words_score_the_sequence_said_best() -> None:
    a, b = frames(1, 8), frames(2, 10)
    templates = {"a": [a, frames(3, 6)], "b": [b]}
    said = np.concatenate([np.repeat(a, 2, axis=0), b, a])
    costs = connected_costs(said, [["a", "b", "a"], ["a", "b"], ["b", "a", "a"], ["a", "c"]], templates)
    assert ("a", "c") not in costs  # no template for c
    assert min(costs, key=costs.__getitem__) == ("a", "b", "a")
    assert costs[("a", "b", "a")] == pytest.approx(0.0, abs=1e-3)


def tone(hz: float, seconds: float, rate: int = 16000) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    return (8000 * np.sin(2 * np.pi * hz * t)).astype(np.int16)


def entry(*pitches: float) -> np.ndarray:
    gap = np.zeros(4000, dtype=np.int16)
    parts: list[np.ndarray] = [gap]
    for hz in pitches:
        parts += [tone(hz, 0.3), gap]
    return np.concatenate(parts)


def test_an_entry_is_cut_into_its_words_at_the_pauses() -> None:
    mel = log_mel_frames(entry(300, 900, 300))
    assert len(voiced_runs(mel)) == 3
    matcher = WordMatcher()
    assert matcher.remember(mel, "one two one")
    assert {w: len(t) for w, t in matcher.templates.items()} == {"one": 2, "two": 1}
    assert not matcher.remember(mel, "one two")  # three runs for two words: nothing learnt
    assert len(matcher.templates["one"]) == 2


def test_word_matcher_recognises_an_entry_never_said_before() -> None:
    matcher = WordMatcher()
    matcher.remember(log_mel_frames(entry(300, 900, 300)), "one two one")
    # pauses are dropped, so a word said again is told from one said long by its length alone
    decision = matcher.decide(features(entry(900, 900, 900, 300)), ["one two one", "two two two one", "two one"])
    assert decision.sentence == "two two two one"
    assert decision.margin > 0.1


def test_word_matcher_abstains_knowing_no_words() -> None:
    assert WordMatcher().decide(features(entry(300)), ["one", "two"]).taken(0.0) is None
