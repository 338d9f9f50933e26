"""The hybrid's decision on one utterance, after the streaming first pass: ``Cascade.decide``.

Read top to bottom, it is:

1. **first look** (``Closed.first_look``): Whisper held to the grammar (closed.py) finds the
   allowed sentence likeliest for the utterance's own short encoding; a best sentence its rule
   (``Closed.verdict``) hears is taken at once, one it would ask about is asked about.
2. **free text**, only when that rule took nothing: Whisper writes the utterance over its own
   30 s window, prompted with the game's examples, and the stages decide on what it wrote:
   ``spot`` takes a command spotted in its best transcript; ``veto`` lets the first pass's
   command stand when Whisper wrote nothing against it or came near it; ``as_sentences``
   (push-to-talk's) has it write once more, prompted with each example as a sentence.
3. **last word** (``Closed.check``): a command the free text took stands when the search's best
   sentence is the same command, clear of every other command's; else it is asked about.
4. **doubt**: a command only a guessing stage (``Stage.sure`` False) took, that the first pass
   did not take too, is asked about.

The first pass's own work at the end of speech (PocketSphinx's decode in one piece and its
phone check) is done only when something needs its command (``Case.first``). Each stage has a
stable name and a switch setting (``Stage.switch``; ``HearingSettings.without`` switches stages
off for the ablation). Before each stage the driver asks whether its expected CPU time (learned
here; per second of audio for the search, whose cost grows with the utterance) still fits
``hearing.budget_seconds``; when it does not, the utterance is ``OverBudget`` (the player is asked
to say it again at once). ``Ear.steps`` keeps what each stage decided and cost.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

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
    from assistant.hearing.recognizer import Ear
    from assistant.hearing.spotting import Spotter

T = TypeVar("T")


def written(sentence: str) -> str:
    """A command sentence as Whisper writes one: "attack" -> "Attack." """
    return sentence[:1].upper() + sentence[1:] + "."


def prompt_as_sentences(help_sentences: Iterable[str]) -> str:
    """Whisper's last prompt: the same examples, each a sentence of its own ("Pass. Quieter.")."""
    kept = dict.fromkeys(s.strip() for s in help_sentences if s.strip())
    return " ".join(s[0].upper() + s[1:] + "." for s in kept)


class Transcriber(Protocol):
    """What the stages use of Whisper (``whisper_engine.WhisperTranscriber``)."""

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


def _command(final: Final | None) -> Command | None:
    return final.command if isinstance(final, Transcript) else None


@dataclass
class Step:
    """One stage's part in one decision: what it decided (for traces), the CPU seconds it cost,
    and the command it took or confirmed, if any."""

    stage: str
    verdict: str
    seconds: float = 0.0
    command: Command | None = None


@dataclass
class Case:
    """One utterance on its way: the first pass's judgement (or how to come by it), the audio,
    and what Whisper made of it (each written once, when a stage first needs it)."""

    ear: Ear
    transcriber: Transcriber
    spotter: Spotter
    settings: HearingSettings
    first_pass: Final | Callable[[], Final]
    audio: bytes
    texts: list[str] | None = None
    opinion: Final | None = None
    #: the veto's verdict, given when no later stage takes a command
    vetoed: NotRecognized | None = None
    steps: list[Step] = field(default_factory=list)
    #: the search's figures, for its step's verdict (traces, `assistant transcribe --json`)
    notes: dict[str, str] = field(default_factory=dict)
    #: what the grammar search found, searched once an utterance
    look: Look | None = None
    #: the CPU seconds reading the first pass's judgement cost (0 until it is read), on ``clock``
    first_seconds: float = 0.0
    clock: Callable[[], float] = time.process_time

    @property
    def first(self) -> Final:
        """The first pass's judgement, read now if it has not been (its cost kept apart)."""
        if callable(self.first_pass):
            start = self.clock()
            self.first_pass = self.first_pass()
            self.first_seconds = self.clock() - start
        return self.first_pass

    @property
    def first_read(self) -> bool:
        return not callable(self.first_pass)

    @property
    def first_taken(self) -> Transcript | None:
        """The first pass's judgement when it took a command."""
        first = self.first
        return first if isinstance(first, Transcript) and first.command is not None else None

    @property
    def first_command(self) -> Command | None:
        return _command(self.first)

    def written(self) -> list[str]:
        """Whisper's best transcripts, prompted with the examples of what may be said (its free
        text, over its own 30 s window)."""
        if self.texts is None:
            self.texts = self.transcriber.hypotheses(self.audio, self.ear.prompt(), self.settings.hypotheses) or [""]
        return self.texts

    def spotted(self) -> Final:
        """What is spotted in Whisper's best transcript."""
        if self.opinion is None:
            self.opinion = self.ear.spot(self.written()[0])
        return self.opinion


