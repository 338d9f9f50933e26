"""The hybrid's decision on one utterance, after the streaming first pass: ``Cascade.decide``.

Read top to bottom, it is:

1. **first look** (``Closed.first_look``): Whisper held to the grammar (closed.py) finds the
   allowed sentence likeliest for the utterance's own short encoding; a best sentence its rule
   (``Closed.verdict``) hears is taken at once, one it would ask about is asked about.
2. **free text**, only when that rule took nothing: Whisper writes the utterance (over its own
   30 s window for what may hold digits, else 10 s), prompted with the game's examples,
   and the stages decide on what it wrote: ``spot`` takes a command spotted in its best
   transcript; ``veto`` lets the first pass's command stand when Whisper wrote nothing against
   it or came near it; ``as_sentences`` (push-to-talk's) has it write once more, prompted with
   each example as a sentence.
3. **last word** (``Closed.check``): a command the free text took stands when the search's best
   sentence is the same command, clear of every other command's; else it is asked about.
4. **doubt**: a command only a guessing stage (``Stage.sure`` False) took, that the first pass
   did not take too, is asked about.
5. **the table's voices** (``Learned``, learning.py): takes of sentences the players confirmed
   tonight take a doubted command they place at it, and ask about a command taken or missed that
   they place elsewhere.

The first pass's own work at the end of speech (PocketSphinx's decode in one piece and its
phone check) is done only when something needs its command (``Case.first``). Each stage has a
stable name and a switch setting (``Stage.switch``; ``without`` switches stages
off for the ablation). Before each stage the driver asks whether its expected CPU time (learned
here; per second of audio for the search, whose cost grows with the utterance) still fits
``hearing.budget_seconds``; when it does not, the utterance is ``OverBudget`` (the player is asked
to say it again at once). ``Ear.steps`` keeps what each stage decided and cost.

Here: the driver and the free text's stages. ``case.py``: the utterance on its way (``Case``),
the trace (``Step``), what a stage is (``Stage``). ``closed_stage.py``: the grammar search's
rule (the search itself: ``closed.py``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from assistant.hearing.audio import LOUD_MARGIN_S, loud_part
from assistant.hearing.case import (
    BYTES_PER_SECOND,
    MIN_AUDIO,
    TYPICAL_AUDIO,
    Case,
    HeldTo,
    Stage,
    Step,
    Transcriber,
    asked,
    command_of,
    field_name,
    taken,
)
from assistant.hearing.closed import SPAN
from assistant.hearing.closed_stage import Closed
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
from assistant.hearing.grammar import is_entry
from assistant.hearing.learning import check

if TYPE_CHECKING:
    from assistant.hearing.settings import HearingSettings

#: What other modules and tests read of the pipeline's parts (they live in case.py and closed_stage.py)
__all__ = ["BYTES_PER_SECOND", "MIN_AUDIO", "SPAN", "STAGE_NAMES", "TYPICAL_AUDIO", "Cascade", "Case", "Closed",
           "HeldTo", "Stage", "Step", "Transcriber", "field_name", "prompt_as_sentences", "taken", "without",
           "written"]

T = TypeVar("T")


def written(sentence: str) -> str:
    """A command sentence as Whisper writes one: "attack" -> "Attack." """
    return sentence[:1].upper() + sentence[1:] + "."


def prompt_as_sentences(help_sentences: Iterable[str]) -> str:
    """Whisper's last prompt: the same examples, each a sentence of its own ("Pass. Quieter.")."""
    kept = dict.fromkeys(s.strip() for s in help_sentences if s.strip())
    return " ".join(s[0].upper() + s[1:] + "." for s in kept)


class Spot(Stage):
    name = "spot"
    sure = True
    #: the free text (over 10 s, or Whisper's 30 s for an entry): a median of about 0.5 CPU s here
    typical_seconds = 0.5
    switch = "hearing.whisper.spotting"

    def run(self, case: Case) -> Final | None:
        spotted = case.spotted()
        return spotted if taken(spotted) else None


class Veto(Stage):
    name = "veto"
    sure = True
    switch = "hearing.whisper.veto"

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
    switch = "hearing.whisper.as_sentences"

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



class Learned(Stage):
    """The table's voices (learning.py): the last say, on every utterance once takes are kept."""

    name = "learned"
    switch = "hearing.learn"
    #: matching against the takes: at most a few hundredths of a CPU second here
    typical_seconds = 0.03

    def judge(self, case: Case, decided: Final) -> tuple[Final, str]:
        assert case.voices is not None
        ear = case.ear
        samples = loud_part(np.frombuffer(case.audio, dtype=np.int16), case.settings.whisper.trim, LOUD_MARGIN_S)
        said = decided.text if isinstance(decided, (Transcript, NearMiss)) else ""
        entry = any(is_entry(words) for words in (*case.heard_as(), tuple(said.split())))
        return check(case.voices, samples, decided, ear.graph,
                     lambda sentence: ear.sentences.match(ear.sentences.words(sentence), ear.graph.intents), entry)


