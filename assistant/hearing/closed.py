"""Whisper held to the grammar: the allowed sentences Whisper finds likeliest for an utterance.

Free text plus spotting asks Whisper what was said and then looks for a command in its words;
a mishearing Whisper writes ("Explore 1 2 1.") is then spotted as a real, different command.
Here the question is turned round, as a closed-grammar recognizer (Home Assistant's
Speech-to-Phrase) asks it: of the sentences allowed at this moment, which does Whisper find
likeliest for this audio, and by how much? The search is a beam search that only ever writes
what the moment's word graph allows (``WordGraph.following``), a word at a time: each step asks
the decoder, in one batch for every sentence under way, for its tokens' log probabilities
over the cached encoding of the audio, and extends each sentence by every word the grammar
allows next. A sentence ends with a mark (". ? !": "How much time is left?") and Whisper's end of
text, or with the end at once.

What the search gives (``Sentences``): the allowed sentences found, likeliest first, each with
its log probability (the sum over its tokens, the end included). The decision (how far above
another command the best must be, how near Whisper's own unconstrained reading) is the
pipeline's ``Closed`` stage.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from assistant.hearing.grammar import WordGraph

#: No sentence of any game's grammar runs to this many tokens (a guard against a loop)
MAX_TOKENS = 40


class NextTokens(Protocol):
    """What the search needs of a decoder over one utterance's encoding."""

    #: the end-of-text token, and the marks Whisper ends a sentence with (". ? !")
    end: int
    stops: tuple[int, ...]

    def logprobs(self, prefixes: Sequence[Sequence[int]], since: Sequence[int]) -> list[npt.NDArray[np.float32]]:
        """For each prefix (text tokens; lengths may differ), the log probabilities of the token
        at each position from ``since`` to just after the prefix: shape (len(prefix) + 1 - since,
        vocabulary)."""
        ...

    def word_tokens(self, word: str, first: bool) -> tuple[int, ...]:
        """A spoken word's tokens as Whisper writes it (capitalized at the start of a sentence)."""
        ...


@dataclass(frozen=True)
class Sentence:
    """An allowed sentence and Whisper's log probability of it as the whole transcript."""

    words: tuple[str, ...]
    logprob: float
    #: how much less likely Whisper found ending there than the likeliest token in its place
    #: (0: it would stop writing; well below 0: it would go on, as after a command said at the
    #: start of longer talk: "Keep going." in "keep going, you're nearly there")
    stop: float = 0.0

    @property
    def text(self) -> str:
        return " ".join(self.words)


@dataclass(frozen=True)
class _Way:
    """A sentence under way: its tokens so far (its last word's all written), the graph states
    after that word, its words, and its log probability over its first ``scored`` tokens (the
    last word's later tokens are scored by the next decoder call, which sees them)."""

    tokens: tuple[int, ...]
    states: frozenset[int]
    words: tuple[str, ...]
    logprob: float
    scored: int
    ending: bool = False


#: How far below the best sentence (natural log) the search follows others: no decision turns
#: on one further below than the margin the rule asks (``Closed.span``: never less than
#: closed_margin), and each word followed costs a decoder call
SPAN = 6.0


def search(graph: WordGraph, decoder: NextTokens, beam: int = 6, keep: int = 8, span: float = SPAN) -> list[Sentence]:
    """The allowed sentences of ``graph`` Whisper finds likeliest (at most ``keep``, likeliest
    first, none more than ``span`` below the first), by a beam search of ``beam`` sentences under
    way, a word at a time.

    Each step is one decoder call for every sentence under way: it scores the tokens of each
    one's last word after the first and gives the next token's log probabilities, by which
    each grows by the first token of every word the grammar allows next (or its ending: a full
    stop, question or exclamation mark and the end of text, or the end at once). Log
    probabilities only fall as tokens are added, so the search stops when no sentence under way
    can come within ``span`` of the best found, nor beat the ``keep``-th."""
    ways = [_Way((), graph.start_states(), (), 0.0, 0)]
    found: dict[tuple[str, ...], Sentence] = {}
    while ways:
        rows = decoder.logprobs([way.tokens for way in ways], [way.scored for way in ways])
        grown: dict[tuple[int, ...], _Way] = {}
        for way, probs in zip(ways, rows, strict=True):
            logprob = way.logprob + float(sum(probs[i - way.scored, way.tokens[i]]
                                              for i in range(way.scored, len(way.tokens))))
            after = probs[-1]
            stop = float(after[decoder.end] - after.max())
            if way.ending:  # the mark is written: the end of text follows, or not
                _found(found, way.words, logprob + float(after[decoder.end]), stop)
                continue
            if way.words and graph.ends(way.states):
                _found(found, way.words, logprob + float(after[decoder.end]), stop)
                for mark in decoder.stops:
                    grown.setdefault((*way.tokens, mark), _Way(
                        (*way.tokens, mark), way.states, way.words, logprob + float(after[mark]),
                        len(way.tokens) + 1, ending=True))
            if len(way.tokens) >= MAX_TOKENS:
                continue
            for word, states in graph.following(way.states).items():
                tokens = decoder.word_tokens(word, not way.words)
                if not tokens:
                    continue
                step = _Way((*way.tokens, *tokens), states, (*way.words, word), logprob + float(after[tokens[0]]),
                            len(way.tokens) + 1)
                same = grown.get(step.tokens)
                if same is not None and not same.ending:  # the same words by two ways through the graph
                    step = _Way(step.tokens, same.states | step.states, step.words, step.logprob, step.scored)
                grown[step.tokens] = step
        ranked = sorted((s.logprob for s in found.values()), reverse=True)
        bar = max(ranked[0] - span if ranked else -math.inf, ranked[keep - 1] if len(ranked) >= keep else -math.inf)
        ways = sorted((w for w in grown.values() if w.logprob > bar), key=lambda w: -w.logprob)[:beam]
    best = max((s.logprob for s in found.values()), default=-math.inf)
    return sorted((s for s in found.values() if s.logprob >= best - span), key=lambda s: -s.logprob)[:keep]


def _found(found: dict[tuple[str, ...], Sentence], words: tuple[str, ...], logprob: float, stop: float) -> None:
    if words not in found or found[words].logprob < logprob:
        found[words] = Sentence(words, logprob, stop)


def log_softmax(logits: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Log probabilities from a decoder's raw scores (last axis)."""
    x = logits.astype(np.float64)
    x = x - x.max(axis=-1, keepdims=True)
    return (x - np.log(np.exp(x).sum(axis=-1, keepdims=True))).astype(np.float32)
