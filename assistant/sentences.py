"""Spoken sentences as data: one template source per game feeds every recognizer and the matcher.

Template syntax (after hassil): ``(a | b)`` alternatives, ``[x]`` optional, ``{list}`` or
``{list:slot}`` a value from a list stored in a slot, ``<rule>`` a named sub-template.

    explore [the] [room] <room>
    attack [the] {color:target} {unit}

``SentenceSet.match`` turns a transcript into a ``Command`` (or None: not understood),
``expand`` lists every sentence with the command it stands for (so tests can check that
each maps to exactly one command), and ``to_jsgf`` writes a grammar for recognizers.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import yaml

from assistant.engine import Command

# --------------------------------------------------------------------------- AST


@dataclass(frozen=True)
class Word:
    text: str


@dataclass(frozen=True)
class Seq:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Alt:
    options: tuple[Node, ...]


@dataclass(frozen=True)
class SlotRef:
    list_name: str
    slot: str


@dataclass(frozen=True)
class RuleRef:
    name: str


Node = Word | Seq | Alt | SlotRef | RuleRef
EMPTY = Seq(())


class TemplateError(ValueError):
    """A sentence template or list that cannot be parsed."""


_TOKEN = re.compile(r"\s*(\(|\)|\[|\]|\||\{[^}]+\}|<[^>]+>|[^\s()\[\]|{}<>]+)")


def parse_template(text: str) -> Node:
    tokens = _TOKEN.findall(text)
    if "".join(tokens).replace(" ", "") != re.sub(r"\s+", "", text):
        raise TemplateError(f"cannot parse template: {text!r}")
    pos = 0

    def parse_alt(closer: str | None) -> Node:
        nonlocal pos
        options: list[Node] = []
        items: list[Node] = []
        while pos < len(tokens):
            tok = tokens[pos]
            if tok == closer:
                break
            pos += 1
            if tok == "|":
                options.append(_seq(items))
                items = []
            elif tok == "(":
                items.append(parse_alt(")"))
                _expect(")")
            elif tok == "[":
                items.append(Alt((parse_alt("]"), EMPTY)))
                _expect("]")
            elif tok in (")", "]"):
                raise TemplateError(f"unbalanced {tok!r} in {text!r}")
            elif tok.startswith("{"):
                name, _, slot = tok[1:-1].partition(":")
                items.append(SlotRef(name.strip(), (slot or name).strip()))
            elif tok.startswith("<"):
                items.append(RuleRef(tok[1:-1].strip()))
            else:
                items.append(Word(tok.lower()))
        options.append(_seq(items))
        return options[0] if len(options) == 1 else Alt(tuple(options))

    def _expect(tok: str) -> None:
        nonlocal pos
        if pos >= len(tokens) or tokens[pos] != tok:
            raise TemplateError(f"missing {tok!r} in {text!r}")
        pos += 1

    node = parse_alt(None)
    if pos != len(tokens):
        raise TemplateError(f"unexpected {tokens[pos]!r} in {text!r}")
    return node


def _seq(items: list[Node]) -> Node:
    return items[0] if len(items) == 1 else Seq(tuple(items))


# --------------------------------------------------------------------------- numbers

_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen " \
        "fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def number_words(n: int) -> str:
    """English words for 0-999 ("twenty one", "one hundred five")."""
    if n < 0:
        return "minus " + number_words(-n)
    if n < 20:
        return _ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return _TENS[tens] + ("" if ones == 0 else " " + _ONES[ones])
    hundreds, rest = divmod(n, 100)
    return _ONES[hundreds] + " hundred" + ("" if rest == 0 else " " + number_words(rest))


# --------------------------------------------------------------------------- text


def normalize(text: str, split_digits: bool = False) -> list[str]:
    """Lower-case words; punctuation dropped; "100" becomes "1 0 0" when digits are spoken singly."""
    text = text.lower().replace("’", "'")
    text = re.sub(r"(?<=\d)-(?=\d)", " ", text)
    text = re.sub(r"-(?=\d)", " minus ", text)
    text = re.sub(r"[^\w'+\s]", " ", text)
    # A letter written against digits is said apart: "O1" is "o 1", "R2" is "r 2".
    text = re.sub(r"\b([a-z])(?=\d)|(?<=\d)([a-z])\b", lambda m: f" {m.group(0)} ", text)
    words: list[str] = []
    for tok in text.split():
        if split_digits and tok.isdigit():
            words.extend(_ONES[int(d)] for d in tok)
        else:
            words.append(tok.strip("'"))
    return [w for w in words if w]


# --------------------------------------------------------------------------- sentence sets


@dataclass
class ListValue:
    node: Node
    out: str


@dataclass
class Intent:
    name: str
    templates: list[Node]
    help: str = ""
    sources: list[str] = field(default_factory=list)
    #: acting on it by mistake loses nothing (repeat, help, status, louder): a command of it heard
    #: with doubt is never asked about; it is let go the first time and acted on when said again
    #: (``live.policy.lets_go``; ``harmless: true`` in the sentences file)
    harmless: bool = False
    #: it asks its own yes-or-no question before anything is lost ("Shut down? Say yes or no."): a
    #: command of it heard with doubt is acted on, and that question is the only one asked
    #: (``confirms: true`` in the sentences file)
    confirms: bool = False


Slots = tuple[tuple[str, str], ...]

#: (package, file) of the sentences every game shares: help, pause, resume, new game, yes, no, undo, and
#: the box's own (main menu, volume, listening, shut down).
SESSION_SENTENCES = ("assistant", "session_sentences.yaml")


def _read(package: str, filename: str) -> dict[str, Any]:
    data = yaml.safe_load(resources.files(package).joinpath(filename).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise TemplateError(f"{package}/{filename}: expected lists, rules and intents")
    return data


def merge(*sources: Mapping[str, Any]) -> dict[str, Any]:
    """Sentence files merged in order (as hassil merges its files): lists, rules and intents of
    the same name are taken from the first file that has them; ``split_digits`` from the first."""
    merged: dict[str, Any] = {"lists": {}, "rules": {}, "intents": {}}
    for source in sources:
        for section in ("lists", "rules", "intents"):
            for name, value in (source.get(section) or {}).items():
                merged[section].setdefault(name, value)
        for key, value in source.items():
            if key not in merged:
                merged[key] = value
    return merged


class SentenceSet:
    """All spoken sentences of one game."""

    def __init__(self, data: Mapping[str, Any], source: str = "<sentences>") -> None:
        self.source = source
        self.split_digits = bool(data.get("split_digits", False))
        self.lists: dict[str, list[ListValue]] = {}
        for name, spec in (data.get("lists") or {}).items():
            self.lists[name] = self._parse_list(name, spec)
        self.rules: dict[str, Node] = {
            name: parse_template(str(t)) for name, t in (data.get("rules") or {}).items()
        }
        self.intents: dict[str, Intent] = {}
        for name, spec in (data.get("intents") or {}).items():
            if not isinstance(name, str):
                raise TemplateError(f"{source}: intent name {name!r} is not text; "
                                    'quote YAML words like "yes" and "no"')
            if isinstance(spec, list):
                spec = {"sentences": spec}
            sentences = [str(s) for s in spec.get("sentences", [])]
            if not sentences:
                raise TemplateError(f"{source}: intent {name!r} has no sentences")
            self.intents[name] = Intent(
                name,
                [parse_template(s) for s in sentences],
                str(spec.get("help", "")),
                sentences,
                bool(spec.get("harmless", False)),
                bool(spec.get("confirms", False)),
            )
        self._check_refs()

    @classmethod
    def load(cls, package: str, filename: str = "sentences.yaml") -> SentenceSet:
        return cls(_read(package, filename), f"{package}/{filename}")

    @classmethod
    def load_game(cls, package: str, undo: bool, filename: str = "sentences.yaml",
                  session: Iterable[str] | None = None, lists: Mapping[str, Any] | None = None) -> SentenceSet:
        """A game's sentences.yaml with the session's own sentences merged in after it (the
        game's intents first, so they keep their order; ``undo`` only for games that have it).

        ``session``: only these of the session's intents (the spoken menu takes a few);
        ``lists``: lists made by the caller (the menu's games), first."""
        shared = _read(*SESSION_SENTENCES)
        keep = set(shared["intents"]) if session is None else set(session)
        if not undo:
            keep.discard("undo")
        shared["intents"] = {k: v for k, v in shared["intents"].items() if k in keep}
        return cls(merge({"lists": lists or {}}, _read(package, filename), shared), f"{package}/{filename}")

    def _parse_list(self, name: str, spec: Any) -> list[ListValue]:
        if isinstance(spec, dict) and "range" in spec:
            lo, hi = int(spec["range"][0]), int(spec["range"][1])
            values = []
            for n in range(lo, hi + 1):
                # Typed digits: as typed, or as normalize() splits them ("10" -> "one zero").
                written = " ".join(_ONES[int(d)] for d in str(n)) if self.split_digits else str(n)
                forms = [number_words(n), written]
                if n < 0:  # normalize() turns a typed "-2" into "minus 2"
                    forms = [number_words(n), f"minus {-n}", "negative " + number_words(-n), f"negative {-n}"]
                values.append(ListValue(Alt(tuple(parse_template(f) for f in forms)), str(n)))
            return values
        if isinstance(spec, dict):
            spec = spec.get("values", [])
        values = []
        for item in spec:
            if isinstance(item, dict):
                spoken = item["in"]
                out = str(item.get("out", spoken))
            else:
                spoken, out = str(item), str(item)
            forms = spoken if isinstance(spoken, list) else [spoken]
            nodes = tuple(parse_template(str(f)) for f in forms)
            values.append(ListValue(nodes[0] if len(nodes) == 1 else Alt(nodes), out))
        if not values:
            raise TemplateError(f"{self.source}: list {name!r} is empty")
        return values

    def _check_refs(self) -> None:
        def walk(node: Node) -> Iterator[Node]:
            yield node
            if isinstance(node, Seq):
                for n in node.items:
                    yield from walk(n)
            elif isinstance(node, Alt):
                for n in node.options:
                    yield from walk(n)

        roots = [t for i in self.intents.values() for t in i.templates] + list(self.rules.values())
        for root in roots:
            for node in walk(root):
                if isinstance(node, SlotRef) and node.list_name not in self.lists:
                    raise TemplateError(f"{self.source}: unknown list {{{node.list_name}}}")
                if isinstance(node, RuleRef) and node.name not in self.rules:
                    raise TemplateError(f"{self.source}: unknown rule <{node.name}>")

    # ----------------------------------------------------------------- matching

    def _match(self, node: Node, words: list[str], pos: int, slots: Slots) -> Iterator[tuple[int, Slots]]:
        if isinstance(node, Word):
            if pos < len(words) and words[pos] == node.text:
                yield pos + 1, slots
        elif isinstance(node, Seq):
            yield from self._match_seq(node.items, 0, words, pos, slots)
        elif isinstance(node, Alt):
            for option in node.options:
                yield from self._match(option, words, pos, slots)
        elif isinstance(node, SlotRef):
            for value in self.lists[node.list_name]:
                for end, _ in self._match(value.node, words, pos, ()):
                    if end > pos:
                        yield end, slots + ((node.slot, value.out),)
        elif isinstance(node, RuleRef):
            yield from self._match(self.rules[node.name], words, pos, slots)

    def _match_seq(self, items: tuple[Node, ...], i: int, words: list[str], pos: int,
                   slots: Slots) -> Iterator[tuple[int, Slots]]:
        if i == len(items):
            yield pos, slots
            return
        for end, new_slots in self._match(items[i], words, pos, slots):
            yield from self._match_seq(items, i + 1, words, end, new_slots)

    def words(self, text: str) -> list[str]:
        return normalize(text, self.split_digits)

    def match_all(self, text: str | list[str], allowed: Iterable[str] | None = None) -> list[Command]:
        """Every distinct command the whole transcript can stand for, in intent order."""
        words = self.words(text) if isinstance(text, str) else text
        names = list(self.intents) if allowed is None else [n for n in self.intents if n in set(allowed)]
        found: list[Command] = []
        for name in names:
            for template in self.intents[name].templates:
                for end, slots in self._match(template, words, 0, ()):
                    if end == len(words):
                        command = Command(name, dict(slots))
                        if command not in found:
                            found.append(command)
        return found

    def match(self, text: str | list[str], allowed: Iterable[str] | None = None) -> Command | None:
        """The command a transcript stands for, or None when it is not understood."""
        found = self.match_all(text, allowed)
        return found[0] if found else None

    def preferred(self, text: str | list[str], allowed: Iterable[str]) -> Command | None:
        """The command meant by ``text``, preferring one of the ``allowed`` intents when it can mean
        several; None when it is not understood."""
        found = self.match_all(text)
        wanted = set(allowed)
        return next((command for command in found if command.intent in wanted), found[0] if found else None)

    def is_prefix(self, words: list[str], allowed: Iterable[str] | None = None) -> bool:
        """Whether ``words`` can still grow into a longer sentence (for answering early)."""
        names = list(self.intents) if allowed is None else [n for n in self.intents if n in set(allowed)]
        return any(
            needs_more
            for name in names
            for template in self.intents[name].templates
            for _, needs_more in self._match_partial(template, words, 0)
        )

    def _match_partial(self, node: Node, words: list[str], pos: int) -> Iterator[tuple[int, bool]]:
        """Like ``_match``, but also yields (pos, True) where the words ran out mid-template."""
        if isinstance(node, Word):
            if pos == len(words):
                yield pos, True
            elif words[pos] == node.text:
                yield pos + 1, False
        elif isinstance(node, Seq):
            yield from self._partial_seq(node.items, 0, words, pos)
        elif isinstance(node, Alt):
            for option in node.options:
                yield from self._match_partial(option, words, pos)
        elif isinstance(node, SlotRef):
            for value in self.lists[node.list_name]:
                for end, more in self._match_partial(value.node, words, pos):
                    if more or end > pos:
                        yield end, more
        elif isinstance(node, RuleRef):
            yield from self._match_partial(self.rules[node.name], words, pos)

    def _partial_seq(self, items: tuple[Node, ...], i: int, words: list[str], pos: int
                     ) -> Iterator[tuple[int, bool]]:
        if i == len(items):
            yield pos, False
            return
        for end, more in self._match_partial(items[i], words, pos):
            if more:
                yield end, True
            else:
                yield from self._partial_seq(items, i + 1, words, end)

    # ----------------------------------------------------------------- expansion

    def _expand(self, node: Node, limit: int) -> Iterator[tuple[tuple[str, ...], Slots]]:
        if isinstance(node, Word):
            yield (node.text,), ()
        elif isinstance(node, Seq):
            parts = [list(itertools.islice(self._expand(n, limit), limit)) for n in node.items]
            count = 0
            for combo in itertools.product(*parts):
                yield tuple(w for ws, _ in combo for w in ws), tuple(s for _, ss in combo for s in ss)
                count += 1
                if count >= limit:
                    return
        elif isinstance(node, Alt):
            for option in node.options:
                yield from self._expand(option, limit)
        elif isinstance(node, SlotRef):
            for value in self.lists[node.list_name]:
                for ws, _ in self._expand(value.node, limit):
                    yield ws, ((node.slot, value.out),)
        elif isinstance(node, RuleRef):
            yield from self._expand(self.rules[node.name], limit)

    def expand(self, intents: Iterable[str] | None = None, limit: int = 100_000
               ) -> Iterator[tuple[str, Command]]:
        """Every sentence (up to ``limit`` per template) with the command it stands for."""
        names = list(self.intents) if intents is None else list(intents)
        for name in names:
            for template in self.intents[name].templates:
                seen: set[tuple[str, ...]] = set()
                for words, slots in self._expand(template, limit):
                    if words in seen:
                        continue
                    seen.add(words)
                    yield " ".join(words), Command(name, dict(slots))
                    if len(seen) >= limit:
                        break

    def vocabulary(self, intents: Iterable[str] | None = None, written_numbers: bool = False) -> set[str]:
        """Every word the given intents can use (what a recognizer must know); numbers written
        in digits ("20", which no recognizer dictionary has) only with ``written_numbers``."""
        vocab: set[str] = set()
        names = list(self.intents) if intents is None else list(intents)
        seen: set[int] = set()

        def walk(node: Node) -> None:
            if id(node) in seen:
                return
            seen.add(id(node))
            if isinstance(node, Word):
                vocab.add(node.text)
            elif isinstance(node, Seq):
                for n in node.items:
                    walk(n)
            elif isinstance(node, Alt):
                for n in node.options:
                    walk(n)
            elif isinstance(node, SlotRef):
                for value in self.lists[node.list_name]:
                    walk(value.node)
            elif isinstance(node, RuleRef):
                walk(self.rules[node.name])

        for name in names:
            for template in self.intents[name].templates:
                walk(template)
        return vocab if written_numbers else {w for w in vocab if not w.lstrip("-").isdigit()}

    def help_for(self, intents: Iterable[str]) -> list[str]:
        """Example phrases for the given intents, in file order, for "what can I say"."""
        wanted = set(intents)
        return [i.help for i in self.intents.values() if i.name in wanted and i.help]

    # ----------------------------------------------------------------- grammars

    def to_jsgf(self, intents: Iterable[str] | None = None, grammar_name: str = "commands") -> str:
        """A JSGF grammar of the given intents (for PocketSphinx)."""
        names = list(self.intents) if intents is None else [n for n in self.intents if n in set(intents)]
        used_lists: set[str] = set()
        used_rules: set[str] = set()

        def emit(node: Node) -> str:
            if isinstance(node, Word):
                return node.text
            if isinstance(node, Seq):
                return " ".join(emit(n) for n in node.items) if node.items else "<NULL>"
            if isinstance(node, Alt):
                opts = [o for o in node.options if o != EMPTY]
                inner = " | ".join(emit(o) for o in opts)
                return f"[ {inner} ]" if len(opts) < len(node.options) else f"( {inner} )"
            if isinstance(node, SlotRef):
                used_lists.add(node.list_name)
                return f"<list_{node.list_name}>"
            used_rules.add(node.name)
            return f"<rule_{node.name}>"

        body = [f"<{name}> = {' | '.join('( ' + emit(t) + ' )' for t in self.intents[name].templates)};"
                for name in names]
        defs: list[str] = []
        done: set[str] = set()
        while used_lists - done or used_rules - done:
            for name in sorted(used_lists - done):
                done.add(name)
                values = " | ".join("( " + emit(_spoken_only(v.node)) + " )" for v in self.lists[name])
                defs.append(f"<list_{name}> = {values};")
            for name in sorted(used_rules - done):
                done.add(name)
                defs.append(f"<rule_{name}> = {emit(self.rules[name])};")
        public = " | ".join(f"<{n}>" for n in names)
        return "\n".join([f"#JSGF V1.0;\ngrammar {grammar_name};", f"public <command> = {public};",
                          *body, *defs]) + "\n"


def _spoken_only(node: Node) -> Node:
    """A list value without its written-digit forms ("20"), which no recognizer dictionary has."""
    if isinstance(node, Alt):
        options = tuple(o for o in node.options if not _has_digits(o))
        return options[0] if len(options) == 1 else Alt(options)
    return node


def _has_digits(node: Node) -> bool:
    if isinstance(node, Word):
        return node.text.lstrip("-").isdigit()
    return isinstance(node, Seq) and any(_has_digits(n) for n in node.items)
