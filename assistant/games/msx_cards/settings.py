"""The MSX card battle's settings (``games.msx_cards.*``), declared once (the numbers' defaults are
the engine's own, ``MsxSettings``)."""

from __future__ import annotations

from assistant.games.msx_cards.campaign import MsxSettings
from assistant.games.msx_cards.tables import KINDS
from assistant.schema import Setting

KEY = "games.msx_cards."

SETTINGS: tuple[Setting, ...] = (
    *(Setting(f"{KEY}{kind}_file", "", f"Your {kind} file (\"\" = the packaged example).", path=True)
      for kind in KINDS),
    Setting(KEY + "mission", "", "Which mission of the worlds file to play (\"\" = the first one).", player=True),
    Setting(KEY + "event_chance", MsxSettings.event_chance, "Chance that an event interrupts an action in a fight.",
            minimum=0.0, maximum=1.0),
    Setting(KEY + "enemies_per_world", MsxSettings.enemies_per_world, "Enemies to defeat in a World before its Boss.",
            minimum=1, maximum=20),
    Setting(KEY + "deaths_per_world", MsxSettings.deaths_per_world, "Deaths in a World that end the game.",
            minimum=1, maximum=20),
)
