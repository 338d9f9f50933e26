"""The hybrid's decision as one declared pipeline: Whisper's stages, run in order by a small driver.

When the streaming first pass has judged an utterance (``Ear.judge``), Whisper has its say
through these stages, each a small class that declares its own settings (``Setting``: key,
default, limits, one line of doc), decides one thing and reports what it decided and the CPU
time it cost:

    spot          Whisper writes the utterance (its best transcripts, prompted with the game's
                  examples); a command spotted in the best one is taken.
    veto          the first pass's command stands when Whisper wrote nothing against it or came
                  near it; otherwise it is vetoed (unless a later stage takes a command).
    as_sentences  (off by default: push-to-talk's) Whisper writes it once more prompted with each
                  example as a sentence.
    closed        the last word: Whisper held to the grammar (closed.py) finds the allowed sentence
                  it finds likeliest for the audio; a command the stages above took stands only
                  when it is that sentence's, clear of every other command's (else it is asked
                  about), and when they took nothing, that sentence is taken when it is clear
                  enough.

The closed stage also looks first: its search runs right after the first pass, on the
utterance's own short encoding, and a best sentence it would take (``verdict``) is taken at
once, one it would ask about is asked about at once; the stages above, whose free text costs
Whisper's encoder over its own 30 s window, run only when its rule takes nothing. The search is
made once an utterance: the last word reads the first look's.
The first pass's own work at the end of speech (PocketSphinx's decode in one piece and its
phone check) is done only when something needs its command (``Case.first``): a best sentence
the rule hears whatever the first pass took needs none.

Every stage has a stable short name and one switch setting (``Stage.switch``): off, it is
skipped (``veto`` off lets the first pass's command stand). ``HearingSettings.without(*names)``
switches stages off for an ablation. Before each stage the driver asks whether its expected
CPU time (learned from what it cost here; per second of audio for the closed stage, whose cost
grows with the utterance) still fits
``hearing.budget_seconds``; when it does not, the cascade stops and the utterance is
``OverBudget`` (the player is asked to say it again at once).

A command is *doubted* (``Doubted``) when a stage that guesses took it (``Stage.sure`` False:
as_sentences) and the first pass did not take the same command. A command the first pass took
and Whisper confirmed (``veto``), or one spotted in
Whisper's best transcript (``spot``, even against the first pass's: PocketSphinx's first pass,
in the whole grammar, disagreed with a right spot on 3 of 4 clean commands tried here), is heard.

Four more stages were tried and removed because they did not pay on the tuning voices (a
retry without the prompt, a command spotted in a lesser transcript, Whisper scoring the
commands nearest what it wrote, a second hearing through the noise suppressor):
docs/hearing.md, "Which stages pay".
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from assistant.engine import Command
from assistant.hearing.events import (
    Doubted,
    Final,
    NearMiss,
    NotAllowedNow,
    NotRecognized,
    OverBudget,
    Transcript,
    Vetoed,
)
from assistant.schema import Setting

if TYPE_CHECKING:
    from assistant.hearing import HearingSettings
    from assistant.hearing.closed import Sentence
    from assistant.hearing.grammar import WordGraph
    from assistant.sentences import SentenceSet


def written(sentence: str) -> str:
    """A command sentence as Whisper writes one: "attack" -> "Attack." """
    return sentence[:1].upper() + sentence[1:] + "."


def prompt_as_sentences(help_sentences: Iterable[str]) -> str:
    """Whisper's last prompt: the same examples, each a sentence of its own ("Pass. Quieter.")."""
    kept = dict.fromkeys(s.strip() for s in help_sentences if s.strip())
    return " ".join(s[0].upper() + s[1:] + "." for s in kept)


class Near(Protocol):
    """A command near what Whisper wrote (``spotting.Spot``)."""

    @property
    def command(self) -> Command | None: ...

    @property
    def sentence(self) -> str: ...

    @property
    def distance(self) -> float: ...


class Spotter(Protocol):
    """What the stages use of ``spotting.Spotter`` (a Protocol: spotting reads hearing's
    declared settings, which are gathered from these stages)."""

    def distance(self, text: str, command: Command) -> float: ...

    def refused(self, text: str, allowed: Iterable[str]) -> Near | None: ...

    @property
    def near_distance(self) -> float: ...

    def goes_on(self, text: str, command: Command) -> int: ...

    def says_only(self, text: str, command: Command) -> bool: ...


