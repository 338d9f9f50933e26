"""Whisper's free text on the numpy decoder: its beam search, and the scoring of texts under
the same prompt, for one utterance's encoding (what CTranslate2's ``generate`` and ``align``
did before CTranslate2 held the encoder alone: ``whisper_engine``).

The search is Whisper's and CTranslate2's: each step the beams' likeliest continuations, 2 x
beam of them, in order; one that ends is set aside if it is among the beam's best, the others go
on until ``beam_size`` have ended; the ended ones ranked by log probability over their length in
tokens. What Whisper never writes is left out, and at the first step a blank or the end too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from assistant.hearing.whisper_decoder import MAX_POSITIONS, Decoder, Memory, Reader, log_softmax32, one_blas_thread

#: The free text is cut at this many tokens a second of audio (and at least FREE_TEXT_TOKENS):
#: people say two to three words a second, about three tokens; a transcript longer than this is
#: Whisper writing the same words over and over
FREE_TEXT_TOKENS_PER_SECOND = 8
FREE_TEXT_TOKENS = 16
#: The beam search looks for its candidates first among those within this many nats of the best
NEAR_BEST = 8.0


class FreeText:
    """One utterance's free text: readings of its encoding under prompts (the attention over
    the audio worked out once), the beam search, and ``score`` under the prompt the
    hypotheses were written under."""

    def __init__(self, decoder: Decoder, encoded: npt.NDArray[np.float32], seconds: float, beam_size: int,
                 never: npt.NDArray[np.int64], not_first: Sequence[int], end: int) -> None:
        """``encoded``: the window's encoding (positions, width); ``seconds``: the audio's length
        (the search's cut); ``never``: tokens Whisper never writes; ``not_first``: nor first (a
        blank, the end)."""
        self.decoder = decoder
        self.encoded = encoded
        self.beam_size = beam_size
        self.never = never
        self.not_first = list(not_first)
        self.end = end
        self.limit = max(FREE_TEXT_TOKENS, int(FREE_TEXT_TOKENS_PER_SECOND * seconds))
        self._memory: Memory | None = None
        #: the reading under the prompt the hypotheses were written under, for ``score``
        self.prompted: Reader | None = None

    def reader(self, start: Sequence[int]) -> Reader:
        with one_blas_thread():
            if self._memory is None:
                self._memory = self.decoder.attend(self.encoded)
            return Reader(self.decoder, self._memory, start)

    def hypotheses(self, start: Sequence[int], count: int) -> list[tuple[int, ...]]:
        """The ``count`` best transcripts (token ids) under the start sequence ``start`` (a
        prompt), best first; ``score`` then scores under it."""
        self.prompted = self.reader(start)
        return self.beam(self.prompted, count)

    def again(self, start: Sequence[int], count: int) -> list[tuple[int, ...]]:
        """The ``count`` best transcripts under another start sequence (``score`` still scores
        under the first)."""
        return self.beam(self.reader(start), count)

    def beam(self, reader: Reader, count: int) -> list[tuple[int, ...]]:
        """The search (the module's docstring); cut at ``limit`` tokens: beams still open then
        are ranked with the ended ones."""
        count = max(1, min(count, self.beam_size))
        beams: list[tuple[tuple[int, ...], float]] = [((), 0.0)]
        ended: dict[tuple[int, ...], float] = {}
        with one_blas_thread():
            for step in range(min(MAX_POSITIONS - len(reader.start), self.limit)):
                logits = reader.decoder.logits(reader.lasts([text for text, _ in beams]))
                logits[:, self.never] = -np.inf
                if step == 0:
                    logits[:, self.not_first] = -np.inf
                scores = log_softmax32(logits, overwrite=True)
                scores += np.array([total for _, total in beams], dtype=np.float32)[:, None]
                flat = scores.ravel()
                going: list[tuple[tuple[int, ...], float]] = []
                for rank, index in enumerate(self._best(flat)):
                    which, token = divmod(int(index), scores.shape[1])
                    text, total = beams[which][0], float(flat[index])
                    if not math.isfinite(total):
                        break
                    if token != self.end:
                        if len(going) < self.beam_size:
                            going.append(((*text, token), total))
                    elif rank < self.beam_size and text:  # an end further down is not taken
                        ended[text] = max(ended.get(text, -math.inf), total / len(text))
                beams = going
                reader.keep([text[:-1] for text, _ in beams])  # each open beam reads on from there
                if len(ended) >= self.beam_size or not beams:
                    break
            else:
                for text, total in beams:
                    ended.setdefault(text, total / len(text))
        ranked = sorted(ended.items(), key=lambda item: -item[1])[:count]
        return [text for text, _ in ranked]

    def _best(self, flat: npt.NDArray[np.float32]) -> npt.NDArray[np.intp]:
        """The 2 x beam best candidates, best first: found among those near the best one (a
        cheap pass), the whole vocabulary partitioned only when too few are near."""
        wanted = min(flat.size, 2 * self.beam_size)
        near = np.flatnonzero(flat >= flat.max() - NEAR_BEST)
        if len(near) >= wanted:
            best = near[np.argpartition(flat[near], -wanted)[-wanted:]]
        else:
            best = np.argpartition(flat, -wanted)[-wanted:]
        ordered: npt.NDArray[np.intp] = best[np.argsort(-flat[best], kind="stable")]
        return ordered

    def score(self, texts: Sequence[tuple[int, ...]], ending: bool) -> list[float]:
        """How likely each text (token ids) is as the whole transcript under the prompt the
        hypotheses were written under: the sum of its tokens' log probabilities (nothing left
        out, as CTranslate2's ``align`` gives them), and with ``ending`` the log probability of
        the end after it, what Whisper never writes left out; minus infinity if Whisper would
        write on instead."""
        if self.prompted is None or not texts:
            return [-math.inf] * len(texts)
        read = [text for text in texts if text]
        with one_blas_thread():
            rows = dict(zip(read, self.prompted.logprobs(read, [0] * len(read)), strict=True)) if read else {}
        never = np.zeros(self.decoder.vocabulary, dtype=bool)
        never[self.never] = True
        out = []
        for text in texts:
            if not text:
                out.append(-math.inf)
                continue
            row = rows[text]
            total = float(row[np.arange(len(text)), list(text)].sum())
            if ending:
                after = np.where(never, -np.inf, row[len(text)])
                if int(np.argmax(after)) != self.end:
                    out.append(-math.inf)
                    continue
                top = float(after.max())
                total += float(after[self.end]) - (top + math.log(float(np.exp(after - top).sum())))
            out.append(total)
        return out


class OwnReading:
    """Whisper's own greedy reading of an utterance without a prompt, a token at a time, from
    the raw scores the decoder gives for the token after the text so far (``ids``): the grammar
    search hands it the scores of each of its decoder calls, where its next token rides along
    with the search's sentences (one call for both), and ``WhisperTranscriber.own_reading``
    finishes it alone. What Whisper never writes is left out, at the first step a blank or the
    end too (CTranslate2's ``suppress_blank``). A short window can make Whisper write a command
    over and over ("Pass. Pass. Pass." or "1 1 1 1 1"): a sentence written twice running ends
    it, and so does a loop of one or two tokens once no later ending could be likelier than the
    best so far (the path's log probability only falls, so the score is settled; the loop adds
    no word to the text)."""

    def __init__(self, never: npt.NDArray[np.int64], not_first: Sequence[int], end: int, stops: Sequence[int],
                 limit: int) -> None:
        self.never = never
        self.not_first = list(not_first)
        self.end = end
        self.stops = tuple(stops)
        self.limit = limit
        #: the text tokens so far, and the log probabilities at each step (the one after the last too)
        self.ids: list[int] = []
        self.rows: list[npt.NDArray[np.float32]] = []
        self.done = False
        self._sentences = [0]  # where each sentence of the reading starts
        self._best, self._total = -math.inf, 0.0

    def step(self, logits: npt.NDArray[np.float32]) -> None:
        """One step, from the raw scores for the token after ``ids`` (a row of the vocabulary's
        size; changed in place)."""
        if self.done:
            return
        logits[self.never] = -np.inf
        if not self.ids:
            logits[self.not_first] = -np.inf
        row = log_softmax32(logits[None])[0]
        self.rows.append(row)
        token = int(np.argmax(logits))
        if token == self.end:
            self.done = True
            return
        ids = self.ids
        if ids:
            self._best = max(self._best, self._total + float(row[self.end]))
        self._total += float(row[token])
        ids.append(token)
        if self._total <= self._best and len(ids) >= 4 and (ids[-1] == ids[-2] == ids[-3] or ids[-4:-2] == ids[-2:]):
            self.done = True
        elif token in self.stops:
            sentences = self._sentences
            sentences.append(len(ids))
            if len(sentences) >= 3 and ids[sentences[-3]:sentences[-2]] == ids[sentences[-2]:]:
                del ids[sentences[-2]:]
                del self.rows[len(ids) + 1:]
                self.done = True
        if len(self.rows) >= self.limit:
            self.done = True

    def finish(self, reader: Reader) -> tuple[list[int], npt.NDArray[np.float32]]:
        """The reading read to its end on ``reader`` (one decoder call a token): its text tokens
        and the log probabilities at each step."""
        with one_blas_thread():
            while not self.done:
                self.step(reader.decoder.logits(reader.last(self.ids)[None])[0])
        return self.ids, np.stack(self.rows)
