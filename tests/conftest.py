"""Shared for every test: journals go to a temporary state folder, never the user's or the checkout's."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _private_state_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """$ASSISTANT_STATE_DIR points at a fresh folder (subprocesses given os.environ inherit it)."""
    folder = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("ASSISTANT_STATE_DIR", str(folder))
    return folder
