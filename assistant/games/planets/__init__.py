"""Battle of the Planets (Milton Bradley, 1979): 7-Zark-7 spins, keeps turns and Monster cards.

The spinner's segments are data (``spinner.yaml``, or a copy named by
``games.planets.spinner_file``): the rules do not list them, so the packaged dial is a labelled
approximation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from assistant.config import Config
from assistant.engine import Game, Say, make_rng
from assistant.games import GameSpec
from assistant.games.data import GameDataError, read_yaml
from assistant.games.package import cached_sentences, configured_data, list_outs
from assistant.games.planets import engine as E
from assistant.games.planets.engine import PlanetsGame, PlanetsSettings, Segment
from assistant.sentences import SentenceSet

__all__ = ["SPEC", "PlanetsGame", "create", "settings_from_config", "sentences", "fixed_phrases", "load_spinner"]

KEY = "games.planets"
RED_SPOT_WORDS = {"red spot", "red", "rocket"}


def create(seed: int, settings: Mapping[str, Any]) -> PlanetsGame:
    return PlanetsGame(make_rng(seed), PlanetsSettings.from_mapping(settings))


sentences: Callable[[], SentenceSet] = cached_sentences(__name__, PlanetsGame.supports_undo)


def ship_colors() -> list[str]:
    """The ship colors the sentence templates know, in file order."""
    return list_outs(sentences(), "ship")


def load_spinner(path: str | None = None) -> list[list[int | None]]:
    """The spinner's segments as [intruder, gforce or None]; raises GameDataError naming the problem."""
    name = path or "spinner.yaml"
    data = read_yaml(__name__, "spinner.yaml", path)
    segments = data.get("segments") if isinstance(data, dict) else None
    if not isinstance(segments, list) or not segments:
        raise GameDataError(f"{name}: needs a 'segments:' list")
    out: list[list[int | None]] = []
    for n, seg in enumerate(segments, 1):
        if not isinstance(seg, dict):
            raise GameDataError(f"{name}: segment {n} must look like {{intruder: 3, gforce: 2}}")
        intruder, gforce = seg.get("intruder"), seg.get("gforce")
        if not _steps(intruder):
            raise GameDataError(f"{name}: segment {n}: intruder must be a whole number from 1 to 20")
        if isinstance(gforce, str) and gforce.strip().lower() in RED_SPOT_WORDS:
            gforce = None
        elif not _steps(gforce):
            raise GameDataError(f"{name}: segment {n}: gforce must be a whole number from 1 to 20 "
                             "or red spot")
        out.append([intruder, gforce])
    return out


def _steps(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 20


def settings_from_config(config: Config) -> dict[str, Any]:
    """Settings stored in the journal header: a resumed game keeps its spinner and players."""
    spinner, _ = configured_data(config, f"{KEY}.spinner_file", load_spinner, "spinner")
    return {"players": _players(config), "spinner": spinner}


def _players(config: Config) -> list[str]:
    key = f"{KEY}.players"
    raw: list[Any] = config.value(key)
    if not raw:
        return []
    colors = [str(c).strip().lower() for c in raw]
    known = ship_colors()
    problem = None
    if not E.MIN_PLAYERS <= len(colors) <= E.MAX_PLAYERS:
        problem = f"needs {E.MIN_PLAYERS} to {E.MAX_PLAYERS} ship colors"
    elif len(set(colors)) != len(colors):
        problem = "names a color twice"
    elif any(c not in known for c in colors):
        problem = f"may only use the ship colors {', '.join(known)}"
    if problem:
        config.problems.append(f"{config.where(key)}: {key} {problem}; the players will be asked "
                               "at the start instead.")
        return []
    return colors


def fixed_phrases(settings: Mapping[str, Any]) -> list[Say]:
    """Everything said with no live content (for the voice cache), spinner results included."""
    segments = PlanetsSettings.from_mapping(settings).segments
    texts = [E.WELCOME, E.WHO_PLAYS, f"No players yet. {E.WHO_PLAYS}", E.ROCKET_AWAY, E.ROCKET_AWAY_FROM_SHIP,
             E.THEN_NEXT,
             "You can give names: say, for example, red is Anna.", "The Intruder moves only once a turn.",
             "No other ship is on the board.", "No ship is on the board for the Intruder to land on."]
    texts += [Segment(s.intruder, s.gforce).text() for s in segments]
    for color in ship_colors():
        label = color.capitalize()
        texts += [f"{label}, blast off: {E.BLAST_OFF_RULE}", f"{label}'s turn. Say spin."]
    return [Say(E.ZARK, t) for t in dict.fromkeys(texts)]


def moment(game: Game) -> str:
    """The game has no phases: a turn waits for the spin, then for where it landed."""
    if not isinstance(game, PlanetsGame):
        return ""
    allowed = game.allowed_intents()
    if "players" in allowed:
        return "players asked"
    if game.winner is not None:
        return "over"
    if "spin" in allowed:
        return "spin"
    return "after the spin" if "earth" in allowed else "blast off"


SPEC = GameSpec("planets", create, sentences, fixed_phrases, settings_from_config,
                query_intents=frozenset({"repeat", "status"}), live_lists=("name", "ship"),
                supports_undo=PlanetsGame.supports_undo, title="Battle of the Planets",
                spoken_names=("[the] battle of the planets", "[the] planets"), moment=moment)