class Ear(Protocol):
    """What the stages use of ``recognizer.Ear`` (a Protocol, so this module does not import it)."""

    sentences: SentenceSet
    graph: WordGraph

    def prompt(self) -> str: ...

    def spot(self, text: str) -> Final: ...


class Transcriber(Protocol):
    def transcribe(self, audio: bytes, prompt: str = "") -> str: ...

    def listen(self, audio: bytes, short: bool = False) -> bool: ...

    def held_to(self, graph: WordGraph, beam: int, keep: int = 8, span: float = ...) -> list[Sentence]: ...

    def own_reading(self) -> tuple[str, float]: ...

    def hypotheses(self, audio: bytes, prompt: str = "", count: int = 1) -> list[str]: ...

    def again(self, prompt: str = "", count: int = 1) -> list[str]: ...

    def score(self, texts: Sequence[str], ending: bool = True) -> list[float]: ...

    def let_go(self) -> None:
        """The utterance is decided: what was read of it need not be kept."""


def taken(final: Final | None) -> bool:
    """Whether ``final`` is a command taken (heard or doubted)."""
    return isinstance(final, Transcript) and final.command is not None


@dataclass
class Step:
    """One stage's part in one decision: what it decided and the CPU seconds it cost.
    ``command``: the command it took, or confirmed (the first pass's), when it decided on one."""

    stage: str
    verdict: str
    seconds: float = 0.0
    command: Command | None = None


@dataclass
class Case:
    """One utterance on its way through the stages: the first pass's judgement, the audio, and
    what Whisper wrote of it (written once, when a stage first needs it)."""

    ear: Ear
    transcriber: Transcriber
    spotter: Spotter
    settings: HearingSettings
    #: the first pass's judgement, or how to come by it (``first`` reads it when first needed)
    first_pass: Final | Callable[[], Final]
    audio: bytes
    texts: list[str] | None = None
    opinion: Final | None = None
    #: the veto's verdict, given when no later stage takes a command
    vetoed: NotRecognized | None = None
    steps: list[Step] = field(default_factory=list)
    #: what a stage measured, for its step's verdict (traces, `assistant transcribe --json`)
    notes: dict[str, str] = field(default_factory=dict)
    #: what the grammar search found for this utterance (``Closed.look``), searched once
    look: Look | None = None
    #: the CPU seconds reading the first pass's judgement cost (0 until it is read), on ``clock``
    first_seconds: float = 0.0
    clock: Callable[[], float] = time.process_time

    @property
    def first(self) -> Final:
        """The first pass's judgement, read now if it has not been (its work at the end of
        speech is done then, and its cost kept in ``first_seconds``)."""
        if callable(self.first_pass):
            start = self.clock()
            self.first_pass = self.first_pass()
            self.first_seconds = self.clock() - start
        return self.first_pass

    @property
    def first_read(self) -> bool:
        """Whether the first pass's judgement has been read."""
        return not callable(self.first_pass)

    @property
    def first_taken(self) -> Transcript | None:
        """The first pass's judgement when it took a command."""
        return self.first if isinstance(self.first, Transcript) and self.first.command is not None else None

    @property
    def first_command(self) -> Command | None:
        return self.first_taken.command if self.first_taken is not None else None

    def written(self) -> list[str]:
        """Whisper's best transcripts of the audio, prompted with the examples of what may be said
        (its free text, over its own 30 s window)."""
        if self.texts is None:
            self.texts = self.transcriber.hypotheses(self.audio, self.ear.prompt(), self.settings.hypotheses) or [""]
        return self.texts

    def spotted(self) -> Final:
        """What is spotted in Whisper's best transcript."""
        if self.opinion is None:
            self.opinion = self.ear.spot(self.written()[0])
        return self.opinion


class Stage:
    """One step of Whisper's say: ``run`` returns a decision that ends the cascade, or None."""

    #: the stable short name (ablation tables, traces, ``HearingSettings.without``)
    name: ClassVar[str]
    #: the settings this stage owns; the first is its switch
    SETTINGS: ClassVar[tuple[Setting[Any], ...]]
    #: False: a command this stage takes is doubted (it guesses)
    sure: ClassVar[bool] = False
    #: CPU seconds one run typically costs (for a 2 s utterance, when it ``scales``) on the 2-core
    #: x86 machine it was measured on, the budget's estimate until this process has timed it
    typical_seconds: ClassVar[float] = 0.0
    #: True: its cost grows with the utterance's length (the closed stage encodes the utterance
    #: alone); False: it is about the same for any command (the free text's fixed window)
    scales: ClassVar[bool] = False

    def per(self, audio: bytes) -> float:
        """What the stage's expected cost is counted per: seconds of audio when it ``scales``."""
        return max(len(audio) / BYTES_PER_SECOND, MIN_AUDIO) if self.scales else 1.0

    @property
    def switch(self) -> str:
        return self.SETTINGS[0].key

    def on(self, settings: HearingSettings) -> bool:
        return bool(getattr(settings, field_name(self.switch)))

    def run(self, case: Case) -> Final | None:
        raise NotImplementedError

    def skipped(self, case: Case) -> Final | None:
        """The decision when the stage is switched off (None: go on without it)."""
        return None


