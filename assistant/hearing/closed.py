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
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

import numpy as np
import numpy.typing as npt

from assistant.engine import Command
from assistant.hearing.case import Case, Stage, Transcriber, asked
from assistant.hearing.events import Doubted, Final, NotAllowedNow, NotRecognized, OverBudget, Transcript
from assistant.hearing.grammar import WordGraph
from assistant.schema import Setting

if TYPE_CHECKING:
    from assistant.hearing import HearingSettings
    from assistant.hearing.recognizer import Ear

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


#: ``HeldTo.first`` when the first pass's judgement was not read (the rule heard without it)
UNREAD = "unread"


def relation(first: Command | None, command: Command) -> str:
    """``HeldTo.first``: whether the first pass took ``command`` ("same"), another or none."""
    return "none" if first is None else "same" if first == command else "other"


@dataclass(frozen=True)
class HeldTo:
    """What the grammar search found, in Whisper's log probabilities: the likeliest allowed
    sentence (and its words), the likeliest of another command, Whisper's own unconstrained
    reading; and whether the first pass took the same command ("same"), another, none, or was not
    read (``UNREAD``)."""

    best: float
    other: float
    own: float
    words: int = 1
    first: str = "none"
    #: the best sentence's ``closed.Sentence.stop``: 0 when Whisper would stop writing after it
    stop: float = 0.0
    #: how far its command is from Whisper's own reading (``Spotter.distance``; inf: not at all)
    reads: float = math.inf
    #: how many words Whisper's own reading goes on after a sentence of that command at its start
    tail: int = 0
    #: whether Whisper's own reading, repeats cut, is that command and nothing more ("Status. Status.")
    whole: bool = False

    @property
    def margin(self) -> float:
        """How much likelier the best sentence is than any sentence of another command."""
        return self.best - self.other

    @property
    def fit(self) -> float:
        """How much less likely the best sentence is than Whisper's own reading, per token (its
        words and its end): table talk forced onto a short command strays far at every token."""
        return (self.best - self.own) / (self.words + 1)

    def note(self) -> str:
        return (f"best {self.best:.2f} other {self.other:.2f} own {self.own:.2f} words {self.words} "
                f"first {self.first} stop {self.stop:.2f} reads {self.reads:.2f} tail {self.tail} "
                f"whole {int(self.whole)}")


@dataclass(frozen=True)
class Look:
    """What the grammar search found for one utterance: the likeliest allowed sentences and their
    commands, Whisper's own reading and its log probability, and the figures the rule reads (None
    when no allowed sentence was found, or the best is no command)."""

    found: list[Sentence]
    commands: list[Command | None]
    reading: str
    own: float
    held: HeldTo | None


