"""The MSX card battle (MOAI-TECH's MSX cards), refereed out loud.

``assistant play msx-cards`` -- see docs/msx-cards.md for how to play and which data is
an editable example.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from assistant.config import Config
from assistant.engine import Say
from assistant.games import GameSpec
from assistant.games.msx_cards.engine import DEFAULT_EVENT_CHANCE, MsxCards
from assistant.games.msx_cards.phrases import fixed_phrases as _fixed_phrases
from assistant.games.msx_cards.tables import KINDS, Tables, load_tables
from assistant.sentences import SentenceSet

__all__ = ["SPEC", "MsxCards", "create", "fixed_phrases", "sentences", "settings_from_config"]

SECTION = "games.msx_cards"


def settings_from_config(config: Config) -> dict[str, Any]:
    """Settings and the checked data tables, as stored in the journal header (replays never reread files)."""
    mission = config.get(f"{SECTION}.mission", "")
    paths = {kind: config.get(f"{SECTION}.{kind}_file", "") for kind in KINDS}
    data, problems = load_tables(paths, mission)
    config.problems.extend(problems)
    return {
        "event_chance": config.get(f"{SECTION}.event_chance", DEFAULT_EVENT_CHANCE, minimum=0.0, maximum=1.0),
        "enemies_per_world": config.get(f"{SECTION}.enemies_per_world", 3, minimum=1, maximum=20),
        "deaths_per_world": config.get(f"{SECTION}.deaths_per_world", 3, minimum=1, maximum=20),
        "mission": mission,
        "data": data,
    }


def _tables(settings: Mapping[str, Any]) -> Tables:
    data = settings.get("data") or load_tables({})[0]
    return Tables.from_data(data, str(settings.get("mission", "")))


def create(seed: int, settings: Mapping[str, Any]) -> MsxCards:
    return MsxCards(random.Random(seed), _tables(settings),
                    float(settings.get("event_chance", DEFAULT_EVENT_CHANCE)),
                    int(settings.get("enemies_per_world", 3)), int(settings.get("deaths_per_world", 3)))


def sentences() -> SentenceSet:
    return SentenceSet.load_game(__name__, undo=MsxCards.supports_undo)


def fixed_phrases(settings: Mapping[str, Any]) -> list[Say]:
    return list(_fixed_phrases(_tables(settings), int(settings.get("enemies_per_world", 3)),
                               int(settings.get("deaths_per_world", 3))))



SPEC = GameSpec("msx-cards", create, sentences, fixed_phrases, settings_from_config,
                query_intents=frozenset({"repeat", "status", "capsules"}), live_lists=("name",),
                supports_undo=MsxCards.supports_undo)
