"""Spotting: the allowed command said somewhere inside a free transcript, by words and by sound.

A free recognizer (Whisper) writes what it heard in plain English: "Explore room 201.",
"heals zero and uh", "for tonight, explore room two oh one but I am not". ``Spotter.spot``
finds the allowed sentence that best matches a span of it and the command that sentence
means, or says why there is none.

The match is an alignment of the sentence templates (the same ``sentences.yaml`` that feeds
every grammar) against the transcript's words, costed in phones (CMU pronouncing
dictionary, shipped with PocketSphinx):

- a template word matched to a transcript word costs their phone edit distance (similar
  phones cost less: "shields"/"heals", "to"/"two" cost nothing), or to two transcript words
  run together ("ex floor" for "explore");
- a template word not heard costs its phones; an extra word inside the span its phones;
- a word outside the span costs ``outside`` per phone, so a short command inside a long
  remark ("can you pass me the chips") is far away, while a command with a word of noise
  around it is not.

The distance is that cost per phone of the sentence. A command is taken only when it is
within ``max_distance`` and every other allowed command (another intent, or the same one
with another value in any slot) is at least ``margin`` further away; otherwise nothing is
taken. The alignment runs over the template tree (not the expanded sentences, which run to
hundreds of thousands in the card game), as min-plus products of small matrices.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

from assistant.engine import Command
from assistant.hearing.pronouncing import Pronouncing, pronouncing
from assistant.hearing.settings import SpotSettings
from assistant.sentences import Alt, Node, RuleRef, SentenceSet, Seq, SlotRef, Word, number_words

Matrix = npt.NDArray[np.float64]
INF = float("inf")

#: Words a free recognizer writes for a command word, that sound too far from it for the phone
#: distance alone: Whisper writes "oh" as "all" or "O", and R as "our" or "hour".
ALIASES: dict[str, frozenset[str]] = {
    "oh": frozenset({"all", "o", "owe", "ho"}),
    "zero": frozenset({"all", "o", "oh"}),
    "are": frozenset({"our", "hour", "r", "ah"}),
    "r": frozenset({"our", "hour", "are", "ah"}),
    "two": frozenset({"to", "too"}),
    "one": frozenset({"won"}),
    "four": frozenset({"for", "fore"}),
    "eight": frozenset({"ate"}),
    "yes": frozenset({"yeah", "yep", "yup"}),
    "no": frozenset({"nope", "nah"}),
}

_VOWELS = frozenset("AA AE AH AO AW AY EH ER EY IH IY OW OY UH UW".split())
_PAIRS = [("P", "B"), ("T", "D"), ("K", "G"), ("F", "V"), ("S", "Z"), ("SH", "ZH"), ("CH", "JH"), ("TH", "DH"),
          ("M", "N"), ("N", "NG"), ("L", "R"), ("S", "SH"), ("TH", "F"), ("DH", "D"), ("T", "CH"), ("D", "JH")]
_SIMILAR = frozenset(frozenset(p) for p in _PAIRS)
#: The cost of changing a phone into a similar one (vowel for vowel, voiced for voiceless...).
SIMILAR_COST = 0.5


def phone_cost(a: str, b: str) -> float:
    if a == b:
        return 0.0
    if (a in _VOWELS and b in _VOWELS) or frozenset((a, b)) in _SIMILAR:
        return SIMILAR_COST
    return 1.0


def phone_edits(a: Sequence[str], b: Sequence[str]) -> float:
    """Weighted edit distance between two phone sequences (insertions and deletions cost 1)."""
    row = [float(j) for j in range(len(b) + 1)]
    for i, pa in enumerate(a, 1):
        diagonal, row[0] = row[0], float(i)
        for j, pb in enumerate(b, 1):
            diagonal, row[j] = row[j], min(row[j] + 1.0, row[j - 1] + 1.0, diagonal + phone_cost(pa, pb))
    return row[-1]


# --------------------------------------------------------------------------- pronunciations

#: Rough letter sounds for words the dictionary lacks (names, made-up words): enough to cost them.
_LETTERS = {
    "a": "AE", "b": "B", "c": "K", "d": "D", "e": "EH", "f": "F", "g": "G", "h": "HH", "i": "IH", "j": "JH",
    "k": "K", "l": "L", "m": "M", "n": "N", "o": "AA", "p": "P", "q": "K", "r": "R", "s": "S", "t": "T",
    "u": "AH", "v": "V", "w": "W", "x": "K S", "y": "Y", "z": "Z",
}
_DIGRAPHS = {"sh": "SH", "ch": "CH", "th": "TH", "ph": "F", "ng": "NG", "ee": "IY", "oo": "UW", "ou": "AW",
             "ai": "EY", "ay": "EY", "ea": "IY", "ck": "K", "qu": "K W", "oa": "OW", "ie": "IY"}


def without_repeats(words: Sequence[str], longest: int = 4) -> list[str]:
    """``words`` with each run of a word group said again right after itself kept once
    ("pass pass pass" -> "pass", "quiet quiet good" -> "quiet good")."""
    out: list[str] = []
    for word in words:
        out.append(word)
        for n in range(1, min(longest, len(out) // 2) + 1):
            if out[-n:] == out[-2 * n:-n]:
                del out[-n:]
                break
    return out


def spell_out(word: str) -> tuple[str, ...]:
    """A crude pronunciation from the letters (for words outside the dictionary)."""
    phones: list[str] = []
    i = 0
    while i < len(word):
        pair = word[i:i + 2]
        if pair in _DIGRAPHS:
            phones.extend(_DIGRAPHS[pair].split())
            i += 2
            continue
        ch = word[i]
        if ch in _LETTERS and not (ch == "e" and i == len(word) - 1 and len(word) > 2):
            phones.extend(_LETTERS[ch].split())
        i += 1
    return tuple(phones)


class Lexicon:
    """Pronunciations: the CMU dictionary that ships inside the pocketsphinx wheel.

    Looked up by bisection in the dictionary PocketSphinx's first pass reads too (one copy of
    its 3 MB a process: ``pronouncing``). Parsed whole into Python tuples it took 65 MB, a
    seventh of the hybrid listener's memory; searched as one text for each word, the words of
    MSX's sentences took 1.6 s at start."""

    def __init__(self, dictionary: Pronouncing) -> None:
        self._dictionary = dictionary
        self._found: dict[str, list[tuple[str, ...]]] = {}

    @classmethod
    def load(cls, path: Path | None = None) -> Lexicon:
        return _load_lexicon(str(path) if path is not None else "")

    def entries(self, word: str) -> list[tuple[str, ...]]:
        """The dictionary's own pronunciations of ``word`` (none when it is not there)."""
        found = self._found.get(word)
        if found is None:
            found = self._found[word] = [tuple(p.split()) for p in self._dictionary.variants(word)]
        return found

    def prons(self, word: str) -> list[tuple[str, ...]]:
        found = self.entries(word)
        if found:
            return found
        if word.lstrip("-").isdigit():
            spoken = number_words(int(word)) if abs(int(word)) < 1000 else " ".join(word)
            return [tuple(p for w in spoken.split() for p in self.prons(w)[0])]
        if "'" in word:
            base = self.entries(word.replace("'", ""))
            if base:
                return base
        return [spell_out(word) or ("AH",)]


