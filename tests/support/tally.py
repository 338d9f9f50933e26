"""How the accuracy benchmark counts, shared with its tests: a result tallied as right, WRONG
(acted on, or asked first) or missed; table talk taken; and a kept result reused for an ablation
row only when hearing the clip again without the stage could not change it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from assistant.engine import Command
from assistant.games.omega_virus.buttons import command_center_buttons
from assistant.hearing.events import Doubted, Final, Transcript
from assistant.hearing.pipeline import Cascade
from assistant.live.policy import Action, decide
from assistant.sentences import Intent, SentenceSet

#: The Omega Virus intents whose command does nothing but press its keypad form on the Command
#: Center (``CommandCenter._cmd_*``: explore, pass and teleport, bare buttons, shields, terminate,
#: skill, code, skip). Not ``repeat`` (it presses R only at a move) nor ``attack`` (its code is board data).
PRESSING = frozenset({"explore", "pass", "teleport", "buttons", "shields", "terminate", "skill", "code", "skip"})


def same_move(game: str, got: Command | None, expected: Command | None) -> bool:
    """Whether ``got`` does what ``expected`` would: the same command, or in The Omega Virus two
    commands that press the same keys ("terminate with zero" and "zero" when termination is asked,
    "pass" and "teleport", "energize one and two" and "one two" when shields are asked). Counted
    by what is done, not by the intent's name: a different name for the same keys is no wrong move."""
    if got == expected:
        return True
    if got is None or expected is None or game != "omega-virus":
        return False
    if got.intent not in PRESSING or expected.intent not in PRESSING:
        return False
    keys = command_center_buttons(got, None)
    return keys is not None and keys == command_center_buttons(expected, None)


def unchanged_without(stage: str, row: dict[str, Any], budget: float) -> dict[str, Any] | None:
    """``row`` (a clip heard with every stage as configured) as it would be with ``stage`` switched
    off, when that cannot change what was decided; None when the clip must be heard again.

    Each decision of the clip (its steps, from "first" on) is unchanged when the cascade never
    reached the stage, or when every run of it decided nothing (verdict "nothing") and no stage
    after it was stopped by the budget (``Step.stopped``: spent + expected over the budget) that
    the stage's own CPU seconds, not spent, would have let run. The stages are deterministic on
    the same audio, so the stages after it decide the same (the last stage stopped by the
    budget: the cascade ended there, as without it).
    The row's CPU seconds lose the stage's own. The first stage (spot) has Whisper write the
    audio for all: without it the next stage pays that, so a clip that reached it is heard again."""
    steps = row.get("steps")
    if steps is None:
        return None
    stages = Cascade().free_text  # the closed check after them decides on what they decided
    first, last = stages[0].name, stages[-1].name
    saved = 0.0
    decision_saved = 0.0
    for name, verdict, seconds, stopped in steps:
        if name == "first":
            decision_saved = 0.0
            continue
        if name == stage:
            if stage == first:
                return None  # the first stage has Whisper write the audio, which the others reuse
            if stopped is not None and stage == last:
                continue  # the last stage, stopped: the cascade ended there, as it does without it
            if verdict != "nothing":
                return None
            decision_saved += seconds
            saved += seconds
        elif stopped is not None and decision_saved > 0:
            spent, expected = stopped
            if spent - decision_saved + expected <= budget:
                return None
    return {**row, "cpu": row["cpu"] - saved} if row.get("cpu") is not None else dict(row)


