"""Rendering every fixed phrase of every game once, so no answer waits for synthesis. The
phrases are given (``assistant.phrases`` lists them): the voices know no game."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import TextIO

from assistant.config import Config
from assistant.engine import Say
from assistant.voice.voices import Voices


def prepare_voice_cache(config: Config, games: Mapping[str, Callable[[], Sequence[Say]]],
                        out: TextIO | None = None) -> str:
    """Render each game's fixed phrases (``games``: name -> its phrases, as
    ``assistant.phrases.every_game`` lists them) for its characters; a one-line summary.

    With ``out``, a progress bar (how many of all the sentences are ready) is drawn there."""
    start = time.monotonic()
    voices = Voices.from_config(config, load="lazy")
    done: list[str] = []
    skipped: list[str] = []
    phrases: list[Say] = []
    for game, listed in games.items():
        try:
            phrases += listed()
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