#: ``HeldTo.first`` when the first pass's judgement was not read (the rule heard without it)
UNREAD = "unread"


def relation(first: Command | None, command: Command) -> str:
    """``HeldTo.first``: whether the first pass took ``command`` ("same"), another or none."""
    return "none" if first is None else "same" if first == command else "other"


@dataclass(frozen=True)
class HeldTo:
    """What the grammar search found, in Whisper's log probabilities: the likeliest allowed
    sentence (and how many words it has), the likeliest of another command, Whisper's own
    unconstrained reading; and whether the first pass took the same command ("same"), another
    ("other") or none ("none"), or was not read (``UNREAD``: the rule did not need it)."""

    best: float
    other: float
    own: float
    words: int = 1
    first: str = "none"
    #: the best sentence's ``closed.Sentence.stop``: 0 when Whisper would stop writing after it
    stop: float = 0.0
    #: how far the best sentence's command is from Whisper's own reading (``Spotter.distance``:
    #: 0 when that reading says the command as a sentence does; inf when not at all)
    reads: float = math.inf
    #: how many words Whisper's own reading goes on after a sentence of that command at its start
    #: (``Spotter.goes_on``: 0 when it does not begin with one)
    tail: int = 0
    #: whether Whisper's own reading, repeats cut, is a whole sentence of that command and nothing
    #: more (``Spotter.says_only``: "Status. Status." for "status")
    whole: bool = False

    @property
    def margin(self) -> float:
        """How much likelier the best sentence is than any sentence of another command."""
        return self.best - self.other

    @property
    def fit(self) -> float:
        """How much less likely the best sentence is than Whisper's own reading, per token of
        it (its words and its end): a long sentence said in noise strays further in all than a
        short one, table talk forced onto a short command strays far at every token."""
        return (self.best - self.own) / (self.words + 1)

    def note(self) -> str:
        return (f"best {self.best:.2f} other {self.other:.2f} own {self.own:.2f} words {self.words} "
                f"first {self.first} stop {self.stop:.2f} reads {self.reads:.2f} tail {self.tail} "
                f"whole {int(self.whole)}")


@dataclass(frozen=True)
class Look:
    """What the grammar search found for one utterance: the allowed sentences Whisper finds
    likeliest and their commands, Whisper's own reading and its log probability, and the figures
    the decision reads (None when no allowed sentence was found, or the best is no command)."""

    found: list[Sentence]
    commands: list[Command | None]
    reading: str
    own: float
    held: HeldTo | None


#: How far below the best sentence (natural log) the search follows others; each word followed costs a decoder call
SPAN = 6.0


