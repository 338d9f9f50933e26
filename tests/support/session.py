"""Sessions of play, as bench_accuracy --session counts them (issue 61: hearing that learns the
table's voices), shared with its tests: one voice's evening in a game-like order, what a player
confirms of a command heard, and the Learned stage's rule (``assistant.hearing.learning.check``)
replayed over a clip's kept row at other margins, to choose TAKE_MARGIN and ASK_MARGIN offline."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from assistant.engine import Command
from assistant.hearing.events import Final, Transcript
from assistant.sentences import SentenceSet
from tests.support.tally import Tally, as_played, asked_first, in_play, same_move

#: A session's item: game, text, the command it is (None: table talk), its noise seed base (the
#: clip's seed is this plus the condition's index, as the plain run's)
SessionItem = tuple[str, str, Command | None, int]
#: The margins ``--session`` replays the Learned stage's rule with (TAKE_MARGIN, ASK_MARGIN)
SWEEP_MARGINS = (0.0, 0.02, 0.05, 0.08, 0.1, 0.15, 0.2, 0.3, 1.01)


def session_order(commands: Sequence[SessionItem], talk: Sequence[SessionItem], learn: int,
                  seed: int) -> list[SessionItem]:
    """One voice's evening: its commands game after game (the games in a seeded order, each game's
    commands shuffled), its table-talk lines put at seeded places after its first ``learn`` commands
    (table talk is counted wherever it falls, so it falls where commands are counted)."""
    rng = random.Random(seed)
    games = sorted({game for game, *_ in commands})
    rng.shuffle(games)
    ordered: list[SessionItem] = []
    for game in games:
        mine = [item for item in commands if item[0] == game]
        rng.shuffle(mine)
        ordered.extend(mine)
    start = min(learn, len(ordered))
    for item in talk:
        ordered.insert(rng.randint(start, len(ordered)), item)
    return ordered


def confirmable(game: str, sentences: SentenceSet, result: Final, expected: Command) -> tuple[Command, str] | None:
    """What a player confirms of ``result`` (heard as play takes it, ``in_play``) when it is the
    command said (``same_move``): the command taken and how ("acted": acted on and not taken back;
    "yes": doubted and costly, asked about and answered yes). None when it is missed or wrong, or
    doubted and harmless (let go: a near miss, nothing to confirm)."""
    played = in_play(sentences, result)
    if not isinstance(played, Transcript) or played.command is None:
        return None
    if not same_move(game, played.command, expected):
        return None
    return played.command, "yes" if asked_first(sentences, played) else "acted"


def replay(off: dict[str, Any], nearest: dict[str, Any] | None, take: float, ask: float) -> dict[str, Any]:
    """The Learned stage's rule (``learning.check``) replayed on a clip's row heard without it
    (``off``: what the cascade decided) and what the table's takes placed nearest (``nearest``:
    its command, margin over another command's sentence, whether it is the move said and whether
    play asks before acting on it doubted), at margins ``take`` (TAKE_MARGIN) and ``ask``
    (ASK_MARGIN): the row hearing would have given (as hearing decided: ``as_played`` after)."""
    if nearest is None or nearest["margin"] <= 0:
        return off
    margin, best = nearest["margin"], nearest["command"]
    taken = off["got"] != "nothing"
    if off["doubted"] and off["got"] == best and margin >= take:
        return {**off, "doubted": False, "asked": False}
    if taken and not off["doubted"] and off["got"] != best and margin >= ask:
        return {**off, "doubted": True, "asked": off["asked_if_doubted"]}
    if not taken and not off["not_allowed"] and margin >= take:
        return {**off, "got": best, "ok": nearest["ok"], "doubted": True, "asked": nearest["asked_if_doubted"]}
    return off


#: A point of the sweep: TAKE_MARGIN, ASK_MARGIN, the tally, and the right commands asked about first
Swept = tuple[float, float, Tally, int]


def sweep(rows: Sequence[dict[str, Any]], margins: Sequence[float] = SWEEP_MARGINS) -> list[Swept]:
    """Every (take, ask) pair of ``margins``: the counted rows' tally with the Learned stage's rule
    replayed at them (``replay``, as played: ``as_played``), and how many right commands were asked
    about first (a question a player answers yes to)."""
    out = []
    for take in margins:
        for ask in margins:
            tally, questions = Tally(), 0
            for row in rows:
                played = as_played(replay(row["off"], row["nearest"], take, ask))
                tally.add(row["expected"] is not None, played["ok"], played["got"] != "nothing", 0.0, None,
                          played["asked"])
                questions += row["expected"] is not None and played["ok"] and played["asked"]
            out.append((take, ask, tally, questions))
    return out


def choose_margins(swept: Sequence[Swept]) -> Swept:
    """The sweep's choice: fewest wrong moves acted on (commands and table talk), then most commands
    right, then fewest questions (about wrong and right commands and table talk), then the larger
    margins (the stage changing less)."""
    return min(swept, key=lambda s: (s[2].wrong_acted + s[2].taken_acted, -s[2].right,
                                     s[2].wrong_asked + s[2].taken_asked + s[3], -s[0], -s[1]))