class Cascade:
    """The driver: runs the stages in order, times each, keeps to the budget, and says whether
    the command it took is doubted."""

    #: how quickly the expected cost of a stage follows what it cost here (a running mean)
    LEARN = 0.3

    def __init__(self) -> None:
        self.closed = Closed()
        self.learned = Learned()
        #: the free text's stages, in order, then the last word (the table's voices come after: ``learned``)
        self.free_text: list[Stage] = [Spot(), Veto(), AsSentences()]
        self.stages: list[Stage] = [*self.free_text, self.closed]
        #: each stage's expected CPU seconds (per second of audio when it ``scales``), learned as it runs
        self.typical = {s.name: s.typical_seconds / (TYPICAL_AUDIO if s.scales else 1.0)
                        for s in (*self.stages, self.learned)}
        self.expected = dict(self.typical)
        self.spent = 0.0  # CPU seconds spent on the utterance under way
        self.clock = time.process_time

    def decide(self, case: Case) -> Final:
        """The decision on ``case`` (a fresh utterance): the steps of the module docstring."""
        decided = self._decide(case)
        learned = self.learned
        if case.voices is None or not learned.on(case.settings):  # 5. the table's voices (traced when they run)
            return decided
        # always run (no budget asks its cost), so its cost is not learned
        (out, verdict), cost = self._timed(learned, case, lambda c: learned.judge(c, decided), learn=False)
        case.steps.append(Step(learned.name, verdict, cost, command_of(out) if out is not decided else None))
        return out

    def _decide(self, case: Case) -> Final:
        self.spent, case.clock = 0.0, self.clock
        closed, settings = self.closed, case.settings
        if closed.on(settings) and self._fits(closed, case) is None:  # 1. the first look
            early, cost = self._timed(closed, case, closed.first_look)
            case.steps.append(Step(closed.name, _first_look_verdict(early) + _note(case, closed), cost,
                                   command_of(early)))
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

    def _fits(self, stage: Stage, case: Case) -> float | None:
        """None when the stage's expected cost still fits the budget; else that expected cost."""
        expected = self.expected[stage.name] * stage.per(case.audio)
        return None if self.spent + expected <= case.settings.budget_seconds else expected

    def _stopped(self, stage: Stage, case: Case, expected: float) -> None:
        """A stage not run: said in the trace, with the CPU seconds spent and expected
        (``Step.stopped``); it learns nothing, so its expectation drifts back towards the typical
        (one slow utterance cannot keep it from every later one)."""
        case.steps.append(Step(stage.name, f"stopped: {self.spent:.2f} + {expected:.2f} s is over the budget",
                               stopped=(self.spent, expected)))
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
                                       "off: the first pass's command stands", command=command_of(decided)))
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
            case.steps.append(Step(stage.name, verdict, cost, command_of(decided)))
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
                return asked(decided, "not checked by Whisper held to the grammar (over the budget)")
            return decided
        checked, cost = self._timed(closed, case, lambda c: closed.check(c, decided), learn=not searched)
        verdict = ("decided: nothing taken" if not taken(checked) else "asked " + _json(checked)
                   if isinstance(checked, Doubted) else
                   ("confirmed " if command_of(decided) == command_of(checked) else "took ") + _json(checked))
        case.steps.append(Step(closed.name, verdict + _note(case, closed), cost, command_of(checked)))
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


def _json(decided: Final) -> str:
    command = command_of(decided)
    return str(command.to_json()) if command is not None else "-"


def _note(case: Case, stage: Stage) -> str:
    return f" {case.notes[stage.name]}" if stage.name in case.notes else ""


def _first_look_verdict(early: Final | None) -> str:
    if early is None:
        return "first look: not clear"
    if not taken(early):
        return "first look: nothing taken"
    return ("asked " if isinstance(early, Doubted) else "took ") + _json(early)


def without(settings: HearingSettings, *stages: str) -> HearingSettings:
    """``settings`` with the named stages switched off (the ablation): names from ``STAGE_NAMES``."""
    cascade = Cascade()
    switches = {stage.name: stage.switch for stage in (*cascade.stages, cascade.learned)}
    unknown = set(stages) - set(switches)
    if unknown:
        raise ValueError(f"no stage {', '.join(sorted(unknown))}; the stages are {', '.join(switches)}")
    return replace(settings, **{field_name(switches[name]): type(getattr(settings, field_name(switches[name])))(0)
                                for name in stages})


#: The stages' names, in the order they run.
STAGE_NAMES = tuple(stage.name for stage in Cascade().stages)