class Closed(Stage):
    """Whisper held to the grammar (assistant/hearing/closed.py), run last, on what the stages
    before decided (``check``). A command they took stands when the allowed sentence Whisper
    finds likeliest is the same command (and Whisper would stop writing after it: ``closed_stop``,
    ``goes_on``) and is asked about otherwise. When they took nothing, the likeliest sentence is heard when
    the first pass took the same command, or when it is clearly likelier than any sentence of
    another command (``closed_margin``) and near what Whisper would write freely (``closed_fit``,
    per token: table talk is far likelier as itself than as any command), and that free reading
    does not go on after it (``closed_tail``: talk that starts with a command); a little farther
    (``closed_ask_fit``), it is asked about."""

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
        """The decision rule on the figures alone:
        "heard", "doubted", "" (nothing taken) or "no" (nothing, and so far from Whisper's own
        reading that the free text need not be asked: ``closed_reject_fit``; only when the first
        pass was read and did not take the best sentence's command)."""
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
            return "heard"
        return "doubted" if held.fit >= -settings.closed_ask_fit else ""

    @staticmethod
    def span(settings: HearingSettings) -> float:
        """How far below the best sentence the search follows others: ``SPAN``, and never
        less than ``closed_margin`` (a sentence of another command further below changes no
        decision: its margin is enough either way)."""
        return max(SPAN, settings.closed_margin)

    @staticmethod
    def goes_on(held: HeldTo, settings: HearingSettings) -> bool:
        """Whether Whisper would go on writing after the best sentence (``closed_stop`` below
        ending there): a command said at the start of longer talk. Not when its own reading, repeats
        cut, is that command and nothing more (``HeldTo.whole``): what it would go on with is the
        command again, as a window of a short command makes it write ("Status. Status.")."""
        return held.stop < -settings.closed_stop and not held.whole

    @staticmethod
    def agree(held: HeldTo, settings: HearingSettings) -> bool:
        """Whether the first pass took the best sentence's command, that sentence is not a near
        coin-toss with another command's (``closed_agree_margin``) and not far below Whisper's own
        reading (``closed_agree_fit``: talk both readings forced onto a general command)."""
        return (held.first == "same" and held.margin >= settings.closed_agree_margin
                and held.fit >= -settings.closed_agree_fit)

    @staticmethod
    def clear(held: HeldTo, settings: HearingSettings) -> bool:
        """Whether a command the free text took is clear enough to act on (its best sentence
        already that command's): the first pass took it too (``agree``), or its sentence is
        ``closed_margin`` likelier than any of another command."""
        return Closed.agree(held, settings) or held.margin >= settings.closed_margin

    def run(self, case: Case) -> Final | None:
        """As a stage of its own (the driver runs it through ``check``, after the others): the
        closed reading alone decides."""
        return self.check(case, None)

    def look(self, case: Case) -> Look | None:
        """The grammar search on ``case``'s audio (None: too short for Whisper), searched once an
        utterance: the first look and the last word read the same."""
        if case.look is not None:
            return case.look
        s = case.settings
        transcriber = case.transcriber
        if not transcriber.listen(case.audio, short=True):
            return None
        found = transcriber.held_to(case.ear.graph, s.closed_beam, span=self.span(s))
        reading, own = transcriber.own_reading()
        commands = [case.ear.sentences.match(list(sentence.words), case.ear.graph.intents) for sentence in found]
        held = None
        if found and commands[0] is not None:
            best, command = found[0], commands[0]
            other = next((f.logprob for f, c in zip(found, commands, strict=True) if c != command), -math.inf)
            said = bool(case.ear.sentences.words(reading))
            reads = case.spotter.distance(reading, command) if said else math.inf
            tail = case.spotter.goes_on(reading, command) if said else 0
            whole = said and case.spotter.says_only(reading, command)
            first = relation(case.first_command, command) if case.first_read else UNREAD
            held = HeldTo(best.logprob, max(other, -999.0), own, len(best.words), first, best.stop, reads, tail, whole)
            case.notes[self.name] = f"{best.text!r} [{held.note()}]"
        case.look = Look(found, commands, reading, own, held)
        return case.look

    def read_first(self, case: Case, look: Look) -> Look:
        """``look`` with the first pass's part in it (``HeldTo.first``), read now if it was not."""
        held, command = look.held, look.commands[0] if look.commands else None
        if held is None or command is None or held.first != UNREAD:
            return look
        held = replace(held, first=relation(case.first_command, command))
        case.notes[self.name] = f"{look.found[0].text!r} [{held.note()}]"
        case.look = replace(look, held=held)
        return case.look

    def first_look(self, case: Case) -> Final | None:
        """Before Whisper writes freely: the best allowed sentence, taken when the rule would
        hear it (``verdict``) and asked about when it would ask; None: the rule takes nothing,
        the free text's stages go on. (A question is not left to the free text:
        on the tuning clips that took the same commands right and wrong, asked about one more,
        and cost less.)"""
        look = self.look(case)
        if look is None or look.held is None:
            return None
        verdict = self.verdict(look.held, case.settings)
        if verdict != "heard" and look.held.first == UNREAD:
            look = self.read_first(case, look)  # the first pass taking the same command (or another) tells
        held = look.held
        if held is None:
            return None
        verdict = self.verdict(held, case.settings)
        if verdict in ("heard", "doubted") and (refused := self.refused(case, look)) is not None:
            return refused
        if verdict == "doubted":
            return self._doubted(look, held)
        if verdict == "no":
            return self._nothing(case, look.reading, f"Whisper held to the grammar: {look.found[0].text!r} far below "
                                                     f"its own reading (fit {held.fit:.2f})")
        if verdict != "heard":
            return None
        return Transcript(look.found[0].text, 1.0, look.reading, look.commands[0])

    def check(self, case: Case, decided: Final | None) -> Final:
        """The final say on what the stages before decided (``decided``; None: nothing yet).
        A command they took stands (heard) when the sentence Whisper finds likeliest is the same
        command, clearly (``clear``), and is asked about otherwise; when they took nothing, this
        stage's own rule (``verdict``) decides. A command not allowed now, or an over-budget verdict, stands."""
        s = case.settings
        if isinstance(decided, (NotAllowedNow, OverBudget)):
            return decided
        look = self.look(case)
        if look is None:
            return decided if decided is not None else NotRecognized("", "too short for Whisper", 0.0)
        look = self.read_first(case, look)
        reading, held = look.reading, look.held
        taken = decided.command if isinstance(decided, Transcript) else None
        if held is None:
            if taken is not None and isinstance(decided, Transcript):
                return _asked(decided, "Whisper held to the grammar found no allowed sentence")
            return self._nothing(case, reading, "no allowed sentence found")
        best, command = look.found[0], look.commands[0]
        if taken is not None and isinstance(decided, Transcript):
            if command != taken or self.goes_on(held, s):
                return _asked(decided, f"Whisper held to the grammar hears {best.text!r}")
            if not self.clear(held, s):
                return _asked(decided, f"Whisper held to the grammar finds {best.text!r} likeliest, but not clearly "
                                       f"(margin {held.margin:.1f} over another command)")
            return Transcript(decided.text, decided.confidence, decided.heard, taken, decided.snapped)
        verdict = self.verdict(held, s)
        if verdict in ("heard", "doubted") and (refused := self.refused(case, look)) is not None:
            return refused
        if verdict == "heard":
            return Transcript(best.text, 1.0, reading, command)
        if verdict == "doubted":
            return self._doubted(look, held)
        return decided if decided is not None else self._nothing(
            case, reading, f"Whisper held to the grammar: {best.text!r} not clear (margin {held.margin:.1f}, "
                           f"fit {held.fit:.2f})")

    @staticmethod
    def refused(case: Case, look: Look) -> NotAllowedNow | None:
        """A command the rules refuse now that Whisper's own reading says outright
        (``Spotter.refused``): that command, not the allowed sentence the search forced the
        reading onto ("What is the time?" where only the score may be asked); the game says why."""
        found = case.spotter.refused(look.reading, case.ear.graph.intents)
        if found is None or found.command is None:
            return None
        return NotAllowedNow(found.sentence, f"{found.command.intent} is not allowed now: Whisper read "
                             f"{look.reading!r}", 0.0, command=found.command)

    @staticmethod
    def _doubted(look: Look, held: HeldTo) -> Doubted:
        return Doubted(look.found[0].text, 0.5, look.reading, look.commands[0],
                       why=f"Whisper held to the grammar, {-held.fit:.1f} per token below its own reading")

    @staticmethod
    def confirms(ear: Ear, transcriber: Transcriber, settings: HearingSettings, audio: bytes,
                 command: Command) -> str:
        """Why an early answer (the first pass's words so far, a whole command) should wait for
        the end of speech ("" when it need not): the allowed sentence Whisper finds likeliest for
        the audio so far is another command, or Whisper would go on writing after it. Agreeing,
        the two recognizers take it as the closed stage does (``verdict``: first pass the same)."""
        if not transcriber.listen(audio, short=True):
            return "too short for Whisper"
        found = transcriber.held_to(ear.graph, settings.closed_beam, span=Closed.span(settings))
        if not found:
            return "Whisper found no allowed sentence"
        best = ear.sentences.match(list(found[0].words), ear.graph.intents)
        if best != command:
            return f"Whisper held to the grammar hears {found[0].text!r}"
        if found[0].stop < -settings.closed_stop:
            return "Whisper would go on writing"
        return ""

    def _nothing(self, case: Case, reading: str, why: str) -> Final:
        """Nothing taken: a command the rules do not allow now, spotted in Whisper's reading, is
        named (its reason is spoken); else not understood. (A second grammar search, over the
        whole game, once named such commands too: it named none that the reading did not, in 110
        commands said where they are not allowed and on the tuning set, and cost up to 0.34 CPU s
        on a long utterance: docs/hearing.md.)"""
        if case.ear.sentences.words(reading):
            opinion = case.ear.spot(reading)
            if isinstance(opinion, NotAllowedNow):
                return opinion
        return NotRecognized(reading, why, 0.0)


