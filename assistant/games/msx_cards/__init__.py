"""The MSX card battle (MOAI-TECH's MSX cards), refereed out loud.

``assistant play msx-cards`` -- see docs/msx-cards.md for how to play and which data is
an editable example.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assistant.config import Config
from assistant.engine import Game, Say, make_rng
from assistant.games import GameSpec
from assistant.games.msx_cards.campaign import MsxSettings
from assistant.games.msx_cards.engine import MsxCards
from assistant.games.msx_cards.phrases import fixed_phrases as _fixed_phrases
from assistant.games.msx_cards.tables import KINDS, load_tables
from assistant.sentences import SentenceSet

__all__ = ["SPEC", "MsxCards", "MsxSettings", "create", "fixed_phrases", "sentences", "settings_from_config"]

SECTION = "games.msx_cards"


def settings_from_config(config: Config) -> dict[str, Any]:
    """Settings and the checked data tables, as stored in the journal header (replays never reread files)."""
    mission = config.value(f"{SECTION}.mission")
    paths = {kind: config.value(f"{SECTION}.{kind}_file") for kind in KINDS}
    data, problems = load_tables(paths, mission)
    config.problems.extend(problems)
    return {
        "event_chance": config.value(f"{SECTION}.event_chance"),
        "enemies_per_world": config.value(f"{SECTION}.enemies_per_world"),
        "deaths_per_world": config.value(f"{SECTION}.deaths_per_world"),
        "mission": mission,
        "data": data,
    }


def create(seed: int, settings: Mapping[str, Any]) -> MsxCards:
    return MsxCards(make_rng(seed), MsxSettings.from_mapping(settings))


def sentences() -> SentenceSet:
    return SentenceSet.load_game(__name__, undo=MsxCards.supports_undo)


def fixed_phrases(settings: Mapping[str, Any]) -> list[Say]:
    s = MsxSettings.from_mapping(settings)
    return list(_fixed_phrases(s.tables, s.enemies_per_world, s.deaths_per_world))


def moment(game: Game) -> str:
    """What a World's stage awaits now: "fighter", "enemy", "fight", "boss", "extra" ..."""
    return game.phase.value if isinstance(game, MsxCards) else ""


SPEC = GameSpec("msx-cards", create, sentences, fixed_phrases, settings_from_config,
                query_intents=frozenset({"repeat", "status", "capsules"}), live_lists=("name",),
                supports_undo=MsxCards.supports_undo, title="the card battle",
                spoken_names=("[the] card battle", "[the] card game", "cards"), moment=moment)