@functools.lru_cache(maxsize=4)
def _load_lexicon(path: str) -> Lexicon:
    if not path:
        from pocketsphinx import get_model_path

        path = str(Path(get_model_path()) / "en-us" / "cmudict-en-us.dict")
    return Lexicon(pronouncing(Path(path)))


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Spot:
    """The outcome: ``command`` (None when nothing is taken), the sentence it was matched as,
    its distance, the nearest other command's distance, and why nothing was taken."""

    command: Command | None
    sentence: str = ""
    distance: float = INF
    #: How many more phone edits the nearest other command needs.
    runner_up: float = INF
    runner_up_sentence: str = ""
    reason: str = ""
    span: tuple[int, int] = (0, 0)
    #: The command of ``sentence`` when it was too far to take (``SpotSettings.near_distance``).
    near: Command | None = None


@dataclass(frozen=True)
class _Found:
    distance: float        # cost per phone of the sentence
    cost: float            # phone edits, words outside the span included
    sentence: str
    command: Command
    span: tuple[int, int]


@dataclass
class _Pass:
    """One alignment of the templates against one transcript (memoized per node), with one
    slot value ruled out (``exclude``) or every slot held to a value (``require``)."""

    exclude: tuple[str, str] | None = None
    require: dict[str, str] | None = None
    memo: dict[int, Matrix] = field(default_factory=dict)
    seqs: dict[int, list[Matrix]] = field(default_factory=dict)

    @property
    def touches(self) -> frozenset[str]:
        """The slots this pass treats differently from the plain one."""
        if self.exclude is not None:
            return frozenset({self.exclude[0]})
        return frozenset(self.require or ())

    def allows(self, slot: str, value: str) -> bool:
        if self.exclude is not None and (slot, value) == self.exclude:
            return False
        return self.require is None or self.require.get(slot, value) == value