class Closed(Stage):
    """Whisper held to the grammar: the first look and the last word (module docstring)."""

    name = "closed"
    sure = True
    typical_seconds = 0.3
    scales = True
    SETTINGS = (
        Setting("hearing.whisper.closed", True, "Check what the stages above took against the allowed sentence "
                "Whisper finds likeliest, and take that sentence when they took nothing."),
        Setting("hearing.whisper.closed_beam", 6, "Sentences under way in that search.", minimum=1, maximum=32),
        Setting("hearing.whisper.closed_margin", 4.5, "How much likelier (natural log) the best sentence must be "
                "than any sentence of another command (when the stages above took nothing), unless the first "
                "pass took the same.",
                minimum=0.0, maximum=50.0),
        Setting("hearing.whisper.closed_agree_margin", 0.3, "...and how much likelier it must be when the first "
                "pass took the same: two recognizers agreeing on a near coin-toss (\"it's carl\" or \"it's "
                "carol\") is not heard at once.", minimum=0.0, maximum=50.0),
        Setting("hearing.whisper.closed_agree_fit", 4.0, "...and how much less likely (natural log, per "
                "token) than Whisper's own reading it may be then: talk the first pass forced onto a general "
                "command (\"I read that book twice\" as \"what's the score\") is not heard because two "
                "readings agree.", minimum=0.0, maximum=50.0),
        Setting("hearing.whisper.closed_fit", 0.9, "How much less likely (natural log, per token) it may be than "
                "Whisper's own reading to be heard.", minimum=0.0, maximum=20.0),
        Setting("hearing.whisper.closed_ask_fit", 2.0, "...and to be taken with doubt (asked about).",
                minimum=0.0, maximum=20.0),
        Setting("hearing.whisper.closed_reject_fit", 6.0, "Take nothing at once, without Whisper's free text, "
                "when the best sentence is more than this much less likely (natural log, per token) than Whisper's "
                "own reading, and the first pass did not take its command: talk that is no command (0: off).",
                minimum=0.0, maximum=50.0),
        Setting("hearing.whisper.closed_stop", 2.0, "How much less likely than its likeliest next token Whisper "
                "may find the end after the sentence (talk that starts with a command goes on; not checked when its "
                "own reading is the command over again).",
                minimum=0.0, maximum=50.0),
        Setting("hearing.whisper.closed_tail", 2, "Take nothing at once when Whisper's own reading goes on this "
                "many words after a sentence of the best command said at its start, unless the first pass took the "
                "same command: talk that starts with a command (\"keep going, you're nearly there\"; 0: off).",
                minimum=0, maximum=50),
    )

    @staticmethod
    def verdict(held: HeldTo, settings: HearingSettings) -> str:
        """The rule on the figures alone: "heard", "doubted", "" (nothing taken) or "no" (nothing,
        and so far from Whisper's own reading that the free text need not be asked:
        ``closed_reject_fit``; only when the first pass was read and did not take its command)."""
        far = 0 < settings.closed_reject_fit < -held.fit and held.first in ("none", "other")
        if Closed.goes_on(held, settings):
            return "no" if far else ""  # Whisper would go on writing: a command said at the start of longer talk
        if Closed.agree(held, settings):
            return "heard"  # two recognizers agree
        if 0 < settings.closed_tail <= held.tail:
            return "no" if far else ""  # Whisper's own reading goes on after the command: talk that starts with it
        if far:
            return "no"
        if held.margin < settings.closed_margin:
            return ""
        if held.fit >= -settings.closed_fit or held.reads <= settings.confirm_distance:
            return "heard"  # near Whisper's own reading, or that reading says it ("Explore 100.")
        return "doubted" if held.fit >= -settings.closed_ask_fit else ""

    @staticmethod
    def span(settings: HearingSettings) -> float:
        return max(SPAN, settings.closed_margin)

    @staticmethod
    def goes_on(held: HeldTo, settings: HearingSettings) -> bool:
        """Whether Whisper would go on writing after the best sentence (``closed_stop``): a
        command said at the start of longer talk; not when its own reading is that command
        alone (``HeldTo.whole``), as a window of a short command makes it write it again."""
        return held.stop < -settings.closed_stop and not held.whole

    @staticmethod
    def agree(held: HeldTo, settings: HearingSettings) -> bool:
        """Whether the first pass took the best sentence's command, not a near coin-toss with
        another command's (``closed_agree_margin``) nor far below Whisper's own reading."""
        return (held.first == "same" and held.margin >= settings.closed_agree_margin
                and held.fit >= -settings.closed_agree_fit)

    @staticmethod
    def clear(held: HeldTo, settings: HearingSettings) -> bool:
        """Whether a command the free text took, the best sentence's, is clear enough to act on:
        the first pass took it too (``agree``), or it is ``closed_margin`` likelier than another's."""
        return Closed.agree(held, settings) or held.margin >= settings.closed_margin

    def look(self, case: Case) -> Look | None:
        """The grammar search on ``case``'s audio, searched once (None: too short for Whisper)."""
        if case.look is not None:
            return case.look
        s, transcriber, ear = case.settings, case.transcriber, case.ear
        if not transcriber.listen(case.audio, True):
            return None
        found = transcriber.held_to(ear.graph, s.closed_beam, span=self.span(s))
        reading, own = transcriber.own_reading()
        commands = [ear.sentences.match(list(sentence.words), ear.graph.intents) for sentence in found]
        held = None
        if found and commands[0] is not None:
            best, command = found[0], commands[0]
            other = next((f.logprob for f, c in zip(found, commands, strict=True) if c != command), -math.inf)
            said = bool(ear.sentences.words(reading))
            held = HeldTo(best.logprob, max(other, -999.0), own, len(best.words),
                          relation(case.first_command, command) if case.first_read else UNREAD, best.stop,
                          case.spotter.distance(reading, command) if said else math.inf,
                          case.spotter.goes_on(reading, command) if said else 0,
                          said and case.spotter.says_only(reading, command))
        case.look = Look(found, commands, reading, own, held)
        return self._noted(case)

    @staticmethod
    def _noted(case: Case) -> Look:
        look = case.look
        assert look is not None
        if look.held is not None:
            case.notes["closed"] = f"{look.found[0].text!r} [{look.held.note()}]"
        return look

    def read_first(self, case: Case) -> Look | None:
        """The search's look with the first pass's part in it (``HeldTo.first``), read now if it was not."""
        look = case.look
        if look is None or look.held is None or look.held.first != UNREAD or look.commands[0] is None:
            return look
        case.look = replace(look, held=replace(look.held, first=relation(case.first_command, look.commands[0])))
        return self._noted(case)

    def first_look(self, case: Case) -> Final | None:
        """Before Whisper writes freely: the best allowed sentence, taken when the rule hears it,
        asked about when it would ask, nothing taken when far from any ("no"); None: the free
        text's stages decide. The first pass is read only when the rule does not hear it alone."""
        look = self.look(case)
        if look is None or look.held is None:
            return None
        if self.verdict(look.held, case.settings) != "heard":
            look = self.read_first(case)
        assert look is not None and look.held is not None
        held, verdict = look.held, self.verdict(look.held, case.settings)
        if verdict in ("heard", "doubted") and (refused := self.refused(case, look)) is not None:
            return refused
        if verdict == "heard":
            return Transcript(look.found[0].text, 1.0, look.reading, look.commands[0])
        if verdict == "doubted":
            return Doubted(look.found[0].text, 0.5, look.reading, look.commands[0],
                           why=f"Whisper held to the grammar, {-held.fit:.1f} per token below its own reading")
        if verdict == "no":
            return self._nothing(case, look.reading, f"Whisper held to the grammar: {look.found[0].text!r} far below "
                                                     f"its own reading (fit {held.fit:.2f})")
        return None

    def check(self, case: Case, decided: Final) -> Final:
        """The last word on what the free text decided: a command it took stands when the search's
        best sentence is the same command, Whisper would stop after it, and it is clear of every
        other command's (``closed_margin``) or the first pass took it too; else it is asked about.
        Nothing taken stays so (the first look's rule took nothing); a command not allowed now, or
        over the budget, stands."""
        if isinstance(decided, (NotAllowedNow, OverBudget)):
            return decided
        look = self.look(case)
        if look is None:
            return decided
        look = self.read_first(case)
        assert look is not None
        held = look.held
        if not isinstance(decided, Transcript) or decided.command is None:
            return decided if held is not None else self._nothing(case, look.reading, "no allowed sentence found")
        if held is None:
            return asked(decided, "Whisper held to the grammar found no allowed sentence")
        best = look.found[0].text
        if look.commands[0] != decided.command or self.goes_on(held, case.settings):
            return asked(decided, f"Whisper held to the grammar hears {best!r}")
        if not self.clear(held, case.settings):
            return asked(decided, f"Whisper held to the grammar finds {best!r} likeliest, but not clearly "
                                   f"(margin {held.margin:.1f} over another command)")
        return Transcript(decided.text, decided.confidence, decided.heard, decided.command, decided.snapped)

    @staticmethod
    def refused(case: Case, look: Look) -> NotAllowedNow | None:
        """A command the rules refuse now that Whisper's own reading says outright: that command,
        not the allowed sentence the search forced the reading onto; the game says why."""
        found = case.spotter.refused(look.reading, case.ear.graph.intents)
        if found is None or found.command is None:
            return None
        return NotAllowedNow(found.sentence, f"{found.command.intent} is not allowed now: Whisper read "
                             f"{look.reading!r}", 0.0, command=found.command)

    @staticmethod
    def confirms(ear: Ear, transcriber: Transcriber, settings: HearingSettings, audio: bytes,
                 command: Command) -> str:
        """Why an early answer (the first pass's words so far, a whole command) should wait for
        the end of speech ("" when it need not): the allowed sentence Whisper finds likeliest for
        the audio so far is another command, or Whisper would go on writing after it."""
        if not transcriber.listen(audio, True):
            return "too short for Whisper"
        found = transcriber.held_to(ear.graph, settings.closed_beam, span=Closed.span(settings))
        if not found:
            return "Whisper found no allowed sentence"
        if ear.sentences.match(list(found[0].words), ear.graph.intents) != command:
            return f"Whisper held to the grammar hears {found[0].text!r}"
        if found[0].stop < -settings.closed_stop:
            return "Whisper would go on writing"
        return ""

    @staticmethod
    def _nothing(case: Case, reading: str, why: str) -> Final:
        """Nothing taken: a command the rules do not allow now, spotted in Whisper's reading, is
        named (its reason is spoken); else not understood."""
        if case.ear.sentences.words(reading):
            opinion = case.ear.spot(reading)
            if isinstance(opinion, NotAllowedNow):
                return opinion
        return NotRecognized(reading, why, 0.0)
