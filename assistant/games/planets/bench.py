"""Benchmark: ``python -m assistant.games.planets.bench``: how well 7-Zark-7 hears the players.

Each phrase is spoken by the real Piper voice and decoded by PocketSphinx with the grammar of
the commands allowed at that moment (the method of ``assistant.games.prologue.bench``).
Prints what was heard per phrase, the exact-command accuracy and the decode times.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from assistant.engine import Command
from assistant.games.prologue.bench import Before, measure, report

ON_BOARD = ["red blue and green", "next", "next", "next"]
SPUN = [*ON_BOARD, "spin"]
PHRASES: list[tuple[Before, str, Command]] = [
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m assistant.games.planets.bench", description=__doc__)
    parser.parse_args(argv)
    from assistant.games import planets

    print(report("Battle of the Planets", measure(planets, PHRASES)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
