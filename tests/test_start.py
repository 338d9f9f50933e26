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


@pytest.mark.parametrize("network", [False, True])
def test_first_start_is_done_and_plays_at_once_with_or_without_network(tmp_path: Path, network: bool) -> None:
    """Set-up on the first start checks Whisper and fetches no Vosk model, network or not (a local
    server that would serve one is asked for nothing): auto hears with PocketSphinx first, Whisper
    second, the combination the published figures are for."""
    from tests.test_setup import Server, model_zip

    installed = ROOT / ".venv" / f".installed-{hashlib.sha1((ROOT / 'pyproject.toml').read_bytes()).hexdigest()[:12]}"
    if not installed.exists():
        pytest.skip("the project environment is not installed for this pyproject.toml (./test.sh installs it)")
    server = Server(model_zip()) if network else None
    config = tmp_path / "config.yaml"
    config.write_text(f"hearing:\n  models_dir: {tmp_path / 'models'}\n"
                      f"  vosk_url: {server.url if server is not None else closed_port_url()}\n"
                      f"voice:\n  cache_dir: {tmp_path / 'cache'}\n", encoding="utf-8")
    stamp = tmp_path / "setup-done"
    env = {**os.environ, "ASSISTANT_CONFIG": str(config), "ASSISTANT_SETUP_STAMP": str(stamp),
           "ASSISTANT_STATE_DIR": str(tmp_path / "state")}
    command = [str(ROOT / "start.sh"), "omega-virus", "--text", "--clock", "virtual", "--seed", "3"]
    try:
        first = subprocess.run(command, input="skill zero\n", capture_output=True, text=True, env=env, cwd=tmp_path,
                               timeout=120)
    finally:
        if server is not None:
            server.close()
    assert first.returncode == 0, first.stderr
    assert "Whisper: tiny.en is ready" in first.stdout and "Set-up done." in first.stdout
    assert "Speech model" not in first.stdout and not (tmp_path / "models").exists()
    assert server is None or server.requests == []
    assert "Set-up was incomplete" not in first.stdout
    assert first.stdout.splitlines()[-2:] == ["BSAT1: Enter skill.", "BSAT1: Red, enter secret code."]
    assert stamp.exists()
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())  # nothing rendered first
    again = subprocess.run(command, input="skill zero\n", capture_output=True, text=True, env=env, cwd=tmp_path,
                           timeout=120)
    assert "Speech model" not in again.stdout  # set-up is not repeated
    assert again.stdout.splitlines()[:1] == ["BSAT1: Enter skill."]


def fake_checkout(folder: Path) -> tuple[Path, dict[str, str]]:
    """start.sh, test.sh and ensure-env.sh as shipped, in a folder whose .venv is made of stand-ins
    that write down how they were called (pip installs nothing; no network). Returns the log and env."""
    (folder / "scripts").mkdir(parents=True)
    for name in ("start.sh", "test.sh", "scripts/ensure-env.sh", "pyproject.toml"):
        (folder / name).write_bytes((ROOT / name).read_bytes())
        (folder / name).chmod(0o755)
    log = folder / "calls.log"
    bin_dir = folder / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    stand_in = f'#!/bin/sh\necho "$(basename "$0") $*" >> {log}\n'
    for tool in ("python", "assistant", "ruff", "mypy"):
        (bin_dir / tool).write_text(stand_in, encoding="utf-8")
        (bin_dir / tool).chmod(0o755)
    system = folder / "system-bin"  # dpkg says every Debian package is there: apt-get is never run
    system.mkdir()
    (system / "dpkg").write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    (system / "dpkg").chmod(0o755)
    env = {"PATH": f"{system}:/usr/bin:/bin", "HOME": str(folder), "ASSISTANT_SETUP_STAMP": str(folder / "setup")}
    return log, env


def pip_installs(log: Path) -> list[str]:
    calls = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return [c.removeprefix("python -m pip install -q ") for c in calls
            if c.startswith("python -m pip install -q ") and "--upgrade pip" not in c]


def test_start_installs_only_what_plays_and_test_adds_the_rest(tmp_path: Path) -> None:
    """Finding 6: ./start.sh installs the assistant alone (no test tools, no Whisper base); ./test.sh
    adds them to the same .venv; start.sh afterwards installs (and removes) nothing."""
    log, env = fake_checkout(tmp_path)
    run = {"cwd": tmp_path, "env": env, "capture_output": True, "text": True, "timeout": 60}
    started = subprocess.run(["./start.sh", "planets", "--text"], stdin=subprocess.DEVNULL, **run)
    assert started.returncode == 0, started.stderr
    assert pip_installs(log) == ["-e ."]
    tested = subprocess.run(["./test.sh"], **run)
    assert tested.returncode == 0, tested.stderr
    assert pip_installs(log) == ["-e .[test,whisper-base]"]
    again = subprocess.run(["./start.sh", "planets", "--text"], stdin=subprocess.DEVNULL, **run)
    assert again.returncode == 0 and pip_installs(log) == []
    assert subprocess.run(["./test.sh"], **run).returncode == 0 and pip_installs(log) == []


def test_a_venv_from_an_older_stamp_gets_the_test_extras(tmp_path: Path) -> None:
    """A stamp written before extras were recorded (an empty file) stands for what plays only."""
    log, env = fake_checkout(tmp_path)
    digest = hashlib.sha1((tmp_path / "pyproject.toml").read_bytes()).hexdigest()[:12]
    stamp = tmp_path / ".venv" / f".installed-{digest}"
    stamp.touch()
    run = {"cwd": tmp_path, "env": env, "capture_output": True, "text": True, "timeout": 60}
    assert subprocess.run(["./start.sh", "planets"], stdin=subprocess.DEVNULL, **run).returncode == 0
    assert pip_installs(log) == []
    assert subprocess.run(["./test.sh"], **run).returncode == 0
    assert pip_installs(log) == ["-e .[test,whisper-base]"]
    assert stamp.read_text(encoding="utf-8").split() == ["test", "whisper-base"]