class Stage:
    """One stage: ``run`` returns a decision that ends the free text's stages, or None."""

    #: the stable short name (ablation tables, traces, ``HearingSettings.without``)
    name: ClassVar[str]
    #: the settings this stage owns; the first is its switch
    SETTINGS: ClassVar[tuple[Setting[Any], ...]]
    #: False: a command this stage takes is doubted (it guesses)
    sure: ClassVar[bool] = False
    #: CPU seconds one run typically costs here (for a 2 s utterance when it ``scales``): the
    #: budget's estimate until this process has timed it
    typical_seconds: ClassVar[float] = 0.0
    #: True: its cost grows with the utterance (the search encodes the utterance alone)
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
#: How far below the best sentence (natural log) the search follows others: never less than
#: closed_margin (no decision turns on one further below); each word followed costs a decoder call.
SPAN = 6.0


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
            return _asked(decided, "Whisper held to the grammar found no allowed sentence")
        best = look.found[0].text
        if look.commands[0] != decided.command or self.goes_on(held, case.settings):
            return _asked(decided, f"Whisper held to the grammar hears {best!r}")
        if not self.clear(held, case.settings):
            return _asked(decided, f"Whisper held to the grammar finds {best!r} likeliest, but not clearly "
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
        texts = case.written()
        if not case.ear.sentences.words(texts[0]):
            return case.first  # Whisper heard nothing to speak against it
        distance = min(case.spotter.distance(t, first.command) for t in texts)
        if distance <= case.settings.confirm_distance:
            return case.first  # Whisper (half-)heard the same command
        why = f"vetoed {first.text!r}: Whisper heard {texts[0]!r} ({distance:.2f} from it)"
        # kept (the same command missed again at once is asked about) only when Whisper came near it
        case.vetoed = (Vetoed(texts[0], why, first.confidence, command=first.command, text=first.text)
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
        texts, ear = case.written(), case.ear
        again = case.transcriber.again(prompt_as_sentences(ear.sentences.help_for(ear.graph.intents)), 1)
        spotted = ear.spot(again[0]) if again else None
        if not isinstance(spotted, Transcript) or spotted.command is None:
            return None
        score = case.transcriber.score([written(spotted.text)])[0]
        own = case.transcriber.score([texts[0]], ending=False)[0]
        if own == -math.inf or score < own - case.settings.as_sentences_within:
            return None
        return Transcript(spotted.text, spotted.confidence, again[0], spotted.command, True)


#: Estimated from the stages' CPU seconds measured here times about 1.8 for a Pi 5 and 4.5 for
#: a Pi 4: 3.0 lets a Pi 5 write the free text over Whisper's 30 s window and spot (about 1.5 s),
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
    the command it took is doubted."""

    #: how quickly the expected cost of a stage follows what it cost here (a running mean)
    LEARN = 0.3

    def __init__(self) -> None:
        self.closed = Closed()
        #: the free text's stages, in order, then the last word
        self.free_text: list[Stage] = [Spot(), Veto(), AsSentences()]
        self.stages: list[Stage] = [*self.free_text, self.closed]
        #: each stage's expected CPU seconds (per second of audio when it ``scales``), learned as it runs
        self.typical = {s.name: s.typical_seconds / (TYPICAL_AUDIO if s.scales else 1.0) for s in self.stages}
        self.expected = dict(self.typical)
        self.spent = 0.0  # CPU seconds spent on the utterance under way
        self.clock = time.process_time

    def decide(self, case: Case) -> Final:
        """The decision on ``case`` (a fresh utterance): the four steps of the module docstring."""
        self.spent, case.clock = 0.0, self.clock
        closed, settings = self.closed, case.settings
        if closed.on(settings) and self._fits(closed, case) is None:  # 1. the first look
            early, cost = self._timed(closed, case, closed.first_look)
            case.steps.append(Step(closed.name, _first_look_verdict(early) + _note(case, closed), cost,
                                   _command(early)))
            if early is not None:
                return early
        case.first  # noqa: B018  (read now, outside any stage's cost: every stage below may need it)
        decided = self._free_text(case)  # 2. the free text
        if isinstance(decided, OverBudget):
            return decided
        decided = self._last_word(case, decided)  # 3. the last word
        if taken(decided) and not isinstance(decided, Doubted):  # 4. doubt
            assert isinstance(decided, Transcript)
            decider = next((step for step in reversed(case.steps) if step.command is not None), None)
            if decider is not None and decider.command != case.first_command and not next(
                    s.sure for s in self.stages if s.name == decider.stage):
                return Doubted(decided.text, decided.confidence, decided.heard, decided.command, decided.snapped,
                               decided.doubt, why=f"taken by {decider.stage} alone")
        return decided

    def _fits(self, stage: Stage, case: Case) -> str | None:
        """None when the stage's expected cost still fits the budget; else why not."""
        expected = self.expected[stage.name] * stage.per(case.audio)
        if self.spent + expected <= case.settings.budget_seconds:
            return None
        return f"stopped: {self.spent:.2f} + {expected:.2f} s is over the budget"

    def _stopped(self, stage: Stage, case: Case, why: str) -> None:
        """A stage not run: said in the trace; it learns nothing, so its expectation drifts back
        towards the typical (one slow utterance cannot keep it from every later one)."""
        case.steps.append(Step(stage.name, why))
        self.expected[stage.name] += self.LEARN * (self.typical[stage.name] - self.expected[stage.name])

    def _timed(self, stage: Stage, case: Case, work: Callable[[Case], T], learn: bool = True) -> tuple[T, float]:
        """``work(case)``, its CPU seconds (the first pass's reading, if it happens meanwhile, is
        its own) added to the utterance's and learned as the stage's expected cost."""
        start, first_seconds = self.clock(), case.first_seconds
        result = work(case)
        cost = self.clock() - start - (case.first_seconds - first_seconds)
        self.spent += cost
        if learn:
            per = stage.per(case.audio)
            self.expected[stage.name] += self.LEARN * (cost / per - self.expected[stage.name])
        return result, cost

    def _free_text(self, case: Case) -> Final:
        """Each stage of the free text in turn until one decides; the conclusion when none does."""
        for stage in self.free_text:
            if not stage.on(case.settings):
                decided = stage.skipped(case)
                case.steps.append(Step(stage.name, "off" if decided is None else
                                       "off: the first pass's command stands", command=_command(decided)))
                if decided is not None:
                    return decided
                continue
            over = self._fits(stage, case)
            if over is not None:
                self._stopped(stage, case, over)
                if case.texts is None or (case.first_command is not None and case.vetoed is None):
                    # nothing decided yet: better "Say again?" now than an answer too late
                    first = case.first
                    heard = first.heard if isinstance(first, NotRecognized) else first.text
                    return OverBudget(heard, f"over the budget ({case.settings.budget_seconds:.2f} CPU s) before "
                                             f"{stage.name}", first.confidence)
                break  # Whisper has had its say: what it decided so far stands
            decided, cost = self._timed(stage, case, stage.run)
            verdict = ("vetoed the first pass's command" if isinstance(stage, Veto) and case.vetoed else "nothing"
                       if decided is None else "decided: nothing taken" if not taken(decided) else
                       ("confirmed " if decided is case.first else "took ") + _json(decided))
            case.steps.append(Step(stage.name, verdict, cost, _command(decided)))
            if decided is not None:
                return decided
        return self._conclude(case)

    def _last_word(self, case: Case, decided: Final) -> Final:
        """The search's say on the decision, when on and within the budget (already paid when it
        had the first look)."""
        closed = self.closed
        if not closed.on(case.settings):
            case.steps.append(Step(closed.name, "off"))
            return decided
        searched = case.look is not None
        over = None if searched else self._fits(closed, case)
        if over is not None:
            self._stopped(closed, case, over)
            if taken(decided):
                assert isinstance(decided, Transcript)
                return _asked(decided, "not checked by Whisper held to the grammar (over the budget)")
            return decided
        checked, cost = self._timed(closed, case, lambda c: closed.check(c, decided), learn=not searched)
        verdict = ("decided: nothing taken" if not taken(checked) else "asked " + _json(checked)
                   if isinstance(checked, Doubted) else
                   ("confirmed " if _command(decided) == _command(checked) else "took ") + _json(checked))
        case.steps.append(Step(closed.name, verdict + _note(case, closed), cost, _command(checked)))
        return checked

    @staticmethod
    def _conclude(case: Case) -> Final:
        """No stage took a command: the veto's verdict, or why nothing was taken."""
        if case.vetoed is not None:
            return case.vetoed
        opinion, first = case.spotted(), case.first
        if isinstance(opinion, NotAllowedNow) or not isinstance(first, NotRecognized):
            return opinion
        text = case.written()[0]
        why = (first.heard or text, f"{first.reason}; Whisper heard {text!r}: {getattr(opinion, 'reason', '')}",
               first.confidence, first.alternatives)
        if isinstance(opinion, NearMiss):  # kept: the same command missed again at once is asked about
            return NearMiss(*why, command=opinion.command, text=opinion.text)
        return NotRecognized(*why)


def _asked(decided: Transcript, why: str) -> Doubted:
    return Doubted(decided.text, decided.confidence, decided.heard, decided.command, decided.snapped, decided.doubt,
                   why=why)


def _json(decided: Final) -> str:
    command = _command(decided)
    return str(command.to_json()) if command is not None else "-"


def _note(case: Case, stage: Stage) -> str:
    return f" {case.notes[stage.name]}" if stage.name in case.notes else ""


def _first_look_verdict(early: Final | None) -> str:
    if early is None:
        return "first look: not clear"
    if not taken(early):
        return "first look: nothing taken"
    return ("asked " if isinstance(early, Doubted) else "took ") + _json(early)


def field_name(key: str) -> str:
    """The HearingSettings field of a hearing key: its last part ("hearing.whisper.veto" -> veto),
    the engine's name before it where two engines share it (vosk_min_confidence)."""
    parts = key.split(".")
    return f"{parts[-2]}_{parts[-1]}" if parts[-1] == "min_confidence" else parts[-1]


def stage_settings() -> tuple[Setting[Any], ...]:
    """Every stage's declared settings, in the stages' order, and the budget."""
    return (*(s for stage in Cascade().stages for s in stage.SETTINGS), BUDGET)


#: The stages' names, in the order they run.
STAGE_NAMES = tuple(stage.name for stage in Cascade().stages)
