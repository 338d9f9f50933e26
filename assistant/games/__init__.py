"""The games the assistant referees, by the name used on the command line."""

from __future__ import annotations

import importlib
from types import ModuleType

#: command-line name -> package. Each package offers ``create(seed, settings)``,
#: ``settings_from_config(config)``, ``fixed_phrases(settings)`` and a sentences.yaml.
GAMES: dict[str, str] = {
    "omega-virus": "assistant.games.omega_virus",
    "prologue": "assistant.games.prologue",
    "msx-cards": "assistant.games.msx_cards",
    "planets": "assistant.games.planets",
}


def game_module(name: str) -> ModuleType:
    if name not in GAMES:
        raise KeyError(f"unknown game {name!r}; choose one of: {', '.join(GAMES)}")
    return importlib.import_module(GAMES[name])


def available() -> list[str]:
    """Games whose package is present."""
    found = []
    for name, package in GAMES.items():
        try:
            importlib.import_module(package)
        except ModuleNotFoundError:
            continue
        found.append(name)
    return found
