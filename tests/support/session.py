"""Sessions of play, as bench_accuracy --session counts them (issue 61: hearing that learns the
table's voices), shared with its tests: one voice's evening in a game-like order, what a player
confirms of a command heard, and the Learned stage's rule (``assistant.hearing.learning.check``)
replayed over a clip's kept row at other limits, to choose SAME_DISTANCE and WORD_MARGIN offline."""

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
#: The limits ``--session`` replays the Learned stage's rule with: SAME_DISTANCE, WORD_MARGIN (a
#: distance of 0 and a margin over 1 place nothing)
SWEEP_DISTANCES = (0.0, 0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.9)
SWEEP_MARGINS = (0.0, 0.01, 0.02, 0.03, 0.05, 0.08, 0.1, 0.2, 1.01)


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


def replay(off: dict[str, Any], nearest: dict[str, Any] | None, distance: float, margin: float) -> dict[str, Any]:
    """The Learned stage's rule (``learning.check``) replayed on a clip's row heard without it
    (``off``: what the cascade decided) and where the table's takes placed it (``nearest``: its
    command, distance, margin over another command's sentence, whether the entries' words placed it,
    whether it is the move said and whether play asks before acting on it doubted), with
    SAME_DISTANCE ``distance`` and WORD_MARGIN ``margin``: the row hearing would have given (as
    hearing decided: ``as_played`` after)."""
    if nearest is None:
        return off
    words = bool(nearest.get("words"))
    if not (nearest["margin"] >= margin if words else nearest["distance"] <= distance):
        return off
    best = nearest["command"]
    if off["doubted"] and off["got"] == best:
        return off if words else {**off, "doubted": False, "asked": False}
    if not off["not_allowed"] and off["got"] == "nothing" and not words:  # a miss a close take places: heard
        return {**off, "got": best, "ok": nearest["ok"], "doubted": False, "asked": False}
    if not off["not_allowed"] and off["got"] != best:
        return {**off, "got": best, "ok": nearest["ok"], "doubted": True, "asked": nearest["asked_if_doubted"]}
    return off


#: A point of the sweep: SAME_DISTANCE, WORD_MARGIN, the tally, and the right commands asked about first
Swept = tuple[float, float, Tally, int]


def sweep(rows: Sequence[dict[str, Any]], distances: Sequence[float] = SWEEP_DISTANCES,
          margins: Sequence[float] = SWEEP_MARGINS) -> list[Swept]:
    """Every (distance, margin) pair: the counted rows' tally with the Learned stage's rule
    replayed at them (``replay``, as played: ``as_played``), and how many right commands were asked
    about first (a question a player answers yes to)."""
    out = []
    for take in distances:
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
    right, then fewest questions (about wrong and right commands and table talk), then the smaller
    distance and larger margin (the stage changing less)."""
    return min(swept, key=lambda s: (s[2].wrong_acted + s[2].taken_acted, -s[2].right,
                                     s[2].wrong_asked + s[2].taken_asked + s[3], s[0], -s[1]))