class Spot(Stage):
    name = "spot"
    sure = True
    #: the free text over Whisper's 30 s window: a median of about 0.7 CPU s here
    typical_seconds = 0.7
    SETTINGS = (
        Setting("hearing.whisper.spotting", True, "Take a command spotted in Whisper's best transcript."),
        Setting("hearing.whisper.hypotheses", 3, "How many of Whisper's free-text transcripts the veto reads.",
                minimum=1, maximum=5),
    )

    def run(self, case: Case) -> Final | None:
        spotted = case.spotted()
        return spotted if taken(spotted) else None


class Veto(Stage):
    name = "veto"
    sure = True
    SETTINGS = (
        Setting("hearing.whisper.veto", True, "Hybrid: drop a first-pass command when Whisper heard other words."),
        Setting("hearing.whisper.confirm_distance", 0.4, "Hybrid: how near Whisper must come to confirm it.",
                minimum=0.0, maximum=5.0),
    )

    def run(self, case: Case) -> Final | None:
        first = case.first_taken
        if first is None or first.command is None:
            return None
        command = first.command
        texts = case.written()
        if not case.ear.sentences.words(texts[0]):
            return case.first  # Whisper heard nothing to speak against it
        distance = min(case.spotter.distance(t, command) for t in texts)
        if distance <= case.settings.confirm_distance:
            return case.first  # Whisper (half-)heard the same command
        why = f"vetoed {first.text!r}: Whisper heard {texts[0]!r} ({distance:.2f} from it)"
        # kept (the same command missed again at once is asked about) only when Whisper came near it
        case.vetoed = (Vetoed(texts[0], why, first.confidence, command=command, text=first.text)
                       if distance <= case.spotter.near_distance else NotRecognized(texts[0], why, first.confidence))
        return None

    def skipped(self, case: Case) -> Final | None:
        return case.first if case.first_command is not None else None


