"""``./start.sh`` on a first start: set-up that lacks only the network counts as done, and the game
starts at once (no voices rendered first). Settings, stamp, cache and journals in a temporary folder."""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/model.zip"


def test_first_start_without_network_is_done_and_plays_at_once(tmp_path: Path) -> None:
    installed = ROOT / ".venv" / f".installed-{hashlib.sha1((ROOT / 'pyproject.toml').read_bytes()).hexdigest()[:12]}"
    if not installed.exists():
        pytest.skip("the project environment is not installed for this pyproject.toml (./test.sh installs it)")
    config = tmp_path / "config.yaml"
    config.write_text(f"hearing:\n  models_dir: {tmp_path / 'models'}\n  vosk_url: {closed_port_url()}\n"
                      f"voice:\n  cache_dir: {tmp_path / 'cache'}\n", encoding="utf-8")
    stamp = tmp_path / "setup-done"
    env = {**os.environ, "ASSISTANT_CONFIG": str(config), "ASSISTANT_SETUP_STAMP": str(stamp),
           "ASSISTANT_STATE_DIR": str(tmp_path / "state")}
    command = [str(ROOT / "start.sh"), "omega-virus", "--text", "--clock", "virtual", "--seed", "3"]
    first = subprocess.run(command, input="skill zero\n", capture_output=True, text=True, env=env, cwd=tmp_path,
                           timeout=120)
    assert first.returncode == 0, first.stderr
    assert "Set-up done, without the Vosk speech model" in first.stdout
    assert "Set-up was incomplete" not in first.stdout
    assert first.stdout.splitlines()[-2:] == ["BSAT1: Enter skill.", "BSAT1: Red, enter secret code."]
    assert stamp.exists()
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())  # nothing rendered first
    again = subprocess.run(command, input="skill zero\n", capture_output=True, text=True, env=env, cwd=tmp_path,
                           timeout=120)
    assert "Speech model" not in again.stdout  # set-up is not repeated
    assert again.stdout.splitlines()[:1] == ["BSAT1: Enter skill."]
