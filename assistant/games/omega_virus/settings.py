"""The Omega Virus's settings (``games.omega_virus.*``), declared once: the defaults are the
engine's own (``Settings``), the limits and docs are here."""

from __future__ import annotations

from typing import Any

from assistant.games.omega_virus.state import Settings
from assistant.schema import ConfigError, Setting

KEY = "games.omega_virus."
_D = Settings()


def _seconds(name: str, doc: str) -> Setting:
    return Setting(KEY + name, getattr(_D, name), doc, minimum=1.0)


def _chance(name: str, doc: str) -> Setting:
    return Setting(KEY + name, getattr(_D, name), doc, minimum=0.0, maximum=1.0)


def _chart(value: Any) -> dict[str, Any]:
    """Skill -> minutes, the skills as text ("0"); each entry is checked where it is read (a bad
    one keeps the rulebook's minutes)."""
    if not isinstance(value, dict):
        raise ConfigError("must map each skill (0, 1, 2) to four minute values")
    return {str(skill): minutes for skill, minutes in value.items()}


SETTINGS: tuple[Setting, ...] = (
    Setting(KEY + "board", "", "The board file (\"\" = the packaged default board).", path=True, player=True),
    Setting(KEY + "time_chart", _D.time_chart, "Minutes to play by skill level, for 1 to 4 players.",
            group=True, check=_chart),
    _seconds("secret_code_seconds", "Seconds a player has to enter a secret code."),
    _seconds("shields_seconds", "Seconds to energize shields."),
    _seconds("shot_seconds", "Seconds to fire a shot."),
    _seconds("terminate_seconds", "Seconds to enter the termination code."),
    Setting(KEY + "response_extra_seconds", _D.response_extra_seconds, "Added to every limit above.",
            minimum=0.0),
    Setting(KEY + "attack_shot", _D.attack_shot, "keypad: the attacker presses in private; random: the "
            "computer fires.", choices=("keypad", "random"), player=True),
    Setting(KEY + "probe_weakness", _D.probe_weakness, "Shields more against a Probe's attack (0 = equal).",
            minimum=0, maximum=2),
    _chance("wanted_chance", "Chance a room holds an item the explorer lacks."),
    _chance("hazard_chance", "Chance a room is a hazard."),
    _chance("persistence", "Chance a room keeps what it was on the next visit."),
    _chance("teleport_trap_share", "Share of hazard rooms that are teleport traps."),
    Setting(KEY + "shutdown_minutes", _D.shutdown_minutes, "Minutes left at which sectors shut down."),
    Setting(KEY + "announce_minutes", _D.announce_minutes, "Minutes left at which the Virus announces the time."),
    Setting(KEY + "probe_loss_minutes", _D.probe_loss_minutes, "Minutes left at which each Probe may be lost."),
    _chance("probe_loss_chance", "The chance each time."),
    _chance("taunt_chance_start", "The Virus's taunt chance at the start."),
    _chance("taunt_chance_end", "...growing to this at the end."),
    _chance("must_be_terminated_chance", "Chance the Virus names a player who has found it."),
)