class AsSentences(Stage):
    name = "as_sentences"
    typical_seconds = 0.5
    SETTINGS = (
        Setting("hearing.whisper.as_sentences", False, "Write it once more prompted with sentences (push-to-talk: "
                "on)."),
        Setting("hearing.whisper.as_sentences_within", 4.0, "How much less likely that may be than the first "
                "transcript.", minimum=0.0, maximum=50.0),
    )

    def run(self, case: Case) -> Final | None:
        texts = case.written()
        ear = case.ear
        again = case.transcriber.again(prompt_as_sentences(ear.sentences.help_for(ear.graph.intents)), 1)
        spotted = ear.spot(again[0]) if again else None
        if not isinstance(spotted, Transcript) or spotted.command is None:
            return None
        score = case.transcriber.score([written(spotted.text)])[0]
        own = case.transcriber.score([texts[0]], ending=False)[0]
        if own == -math.inf or score < own - case.settings.as_sentences_within:
            return None
        return Transcript(spotted.text, spotted.confidence, again[0], spotted.command, True)


#: Estimated from the stages' CPU seconds measured here (Step.seconds; spot 0.83 median on this
#: project's 2-core x86 machine with the free text on) times about 1.8 for a Pi 5 and 4.5 for a
#: Pi 4 (Whisper tiny int8 takes ~3.2 s for a command on a Pi 400, ~0.85 s here; a Pi 5 is 2-3x a
#: Pi 4): 3.0 lets a Pi 5 write the free text over Whisper's 30 s window and spot (about 1.5 s),
#: a Pi 4 the same in 5.0 (docs/raspberry-pi.md, "What hearing costs on a Pi").
BUDGET = Setting("hearing.budget_seconds", 3.0, "CPU seconds (all cores) Whisper's stages may spend on one "
                 "utterance; a stage that would go past it is not run and the player is asked to say it again at "
                 "once. Estimates: Raspberry Pi 5 3.0, Pi 4 5.0.", minimum=0.0, maximum=120.0, player=True)


#: The audio length a stage's typical_seconds is for, and the least length a cost is scaled to
TYPICAL_AUDIO = 2.0
MIN_AUDIO = 1.0
BYTES_PER_SECOND = 32_000  # 16 kHz, 16-bit


