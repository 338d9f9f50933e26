"""Grammars for recognizers, built from a game's sentence templates, and snapping.

``WordGraph`` is the sentence set of some intents as a word graph (a finite automaton).
From it come the Vosk phrase list (every word pair the sentences use, in real sentences)
and ``snap``: a soft grammar lets a recognizer return words that are not quite a sentence
("shields zero and two and"); when exactly one allowed command lies one edit away
(a word dropped, added or changed), the transcript is snapped to it, and otherwise it is
rejected. Snapping never guesses between two commands.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property

from assistant.engine import Command
from assistant.sentences import Alt, Node, RuleRef, SentenceSet, Seq, SlotRef, Word

START, END = "<s>", "</s>"

#: Words a button entry is made of ("one zero zero", "zero and two"), as said and as Whisper writes them
ENTRY_WORDS = frozenset({"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "zero", "oh", "o", "one", "two", "three",
                         "four", "five", "six", "seven", "eight", "nine", "r", "are", "and"})


#: More words than any button entry has ("one and two and zero and r" has seven)
ENTRY_LONGEST = 8
#: The most entries ``WordGraph.entries`` lists
ENTRIES_LISTED = 1000


def is_entry(words: Iterable[str]) -> bool:
    """Whether ``words`` are a button entry: entry words alone."""
    said = [w.strip(".,!?;:-").lower() for w in words]
    return bool(said) and all(w in ENTRY_WORDS for w in said)


#: The words that count: digits, said and written
NUMBER_WORDS = ENTRY_WORDS - {"r", "are", "and"}


def has_numbers(words: Iterable[str]) -> bool:
    """Whether ``words`` hold a number word ("explore one zero zero", "shields zero and two")."""
    return any(w.strip(".,!?;:-").lower() in NUMBER_WORDS for w in words)


class WordGraph:
    """The sentences of some intents as an acyclic word automaton (spoken words only)."""

    def __init__(self, sentences: SentenceSet, intents: Iterable[str] | None = None) -> None:
        wanted = set(sentences.intents if intents is None else intents)
        self.intents = frozenset(n for n in sentences.intents if n in wanted)
        self._sentences = sentences
        self.edges: list[list[tuple[str | None, int]]] = [[], []]
        self.start, self.final = 0, 1
        for name in sentences.intents:
            if name in self.intents:
                for template in sentences.intents[name].templates:
                    end = self._build(template, self.start)
                    self.edges[end].append((None, self.final))
        self._closure: list[frozenset[int]] = [frozenset()] * len(self.edges)
        self._entries: dict[frozenset[str], tuple[tuple[str, ...], ...]] = {}
        for state in reversed(range(len(self.edges))):
            self._closure[state] = self._close(state)

    # ----------------------------------------------------------------- building

    def _new(self) -> int:
        self.edges.append([])
        return len(self.edges) - 1

    def _build(self, node: Node, src: int) -> int:
        if isinstance(node, Word):
            if node.text.lstrip("-").isdigit():  # written digits: no recognizer says "20"
                return self._dead()
            dst = self._new()
            self.edges[src].append((node.text, dst))
            return dst
        if isinstance(node, Seq):
            for item in node.items:
                src = self._build(item, src)
            return src
        if isinstance(node, Alt):
            return self._join([self._build(option, src) for option in node.options])
        if isinstance(node, SlotRef):
            values = self._sentences.lists[node.list_name]
            return self._join([self._build(value.node, src) for value in values])
        if isinstance(node, RuleRef):
            return self._build(self._sentences.rules[node.name], src)
        raise TypeError(node)

    def _dead(self) -> int:
        return self._new()  # a state no edge leads to: this option can never be taken

    def _join(self, ends: list[int]) -> int:
        dst = self._new()
        for end in ends:
            self.edges[end].append((None, dst))
        return dst

    def _close(self, state: int) -> frozenset[int]:
        # Epsilon edges point to later states (their closures are already known: they are
        # computed last to first), or to the final state, which has no edges out.
        found = {state}
        for word, dst in self.edges[state]:
            if word is None:
                found |= self._closure[dst] if self._closure[dst] else self._close(dst)
        return frozenset(found)

    # ----------------------------------------------------------------- queries

    @property
    def size(self) -> int:
        return len(self.edges)

    def vocabulary(self) -> set[str]:
        return {w for out in self.edges for w, _ in out if w is not None}

    def refused_vocabulary(self) -> set[str]:
        """The words of the game's sentences that none of this graph's can say: what only the
        commands the rules refuse now are made of."""
        return self._sentences.vocabulary() - self.vocabulary()

    def _step(self, states: Iterable[int], word: str) -> frozenset[int]:
        found: set[int] = set()
        for state in states:
            for label, dst in self.edges[state]:
                if label == word:
                    found |= self._closure[dst]
        return frozenset(found)

    def _forward(self, words: list[str]) -> list[frozenset[int]]:
        sets = [self._closure[self.start]]
        for word in words:
            sets.append(self._step(sets[-1], word))
        return sets

    def _backward(self, words: list[str]) -> list[frozenset[int]]:
        """``back[i]``: the (closed-over) states from which ``words[i:]`` reaches the end."""
        n = len(words)
        back: list[frozenset[int]] = [frozenset()] * (n + 1)
        back[n] = frozenset(s for s in range(self.size) if self.final in self._closure[s])
        for i in reversed(range(n)):
            back[i] = frozenset(s for s in range(self.size) if self._enters(s, words[i], back[i + 1]))
        return back

    def _enters(self, state: int, word: str, targets: frozenset[int]) -> bool:
        return any(label == word and dst in targets
                   for t in self._closure[state] for label, dst in self.edges[t])

    def start_states(self) -> frozenset[int]:
        """Where every sentence starts (closed over empty steps)."""
        return self._closure[self.start]

    def following(self, states: frozenset[int]) -> dict[str, frozenset[int]]:
        """Each word that may come next from ``states``, and the (closed) states after it."""
        out: dict[str, frozenset[int]] = {}
        for state in states:
            for label, dst in self.edges[state]:
                if label is not None:
                    out[label] = out.get(label, frozenset()) | self._closure[dst]
        return out

    def ends(self, states: frozenset[int]) -> bool:
        """Whether a sentence may end in ``states``."""
        return self.final in states

    def entries(self, words: Collection[str] = ENTRY_WORDS) -> tuple[tuple[str, ...], ...]:
        """The button entries the graph allows made of ``words`` (entry words, ``is_entry``), at
        most ENTRIES_LISTED of them, shortest first."""
        key = frozenset(words) & ENTRY_WORDS
        if key not in self._entries:
            self._entries[key] = self._list_entries(key)
        return self._entries[key]

    def _list_entries(self, allowed: frozenset[str]) -> tuple[tuple[str, ...], ...]:
        found: list[tuple[str, ...]] = []
        layer: list[tuple[tuple[str, ...], frozenset[int]]] = [((), self.start_states())]
        while layer and len(found) < ENTRIES_LISTED:
            grown = []
            for words, states in layer:
                for word, after in sorted(self.following(states).items()):
                    if word in allowed and len(words) < ENTRY_LONGEST:
                        grown.append(((*words, word), after))
                        if self.ends(after):
                            found.append((*words, word))
            layer = grown
        return tuple(found[:ENTRIES_LISTED])

    def accepts(self, words: list[str]) -> bool:
        return self.final in self._forward(words)[-1]

    def neighbours(self, words: list[str]) -> list[list[str]]:
        """Every sentence one edit (drop, add or change a word) away from ``words``."""
        fwd, back = self._forward(words), self._backward(words)
        found: dict[tuple[str, ...], None] = {}
        n = len(words)
        for i in range(n + 1):
            # add a word before position i
            for word in self._bridges(fwd[i], back[i]):
                found[tuple(words[:i] + [word] + words[i:])] = None
            if i == n:
                break
            # drop word i
            if fwd[i] & back[i + 1]:
                found[tuple(words[:i] + words[i + 1:])] = None
            # change word i
            for word in self._bridges(fwd[i], back[i + 1]):
                if word != words[i]:
                    found[tuple(words[:i] + [word] + words[i + 1:])] = None
        return [list(k) for k in sorted(found) if k != tuple(words)]  # sorted: the same order every run

    def _bridges(self, here: frozenset[int], there: frozenset[int]) -> set[str]:
        return {label for s in here for label, dst in self.edges[s] if label is not None and dst in there}

    def transitions(self) -> Iterator[tuple[int, int, float, str | None]]:
        """The graph without chains of empty steps (PocketSphinx follows only one at a time):
        (from, to, probability, word or None), each way out of a state equally likely."""
        for state in range(self.size):
            if state == self.final:
                continue
            outs = [(label, dst) for t in self._closure[state] for label, dst in self.edges[t] if label]
            ends = self.final in self._closure[state]
            share = 1.0 / (len(outs) + ends) if outs or ends else 0.0
            for label, dst in outs:
                yield state, dst, share, label
            if ends:
                yield state, self.final, share, None

    def shared_ends(self) -> tuple[int, int, list[tuple[int, int, float, str | None]]]:
        """``transitions`` with states made one where nothing the search keeps could tell them
        apart: (start, final, transitions). Two states are made one when every way into each
        is by one and the same word and their ways on are the same (the same words, each as
        likely, into states that are again the same, down to the end). Unlike ``minimal`` no
        word's chance moves, and PocketSphinx, which keeps one history per state and begins a
        word's sounds from the word before it, keeps the same best history: its words half-way
        are the graph's own (108 of 108 clips' partial words the same, 2026-12-05), while what
        many sentences end with is searched once (the card game's stat moment: 11,313
        transitions -> 1,992). Two ways from one state by the same word into states made one
        stay two (PocketSphinx keeps the likelier of two equal ways, as the graph does)."""
        ways: list[list[tuple[str | None, int, float]]] = [[] for _ in range(self.size)]
        into: list[set[str | None]] = [set() for _ in range(self.size)]
        for src, dst, chance, word in self.transitions():
            ways[src].append((word, dst, chance))
            into[dst].add(word)
        end = -2  # the final state's kind; -1: a state no sentence goes on from
        Key = tuple[tuple[tuple[str, float, int], ...], str | int]
        merged: dict[Key, int] = {}
        kind: dict[int, int] = {}

        def kind_of(state: int) -> int:
            if state == self.final:
                return end
            if state not in kind:
                out = tuple(sorted((word or "", round(chance, 12), k) for word, dst, chance in ways[state]
                                   if (k := kind_of(dst)) != -1))
                entered = next(iter(into[state])) if len(into[state]) == 1 else None
                key: Key = (out, entered if entered is not None else state)  # else: a state of its own
                kind[state] = merged.setdefault(key, len(merged)) if out else -1
            return kind[state]

        start = kind_of(self.start)
        if start < 0:
            return 0, 1, []  # no sentence at all
        final = len(merged)
        transitions: list[tuple[int, int, float, str | None]] = []
        for (out, _), state in merged.items():
            transitions.extend((state, final if dst == end else dst, chance, word or None) for word, chance, dst in out)
        return start, final, transitions

    def minimal(self) -> tuple[int, int, list[tuple[int, int, float, str | None]]]:
        """The same sentences, each as likely as ``transitions`` makes it, as the smallest
        deterministic automaton: (start, final, transitions as ``transitions`` gives them).
        The graph repeats what its sentences share (a range slot's "twenty one" ... "twenty
        nine" are ten ways that all begin with "twenty"); here a word leaves a state once,
        carrying the chances of all the ways it stands for, and states with the same sentences
        and chances after them are one. PocketSphinx's search costs a fraction as much on the
        card game's stat moments (11,313 transitions there, 588 here)."""
        ways: list[list[tuple[str | None, int, float]]] = [[] for _ in range(self.size)]
        for src, dst, chance, word in self.transitions():
            ways[src].append((word, dst, chance))
        # weighted subset construction: a state is the graph's states it may be in, with the
        # share of the chance of the words so far that each holds
        Subset = tuple[tuple[int, float], ...]
        first: Subset = ((self.start, 1.0),)
        index: dict[Subset, int] = {first: 0}
        order = [first]
        after: list[tuple[dict[str, tuple[int, float]], float]] = []
        for subset in order:  # ``order`` grows as new subsets are found
            chances: dict[str, dict[int, float]] = {}
            ends = 0.0
            for state, share in subset:
                for word, dst, chance in ways[state]:
                    if word is None:
                        ends += share * chance
                    else:
                        into = chances.setdefault(word, {})
                        into[dst] = into.get(dst, 0.0) + share * chance
            row: dict[str, tuple[int, float]] = {}
            for word in sorted(chances):
                total = sum(chances[word].values())
                subset_after = tuple(sorted((dst, round(c / total, 12)) for dst, c in chances[word].items()))
                if subset_after not in index:
                    index[subset_after] = len(order)
                    order.append(subset_after)
                row[word] = (index[subset_after], total)
            after.append((row, ends))
        # states with the same sentences and chances after them are merged (no cycles: a state's
        # kind is known once the kinds of the states after it are); a state no sentence goes on
        # from (a written digit's dead end) is left out, and the ways into it (kind -1)
        merged: dict[tuple[float, tuple[tuple[str, float, int], ...]], int] = {}
        kind: dict[int, int] = {}

        def kind_of(state: int) -> int:
            if state not in kind:
                row, ends = after[state]
                out = tuple((word, round(chance, 12), k) for word, (dst, chance) in row.items()
                            if (k := kind_of(dst)) >= 0)
                kind[state] = merged.setdefault((round(ends, 12), out), len(merged)) if out or ends else -1
            return kind[state]

        start = kind_of(0)
        if start < 0:
            return 0, 1, []  # no sentence at all
        final = len(merged)
        transitions: list[tuple[int, int, float, str | None]] = []
        for (ends, out), state in merged.items():
            transitions.extend((state, dst, chance, word) for word, chance, dst in out)
            if ends:
                transitions.append((state, final, ends, None))
        return start, final, transitions

    # ----------------------------------------------------------------- phrase lists

    def bigrams(self) -> set[tuple[str, str]]:
        """Every pair of words that follow each other in some sentence, with <s> and </s>."""
        pairs: set[tuple[str, str]] = set()
        before = self._labels_before
        for state in range(self.size):
            for label, dst in self.edges[state]:
                if label is None:
                    continue
                pairs.update((b, label) for b in before[state])
                if self.final in self._closure[dst]:
                    pairs.add((label, END))
        return pairs

    @cached_property
    def _labels_before(self) -> list[set[str]]:
        """For each state, the words (or <s>) that can come just before leaving it."""
        into: list[set[str]] = [set() for _ in range(self.size)]
        into[self.start].add(START)
        for src in range(self.size):
            for label, dst in self.edges[src]:
                if label is not None:
                    into[dst].add(label)
        spread: list[set[str]] = [set() for _ in range(self.size)]
        for s in range(self.size):
            for t in self._closure[s]:
                spread[t] |= into[s]
        return spread

    def covering_sentences(self) -> list[str]:
        """Real sentences that together use every word pair of the grammar.

        Vosk turns a phrase list into a bigram language model, so these few sentences give it
        the same word pairs as the (possibly huge) full expansion.
        """
        covered: set[tuple[str, str]] = set()
        out: list[str] = []
        for pair in sorted(self.bigrams()):
            if pair in covered:
                continue
            words = self._sentence_through(pair)
            if words is None:
                continue
            out.append(" ".join(words))
            seq = [START, *words, END]
            covered.update(zip(seq, seq[1:], strict=False))
        return out

    @cached_property
    def _shortest(self) -> tuple[dict[int, list[str]], dict[int, list[str]]]:
        """Fewest-word paths from the start to each state, and from each state to the end.

        States are numbered so that every edge but those into the final state points forward.
        """
        to: dict[int, list[str]] = {self.start: []}
        for state in range(self.size):
            if state not in to:
                continue
            for label, dst in self.edges[state]:
                cand = to[state] + ([label] if label else [])
                if dst not in to or len(cand) < len(to[dst]):
                    to[dst] = cand
        frm: dict[int, list[str]] = {self.final: []}
        for state in reversed(range(self.size)):
            options = [([label] if label else []) + frm[dst] for label, dst in self.edges[state] if dst in frm]
            if options and state != self.final:
                frm[state] = min(options, key=len)
        return to, frm

    def _sentence_through(self, pair: tuple[str, str]) -> list[str] | None:
        to, frm = self._shortest
        first, second = pair
        best: list[str] | None = None
        for state in to:
            for label, dst in self.edges[state]:
                cand: list[str] | None = None
                if label is None:
                    continue
                if first == START:
                    if label == second and state in self._closure[self.start] and dst in frm:
                        cand = [label] + frm[dst]
                elif label != first:
                    continue
                elif second == END:
                    if self.final in self._closure[dst]:
                        cand = to[state] + [label]
                else:
                    ends = [d2 for t in self._closure[dst] for lab2, d2 in self.edges[t]
                            if lab2 == second and d2 in frm]
                    if ends:
                        cand = to[state] + [label, second] + min((frm[d] for d in ends), key=len)
                if cand is not None and (best is None or len(cand) < len(best)):
                    best = cand
        return best

    def vosk_grammar(self) -> str:
        """The JSON phrase list for ``KaldiRecognizer``/``SetGrammar``, with "[unk]" for the rest."""
        return json.dumps([*self.covering_sentences(), "[unk]"])


# --------------------------------------------------------------------------- snapping


@dataclass(frozen=True)
class Snap:
    """The outcome of checking recognized words against the allowed sentences."""

    words: tuple[str, ...]          # the allowed sentence (empty when rejected)
    command: Command | None
    edits: int                      # 0 exact, 1 snapped
    reason: str = ""                # why it was rejected
    candidates: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return " ".join(self.words)


def snap(words: list[str], graph: WordGraph, sentences: SentenceSet, max_edits: int = 1,
         min_words: int = 3) -> Snap:
    """The one allowed command ``words`` stand for, exactly or within ``max_edits`` (0 or 1).

    Snapping needs at least ``min_words`` heard words: one or two stray words are too little
    evidence to change.
    """
    allowed = graph.intents
    command = sentences.match(words, allowed) if graph.accepts(words) else None
    if command is not None:
        return Snap(tuple(words), command, 0)
    if max_edits < 1 or len(words) < min_words:
        return Snap((), None, 0, "not an allowed sentence")
    commands: dict[Command, list[str]] = {}
    for candidate in graph.neighbours(words):
        found = sentences.match(candidate, allowed)
        if found is not None:
            commands.setdefault(found, candidate)
    if len(commands) == 1:
        (found, candidate), = commands.items()
        return Snap(tuple(candidate), found, 1)
    if not commands:
        return Snap((), None, 1, "no allowed sentence near")
    return Snap((), None, 1, "could mean more than one command",
                tuple(" ".join(c) for c in commands.values()))

