"""Game data files (cards, spinner, board, tables): one way to read them, one error for them.

Each game ships its data as YAML in its package and lets the user name a copy in
``config.yaml``; what cannot be used raises ``GameDataError`` whose text names the file and
the problem, so the config loader can report it and fall back to the packaged file.
"""

from __future__ import annotations

import copy
import functools
from importlib import resources
from pathlib import Path
from typing import Any

import yaml


class GameDataError(ValueError):
    """A game data file that cannot be used; ``str(error)`` names the file and the problem."""


def read_yaml(package: str, filename: str, path: str | Path | None = None, what: str = "") -> Any:
    """The packaged ``filename`` of ``package``, or the user's file at ``path`` when given.

    ``what`` names the file in the error before its path ("cannot read board file ...").
    """
    name = f"{what} {path or filename}".strip()
    if not path:
        # a copy of the file as parsed once: every new game reads its tables again, and parsing
        # YAML in Python is slow (finding the moments of play started hundreds of games)
        return copy.deepcopy(_packaged(package, filename))
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8")
    except OSError as error:
        raise GameDataError(f"cannot read {name}: {error.strerror}") from error
    return _parsed(text, name)


@functools.cache
def _packaged(package: str, filename: str) -> Any:
    return _parsed(resources.files(package).joinpath(filename).read_text(encoding="utf-8"), filename)


def _parsed(text: str, name: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise GameDataError(f"{name} is not valid YAML: {error}") from error
