"""Everything said in a game with no live content, for the voice cache: the game's own fixed
phrases, the session's lines and, for a game whose players take colors on phones, the box's
lines about phones. (The voices render what they are given; they know no game.)"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from assistant import session
from assistant.box import phone_phrases
from assistant.config import Config
from assistant.engine import Say
from assistant.games import available, game_spec


def session_phrases(speaker: str) -> list[Say]:
    """What the session driver itself says (its SESSION_PHRASES, read when asked)."""
    return [Say(speaker, text) for text in session.SESSION_PHRASES]


def game_phrases(game: str, config: Config, settings: Mapping[str, Any] | None = None) -> list[Say]:
    """The fixed phrases of one game (by command-line name), plus the driver's own and, for a
    game whose players take colors on phones, the box's lines about phones."""
    spec = game_spec(game)
    if settings is None:
        settings = spec.settings_from_config(config)
    phrases = list(spec.fixed_phrases(settings))
    speakers = [p.speaker for p in phrases]
    first = speakers[0] if speakers else "NARRATOR"
    try:
        first = spec.create(0, settings).speakers[0]
    except Exception:  # the speaker of the first phrase is a fine stand-in
        pass
    return phrases + session_phrases(first) + [Say(first, text) for text in phone_phrases(spec.private_colors)]


def every_game(config: Config, games: list[str] | None = None) -> dict[str, Callable[[], list[Say]]]:
    """Each game's phrases, listed when asked for (one broken game must not stop the others)."""
    return {name: partial(game_phrases, name, config) for name in (available() if games is None else games)}