class Cascade:
    """The driver: runs the stages in order, times each, keeps to the budget, and says whether
    the command it took is doubted. ``steps`` of the last decision are kept for traces and
    benchmarks."""

    #: how quickly the expected cost of a stage follows what it cost here (a running mean)
    LEARN = 0.3

    def __init__(self) -> None:
        self.stages: list[Stage] = [Spot(), Veto(), AsSentences()]
        #: the last word: Whisper held to the grammar checks what the stages above decided
        self.closed = Closed()
        self.stages.append(self.closed)
        #: each stage's expected CPU seconds (per second of audio heard, for a stage whose cost
        #: grows with the utterance), learned as it runs
        self.typical: dict[str, float] = {
            stage.name: stage.typical_seconds / (TYPICAL_AUDIO if stage.scales else 1.0) for stage in self.stages}
        self.expected = dict(self.typical)
        self.steps: list[Step] = []
        #: CPU seconds spent on the utterance under way
        self.spent = 0.0
        self.clock = time.process_time

    def decide(self, case: Case) -> Final:
        """The decision on ``case`` (a fresh utterance)."""
        self.steps, self.spent, case.clock = case.steps, 0.0, self.clock
        if self.closed.on(case.settings):
            early = self._first_look(case)
            if early is not None:
                return early
        case.first  # noqa: B018  (read now, outside any stage's cost: every stage below may need it)
        decided = self.run(case, self.free_text)
        if isinstance(decided, OverBudget):
            return decided
        decided = self._check(case, decided)
        if isinstance(decided, Transcript) and decided.command is not None and not isinstance(decided, Doubted):
            why = self._doubt(case)
            if why:
                return Doubted(decided.text, decided.confidence, decided.heard, decided.command, decided.snapped,
                               decided.doubt, why=why)
        return decided

    @property
    def free_text(self) -> list[Stage]:
        """The stages that decide on Whisper's free text, in order (all but the closed check)."""
        return [stage for stage in self.stages if stage is not self.closed]

    def _first_look(self, case: Case) -> Final | None:
        """The grammar search before the free text, when it fits the budget:
        a clear best sentence is taken at once."""
        stage = self.closed
        seconds = stage.per(case.audio)
        expected = self.expected[stage.name] * seconds
        if self.spent + expected > case.settings.budget_seconds:
            return None  # the free text's stages may still fit; the last word says it is over
        start, first_seconds = self.clock(), case.first_seconds
        early = stage.first_look(case)
        cost = self.clock() - start - (case.first_seconds - first_seconds)  # the first pass's reading is its own
        self.spent += cost
        self.expected[stage.name] += self.LEARN * (cost / seconds - self.expected[stage.name])
        note = f" {case.notes[stage.name]}" if stage.name in case.notes else ""
        command = _command(early)
        verdict = ("first look: not clear" if early is None else "first look: nothing taken" if command is None else
                   f"asked {command.to_json()}" if isinstance(early, Doubted) else f"took {command.to_json()}")
        case.steps.append(Step(stage.name, verdict + note, cost, command))
        return early

    def _check(self, case: Case, decided: Final) -> Final:
        """The closed stage's say on the decision, when it is on and fits the budget (already paid
        when it had the first look)."""
        stage = self.closed
        if not stage.on(case.settings):
            case.steps.append(Step(stage.name, "off"))
            return decided
        seconds = stage.per(case.audio)
        searched = case.look is not None  # by the first look: paid for, so read whatever the budget
        expected = self.expected[stage.name] * seconds
        if not searched and self.spent + expected > case.settings.budget_seconds:
            case.steps.append(Step(stage.name, f"stopped: {self.spent:.2f} + {expected:.2f} s is over the budget"))
            self.expected[stage.name] += self.LEARN * (self.typical[stage.name] - self.expected[stage.name])
            if isinstance(decided, Transcript) and decided.command is not None:
                return _asked(decided, "not checked by Whisper held to the grammar (over the budget)")
            return decided
        start = self.clock()
        checked = stage.check(case, decided)
        cost = self.clock() - start
        self.spent += cost
        if not searched:
            self.expected[stage.name] += self.LEARN * (cost / seconds - self.expected[stage.name])
        case.steps.append(Step(stage.name, _checked(checked, decided, case), cost, _command(checked)))
        return checked

    def run(self, case: Case, stages: Sequence[Stage]) -> Final:
        """Each stage in turn until one decides; the conclusion when none does."""
        budget = case.settings.budget_seconds
        for stage in stages:
            name = stage.name
            if not stage.on(case.settings):
                decided = stage.skipped(case)
                case.steps.append(Step(name, "off" if decided is None else "off: the first pass's command stands",
                                       command=_command(decided)))
                if decided is not None:
                    return decided
                continue
            seconds = stage.per(case.audio)
            expected = self.expected[stage.name] * seconds
            if self.spent + expected > budget:
                case.steps.append(Step(name, f"stopped: {self.spent:.2f} + {expected:.2f} s is over the budget"))
                # a stage not run learns nothing: its expectation drifts back towards the typical, so
                # one slow utterance cannot keep it from every later one
                self.expected[stage.name] += self.LEARN * (self.typical[stage.name] - self.expected[stage.name])
                if case.texts is None or (case.first_command is not None and case.vetoed is None):
                    # nothing decided yet: better "Say again?" now than an answer too late
                    heard = case.first.heard if isinstance(case.first, NotRecognized) else case.first.text
                    return OverBudget(heard, f"over the budget ({budget:.2f} CPU s) before {name}",
                                      case.first.confidence)
                break  # Whisper has had its say: what it decided so far stands
            start, spent = self.clock(), self.spent
            decided = stage.run(case)
            cost = self.clock() - start
            self.spent = spent + cost
            self.expected[stage.name] += self.LEARN * (cost / seconds - self.expected[stage.name])
            case.steps.append(Step(name, _verdict(stage, decided, case), cost, _command(decided)))
            if decided is not None:
                return decided
        return self._conclude(case)

    def _doubt(self, case: Case) -> str:
        """Why the command the stages took is doubted ("" when it is heard): a stage that guesses
        took it, and the first pass did not hear the same command."""
        decider = next((step for step in reversed(case.steps) if step.command is not None), None)
        if decider is None or next(s.sure for s in self.stages if s.name == decider.stage):
            return ""
        if decider.command == case.first_command:
            return ""  # two recognizers agree on it
        return f"taken by {decider.stage} alone"

    @staticmethod
    def _conclude(case: Case) -> Final:
        """No stage took a command: the veto's verdict, or why nothing was taken."""
        if case.vetoed is not None:
            return case.vetoed
        opinion = case.spotted()
        first = case.first
        if isinstance(opinion, NotAllowedNow) or not isinstance(first, NotRecognized):
            return opinion
        text = case.written()[0]
        why = (first.heard or text, f"{first.reason}; Whisper heard {text!r}: {getattr(opinion, 'reason', '')}",
               first.confidence, first.alternatives)
        if isinstance(opinion, NearMiss):  # kept: the same command missed again at once is asked about
            return NearMiss(*why, command=opinion.command, text=opinion.text)
        return NotRecognized(*why)