class Spotter:
    """Finds allowed commands inside free transcripts, for one game's sentences."""

    def __init__(self, sentences: SentenceSet, lexicon: Lexicon | None = None,
                 settings: SpotSettings | None = None) -> None:
        self.sentences = sentences
        self.lexicon = lexicon or Lexicon.load()
        self.settings = settings or SpotSettings()
        self._word_phones: dict[str, list[tuple[str, ...]]] = {}
        self._subs: dict[tuple[str, ...], dict[str, float]] = {}
        self._slots_under: dict[int, frozenset[str]] = {}

    # ----------------------------------------------------------------- public

    def words(self, text: str) -> list[str]:
        return self.sentences.words(text)

    def refused(self, text: str, allowed: Iterable[str]) -> Spot | None:
        """The command of an intent outside ``allowed`` that ``text`` says outright
        (``refused_distance``; a short text only, ``refused_words``), nearer than any allowed one:
        what a player said where the rules refuse it, which the allowed sentences alone would take
        as one of theirs. None when there is none."""
        words = self.words(text)
        allowed = set(allowed)
        if not words or len(words) > self.settings.refused_words or allowed.issuperset(self.sentences.intents):
            return None  # (every intent allowed: nothing is refused)
        found = self.spot(text)  # every intent of the game
        if (found.command is None or found.command.intent in allowed
                or found.distance > self.settings.refused_distance):
            return None
        return found

    def goes_on(self, text: str, command: Command) -> int:
        """How many words ``text`` (Whisper's own reading) goes on after a whole sentence of
        ``command`` said at its start, with repeats cut ("Keep going, you're nearly there." after
        "keep going": 3); 0 when it does not begin with one."""
        words = without_repeats(self.words(text))
        for said in range(len(words), 0, -1):
            if self.sentences.match(words[:said], [command.intent]) == command:
                return len(words) - said
        return 0

    def says_only(self, text: str, command: Command) -> bool:
        """Whether ``text`` (Whisper's own reading), repeats cut, is a whole sentence of
        ``command`` and nothing more ("Status. Status." for status)."""
        words = without_repeats(self.words(text))
        return bool(words) and self.sentences.match(words, [command.intent]) == command

    @property
    def near_distance(self) -> float:
        """How near a command what Whisper wrote must be to count as a near miss of it."""
        return self.settings.near_distance

    def spot(self, text: str, intents: Iterable[str] | None = None) -> Spot:
        words = self.words(text)
        allowed = [n for n in self.sentences.intents if intents is None or n in set(intents)]
        if not words:
            return Spot(None, reason="nothing heard")
        if not allowed:
            return Spot(None, reason="nothing is allowed now")
        found = self._spot(words, allowed)
        if found.command is None:
            # Whisper sometimes writes a short utterance over again ("Pass, pass, pass."); the
            # copies would count as words outside the command. Tried only when the transcript
            # as written gives nothing, so a command that repeats a word ("code one one") stands.
            once = without_repeats(words)
            if once != words:
                again = self._spot(once, allowed)
                if again.command is not None:
                    return again
        return found

    def _spot(self, words: list[str], allowed: list[str]) -> Spot:
        job = _Job(self, words)
        best = self._per_intent(job, allowed)
        if not best:
            return Spot(None, reason="no allowed sentence near")
        top = best[0]
        rivals = best[1:]
        for slot, value in sorted(top.command.slots.items()):
            rival = job.best(top.command.intent, (slot, value))
            if rival is not None and rival.command != top.command:
                rivals.append(rival)
        rival = min(rivals, key=lambda b: b.cost, default=None)
        runner_up = rival.cost - top.cost if rival is not None else INF
        runner_sentence = rival.sentence if rival is not None else ""
        s = self.settings
        spot = Spot(None, top.sentence, top.distance, runner_up, runner_sentence, "", top.span)
        if top.distance > s.max_distance:
            return replace(spot, reason=f"nearest allowed sentence {top.sentence!r} is too far "
                                        f"({top.distance:.2f} > {s.max_distance:g})",
                           near=top.command if top.distance <= s.near_distance else None)
        if runner_up < s.margin:
            return replace(spot, reason=f"could be {top.sentence!r} or {runner_sentence!r} "
                                        f"({runner_up:.1f} phone edits apart)")
        return replace(spot, command=top.command)

    @staticmethod
    def _per_intent(job: _Job, intents: Iterable[str]) -> list[_Found]:
        """Each intent's nearest sentence, nearest first."""
        found = [f for f in (job.best(name) for name in intents) if f is not None]
        found.sort(key=lambda f: f.distance)
        return found

    def distance(self, text: str, command: Command) -> float:
        """How far ``command``'s nearest sentence is from what was written (inf: not at all)."""
        words = self.words(text)
        if not words or command.intent not in self.sentences.intents:
            return INF
        found = _Job(self, words).best(command.intent, require=dict(command.slots))
        return found.distance if found is not None else INF

    # ----------------------------------------------------------------- pieces

    def warm_up(self) -> None:
        """Look up every word of the sentences now (the phone table the first spotting needs):
        about half a second the first time in a process, paid at start rather than inside the
        first command's budget ("Say again?")."""
        self._table  # noqa: B018 (built and kept)

    def prons(self, word: str) -> list[tuple[str, ...]]:
        found = self._word_phones.get(word)
        if found is None:
            found = self._word_phones[word] = self.lexicon.prons(word)
        return found

    def sub(self, word: str, heard: tuple[str, ...]) -> float:
        """Phone edits between ``word`` and the heard words said together. Worked out for every
        word of the sentences at once, per heard words, and remembered: the same words come up
        utterance after utterance."""
        found = self._subs.get(heard)
        if found is None:
            found = self._subs[heard] = self._table.distances(
                [tuple(p for part in parts for p in part)
                 for parts in itertools.product(*(self.prons(h) for h in heard))])
        distance = found.get(word)
        if distance is None:  # a word outside the table (none is, but a sentence set may change)
            joined = [tuple(p for part in parts for p in part)
                      for parts in itertools.product(*(self.prons(h) for h in heard))]
            distance = found[word] = min(phone_edits(p, q) for p in self.prons(word) for q in joined)
        return distance

    @functools.cached_property
    def _table(self) -> _PhoneTable:
        return _PhoneTable({w: self.prons(w) for w in self.sentences.vocabulary(written_numbers=True)})

    def length(self, word: str) -> int:
        """Phones of a word not heard, or heard but not in the command (its longest way said)."""
        return max(len(p) for p in self.prons(word))

    def slots_under(self, node: Node) -> frozenset[str]:
        key = id(node)
        found = self._slots_under.get(key)
        if found is None:
            if isinstance(node, SlotRef):
                found = frozenset({node.slot}).union(
                    *(self.slots_under(v.node) for v in self.sentences.lists[node.list_name]))
            elif isinstance(node, Seq):
                found = frozenset().union(*(self.slots_under(n) for n in node.items))
            elif isinstance(node, Alt):
                found = frozenset().union(*(self.slots_under(n) for n in node.options))
            elif isinstance(node, RuleRef):
                found = self.slots_under(self.sentences.rules[node.name])
            else:
                found = frozenset()
            self._slots_under[key] = found
        return found


