"""Battle of the Planets' settings (``games.planets.*``), declared once."""

from __future__ import annotations

from assistant.schema import Setting

KEY = "games.planets."

SETTINGS: tuple[Setting, ...] = (
    Setting(KEY + "spinner_file", "", "Your spinner file (\"\" = the packaged approximation).", path=True),
    Setting(KEY + "players", [], "Ship colors in turn order ([] = 7-Zark-7 asks at the start).", player=True),
)
