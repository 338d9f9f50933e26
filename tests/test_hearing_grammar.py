"""One sentence source: expansion, word graph, recognizer grammars and snapping agree."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable

import pytest

from assistant.engine import Command
from assistant.games import available, game_module
from assistant.hearing.grammar import END, START, WordGraph, snap
from assistant.sentences import SentenceSet

OMEGA = game_module("omega-virus").sentences()


def spoken(sentences: SentenceSet, limit: int = 100_000) -> list[tuple[str, Command]]:
    return [(t, c) for t, c in sentences.expand(limit=limit) if not any(ch.isdigit() for ch in t)]


def test_every_omega_sentence_maps_to_exactly_one_command() -> None:
    sentences = list(OMEGA.expand())
    assert len(sentences) > 50_000
    for text, command in sentences:
        assert OMEGA.match_all(text) == [command], text


@pytest.mark.parametrize("game", [g for g in available() if g != "omega-virus"])
def test_other_games_sentences_map_to_one_command(game: str) -> None:
    sentences = game_module(game).sentences()
    rng = random.Random(3)
    everything = list(sentences.expand(limit=3000))
    for text, command in rng.sample(everything, min(3000, len(everything))):
        assert sentences.match_all(text) == [command], text


@pytest.mark.parametrize("said, intent, slots", [
    ("explore oh one two", "explore", {"d1": "0", "d2": "1", "d3": "2"}),
    ("explore the room one zero zero", "explore", {"d1": "1", "d2": "0", "d3": "0"}),
    ("shields zero and two and are", "shields", {"b1": "0", "b2": "2", "b3": "R"}),
    ("energize r", "shields", {"b1": "R"}),
    ("terminate with are", "terminate", {"b1": "R"}),
    ("attack the yellow probe", "attack", {"target": "yellow", "unit": "probe"}),
    ("oh", "buttons", {"b1": "0"}),
])
def test_natural_variants(said: str, intent: str, slots: dict[str, str]) -> None:
    assert OMEGA.match(said) == Command(intent, slots)


def test_graph_accepts_exactly_the_sentences() -> None:
    graph = WordGraph(OMEGA)
    sentences = spoken(OMEGA)
    assert all(graph.accepts(t.split()) for t, _ in sentences[::7])
    known = {t for t, _ in sentences}
    rng = random.Random(5)
    vocab = sorted(graph.vocabulary())
    tried = 0
    for _ in range(3000):
        words = [rng.choice(vocab) for _ in range(rng.randint(1, 5))]
        assert graph.accepts(words) == (" ".join(words) in known), words
        tried += " ".join(words) in known
    assert tried > 0  # some random word strings are sentences, so both answers were checked


def test_graph_for_some_intents_only() -> None:
    graph = WordGraph(OMEGA, ["skill", "repeat"])
    assert graph.intents == frozenset({"skill", "repeat"})
    assert graph.accepts("enter skill level two".split())
    assert not graph.accepts("explore one zero zero".split())
    assert graph.vocabulary() == OMEGA.vocabulary(["skill", "repeat"])


def test_covering_sentences_use_every_word_pair_and_nothing_else() -> None:
    for game in available():
        sentences = game_module(game).sentences()
        graph = WordGraph(sentences)
        cover = graph.covering_sentences()
        pairs: set[tuple[str, str]] = set()
        for text in cover:
            assert graph.accepts(text.split()), (game, text)
            seq = [START, *text.split(), END]
            pairs.update(itertools.pairwise(seq))
        assert pairs == graph.bigrams(), game
    full: set[tuple[str, str]] = set()
    for text, _ in spoken(OMEGA):
        full.update(itertools.pairwise([START, *text.split(), END]))
    assert WordGraph(OMEGA).bigrams() == full


def test_vosk_grammar_is_a_json_phrase_list_with_unk() -> None:
    phrases = json.loads(WordGraph(OMEGA, ["explore", "pass"]).vosk_grammar())
    assert phrases[-1] == "[unk]"
    assert "pass" in phrases
    assert all(p == "[unk]" or OMEGA.match(p) is not None for p in phrases)
    assert len(phrases) < 60  # a few sentences stand for all 90 explore sentences


def test_transitions_have_no_chains_of_empty_steps() -> None:
    graph = WordGraph(OMEGA)
    empties = [(s, d) for s, d, _, w in graph.transitions() if w is None]
    assert empties and all(d == graph.final for _, d in empties)
    for state in {s for s, _, _, _ in graph.transitions()}:
        total = sum(p for s, _, p, _ in graph.transitions() if s == state)
        assert total == pytest.approx(1.0)


@pytest.mark.parametrize("heard, expected, edits", [
    ("explore one zero zero", Command("explore", {"d1": "1", "d2": "0", "d3": "0"}), 0),
    ("attack the the red commando", Command("attack", {"target": "red", "unit": "commando"}), 1),
    ("shields zero and two and", None, 1),             # drop "and", or finish a fourth button?
    ("explore one zero", None, 1),                     # which third digit?
    ("what do i", Command("inventory", {}), 1),       # too short to snap? 3 words is enough
    ("new", None, 0),                                  # one stray word is never snapped
    ("how much time left left", Command("time_left", {}), 1),
])
def test_snap(heard: str, expected: Command | None, edits: int) -> None:
    result = snap(heard.split(), WordGraph(OMEGA), OMEGA)
    assert result.command == expected
    assert result.edits == edits
    if expected is None:
        assert result.reason


def test_snap_never_leaves_the_allowed_intents() -> None:
    graph = WordGraph(OMEGA, ["skill"])
    assert snap("explore one zero zero".split(), graph, OMEGA).command is None
    assert snap("skill level level two".split(), graph, OMEGA).command == Command("skill", {"level": "2"})


def test_snap_reports_the_candidates_when_ambiguous() -> None:
    result = snap("explore one zero".split(), WordGraph(OMEGA), OMEGA)
    assert result.command is None
    meant = {OMEGA.match(candidate) for candidate in result.candidates}  # "oh" and "zero" are both 0
    assert Command("explore", {"d1": "1", "d2": "0", "d3": "0"}) in meant
    assert Command("explore", {"d1": "1", "d2": "0", "d3": "2"}) in meant


def _walks(start: int, final: int, transitions: list[tuple[int, int, float, str | None]], count: int,
           rng: random.Random) -> list[list[str]]:
    """``count`` random sentences of an automaton given as (start, final, transitions)."""
    ways: dict[int, list[tuple[int, str | None]]] = {}
    for src, dst, _, word in transitions:
        ways.setdefault(src, []).append((dst, word))
    found: list[list[str]] = []
    while len(found) < count:
        state, words = start, []
        while state != final and state in ways:  # a dead end (a written digit's) starts again
            state, word = rng.choice(ways[state])
            if word is not None:
                words.append(word)
        if state == final:
            found.append(words)
    return found


def _chance(start: int, final: int, transitions: list[tuple[int, int, float, str | None]], words: list[str]) -> float:
    """How likely an automaton makes ``words``: summed over its ways through (0: not a sentence)."""
    here = {start: 1.0}
    for word in [*words, None]:
        there: dict[int, float] = {}
        for src, dst, chance, label in transitions:
            if label == word and src in here:
                there[dst] = there.get(dst, 0.0) + here[src] * chance
        here = there
    return here.get(final, 0.0)


def _so_far(start: int, final: int, transitions: list[tuple[int, int, float, str | None]]
            ) -> Callable[[list[str]], float]:
    """How likely an automaton makes words as the start of a sentence (summed over its ways
    that a sentence can go on from: a written digit's dead end is none)."""
    alive = {final}
    while True:
        more = {src for src, dst, _, _ in transitions if dst in alive} - alive
        if not more:
            break
        alive |= more
    ways: dict[tuple[int, str | None], list[tuple[int, float]]] = {}
    for src, dst, chance, label in transitions:
        if dst in alive:
            ways.setdefault((src, label), []).append((dst, chance))

    def chance(words: list[str]) -> float:
        here = {start: 1.0}
        for word in words:
            there: dict[int, float] = {}
            for src, p in here.items():
                for dst, c in ways.get((src, word), []):
                    there[dst] = there.get(dst, 0.0) + p * c
            here = there
        return sum(here.values())

    return chance


@pytest.mark.parametrize("game", available())
def test_shared_ends_keep_every_word_s_chance_and_make_one_only_states_entered_by_one_word(game: str) -> None:
    """The live pass searches ``WordGraph.shared_ends``: the graph's sentences, each as likely,
    and each start of one as likely word by word (no chance moves, unlike ``minimal``); a state
    made of several is entered by one word only (PocketSphinx begins a word's sounds from the
    word before it, so states entered by different words are kept apart); far smaller where
    sentences share their ends (the card game's stat lines)."""
    graph = WordGraph(game_module(game).sentences())
    start, final, transitions = graph.shared_ends()
    nfa = list(graph.transitions())
    rng = random.Random(5)
    shared_so_far, graph_so_far = _so_far(start, final, transitions), _so_far(graph.start, graph.final, nfa)
    for words in _walks(start, final, transitions, 150, rng) + _walks(graph.start, graph.final, nfa, 150, rng):
        assert graph.accepts(words), words
        assert _chance(start, final, transitions, words) == pytest.approx(
            _chance(graph.start, graph.final, nfa, words), rel=1e-9), words
        for cut in range(1, len(words)):
            assert shared_so_far(words[:cut]) == pytest.approx(graph_so_far(words[:cut]), rel=1e-9), words[:cut]
    assert len(transitions) <= len(nfa)
    assert WordGraph(game_module(game).sentences(), []).shared_ends() == (0, 1, [])
    if game == "msx-cards":
        assert len(transitions) * 4 < len(nfa), (len(transitions), len(nfa))


def test_shared_ends_make_one_the_states_entered_by_the_same_word_only() -> None:
    """"go red one" and "stop red one": after "red" the same ways on, entered by the same word,
    made one; "red one" and "blue one": the same ways on, entered by different words, kept apart."""
    sentences = SentenceSet({"intents": {"move": ["(go | stop) red one"], "pick": ["(red | blue) one"]}})
    start, final, transitions = WordGraph(sentences).shared_ends()
    after: dict[str, set[tuple[int, ...]]] = {}
    ways = {(src, word): dst for src, dst, _, word in transitions}
    for first in ("go", "stop"):
        after.setdefault(first, set()).add((ways[(ways[(start, first)], "red")],))
    assert len(after["go"] | after["stop"]) == 1  # one state after "go red" and "stop red"
    assert ways[(start, "red")] != ways[(start, "blue")]  # entered by different words: apart
    for words in (["go", "red", "one"], ["stop", "red", "one"], ["red", "one"], ["blue", "one"]):
        assert _chance(start, final, transitions, words) > 0, words


@pytest.mark.parametrize("game", available())
def test_the_minimal_automaton_has_the_graph_s_sentences_as_likely_each_word_once_from_a_state(game: str) -> None:
    """PocketSphinx searches ``WordGraph.minimal``: the same sentences, each as likely as the
    graph's ``transitions`` make it (sampled both ways, seeded), deterministic (a word leaves a
    state once), with no dead ends, and far smaller where slots repeat words (the card game's
    stat lines)."""
    graph = WordGraph(game_module(game).sentences())
    start, final, transitions = graph.minimal()
    ways = [(src, word) for src, _, _, word in transitions]
    assert len(ways) == len(set(ways))
    assert {dst for _, dst, _, _ in transitions} - {final} <= {src for src, _ in ways}  # no dead ends
    nfa = list(graph.transitions())
    rng = random.Random(7)
    for words in _walks(start, final, transitions, 150, rng) + _walks(graph.start, graph.final, nfa, 150, rng):
        assert graph.accepts(words), words
        assert _chance(start, final, transitions, words) == pytest.approx(
            _chance(graph.start, graph.final, nfa, words), rel=1e-6), words
    assert _chance(start, final, transitions, ["not", "a", "sentence"]) == 0.0
    assert len(transitions) <= len(nfa)
    assert WordGraph(game_module(game).sentences(), []).minimal() == (0, 1, [])  # no intents, no sentence
    if game == "msx-cards":
        assert len(transitions) * 5 < len(nfa), (len(transitions), len(nfa))


def test_entries_and_number_words_are_told_apart() -> None:
    from assistant.hearing.grammar import has_numbers, is_entry

    assert is_entry("zero and two".split()) and is_entry(["0", "2."])
    assert not is_entry("shields zero and two".split()) and not is_entry([])
    assert has_numbers("shields zero and two".split()) and has_numbers("Explore 100.".split()[1:]) is False
    assert has_numbers(["Explore", "1", "0", "0."]) and not has_numbers("we are ready".split())
