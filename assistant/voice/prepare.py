"""Rendering every fixed phrase of every game once, so no answer waits for synthesis."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, TextIO

from assistant.box import phone_phrases
from assistant.config import Config
from assistant.engine import Say
from assistant.games import available, game_spec
from assistant.voice.voices import Voices


def session_phrases(speaker: str) -> list[Say]:
    """What the session driver itself says (its SESSION_PHRASES)."""
    from assistant import session

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


def prepare_voice_cache(config: Config, games: list[str] | None = None, out: TextIO | None = None) -> str:
    """Render each game's fixed phrases for its characters; a one-line summary.

    With ``out``, a progress bar (how many of all the sentences are ready) is drawn there."""
    start = time.monotonic()
    voices = Voices.from_config(config, load="lazy")
    done: list[str] = []
    skipped: list[str] = []
    phrases: list[Say] = []
    for game in games if games is not None else available():
        try:
            phrases += game_phrases(game, config)
        except Exception as error:  # one broken game must not stop the others
            skipped.append(f"{game} ({error})")
            continue
        done.append(game)
    total = len(voices.pieces(phrases))
    bar = None
    if out is not None:
        from tqdm import tqdm

        bar = tqdm(total=total, desc="Voices", unit=" sentences", file=out, dynamic_ncols=True,
                   mininterval=0.5 if out.isatty() else 10.0)
    try:
        rendered, cached = voices.prepare(phrases, progress=None if bar is None else bar.update)
    finally:
        if bar is not None:
            bar.close()
    seconds = time.monotonic() - start
    summary = (f"Voices ready: {rendered + cached} sentences for {', '.join(done) or 'no game'} "
               f"({rendered} rendered now, {cached} already cached) in {seconds:.1f} s; "
               f"cache {voices.settings.cache_dir}.")
    if skipped:
        summary += f" Skipped: {'; '.join(skipped)}."
    if voices.cache.write_problem:
        summary += f" Warning: {voices.cache.write_problem}."
    return summary