def _asked(decided: Transcript, why: str) -> Doubted:
    """A command taken, to be asked about: the closed stage did not find it likeliest."""
    return Doubted(decided.text, decided.confidence, decided.heard, decided.command, decided.snapped, decided.doubt,
                   why=why)


def _verdict(stage: Stage, decided: Final | None, case: Case) -> str:
    """A stage's verdict, for traces: took, confirmed, vetoed or nothing."""
    if decided is None:
        return "vetoed the first pass's command" if isinstance(stage, Veto) and case.vetoed else "nothing"
    if not isinstance(decided, Transcript) or decided.command is None:
        note = f" {case.notes[stage.name]}" if stage.name in case.notes else ""
        return f"decided: nothing taken{note}"
    command = _command(decided)
    what = command.to_json() if command is not None else "-"
    note = f" {case.notes[stage.name]}" if stage.name in case.notes else ""
    return (f"confirmed {what}" if decided is case.first else f"took {what}") + note


def _checked(checked: Final, decided: Final, case: Case) -> str:
    """The closed check's verdict, for traces (its figures after it)."""
    note = f" {case.notes['closed']}" if "closed" in case.notes else ""
    command = _command(checked)
    if command is None:
        return f"decided: nothing taken{note}"
    what = command.to_json()
    if isinstance(checked, Doubted):
        return f"asked {what}{note}"
    return (f"confirmed {what}" if _command(decided) == command else f"took {what}") + note


def _command(decided: Final | None) -> Command | None:
    return decided.command if isinstance(decided, Transcript) else None


def field_name(key: str) -> str:
    """The HearingSettings field of a hearing key: its last part ("hearing.whisper.veto" -> veto),
    the engine's name before it where two engines share it (vosk_min_confidence)."""
    parts = key.split(".")
    if parts[-1] == "min_confidence":
        return f"{parts[-2]}_{parts[-1]}"
    return parts[-1]


def stage_settings() -> tuple[Setting[Any], ...]:
    """Every stage's declared settings, in the stages' order, and the budget."""
    return (*(s for stage in Cascade().stages for s in stage.SETTINGS), BUDGET)


#: The stages' names, in the order they run.
STAGE_NAMES = tuple(stage.name for stage in Cascade().stages)
