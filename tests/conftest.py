"""Shared for every test: journals go to a temporary state folder, never the user's or the
checkout's; the bundled voice is cut in two (assistant/voice/vocoder.py) once a run; each
registered game's spec (the tests' example game too), for the tests that run over every game;
and the end-of-run check that the tests left the checkout, the home folder's folders they reach
and the sound server as they found them (tests/support/leftovers.py: the run fails if not)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant.games import GameSpec, game_spec, register, specs
from assistant.voice.vocoder import PARTS_ENV
from tests import example_game
from tests.support.leftovers import pytest_sessionfinish, pytest_sessionstart, pytest_terminal_summary

__all__ = ["pytest_sessionfinish", "pytest_sessionstart", "pytest_terminal_summary"]

#: The example game of docs/adding-a-game.md: known to the tests, not offered to players.
register(example_game.SPEC)


@pytest.fixture(scope="session", autouse=True)
def _shared_voice_parts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """$ASSISTANT_VOICE_PARTS_DIR: the bundled voice is cut in two once for the whole run
    (assistant/voice/vocoder.py), not once for each test's own voice cache folder."""
    folder = tmp_path_factory.mktemp("voice-parts")
    before = os.environ.get(PARTS_ENV)
    os.environ[PARTS_ENV] = str(folder)
    yield folder
    if before is None:
        os.environ.pop(PARTS_ENV, None)
    else:
        os.environ[PARTS_ENV] = before


@pytest.fixture(autouse=True)
def _private_state_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """$ASSISTANT_STATE_DIR points at a fresh folder (subprocesses given os.environ inherit it)."""
    folder = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("ASSISTANT_STATE_DIR", str(folder))
    return folder


@pytest.fixture(params=[spec.name for spec in specs()])
def spec(request: pytest.FixtureRequest) -> Iterator[GameSpec]:
    """Each game: the ones offered to players and the tests' example game, one run per game."""
    yield game_spec(request.param)
