"""The assistant keeps nothing in the player's home folder that nobody asked for: onnxruntime
(under Piper) 1.29 and later keep a telemetry device id in ~/.cache/Microsoft and try to send
telemetry unless ORT_DISABLE_TELEMETRY is set before it loads (assistant/__init__.py sets it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.model
def test_speaking_leaves_the_home_folder_as_it_was(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {key: value for key, value in os.environ.items() if key != "ORT_DISABLE_TELEMETRY"}  # as a player has it
    config = tmp_path / "config.yaml"
    config.write_text(f"voice:\n  cache_dir: {tmp_path / 'cache'}\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "assistant", "--config", str(config), "say", "Code zero one.",
                           "-o", str(tmp_path / "out.wav")], capture_output=True, text=True, timeout=120,
                          env={**env, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")})
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out.wav").stat().st_size > 10_000  # Piper (and onnxruntime) really ran
    assert sorted(str(p.relative_to(home)) for p in home.rglob("*")) == []