class _PhoneTable:
    """Every pronunciation of the sentences' words as rows of phone numbers, so the edit distance
    from heard phones to all of them is one dynamic programme over numpy columns."""

    def __init__(self, prons: dict[str, list[tuple[str, ...]]]) -> None:
        phones = sorted({p for ps in prons.values() for pron in ps for p in pron} | _VOWELS
                        | {p for pair in _PAIRS for p in pair})
        self.index = {p: i for i, p in enumerate(phones)}
        self.cost = np.array([[phone_cost(a, b) for b in phones] for a in phones] + [[1.0] * len(phones)])
        rows = [(word, pron) for word, ps in prons.items() for pron in ps]
        self.words = [word for word, _ in rows]
        width = max((len(pron) for _, pron in rows), default=0)
        self.lengths = np.array([len(pron) for _, pron in rows], dtype=np.int64)
        self.rows = np.full((len(rows), max(width, 1)), len(phones), dtype=np.int64)  # padding: "unknown"
        for n, (_, pron) in enumerate(rows):
            self.rows[n, :len(pron)] = [self.index[p] for p in pron]

    def distances(self, heard: list[tuple[str, ...]]) -> dict[str, float]:
        best = np.full(len(self.words), INF)
        for pron in heard:
            best = np.minimum(best, self._one(pron))
        out: dict[str, float] = {}
        for word, value in zip(self.words, best.tolist(), strict=True):
            out[word] = min(out.get(word, INF), value)
        return out

    def _one(self, heard: tuple[str, ...]) -> npt.NDArray[np.float64]:
        n, width = self.rows.shape
        prev = np.tile(np.arange(width + 1, dtype=np.float64), (n, 1))
        unknown = len(self.cost) - 1
        for i, phone in enumerate(heard, 1):
            costs = self.cost[self.index.get(phone, unknown)]
            if phone not in self.index:
                costs = np.ones(self.cost.shape[1])
            change = prev[:, :-1] + costs[np.minimum(self.rows, len(costs) - 1)]
            row = np.empty_like(prev)
            row[:, 0] = i
            keep = np.minimum(prev[:, 1:] + 1.0, change)
            for j in range(1, width + 1):
                row[:, j] = np.minimum(keep[:, j - 1], row[:, j - 1] + 1.0)
            prev = row
        return prev[np.arange(n), self.lengths]


