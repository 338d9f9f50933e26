"""What the game packages share: their sentences, read once, and a data file that
``config.yaml`` may name instead of the packaged one."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TypeVar

from assistant.config import Config
from assistant.games.data import GameDataError
from assistant.sentences import SentenceSet

T = TypeVar("T")


def cached_sentences(package: str, undo: bool) -> Callable[[], SentenceSet]:
    """The package's sentences.yaml with the session's own merged in, read on first use."""
    return cache(lambda: SentenceSet.load_game(package, undo=undo))


def list_outs(sentences: SentenceSet, name: str) -> list[str]:
    """What the game says for each value of the sentence list ``name``, in file order."""
    return [value.out for value in sentences.lists[name]]


def configured_data(config: Config, key: str, load: Callable[[str | None], T], packaged: str) -> tuple[T, str]:
    """The data from the file named at ``key`` (or the packaged file), and the path as configured.

    A file that cannot be used is reported in ``config.problems`` ("...; using the packaged
    ``packaged``.") and the packaged file is used instead.
    """
    path: str = config.value(key)
    try:
        return load(path or None), path
    except GameDataError as error:
        config.problems.append(f"{config.where(key)}: {error}; using the packaged {packaged}.")
        return load(None), path
