"""The grammar search's logic (assistant/hearing/closed.py) against a decoder whose log
probabilities are written down, so every figure it returns can be checked by hand. Whisper
itself is searched in tests/test_hearing_closed.py."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from assistant.hearing.closed import SPAN, search
from assistant.hearing.grammar import WordGraph
from assistant.sentences import SentenceSet

SENTENCES = SentenceSet({
    "lists": {"room": {"values": [{"in": "one zero zero", "out": "100"}, {"in": "one zero one", "out": "101"}]}},
    "intents": {
        "explore": {"sentences": ["explore {room}", "explore room {room}"]},
        "pass": {"sentences": ["pass"]},
        "pause": {"sentences": ["pause", "pause the game"]},
    },
})

#: a toy vocabulary: each word one token, "explore" two ("ex" "plore") to test words of many tokens
TOKENS = {"ex": 1, "plore": 2, "room": 3, "one": 4, "zero": 5, "pass": 6, "pause": 7, "the": 8, "game": 9}
PERIOD, END, VOCAB = 10, 11, 12


class Decoder:
    """Log probabilities of a spoken ``truth``: its next token is likely (log 0.8), any other
    token shares the rest; after the truth, the full stop and then the end are likely."""

    end, stops = END, (PERIOD,)

    def __init__(self, truth: Sequence[int]) -> None:
        self.truth = list(truth) + [PERIOD, END]
        self.calls = 0

    def _at(self, prefix: Sequence[int], i: int) -> npt.NDArray[np.float32]:
        likely = self.truth[i] if i < len(self.truth) and list(prefix[:i]) == self.truth[:i] else END
        row = np.full(VOCAB, math.log(0.2 / (VOCAB - 1)), dtype=np.float32)
        row[likely] = math.log(0.8)
        return row

    def logprobs(self, prefixes: Sequence[Sequence[int]], since: Sequence[int]) -> list[npt.NDArray[np.float32]]:
        self.calls += 1
        return [np.stack([self._at(p, i) for i in range(first, len(p) + 1)])
                for p, first in zip(prefixes, since, strict=True)]

    def word_tokens(self, word: str, first: bool) -> tuple[int, ...]:
        return (1, 2) if word == "explore" else (TOKENS[word],)


def words_of(text: str) -> list[int]:
    out: list[int] = []
    for word in text.split():
        out.extend((1, 2) if word == "explore" else (TOKENS[word],))
    return out


LIKELY, OTHER = math.log(0.8), math.log(0.2 / (VOCAB - 1))


def test_the_spoken_sentence_is_found_first_with_its_log_probability() -> None:
    graph = WordGraph(SENTENCES)
    found = search(graph, Decoder(words_of("explore one zero one")), beam=6)
    assert found[0].text == "explore one zero one"
    # five tokens (ex plore one zero one), the full stop and the end, each likely
    assert found[0].logprob == pytest.approx(7 * LIKELY, abs=1e-4)
    # the runner-up differs in one token where the truth was likely: one unlikely token, and the
    # decoder then expects the end where the truth went on
    runner_up = found[1]
    assert runner_up.text != found[0].text
    assert runner_up.logprob < found[0].logprob


def test_a_sentence_ends_with_or_without_a_full_stop() -> None:
    graph = WordGraph(SENTENCES)
    with_stop = search(graph, Decoder(words_of("pass")), beam=6)
    assert with_stop[0].text == "pass"
    assert with_stop[0].logprob == pytest.approx(3 * LIKELY, abs=1e-4)  # pass . <end>


def test_only_sentences_of_the_grammar_are_written() -> None:
    graph = WordGraph(SENTENCES, ["pause", "pass"])
    found = search(graph, Decoder(words_of("explore one zero one")), beam=6)
    assert {f.text for f in found} <= {"pass", "pause", "pause the game"}
    assert all(graph.accepts(f.text.split()) for f in found)


def test_nothing_far_below_the_best_is_kept() -> None:
    graph = WordGraph(SENTENCES)
    found = search(graph, Decoder(words_of("pause the game")), beam=8, keep=20)
    assert found[0].text == "pause the game"
    assert all(f.logprob >= found[0].logprob - SPAN for f in found)
    assert len({f.words for f in found}) == len(found)


def test_a_narrow_beam_costs_fewer_decoder_calls_and_still_finds_a_clear_sentence() -> None:
    graph = WordGraph(SENTENCES)
    decoder = Decoder(words_of("explore room one zero zero"))
    found = search(graph, decoder, beam=1)
    assert found[0].text == "explore room one zero zero"
    # one call per word, one for the full stop's end, none more
    assert decoder.calls <= 5 + 2


def test_a_narrower_span_follows_fewer_sentences_and_keeps_the_best_and_those_within_it() -> None:
    graph = WordGraph(SENTENCES)
    calls = {}
    for said, span in (("pass", 6.0), ("explore room one zero zero", 3.0)):
        wide_decoder, narrow_decoder = Decoder(words_of(said)), Decoder(words_of(said))
        wide = search(graph, wide_decoder, beam=8, keep=20, span=15.0)
        narrow = search(graph, narrow_decoder, beam=8, keep=20, span=span)
        assert narrow[0] == wide[0] and narrow[0].text == said
        # every sentence within the span of the best is found all the same; none beyond it
        assert narrow == [f for f in wide if f.logprob >= wide[0].logprob - span] != wide
        calls[said] = (narrow_decoder.calls, wide_decoder.calls)
    # "pass": no sentence under way after it can come within 6 of it, so none is followed
    assert calls["pass"] == (3, 4) and calls["explore room one zero zero"] == (7, 7)