class _Job:
    """The alignment of one transcript: matrices ``A[i, j]`` = the cheapest way a template
    node says the transcript words ``i:j`` (inf where it cannot)."""

    def __init__(self, spotter: Spotter, words: list[str]) -> None:
        self.spotter = spotter
        self.words = words
        n = len(words)
        self.n = n
        self.size = n + 1
        lengths = np.array([spotter.length(w) for w in words], dtype=np.float64)
        self.lengths = lengths
        cum = np.concatenate([[0.0], np.cumsum(lengths)])
        self.cum = cum
        # Insertions between template words: G[i, j] = phones of words i:j (j >= i).
        word_cost = spotter.settings.word_cost
        gap = np.full((self.size, self.size), INF)
        for i in range(self.size):
            gap[i, i:] = cum[i:] - cum[i] + word_cost * np.arange(self.size - i)
        self.gap = gap
        self.identity = np.full((self.size, self.size), INF)
        np.fill_diagonal(self.identity, 0.0)
        settings = spotter.settings
        said = np.array([(length + word_cost) * (settings.filler_share if w in settings.fillers else 1.0)
                         for w, length in zip(words, lengths, strict=True)])
        spoken = np.concatenate([[0.0], np.cumsum(said)])  # phones and words of words 0:i
        self.before = settings.outside * spoken                  # words 0:i outside the span
        self.after = settings.outside * (spoken[-1] - spoken)    # words j:n outside the span
        self._plain = _Pass()
        self._word_cache: dict[str, Matrix] = {}

    # ----------------------------------------------------------------- matrices

    def matrix(self, node: Node, run: _Pass) -> Matrix:
        if run is not self._plain and not run.touches & self.spotter.slots_under(node):
            run = self._plain
        key = id(node)
        found = run.memo.get(key)
        if found is not None:
            return found
        if isinstance(node, Word):
            found = self._word(node.text)
        elif isinstance(node, Seq):
            found = self._seq(node, run)
        elif isinstance(node, Alt):
            found = self._alt([self.matrix(o, run) for o in node.options])
        elif isinstance(node, SlotRef):
            values = self.spotter.sentences.lists[node.list_name]
            options = [self.matrix(v.node, run) for v in values if run.allows(node.slot, v.out)]
            found = self._alt(options)
        elif isinstance(node, RuleRef):
            found = self.matrix(self.spotter.sentences.rules[node.name], run)
        else:
            raise TypeError(node)
        run.memo[key] = found
        return found

    def _alt(self, options: list[Matrix]) -> Matrix:
        if not options:
            return np.full((self.size, self.size), INF)
        return np.minimum.reduce(options) if len(options) > 1 else options[0]

    def _seq(self, node: Seq, run: _Pass) -> Matrix:
        if not node.items:
            return self.identity
        prefixes = [self.matrix(node.items[0], run)]
        for item in node.items[1:]:
            with_gap = _minplus(prefixes[-1], self.gap)
            prefixes.append(_minplus(with_gap, self.matrix(item, run)))
        run.seqs[id(node)] = prefixes
        return prefixes[-1]

    def _word(self, text: str) -> Matrix:
        found = self._word_cache.get(text)
        if found is not None:
            return found
        sp = self.spotter
        m = np.full((self.size, self.size), INF)
        word_cost = sp.settings.word_cost
        for i in range(self.size):
            m[i, i] = sp.length(text) + word_cost  # not heard
        for i, heard in enumerate(self.words):
            same = heard == text or heard in ALIASES.get(text, ())
            m[i, i + 1] = 0.0 if same else sp.sub(text, (heard,)) + word_cost
            if i + 1 < self.n:
                m[i, i + 2] = sp.sub(text, (heard, self.words[i + 1])) + word_cost
        self._word_cache[text] = m
        return m

    # ----------------------------------------------------------------- best sentence

    def best(self, intent: str, exclude: tuple[str, str] | None = None,
             require: dict[str, str] | None = None) -> _Found | None:
        """The nearest sentence of ``intent`` (with ``exclude``'s slot value ruled out, or its slots
        held to ``require``), if any."""
        run = self._plain if exclude is None and require is None else _Pass(exclude, require)
        templates = self.spotter.sentences.intents[intent].templates
        found: list[_Found] = []
        for template in templates:
            m = self.matrix(template, run)
            total = self.before[:, None] + m + self.after[None, :]
            i, j = np.unravel_index(int(np.argmin(total)), total.shape)
            cost = float(total[i, j])
            if cost == INF:
                continue
            words: list[str] = []
            slots: dict[str, str] = {}
            self._trace(template, int(i), int(j), float(m[i, j]), run, words, slots)
            phones = sum(self.spotter.length(w) for w in words)
            command = Command(intent, slots)
            if require is not None and slots != require:
                continue
            found.append(_Found(cost / max(phones, 1), cost, " ".join(words), command, (int(i), int(j))))
        return min(found, key=lambda f: f.distance) if found else None

    def _trace(self, node: Node, i: int, j: int, target: float, run: _Pass, words: list[str],
               slots: dict[str, str]) -> None:
        """The words and slot values of a cheapest way ``node`` says words ``i:j`` at ``target``."""
        if run is not self._plain and not run.touches & self.spotter.slots_under(node):
            run = self._plain
        if isinstance(node, Word):
            words.append(node.text)
        elif isinstance(node, RuleRef):
            self._trace(self.spotter.sentences.rules[node.name], i, j, target, run, words, slots)
        elif isinstance(node, Alt):
            option = next(o for o in node.options if _close(self.matrix(o, run)[i, j], target))
            self._trace(option, i, j, target, run, words, slots)
        elif isinstance(node, SlotRef):
            for value in self.spotter.sentences.lists[node.list_name]:
                if not run.allows(node.slot, value.out):
                    continue
                if _close(self.matrix(value.node, run)[i, j], target):
                    slots[node.slot] = value.out
                    self._trace(value.node, i, j, target, run, words, slots)
                    return
            raise AssertionError("no value of the slot reaches the target")
        elif isinstance(node, Seq):
            self._trace_seq(node, i, j, target, run, words, slots)
        else:
            raise TypeError(node)

    def _trace_seq(self, node: Seq, i: int, j: int, target: float, run: _Pass, words: list[str],
                   slots: dict[str, str]) -> None:
        if not node.items:
            return
        self.matrix(node, run)
        prefixes = run.seqs.get(id(node)) or self._plain.seqs[id(node)]
        # Walk back: the last item ends at j; before it a gap, before that the prefix.
        parts: list[tuple[Node, int, int, float]] = []
        end, cost = j, target
        for k in range(len(node.items) - 1, 0, -1):
            last = self.matrix(node.items[k], run)
            before = prefixes[k - 1]
            done = False
            for mid in range(i, end + 1):
                if last[mid, end] == INF:
                    continue
                for start in range(i, mid + 1):
                    total = before[i, start] + self.gap[start, mid] + last[mid, end]
                    if _close(total, cost):
                        parts.append((node.items[k], mid, end, float(last[mid, end])))
                        end, cost = start, float(before[i, start])
                        done = True
                        break
                if done:
                    break
            if not done:
                raise AssertionError("no split of the sequence reaches the target")
        parts.append((node.items[0], i, end, cost))
        for item, a, b, c in reversed(parts):
            self._trace(item, a, b, c, run, words, slots)


def _minplus(a: Matrix, b: Matrix) -> Matrix:
    return np.asarray((a[:, :, None] + b[None, :, :]).min(axis=1), dtype=np.float64)


def _close(a: float, b: float) -> bool:
    return bool(abs(a - b) <= 1e-6 * max(1.0, abs(b)))
