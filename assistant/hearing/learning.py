"""Hearing that learns the table's voices (issue 61): the core of the matcher, not yet a stage.

Commands a player confirmed (acted on and not taken back, a yes to "Explore one zero zero?") are
remembered as the sound features hearing computed for them, with their sentence and how they
were confirmed (``TakeMemory``, bounded: the oldest take goes first). Two matchers use them:

- ``WholeMatcher``: the utterance against every remembered take by dynamic time warping
  (``dtw_distances``); a sentence's distance is that of its nearest takes; the decision is the
  nearest sentence, its distance, and its margin over the nearest other sentence. It can only
  name sentences said (and confirmed) before.
- ``WordMatcher``: button entries ("one zero zero", "zero two") are made of a few words, so word
  templates are cut from confirmed entries (at the pauses between the words, ``voiced_runs``)
  and a new entry is scored against each allowed entry sentence as its words' templates said
  one after another (``connected_costs``, one pass over the utterance per word position). It
  can name an entry never said before, from words said before.

Features (``features``) are Whisper's log-mel frames (``audio.log_mel``), the quiet
frames dropped (pauses and the room before and after), turned to cepstra (a DCT over the mel
bands, the first band dropped: loudness) and mean-normalised over the utterance (the
microphone's and room's colour), two 10 ms frames averaged into one.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from assistant.engine import Command
from assistant.hearing.audio import HOP, log_mel
from assistant.hearing.events import Doubted, Final, NotAllowedNow, NotRecognized, Transcript
from assistant.hearing.grammar import WordGraph, is_entry

Frames = npt.NDArray[np.float32]  # (frames, dimensions)

#: A frame is voiced when within this of the utterance's loudest frame (log-mel units: 1 is 40 dB)
QUIET_BELOW = 0.75
#: Cepstral coefficients kept (after the first, loudness)
CEPSTRA = 13
#: 10 ms frames averaged into one feature frame
SUBSAMPLE = 2


def log_mel_frames(samples: npt.NDArray[np.int16] | npt.NDArray[np.float32]) -> Frames:
    """Whisper's log-mel of ``samples`` (16 kHz; int16 or floats in [-1, 1]) for the frames the
    speech has: shape (frames, 80)."""
    audio = samples.astype(np.float32)
    if samples.dtype == np.int16:
        audio /= 32768.0
    mel = log_mel(audio)
    used = min(mel.shape[1], max(len(audio) // HOP, 1))
    return np.ascontiguousarray(mel[:, :used].T)


def voiced(mel: Frames, below: float = QUIET_BELOW) -> npt.NDArray[np.bool_]:
    """Which log-mel frames are within ``below`` of the loudest (a frame's level: its loudest band)."""
    level = mel.max(axis=1)
    return np.asarray(level >= level.max() - below)


def _dct_matrix(bands: int, count: int) -> Frames:
    n = np.arange(bands)
    k = np.arange(1, count + 1)[:, None]
    return (np.cos(np.pi * k * (2 * n + 1) / (2 * bands)) * np.sqrt(2.0 / bands)).astype(np.float32)


def _subsample(frames: Frames, step: int) -> Frames:
    if step <= 1 or len(frames) < step:
        return frames
    usable = len(frames) // step * step
    out: Frames = frames[:usable].reshape(-1, step, frames.shape[1]).mean(axis=1)
    return out


def _normalised(mel: Frames) -> tuple[Frames, npt.NDArray[np.bool_]]:
    """Every frame's cepstra less the voiced frames' mean, and which frames are voiced."""
    loud = voiced(mel)
    values: Frames = mel @ _dct_matrix(mel.shape[1], CEPSTRA).T
    return (values - values[loud].mean(axis=0)).astype(np.float32), loud


def features_of_mel(mel: Frames) -> Frames:
    """Matching features of an utterance's log-mel frames (frames, 80): ``CEPSTRA`` cepstra,
    mean-normalised over the voiced frames, the quiet frames dropped, SUBSAMPLE frames averaged."""
    if len(mel) == 0:
        return np.zeros((0, CEPSTRA), dtype=np.float32)
    values, loud = _normalised(mel)
    return np.ascontiguousarray(_subsample(values[loud], SUBSAMPLE))


def features(samples: npt.NDArray[np.int16] | npt.NDArray[np.float32]) -> Frames:
    """Matching features of an utterance's audio (16 kHz): see ``features_of_mel``."""
    return features_of_mel(log_mel_frames(samples))


def voiced_runs(mel: Frames, gap_frames: int = 6, shortest: int = 5) -> list[tuple[int, int]]:
    """The utterance's words as runs of voiced log-mel frames ``(start, end)``, end excluded:
    quiet stretches shorter than ``gap_frames`` are bridged, runs shorter than ``shortest`` dropped."""
    loud = voiced(mel)
    runs: list[list[int]] = []
    for index in np.flatnonzero(loud):
        i = int(index)
        if runs and i - runs[-1][1] <= gap_frames:
            runs[-1][1] = i + 1
        else:
            runs.append([i, i + 1])
    return [(a, b) for a, b in runs if b - a >= shortest]


def _frame_costs(query: Frames, templates: Sequence[Frames], width: int) -> npt.NDArray[np.float32]:
    """Euclidean distances between the query's frames and each template's, (templates, n, width);
    inf beyond a template's end."""
    n = len(query)
    stacked = np.zeros((len(templates), width, query.shape[1]), dtype=np.float32)
    lengths = np.array([len(t) for t in templates])
    for k, template in enumerate(templates):
        stacked[k, :len(template)] = template
    q2 = (query ** 2).sum(axis=1)
    t2 = (stacked ** 2).sum(axis=2)
    cross = np.einsum("nd,kmd->knm", query, stacked, optimize=True)
    costs = np.sqrt(np.maximum(q2[None, :, None] + t2[:, None, :] - 2.0 * cross, 0.0)).astype(np.float32)
    costs[np.broadcast_to(np.arange(width)[None, None, :] >= lengths[:, None, None], costs.shape)] = np.inf
    assert costs.shape == (len(templates), n, width)
    return costs


def dtw_distances(query: Frames, templates: Sequence[Frames]) -> npt.NDArray[np.float64]:
    """The DTW distance of ``query`` to each of ``templates`` (all (frames, dims) of the same
    dims): the symmetric step pattern (a diagonal step costs twice a frame's distance), the sum
    over the path divided by the lengths' sum, so identical sequences are 0 apart. All templates
    at once, one anti-diagonal at a time. Empty: inf."""
    out = np.full(len(templates), np.inf)
    usable = [k for k, t in enumerate(templates) if len(t)]
    if not len(query) or not usable:
        return out
    chosen = [templates[k] for k in usable]
    n, width = len(query), max(len(t) for t in chosen)
    lengths = np.array([len(t) for t in chosen])
    costs = _frame_costs(query, chosen, width)
    count = len(chosen)
    # skewed: diagonal s = i + j (1-based i, j), row i; cell (s, i) holds D(i, s - i)
    diagonals = n + width + 1
    i = np.arange(1, n + 1)
    s = np.arange(diagonals)[:, None]
    j = s - i[None, :]
    inside = (j >= 1) & (j <= width)
    skewed = np.full((count, diagonals, n), np.inf, dtype=np.float32)
    si, ii = np.nonzero(inside)
    skewed[:, si, ii] = costs[:, ii, j[si, ii] - 1]
    total = np.full((count, diagonals, n + 1), np.inf, dtype=np.float32)
    total[:, 0, 0] = 0.0
    for d in range(2, diagonals):
        c = skewed[:, d, :]
        total[:, d, 1:] = np.minimum(np.minimum(total[:, d - 1, :-1], total[:, d - 1, 1:]) + c,
                                     total[:, d - 2, :-1] + 2.0 * c)
    ends = total[np.arange(count), n + lengths, n].astype(np.float64)
    out[usable] = ends / (n + lengths)
    return out


@dataclass
class Take:
    """A confirmed utterance: its features, its sentence and how it was confirmed."""

    frames: Frames
    sentence: str
    how: str = "acted"


@dataclass
class TakeMemory:
    """Remembered takes per sentence: at most ``per_sentence`` each and ``total`` in all, the
    oldest dropped first."""

    per_sentence: int = 10
    total: int = 200
    _takes: dict[str, deque[Take]] = field(default_factory=dict)
    _order: deque[Take] = field(default_factory=deque)

    def add(self, take: Take) -> None:
        kept = self._takes.setdefault(take.sentence, deque())
        kept.append(take)
        self._order.append(take)
        if len(kept) > self.per_sentence:
            self._forget(kept[0])
        while len(self._order) > self.total:
            self._forget(self._order[0])

    def _forget(self, take: Take) -> None:
        self._order.remove(take)
        kept = self._takes[take.sentence]
        kept.remove(take)
        if not kept:
            del self._takes[take.sentence]

    def takes(self, sentence: str) -> list[Take]:
        return list(self._takes.get(sentence, ()))

    def sentences(self) -> list[str]:
        return list(self._takes)

    def __len__(self) -> int:
        return len(self._order)

    def nbytes(self) -> int:
        """The features' size in bytes."""
        return sum(t.frames.nbytes for t in self._order)


@dataclass(frozen=True)
class Decision:
    """A matcher's answer: the nearest sentence (None: nothing to compare), its distance, the
    nearest other sentence and the relative margin ``1 - best / other`` (0: as near as each other)."""

    sentence: str | None
    distance: float = float("inf")
    other: str | None = None
    other_distance: float = float("inf")

    @property
    def margin(self) -> float:
        if self.sentence is None or self.other is None or not np.isfinite(self.other_distance):
            return 0.0
        return 1.0 - self.distance / self.other_distance if self.other_distance > 0 else 0.0

    def taken(self, margin: float, distance: float = float("inf")) -> str | None:
        """The sentence when it is at least ``margin`` ahead and at most ``distance`` away."""
        if self.sentence is None or self.other is None:
            return None
        return self.sentence if self.margin >= margin and self.distance <= distance else None


def _decide(scores: dict[str, float]) -> Decision:
    finite = sorted((d, s) for s, d in scores.items() if np.isfinite(d))
    if not finite:
        return Decision(None)
    if len(finite) == 1:
        return Decision(finite[0][1], finite[0][0])
    (d1, s1), (d2, s2) = finite[0], finite[1]
    return Decision(s1, d1, s2, d2)


@dataclass
class WholeMatcher:
    """Whole utterances against remembered takes: a sentence's distance is its nearest take's."""

    memory: TakeMemory = field(default_factory=TakeMemory)

    def remember(self, frames: Frames, sentence: str, how: str = "acted") -> None:
        self.memory.add(Take(frames, sentence, how))

    def scores(self, frames: Frames, allowed: Collection[str] | None = None) -> dict[str, float]:
        sentences = [s for s in self.memory.sentences() if allowed is None or s in allowed]
        takes = [t for s in sentences for t in self.memory.takes(s)]
        distances = dtw_distances(frames, [t.frames for t in takes])
        nearest: dict[str, float] = {}
        for take, d in zip(takes, distances, strict=True):
            nearest[take.sentence] = min(nearest.get(take.sentence, np.inf), float(d))
        return nearest

    def decide(self, frames: Frames, allowed: Collection[str] | None = None) -> Decision:
        return _decide(self.scores(frames, allowed))


def connected_costs(query: Frames, sentences: Iterable[Sequence[str]],
                    templates: dict[str, list[Frames]]) -> dict[tuple[str, ...], float]:
    """Each word sequence's cost as its words' templates said one after another over the whole
    ``query``: per query frame the distance to the template frame it is matched with, averaged
    over the query's frames; each query frame is matched once, the path steps one or two
    template frames on or holds one for one more query frame at most (a word said from twice as
    fast as its template to twice as slow, so "two two" is not one long "two"), the next word
    starts on the frame after a word's last. For a word
    the nearest of its templates counts. Sequences sharing a beginning share its work; a
    sequence with a word without templates is left out."""
    n = len(query)
    words = sorted({w for s in sentences for w in s})
    sequences = [tuple(s) for s in sentences if s and all(templates.get(w) for w in s)]
    if not n or not sequences:
        return {}
    flat: list[Frames] = []
    owner: dict[str, list[int]] = {}
    for w in words:
        for t in templates.get(w, ()):
            if len(t):
                owner.setdefault(w, []).append(len(flat))
                flat.append(t)
    width = max(len(t) for t in flat)
    lengths = np.array([len(t) for t in flat])
    costs = _frame_costs(query, flat, width)  # (templates, n, width)
    by_frame = np.ascontiguousarray(costs.transpose(1, 0, 2))  # (n, templates, width)
    # ends[prefix][i]: the prefix's cost with its last word ending on frame i
    start = np.full(n + 1, np.inf, dtype=np.float32)
    start[0] = 0.0
    ends: dict[tuple[str, ...], npt.NDArray[np.float32]] = {}
    longest = max(len(s) for s in sequences)
    level_prefixes: list[tuple[str, ...]] = [()]
    for level in range(longest):
        pairs: list[tuple[tuple[str, ...], int]] = []
        grown = sorted({s[:level + 1] for s in sequences if len(s) > level and s[:level] in level_prefixes})
        for prefix in grown:
            pairs.extend((prefix, k) for k in owner[prefix[-1]])
        if not pairs:
            break
        chosen = np.array([k for _, k in pairs])
        # the cost of entering each pair's word on frame i: its prefix ended on frame i - 1
        entry = np.stack([start if level == 0 else np.concatenate(([np.inf], ends[p[:-1]]))
                          for p, _ in pairs]).astype(np.float32)  # (pairs, n + 1)
        frame_costs = by_frame[:, chosen, :]  # (n, pairs, width)
        last = lengths[chosen] - 1
        fresh = np.full((len(pairs), width), np.inf, dtype=np.float32)  # a template frame's first query frame
        again = np.full((len(pairs), width), np.inf, dtype=np.float32)  # its second (held)
        pad = np.full((len(pairs), 2), np.inf, dtype=np.float32)
        finished = np.empty((len(pairs), n), dtype=np.float32)
        rows = np.arange(len(pairs))
        for i in range(n):
            either = np.concatenate((pad, np.minimum(fresh, again)), axis=1)  # (pairs, width + 2)
            came = np.minimum(either[:, 1:-1], either[:, :-2])  # from one or two template frames back
            came[:, 0] = np.minimum(came[:, 0], entry[:, i])
            fresh, again = came + frame_costs[i], fresh + frame_costs[i]
            finished[:, i] = np.minimum(fresh[rows, last], again[rows, last])
        for prefix in grown:
            members = [m for m, (p, _) in enumerate(pairs) if p == prefix]
            ends[prefix] = finished[members].min(axis=0)
        level_prefixes = grown
    return {s: float(ends[s][n - 1]) / n for s in sequences if s in ends}


@dataclass
class WordMatcher:
    """Button entries as sequences of word templates cut from confirmed entries: at most
    ``per_word`` templates a word (the oldest dropped)."""

    per_word: int = 10
    templates: dict[str, deque[Frames]] = field(default_factory=dict)

    def remember(self, mel: Frames, sentence: str) -> bool:
        """Cut a confirmed entry's log-mel frames into its words at the pauses between them;
        False (nothing learnt) when the pauses do not give one run per word."""
        words = sentence.split()
        runs = voiced_runs(mel)
        if len(runs) != len(words):
            return False
        values, loud = _normalised(mel)  # normalised over the whole entry, as an utterance is
        for word, (a, b) in zip(words, runs, strict=True):
            kept = self.templates.setdefault(word, deque(maxlen=self.per_word))
            kept.append(np.ascontiguousarray(_subsample(values[a:b][loud[a:b]], SUBSAMPLE)))
        return True

    def scores(self, frames: Frames, allowed: Collection[str]) -> dict[str, float]:
        known = {w: list(t) for w, t in self.templates.items()}
        costs = connected_costs(frames, [s.split() for s in allowed], known)
        return {" ".join(s): c for s, c in costs.items()}

    def decide(self, frames: Frames, allowed: Collection[str]) -> Decision:
        return _decide(self.scores(frames, allowed))

    def nbytes(self) -> int:
        return sum(t.nbytes for ts in self.templates.values() for t in ts)


# ------------------------------------------------------------------ the table's voices, a stage

#: Where the takes place an utterance. A whole utterance: within SAME_DISTANCE (dynamic time
#: warping, ``dtw_distances``) of a take of its sentence, nearer than any other sentence's. Chosen on
#: the tuning voices (FSDD jackson, nicolas, yweweler; espeak en-gb, en-us; Piper joe), 12 entries
#: each and a second take 6% slower: at 0.7, 68% of second takes are within it of their own
#: sentence's take, 0.6% (5 of 792) of another entry's (one inside another: "two" and "two two").
#: Margins alone do not place it: with the table's takes of a few sentences, the nearest of those is
#: often not what was said ("stop listening" nearest the "start listening" confirmed before: the
#: tuning sessions, bench_accuracy --session). A button entry: its words' templates said in a row
#: (``WordMatcher``) ahead of every other command's entry by WORD_MARGIN (relative), chosen on the
#: tuning speakers of FSDD (ten entries remembered: 0 wrong at 0.03).
SAME_DISTANCE = 0.7
WORD_MARGIN = 0.03
#: Utterances decided recently, any of which the table may yet confirm ("yes" to a question)
RECENT = 4


@dataclass(frozen=True)
class Nearest:
    """Where ``check`` found the takes place an utterance, as numbers (bench_accuracy --session
    keeps them): the nearest allowed sentence, its command, its margin over the nearest sentence of
    another command (0: none), its distance, whether the words of entries placed it, and whether
    that is clear enough to act on (``placed``: SAME_DISTANCE, WORD_MARGIN)."""

    sentence: str
    command: Command
    margin: float
    distance: float
    words: bool
    placed: bool


def place(decision: Decision, commands: dict[str, Command], words: bool) -> Nearest | None:
    """The takes' ``decision`` among ``commands`` (by the entries' words when ``words``)."""
    best = commands.get(decision.sentence or "")
    if best is None or decision.sentence is None:
        return None
    rival = commands.get(decision.other or "")
    margin = decision.margin if rival is not None and rival != best else 0.0
    placed = margin >= WORD_MARGIN if words else decision.distance <= SAME_DISTANCE
    return Nearest(decision.sentence, best, margin, decision.distance, words, placed)


@dataclass(eq=False)  # one utterance: compared by identity (deque.remove), not by its frames
class Heard:
    """An utterance hearing took a command from, kept until the table confirms it or it is old:
    its log-mel frames (the words are cut from them), its features, its sentence and command."""

    mel: Frames
    frames: Frames
    sentence: str
    command: Command


class TableVoices:
    """What hearing has learnt of the table's voices: takes of sentences the players confirmed
    (a command acted on and not taken back, a yes to its question), and the words of the button
    entries among them. Held in memory only, for one process (one evening's games), never written."""

    def __init__(self, per_sentence: int = 10, total: int = 200, per_word: int = 10) -> None:
        self.whole = WholeMatcher(TakeMemory(per_sentence, total))
        self.words = WordMatcher(per_word)
        self.recent: deque[Heard] = deque(maxlen=RECENT)
        #: the last ``check``'s nearest sentence (None: nothing to compare)
        self.last: Nearest | None = None

    def __len__(self) -> int:
        return len(self.whole.memory)

    def nbytes(self) -> int:
        return self.whole.memory.nbytes() + self.words.nbytes() + sum(h.mel.nbytes + h.frames.nbytes
                                                                      for h in self.recent)

    def heard(self, mel: Frames, frames: Frames, sentence: str, command: Command) -> None:
        self.recent.append(Heard(mel, frames, sentence, command))

    def confirm(self, command: Command, how: str = "acted") -> bool:
        """The latest utterance taken as ``command`` was right: remember it. False when none is kept."""
        for heard in reversed(self.recent):
            if heard.command == command:
                self.recent.remove(heard)
                self.remember(heard.mel, heard.frames, heard.sentence, how)
                return True
        return False

    def remember(self, mel: Frames, frames: Frames, sentence: str, how: str = "acted") -> None:
        self.whole.remember(frames, sentence, how)
        if is_entry(sentence.split()):
            self.words.remember(mel, sentence)

    def decide(self, frames: Frames, graph: WordGraph, allowed: Callable[[str], Command | None],
               entry: bool) -> tuple[Decision, dict[str, Command], bool]:
        """The nearest allowed sentence: among the graph's button entries made of words learnt
        when the utterance may be one (``entry``) and they give two to choose from, else among
        the sentences remembered that are allowed now; each candidate's command; and whether the
        entries' words decided."""
        if entry and self.words.templates:
            sentences = [" ".join(words) for words in graph.entries(self.words.templates)]
            commands = {s: c for s in sentences if (c := allowed(s)) is not None}
            decision = self.words.decide(frames, commands)
            if decision.other is not None:
                return decision, commands, True
        commands = {s: c for s in self.whole.memory.sentences() if (c := allowed(s)) is not None}
        return self.whole.decide(frames, commands), commands, False


def check(voices: TableVoices, samples: npt.NDArray[np.int16], decided: Final, graph: WordGraph,
          allowed: Callable[[str], Command | None], entry: bool) -> tuple[Final, str]:
    """The table's voices' say on what hearing ``decided`` for the utterance ``samples`` (its
    loud part), and the verdict for the trace. Where the takes place it (``place``): a doubted
    command there, or a missed one, is heard when a take of its very sentence is that close (not
    from the entries' words alone: a miss they place is asked about); a command taken or doubted
    elsewhere is asked about as the command the takes place it at ("Zero two?"). The utterance is
    kept for the table to confirm."""
    mel = log_mel_frames(samples)
    frames = features_of_mel(mel)
    out, verdict = decided, "nothing to compare"
    voices.last = None
    taken = decided if isinstance(decided, Transcript) and decided.command is not None else None
    if len(voices) and len(frames):
        decision, commands, words = voices.decide(frames, graph, allowed, entry)
        voices.last = nearest = place(decision, commands, words)
        if nearest is not None:
            verdict = f"nearest {nearest.sentence!r} at {decision.distance:.3f}, by {nearest.margin:.3f}"
        if nearest is not None and nearest.placed:
            if isinstance(decided, Doubted) and decided.command == nearest.command:
                if not nearest.words:  # a close take of the very sentence: heard
                    out = Transcript(decided.text, decided.confidence, decided.heard, decided.command,
                                     decided.snapped)
                    verdict = f"took: {verdict}"
            elif not isinstance(decided, NotAllowedNow) and (taken is None or taken.command != nearest.command):
                heard = decided.heard if isinstance(decided, NotRecognized) else taken.heard if taken else ""
                if taken is None and not nearest.words:  # missed, a close take of one sentence: heard
                    out = Transcript(nearest.sentence, 0.0, heard, nearest.command)
                    verdict = f"took: {verdict}"
                else:
                    out = Doubted(nearest.sentence, 0.0, heard, nearest.command,
                                  why="the table's takes place it here" + (f", not at {taken.text!r}" if taken else ""))
                    verdict = f"asked: {verdict}"
    final = out if isinstance(out, Transcript) and out.command is not None else None
    if final is not None and final.command is not None:
        voices.heard(mel, frames, final.text, final.command)
    return out, verdict
