"""Benchmark: ``python -m bench.bench_heard GAME``: how well Prologue's or Battle of the
Planets' commands are heard.

Each phrase is spoken by the real Piper voice (joe, with its random delivery noise off so a
run is repeatable) and decoded by PocketSphinx with the grammar of the commands allowed at
that moment of the game (``SentenceSet.to_jsgf``); the transcript is then matched like any
input. Prints, per phrase, what was heard and the decode time, then the exact-command
accuracy and the median and worst decode times. Timings depend on the machine and its load.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from assistant.engine import Command
from assistant.games import game_spec
from tests.support.heard import Before, measure, report

NAMED: list[str | float] = ["player one is anna", "player two is ben"]
ROUND: list[str | float] = [*NAMED, "ready", 6.0]
PROLOGUE: list[tuple[Before, str, Command]] = [
    ([], "Player one is Anna.", Command("name", {"seat": "1", "name": "anna"})),
    (NAMED, "Ready!", Command("ready")),
    (NAMED, "We're ready.", Command("ready")),
    (NAMED, "What's the score?", Command("status")),
    (ROUND, "Done!", Command("done")),
    (ROUND, "Done.", Command("done")),
    (ROUND, "I'm done!", Command("done")),
    (ROUND, "Anna is done!", Command("done", {"name": "anna"})),
    (ROUND, "Ben is done!", Command("done", {"name": "ben"})),
    (ROUND, "Player two is done.", Command("done", {"seat": "2"})),
    (ROUND, "How long?", Command("time")),
    ([*ROUND, "done"], "Anna.", Command("who", {"name": "anna"})),
    ([*ROUND, "done"], "Ben.", Command("who", {"name": "ben"})),
    ([*ROUND, "done"], "Keep going.", Command("not_done")),
    ([*ROUND, "done anna"], "Ben got it.", Command("who", {"name": "ben"})),
    ([*ROUND, "done anna"], "It's a tie.", Command("who", {"outcome": "tie"})),
    ([*ROUND, "done anna"], "Tie.", Command("who", {"outcome": "tie"})),
    ([*ROUND, "done anna"], "Nobody.", Command("who", {"outcome": "nobody"})),
    ([*ROUND, "done anna"], "No one.", Command("who", {"outcome": "nobody"})),
    ([*ROUND, "done anna"], "Anna for three points.", Command("who", {"name": "anna", "points": "3"})),
    ([*ROUND, "done anna"], "It's a tie for two points.", Command("who", {"outcome": "tie", "points": "2"})),
    ([*ROUND, "done anna", "ben"], "Three.", Command("points", {"points": "3"})),
    ([*ROUND, "done anna", "ben"], "Twelve points.", Command("points", {"points": "12"})),
    ([*ROUND, "done anna", "ben"], "Undo that.", Command("undo")),
]



ON_BOARD = ["red blue and green", "next", "next", "next"]
SPUN = [*ON_BOARD, "spin"]
PLANETS: list[tuple[Before, str, Command]] = [
    ([], "Red, blue and green.", Command("players", {"p1": "red", "p2": "blue", "p3": "green"})),
    ([], "The players are red and yellow.", Command("players", {"p1": "red", "p2": "yellow"})),
    ([], "Red and blue.", Command("players", {"p1": "red", "p2": "blue"})),
    (["red and blue"], "Next.", Command("next")),
    (["red and blue"], "Blasted off.", Command("next")),
    (ON_BOARD, "Red is Mark.", Command("name", {"ship": "red", "name": "mark"})),
    (ON_BOARD, "Spin!", Command("spin")),
    (ON_BOARD, "Spin.", Command("spin")),
    (ON_BOARD, "Spin it.", Command("spin")),
    (ON_BOARD, "Spin the spinner!", Command("spin")),
    (ON_BOARD, "Status.", Command("status")),
    (SPUN, "Red landed on the Intruder.", Command("landed_intruder", {"ship": "red"})),
    (SPUN, "I landed on the Intruder.", Command("landed_intruder")),
    (SPUN, "The Intruder landed on blue.", Command("intruder_landed", {"victim": "blue"})),
    (SPUN, "The Intruder got me!", Command("intruder_landed")),
    (SPUN, "Red landed on blue.", Command("landed_player", {"ship": "red", "victim": "blue"})),
    (SPUN, "Red reached Earth.", Command("earth", {"ship": "red"})),
    (SPUN, "Earth!", Command("earth")),
    (SPUN, "I made it to Earth.", Command("earth")),
    (SPUN, "Next.", Command("next")),
    (SPUN, "End of turn.", Command("next")),
    (SPUN, "What can I say?", Command("help")),
]

#: game -> (its name as printed, its phrases)
TABLES: dict[str, tuple[str, list[tuple[Before, str, Command]]]] = {
    "prologue": ("Omega Virus: Prologue", PROLOGUE),
    "planets": ("Battle of the Planets", PLANETS),
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_heard", description=__doc__)
    parser.add_argument("game", choices=list(TABLES))
    args = parser.parse_args(argv)
    title, phrases = TABLES[args.game]
    print(report(title, measure(game_spec(args.game), phrases)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
