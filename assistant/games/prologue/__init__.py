"""Omega Virus: Prologue (Restoration Games, 2021): round countdown, speed bonus and scores.

Card values the rulebook does not print live in ``cards.yaml`` (or a copy named by
``games.prologue.cards_file``); ``config.yaml`` settings under ``games.prologue`` win over it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from assistant.config import Config
from assistant.engine import Game, Say, make_rng
from assistant.games import GameSpec, Table
from assistant.games.data import GameDataError, read_yaml
from assistant.games.package import cached_sentences, configured_data, list_outs
from assistant.games.prologue import engine as E
from assistant.games.prologue.engine import PrologueGame, PrologueSettings
from assistant.sentences import SentenceSet

__all__ = ["SPEC", "PrologueGame", "create", "settings_from_config", "sentences", "fixed_phrases", "load_data"]

KEY = "games.prologue"


def create(seed: int, settings: Mapping[str, Any]) -> PrologueGame:
    return PrologueGame(make_rng(seed), PrologueSettings.from_mapping(settings))


sentences: Callable[[], SentenceSet] = cached_sentences(__name__, PrologueGame.supports_undo)


def spoken_names() -> set[str]:
    """The one-word names the sentence templates know."""
    return set(list_outs(sentences(), "name"))


def load_data(path: str | None = None) -> dict[str, Any]:
    """The card data: the packaged cards.yaml, or the file at ``path``. Raises GameDataError."""
    data = read_yaml(__name__, "cards.yaml", path)
    if not isinstance(data, dict):
        raise GameDataError(f"{path or 'cards.yaml'}: expected speed_bonus and scoring_cards sections")
    return data


def _section(data: dict[str, Any], name: str) -> dict[str, Any]:
    section = data.get(name) or {}
    if not isinstance(section, dict):
        raise GameDataError(f"must sit under '{name}:' as a group (see the packaged cards.yaml)")
    return section


def _speed_bonus(value: Any) -> list[int]:
    if (not isinstance(value, list) or len(value) != E.ROUNDS
            or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 99 for v in value)):
        raise GameDataError(f"must be a list of {E.ROUNDS} whole numbers (points for rounds 1, 2, 3)")
    return list(value)


def _card_points(value: Any) -> int | None:
    if isinstance(value, str) and value.strip().lower() == "ask":
        return None
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 20:
        return value
    raise GameDataError("must be ask or a whole number from 0 to 20")


def settings_from_config(config: Config) -> dict[str, Any]:
    """Settings stored in the journal header: a resumed game keeps them even if files change."""
    data, path = configured_data(config, f"{KEY}.cards_file", load_data, "card data")
    bonus = list(PrologueSettings().speed_bonus)
    points: int | None = None
    try:
        bonus = _speed_bonus(_section(data, "speed_bonus").get("values", bonus))
    except GameDataError as error:
        config.problems.append(f"{path or 'cards.yaml'}: speed_bonus values {error}; using {bonus}.")
    try:
        points = _card_points(_section(data, "scoring_cards").get("points", "ask"))
    except GameDataError as error:
        config.problems.append(f"{path or 'cards.yaml'}: scoring_cards points {error}; asking instead.")
    if config.has(f"{KEY}.speed_bonus"):
        try:
            bonus = _speed_bonus(config.raw(f"{KEY}.speed_bonus"))
        except GameDataError as error:
            config.problems.append(f"{config.where(f'{KEY}.speed_bonus')}: {KEY}.speed_bonus {error}; "
                                   f"using {bonus}.")
    if config.has(f"{KEY}.scoring_card_points"):
        try:
            points = _card_points(config.raw(f"{KEY}.scoring_card_points"))
        except GameDataError as error:
            config.problems.append(f"{config.where(f'{KEY}.scoring_card_points')}: "
                                   f"{KEY}.scoring_card_points {error}; using "
                                   f"{'ask' if points is None else points}.")
    calls = config.value(f"{KEY}.time_calls_seconds")
    names = _names(config)
    return {"players": names, "speed_bonus": bonus, "scoring_card_points": points,
            "time_calls_seconds": calls}


def _names(config: Config) -> list[str]:
    key = f"{KEY}.players"
    raw: list[Any] = config.value(key)
    names: list[str] = []
    for item in raw[:2]:
        name = str(item).strip()
        name = name[:1].upper() + name[1:]
        if not name or " " in name:
            config.problems.append(f"{config.where(key)}: {key}: {name!r} must be one word; "
                                   "that player keeps a default name.")
            break
        if any(n.casefold() == name.casefold() for n in names):
            config.problems.append(f"{config.where(key)}: {key}: {name} appears twice.")
            break
        if name.casefold() not in spoken_names():
            config.problems.append(
                f"{config.where(key)}: {key}: {name} is not in the spoken name list, so say "
                f"'player {len(names) + 1}' for this player (or add the name to "
                "assistant/games/prologue/sentences.yaml).")
        names.append(name)
    if len(raw) > 2:
        config.problems.append(f"{config.where(key)}: {key}: Prologue is for two players; "
                               "only the first two names are used.")
    return names


def fixed_phrases(settings: Mapping[str, Any]) -> list[Say]:
    """Everything said with no live content (for the voice cache)."""
    game = create(0, settings)
    texts = [*E.FIRST_SETUP, *E.NEXT_SETUP, E.READY_PROMPT, E.NAME_HINT, *E.COUNTDOWN_WORDS, E.GO, E.WHO_IS_DONE,
             f"Stop! {E.WHO_IS_DONE}", E.WELCOME]
    texts += [f"Round {r}." for r in range(1, E.ROUNDS + 1)]
    calls = game.settings.time_calls_seconds
    if calls:
        texts += [f"{E.duration(ms)}." for ms in range(calls * 1000, 30 * 60 * 1000 + 1, calls * 1000)]
    return [Say(E.NARRATOR, t) for t in dict.fromkeys(texts)]


def moment(game: Game) -> str:
    """The phase ("setup", "running", "who done", "scoring" ...), and "points asked" while a
    scoring card's worth is asked."""
    if not isinstance(game, PrologueGame):
        return ""
    if game.phase is E.Phase.SCORING and game.pending is not None:
        return "points asked"
    return game.phase.value


def points_asked(table: Table) -> None:
    """Scoring cards worth "ask" (the default): a round played, done, the winner named, then
    the first scoring card's taker."""
    table.hear("ready")
    table.advance(60.0)
    table.hear("done", "player one", "player two")
    assert isinstance(table.game, PrologueGame) and table.game.pending is not None


def help_example(game: Game, example: str) -> str:
    """Players who gave their names are offered by name ("Anna, Ben" for "player two")."""
    if example != "player two" or not isinstance(game, PrologueGame):
        return example
    if all(name == default for name, default in zip(game.names, E.DEFAULT_NAMES, strict=False)):
        return example
    spoken = ("player one", "player two")
    return ", ".join(spoken[i] if name == E.DEFAULT_NAMES[i] else name for i, name in enumerate(game.names))


SPEC = GameSpec("prologue", create, sentences, fixed_phrases, settings_from_config,
                query_intents=frozenset({"repeat", "status", "time"}), live_lists=("name",),
                supports_undo=PrologueGame.supports_undo, help_example=help_example,
                title="Prologue", spoken_names=("[the] prologue",), moment=moment, scenes=(points_asked,))
