"""Play's rule (``policy.decide``) from a table: each outcome of hearing, in each moment that
changes what play does with it, and the one decision it gets. The live loop carries these out
(tests/test_live_confirm.py and the other hands-free tests play them through); the benchmarks'
tally counts by them (tests/test_bench_accuracy_tally.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from assistant.engine import Command
from assistant.hearing.events import Doubted, NearMiss, NotAllowedNow, NotRecognized, OverBudget, Transcript, Vetoed
from assistant.live.policy import Action, Decision, decide, let_go, missed_again
from assistant.sentences import Intent

EXPLORE = Command("explore", {"room": "100"})
SKILL = Command("skill", {"digit": "0"})
REPEAT = Command("repeat")
NEW_GAME = Command("new_game")
YES, NO = Command("yes"), Command("no")

INTENTS = {
    "explore": Intent("explore", []),
    "skill": Intent("skill", []),
    "repeat": Intent("repeat", [], harmless=True),
    "new_game": Intent("new_game", [], confirms=True),
    "yes": Intent("yes", []),
    "no": Intent("no", []),
}
#: A moment whose sentences have no yes or no: a doubted costly command cannot be asked about.
NO_ANSWERS = {name: intent for name, intent in INTENTS.items() if name not in ("yes", "no")}
#: Yes marked harmless: a guessed yes still answers the question (asked again), it is not let go.
HARMLESS_YES = {**INTENTS, "yes": Intent("yes", [], harmless=True)}


def doubted(command: Command, text: str = "") -> Doubted:
    return Doubted(text or command.intent, 0.5, "words", command, why="taken by as_sentences alone")


def near(command: Command, heard: str = "words") -> NearMiss:
    return NearMiss(heard, "near it", 0.4, command=command, text=command.intent)


def vetoed(command: Command, heard: str = "other words") -> Vetoed:
    return Vetoed(heard, "vetoed", 0.4, command=command, text=command.intent)


ASKING = doubted(EXPLORE, "explore one zero zero")


@dataclass(frozen=True)
class Case:
    outcome: Transcript | NotRecognized
    action: Action
    moment: dict[str, Any] = field(default_factory=dict)
    intents: dict[str, Intent] = field(default_factory=lambda: INTENTS)
    command: Command | None = None
    asking: Doubted | None = None
    missed: NearMiss | None = None


CASES = {
    # heard
    "a command heard is acted on": Case(Transcript("explore", command=EXPLORE), Action.ACT, command=EXPLORE),
    "words that are no command are nothing": Case(Transcript("", 0.0), Action.NOTHING),
    "yes with nothing asked is a command like any": Case(Transcript("yes", command=YES), Action.ACT, command=YES),
    # heard with doubt
    "a doubted harmless command is let go, always listening":
        Case(doubted(REPEAT), Action.LET_GO, missed=let_go(doubted(REPEAT))),
    "a doubted harmless command is acted on at once with push-to-talk":
        Case(doubted(REPEAT), Action.ACT, {"push_to_talk": True}, command=REPEAT),
    "a doubted harmless command said again at once is acted on unasked":
        Case(doubted(REPEAT), Action.ACT, {"missed": let_go(doubted(REPEAT))}, command=REPEAT),
    "a doubted harmless command after a miss of another is let go":
        Case(doubted(REPEAT), Action.LET_GO, {"missed": near(SKILL)}, missed=let_go(doubted(REPEAT))),
    "a doubted harmless command while a move is asked about leaves the question":
        Case(doubted(REPEAT), Action.LET_GO, {"asking": ASKING}, asking=ASKING, missed=let_go(doubted(REPEAT))),
    "a doubted costly command is asked about": Case(doubted(EXPLORE), Action.ASK, asking=doubted(EXPLORE)),
    "a doubted costly command is asked about with push-to-talk too":
        Case(doubted(EXPLORE), Action.ASK, {"push_to_talk": True}, asking=doubted(EXPLORE)),
    "a doubted costly command with no yes or no to ask with is to be said again":
        Case(doubted(EXPLORE), Action.SAY_AGAIN, intents=NO_ANSWERS),
    "a doubted command of an intent not in the sentences is asked about":
        Case(doubted(Command("attack")), Action.ASK, asking=doubted(Command("attack"))),
    "a doubted command that confirms is acted on when the session asks its own question":
        Case(doubted(NEW_GAME), Action.ACT, {"session_asks": True}, command=NEW_GAME),
    "a doubted command that confirms is asked about when the session would not ask":
        Case(doubted(NEW_GAME), Action.ASK, asking=doubted(NEW_GAME)),
    "a doubted costly command replaces the question asked":
        Case(doubted(SKILL), Action.ASK, {"asking": ASKING}, asking=doubted(SKILL)),
    # answering the question asked
    "a sure yes acts on what the question named":
        Case(Transcript("yes", command=YES), Action.ANSWER_YES, {"asking": ASKING}, command=EXPLORE),
    "a sure no drops the question": Case(Transcript("no", command=NO), Action.ANSWER_NO, {"asking": ASKING}),
    "a guessed yes asks the question again": Case(doubted(YES), Action.ASK, {"asking": ASKING}, asking=ASKING),
    "a guessed no asks the question again": Case(doubted(NO), Action.ASK, {"asking": ASKING}, asking=ASKING),
    "a guessed yes, even of a harmless yes, asks the question again":
        Case(doubted(YES), Action.ASK, {"asking": ASKING}, intents=HARMLESS_YES, asking=ASKING),
    "another command heard instead of an answer is acted on, the question dropped":
        Case(Transcript("skill", command=SKILL), Action.ACT, {"asking": ASKING}, command=SKILL),
    "yes missed twice running while asking is a guessed answer: asked again":
        Case(near(YES), Action.ASK, {"asking": ASKING, "missed": near(YES)}, asking=ASKING),
    # not allowed now, over the budget
    "a command not allowed now is refused, the question dropped":
        Case(NotAllowedNow("explore", "not now", command=EXPLORE), Action.REFUSED, {"asking": ASKING}, command=EXPLORE),
    "not allowed now with no command is nothing": Case(NotAllowedNow("explore", "not now"), Action.NOTHING),
    "words over the budget are to be said again, the question kept":
        Case(OverBudget("explore", "over"), Action.SAY_AGAIN, {"asking": ASKING}, asking=ASKING),
    "no words over the budget is nothing": Case(OverBudget("", "over"), Action.NOTHING),
    # missed: near, vetoed
    "a command missed is let go": Case(near(SKILL), Action.LET_GO, missed=near(SKILL)),
    "a command missed while asking leaves the question":
        Case(near(SKILL), Action.LET_GO, {"asking": ASKING}, asking=ASKING, missed=near(SKILL)),
    "a command missed after a miss of another is let go":
        Case(near(SKILL), Action.LET_GO, {"missed": near(EXPLORE)}, missed=near(SKILL)),
    "a command missed twice running is asked about": Case(near(SKILL), Action.ASK, {"missed": near(SKILL, "first")}),
    "a command vetoed twice running is asked about": Case(vetoed(SKILL), Action.ASK, {"missed": vetoed(SKILL)}),
    "a harmless command missed twice running is acted on": Case(near(REPEAT), Action.ACT, {"missed": near(REPEAT)},
                                                                command=REPEAT),
    "a costly command missed twice running with no yes or no is to be said again":
        Case(near(SKILL), Action.SAY_AGAIN, {"missed": near(SKILL)}, intents=NO_ANSWERS),
    "a command that confirms missed twice running is acted on when the session asks":
        Case(near(NEW_GAME), Action.ACT, {"missed": near(NEW_GAME), "session_asks": True}, command=NEW_GAME),
    "a miss near no command is nothing": Case(NearMiss("words", "near nothing"), Action.NOTHING),
    "table talk is nothing": Case(NotRecognized("pass the dice", "no sentence"), Action.NOTHING),
    "table talk leaves the question and the near miss":
        Case(NotRecognized("pass the dice", "no sentence"), Action.NOTHING, {"asking": ASKING}, asking=ASKING),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_each_outcome_in_each_moment_gets_its_decision(case: Case) -> None:
    decision = decide(case.outcome, case.intents, **case.moment)
    assert decision.action is case.action
    assert decision.command == case.command
    missed = case.missed if case.action is Action.LET_GO else None
    assert decision.missed == missed
    if case.action is Action.ASK and case.asking is None:  # taken with doubt after two misses
        assert decision.asking is not None and decision.asking.command == case.outcome.command  # type: ignore[union-attr]
    else:
        assert decision.asking == case.asking


def test_every_action_is_in_the_table() -> None:
    assert {case.action for case in CASES.values()} == set(Action)


def test_a_command_missed_twice_is_asked_about_with_both_hearings_named() -> None:
    asked = decide(near(SKILL, "skill sir"), INTENTS, missed=near(SKILL, "skill zero")).asking
    assert asked is not None and asked.command == SKILL and asked.text == "skill"
    assert asked.why == "missed twice running: Whisper heard 'skill zero', then 'skill sir'"
    asked = decide(vetoed(SKILL, "kill"), INTENTS, missed=vetoed(SKILL, "still")).asking
    assert asked is not None and asked.why == "vetoed twice running: Whisper heard 'still', then 'kill'"
    asked = decide(near(SKILL, "kill"), INTENTS, missed=vetoed(SKILL, "still")).asking
    assert asked is not None and asked.why.startswith("missed twice running")


def test_what_the_log_is_told() -> None:
    assert decide(doubted(EXPLORE), INTENTS).note == (
        "heard 'words' as 'explore' with doubt (taken by as_sentences alone); asking")
    assert decide(doubted(EXPLORE), NO_ANSWERS).note.endswith("no yes or no to ask with: asked to say it again")
    assert decide(OverBudget("explore", "over"), INTENTS).note == "heard 'explore': over; asked to say it again"
    assert decide(NotRecognized("pass the dice", "no sentence"), INTENTS).note == (
        "heard 'pass the dice': no sentence; no action")
    assert decide(NotRecognized("", "silence"), INTENTS).note == ""
    assert decide(doubted(REPEAT), INTENTS).note == (
        "heard 'words': taken with doubt (taken by as_sentences alone); harmless, so let go unless said again; "
        "no action")


def test_a_doubted_harmless_command_let_go_is_missed_again_when_said_again() -> None:
    kept = decide(doubted(REPEAT), INTENTS).missed
    assert isinstance(kept, NearMiss) and kept.command == REPEAT and kept.heard == "words"
    assert missed_again(kept, let_go(doubted(REPEAT)))
    assert not missed_again(kept, near(SKILL)) and not missed_again(None, kept)
    assert not missed_again(NotRecognized("words", "no sentence"), kept)


def test_the_decision_is_a_value() -> None:
    assert decide(doubted(EXPLORE), INTENTS) == Decision(
        Action.ASK, asking=doubted(EXPLORE),
        note="heard 'words' as 'explore' with doubt (taken by as_sentences alone); asking")
