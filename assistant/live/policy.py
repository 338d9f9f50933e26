"""What play does with what hearing made of an utterance: one pure rule, ``decide``, used by the
live loop (which carries its decision out: speaks, acts, remembers) and by the benchmarks' tally
(which counts what play would do). No clock, no session, no audio: the moment comes in as values.

The rule, in order:

- a command heard is acted on (the answer to a question asked, if it is yes or no);
- a command heard with doubt (``Doubted``) whose intent is ``harmless`` (repeat, status, volume)
  is let go as a near miss, always listening: said again at once it is acted on unasked (asking
  "Status?" costs what acting does); with push-to-talk it is acted on at once;
- one whose intent ``confirms`` (new game, shut down) is acted on when the session asks its own
  question before it; any other is asked about first ("Explore one two zero?"), or, when there
  is no yes or no to answer with, the player is asked to say it again;
- yes or no answers the question asked; a guessed one (doubted) is no answer: asked once more;
- a command not allowed now is refused (the game says why);
- words the hybrid ran out of time on are to be said again;
- a command missed (``NearMiss``: vetoed, or near what Whisper wrote) is let go, unless the same
  command was missed just before with nothing taken since: the player is saying it again, and it
  is taken with doubt (asked about unless harmless);
- anything else (table talk, silence) is nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from assistant.engine import Command
from assistant.hearing.events import Doubted, NearMiss, NotAllowedNow, NotRecognized, OverBudget, Transcript, Vetoed
from assistant.sentences import Intent

#: The intents that answer a question about a doubted command.
ANSWERS = frozenset({"yes", "no"})


class Action(Enum):
    """What play does with an utterance."""

    ACT = "act"  # act on ``command``
    ASK = "ask"  # ask about ``asking`` ("Explore one zero zero?"): acted on after a yes
    LET_GO = "let go"  # nothing done; ``missed`` kept, taken with doubt if said again at once
    SAY_AGAIN = "say again"  # "Say again?"
    ANSWER_YES = "answer yes"  # the question answered yes: act on ``command``, what it named
    ANSWER_NO = "answer no"  # the question answered no: dropped, "Say again?"
    REFUSED = "refused"  # ``command`` is not allowed now: the game says why
    NOTHING = "nothing"  # nothing done, nothing forgotten


@dataclass(frozen=True)
class Decision:
    """An ``Action`` and what it needs. ``asking`` is the question open after it (the one to ask,
    for ``ASK``); every action but ``NOTHING`` and ``LET_GO`` forgets the near miss kept before.
    ``note`` is the line for the log ("" for none)."""

    action: Action
    command: Command | None = None
    asking: Doubted | None = None
    missed: NearMiss | None = None
    note: str = ""


def missed_again(before: NotRecognized | None, now: NotRecognized) -> bool:
    """Whether ``now`` misses the same command ``before`` did (both kept near it: ``NearMiss``):
    the player saying it again, to be asked about (when it comes at once, nothing taken between:
    the caller's part). bench_accuracy's ``--said-again`` replays this rule."""
    return (isinstance(before, NearMiss) and isinstance(now, NearMiss) and now.command is not None
            and before.command == now.command)


def let_go(doubted: Doubted) -> NearMiss:
    """A doubted harmless command as the near miss play keeps: said again at once (another
    near miss or doubt of the same command, ``missed_again``), it is acted on."""
    return NearMiss(doubted.heard, f"taken with doubt ({doubted.why}); harmless, so let go unless said again",
                    doubted.confidence, command=doubted.command, text=doubted.text)


def decide(outcome: Transcript | NotRecognized, intents: Mapping[str, Intent], *,
           asking: Doubted | None = None, push_to_talk: bool = False, session_asks: bool = False,
           missed: NearMiss | None = None) -> Decision:
    """What play does with ``outcome`` now (see the module's doc).

    ``intents``: the sentences' intents (their ``harmless`` and ``confirms`` marks; a question is
    asked only when yes and no are among them). ``asking``: the question open. ``session_asks``:
    whether the session asks its own question before the outcome's command (``Front.asks_before``;
    read only for an intent that ``confirms``). ``missed``: the near miss kept just before, with
    nothing taken since (None when there is none or it is too old: the caller's clock)."""
    if isinstance(outcome, Transcript):
        if outcome.command is None:
            return Decision(Action.NOTHING, asking=asking)
        if isinstance(outcome, Doubted) and lets_go(intents, outcome.command, asking, push_to_talk):
            return _near(let_go(outcome), intents, asking, session_asks, missed)
        doubted = outcome if isinstance(outcome, Doubted) else None
        return _take(outcome.command, doubted, intents, asking, session_asks)
    if isinstance(outcome, NotAllowedNow) and outcome.command is not None:
        return Decision(Action.REFUSED, command=outcome.command)
    if isinstance(outcome, OverBudget) and outcome.heard:  # words, not a noise: asked again
        return Decision(Action.SAY_AGAIN, asking=asking,
                        note=f"heard {outcome.heard!r}: {outcome.reason}; asked to say it again")
    if isinstance(outcome, NearMiss) and outcome.command is not None:
        return _near(outcome, intents, asking, session_asks, missed)
    return Decision(Action.NOTHING, asking=asking,
                    note=f"heard {outcome.heard!r}: {outcome.reason}; no action" if outcome.heard else "")


def lets_go(intents: Mapping[str, Intent], command: Command, asking: Doubted | None, push_to_talk: bool) -> bool:
    """Whether a doubted command is let go the first time (kept as a near miss, acted on when
    said again): a ``harmless`` one, unless it answers the question asked (a guessed yes or no
    is asked again). Asking "Status?" costs the table what acting does; acting at once reads out
    status or turns the volume on table talk and on commands half heard. Not with push-to-talk:
    no table talk reaches the ear unpressed, and a player who pressed and spoke would hear
    nothing; a harmless command is acted on at once, as it costs nothing."""
    if push_to_talk or (asking is not None and command.intent in ANSWERS):
        return False
    intent = intents.get(command.intent)
    return intent is not None and intent.harmless


def asks_first(intents: Mapping[str, Intent], command: Command, session_asks: bool) -> bool:
    """Whether a doubted command is asked about: not when it loses nothing (``harmless``), nor
    when it asks its own question before anything is lost (``confirms``: new game, shut down),
    as the session says it does now (a game over that undo could still take back is left
    without a question)."""
    intent = intents.get(command.intent)
    if intent is None:
        return True
    if intent.harmless:
        return False  # said twice running (``lets_go``): acted on, as asking would cost the same
    return not (intent.confirms and session_asks)


def _near(near: NearMiss, intents: Mapping[str, Intent], asking: Doubted | None, session_asks: bool,
          missed: NearMiss | None) -> Decision:
    """A command missed: let go, unless the same command was missed just before with nothing
    taken since. Then the player is saying it again, unanswered (table talk seldom lands near the
    same command twice running), and it is taken with doubt: asked about ("Skill zero?"), as any
    doubted command."""
    assert near.command is not None
    if missed is None or not missed_again(missed, near):
        return Decision(Action.LET_GO, asking=asking, missed=near,
                        note=f"heard {near.heard!r}: {near.reason}; no action")
    how = "vetoed" if isinstance(near, Vetoed) and isinstance(missed, Vetoed) else "missed"
    doubted = Doubted(near.text, near.confidence, near.heard, near.command,
                      why=f"{how} twice running: Whisper heard {missed.heard!r}, then {near.heard!r}")
    return _take(near.command, doubted, intents, asking, session_asks)


def _take(command: Command, doubted: Doubted | None, intents: Mapping[str, Intent], asking: Doubted | None,
          session_asks: bool) -> Decision:
    """A command taken: the answer to the question asked, a doubted costly command to ask about,
    or a command to act on."""
    if asking is not None and command.intent in ANSWERS:
        if doubted is not None:  # a guessed answer is no answer: ask once more
            return Decision(Action.ASK, asking=asking)
        if command.intent == "yes":
            return Decision(Action.ANSWER_YES, command=asking.command or command)  # what the question named
        return Decision(Action.ANSWER_NO)
    if doubted is not None and asks_first(intents, command, session_asks):
        heard = f"heard {doubted.heard!r} as {doubted.text!r} with doubt ({doubted.why})"
        if not ANSWERS <= intents.keys():
            return Decision(Action.SAY_AGAIN, note=f"{heard}; no yes or no to ask with: asked to say it again")
        return Decision(Action.ASK, asking=doubted, note=f"{heard}; asking")
    return Decision(Action.ACT, command=command)
