"""The closed stage: Whisper held to the grammar (the search: closed.py) decides first when it
can (``Closed.first_look``) and has the last word on what the free text took
(``Closed.check``); ``Closed.confirms`` holds an early answer to the audio so far. The rule on
the search's figures is ``Closed.verdict`` (docs/hearing.md, "The grammar search")."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING

from assistant.engine import Command
from assistant.hearing.case import UNREAD, Case, EarView, HeldTo, Look, Stage, Transcriber, asked, relation
from assistant.hearing.closed import SPAN
from assistant.hearing.events import Doubted, Final, NotAllowedNow, NotRecognized, OverBudget, Transcript

if TYPE_CHECKING:
    from assistant.hearing.settings import HearingSettings


class Closed(Stage):
    """Whisper held to the grammar: the first look and the last word (module docstring)."""

    name = "closed"
    sure = True
    typical_seconds = 0.3
    scales = True
    switch = "hearing.whisper.closed"

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
    def confirms(ear: EarView, transcriber: Transcriber, settings: HearingSettings, audio: bytes,
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
