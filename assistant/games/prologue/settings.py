"""Omega Virus: Prologue's settings (``games.prologue.*``), declared once. ``speed_bonus`` and
``scoring_card_points`` are unset by default: the card data file's values are used."""

from __future__ import annotations

from typing import Any

from assistant.games.prologue.engine import PrologueSettings
from assistant.schema import Setting

KEY = "games.prologue."


def _as_written(value: Any) -> Any:
    """Checked where it is read, against the card data."""
    return value


SETTINGS: tuple[Setting, ...] = (
    Setting(KEY + "cards_file", "", "Your card data file (\"\" = the packaged one).", path=True),
    Setting(KEY + "speed_bonus", None, "Points of the speed bonus card in rounds 1, 2 and 3 (unset: the card data's).",
            check=_as_written),
    Setting(KEY + "scoring_card_points", None, "What every scoring card is worth: a whole number, or ask "
            "(unset: the card data's).", check=_as_written),
    Setting(KEY + "time_calls_seconds", PrologueSettings.time_calls_seconds, "Call the elapsed time every this "
            "many seconds of a round (0 = never).", minimum=0, maximum=3600),
    Setting(KEY + "players", [], "The two players' names, one word each ([] = say them at the table).",
            player=True),
)