@dataclass
class Tally:
    """Commands right, WRONG (another command taken) and missed (none taken), counted apart;
    table talk taken; wall-clock and CPU seconds per utterance.

    A wrong command (or table talk) taken with doubt and not harmless is *asked first* in play
    ("Explore one zero zero?": the live loop acts only on "yes"; ``asked_first``); the others are
    *acted on*: the wrong moves a player suffers. ``wrong`` and ``taken`` count both. A doubted
    harmless command is let go the first time (``as_played``): not taken, so right or wrong it
    is missed here (said again, it is acted on: the benchmark's near-miss line)."""

    commands: int = 0
    right: int = 0
    wrong: int = 0
    wrong_asked: int = 0
    talk: int = 0
    taken: int = 0
    taken_asked: int = 0
    seconds: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    @property
    def missed(self) -> int:
        return self.commands - self.right - self.wrong

    @property
    def wrong_acted(self) -> int:
        return self.wrong - self.wrong_asked

    @property
    def taken_acted(self) -> int:
        return self.taken - self.taken_asked

    def add(self, command: bool, ok: bool, took: bool, seconds: float, cpu: float | None,
            asked: bool = False) -> None:
        if command:
            self.commands += 1
            self.right += ok
            self.wrong += (not ok) and took
            self.wrong_asked += (not ok) and took and asked
        else:
            self.talk += 1
            self.taken += took
            self.taken_asked += took and asked
        self.seconds.append(seconds)
        if cpu is not None:
            self.cpu.append(cpu)

    def merge(self, other: Tally) -> None:
        """Every count added, every list of seconds extended (a field added later is merged too)."""
        for name in (f.name for f in fields(self)):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def steps_kept(ear: Any, kept: list[tuple[str, str, float, list[float] | None]]) -> Callable[[Transcript], Final]:
    """``ear.decide``, also noting in ``kept`` the cascade's steps of each decision (name, verdict,
    CPU seconds, and the seconds spent and expected when the budget stopped it; one clip may be
    decided more than once: each utterance the first pass ends)."""
    decide = ear.decide

    def deciding(transcript: Transcript) -> Final:
        decided: Final = decide(transcript)
        kept.extend((step.stage, step.verdict, round(step.seconds, 4), list(step.stopped) if step.stopped else None)
                    for step in ear.steps)
        return decided

    return deciding


def harmless(sentences: SentenceSet, command: Command) -> bool:
    """Whether ``command``'s intent loses nothing when taken by mistake (``harmless: true``)."""
    intent = sentences.intents.get(command.intent)
    return intent is not None and intent.harmless


def asked_first(sentences: SentenceSet, result: Final) -> bool:
    """Whether play asks before acting on ``result`` (``policy.decide``, always listening, nothing
    asked yet: ``Action.ASK``): a command taken with doubt whose intent is not ``harmless``
    ("Explore one zero zero?", acted on only after a yes). An intent that ``confirms`` counts as
    asked too: play asks, or the session asks its own question instead ("Shut down? Say yes or
    no."), so it is decided here as if the session did not."""
    return decide(result, sentences.intents).action is Action.ASK


def in_play(sentences: SentenceSet, result: Final) -> Final:
    """``result`` as play, always listening (as the benchmarks hear), takes it the first time it is
    heard (``policy.decide``; push-to-talk acts on it at once): a command taken with doubt whose
    intent is harmless is let go, kept as a near miss (``policy.let_go``), and acted on only when
    said again; anything else as it is."""
    decision = decide(result, sentences.intents)
    if isinstance(result, Doubted) and decision.action is Action.LET_GO and decision.missed is not None:
        return decision.missed
    return result


def as_played(row: dict[str, Any]) -> dict[str, Any]:
    """A kept row (what hearing decided) as play takes it the first time (``policy.decide``, as
    ``in_play``): a doubted command not asked about is harmless, so it is let go: nothing taken, a
    near miss of it kept ("let_go"). Rows keep what hearing decided, so a change of play's rule
    needs no clip heard again: the row's command stands in, harmless when it was not asked."""
    if row["got"] == "nothing" or not row.get("doubted"):
        return row
    name = str(row["got"]).split(" ", 1)[0]  # "intent {slots}": the slots do not change the rule
    intents = {name: Intent(name, [], harmless=not row["asked"])}
    if decide(Doubted(str(row["got"]), command=Command(name)), intents).action is not Action.LET_GO:
        return row
    return {**row, "got": "nothing", "ok": row.get("expected") is None, "near": row["got"], "let_go": True}


def tally_json(tally: Tally) -> dict[str, Any]:
    def q(values: Sequence[float], p: float) -> float | None:
        return float(np.percentile(values, p)) if values else None

    return {"commands": tally.commands, "right": tally.right, "wrong": tally.wrong,
            "wrong_acted_on": tally.wrong_acted, "wrong_asked_first": tally.wrong_asked, "missed": tally.missed,
            "table_talk": tally.talk, "table_talk_taken": tally.taken,
            "table_talk_acted_on": tally.taken_acted, "table_talk_asked_first": tally.taken_asked,
            "cpu_median_s": q(tally.cpu, 50), "cpu_p90_s": q(tally.cpu, 90),
            "wall_median_s": q(tally.seconds, 50), "wall_p90_s": q(tally.seconds, 90)}
