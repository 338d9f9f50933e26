"""scripts/check-arm64.sh (the assistant installed, played, heard and spoken in an emulated arm64
Debian 12) takes half an hour, so ./test.sh does not run it. What it can check in seconds: the
script and its steps parse, and the x86 reference outputs it compares with are still what this
checkout gives (a changed game, model or keypad would otherwise make the next arm64 run fail
for the wrong reason, or pass against stale answers). Rewrite them with
``scripts/check-arm64.sh --x86-reference``."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = [ROOT / "scripts" / "check-arm64.sh", ROOT / "scripts" / "arm64" / "steps.sh"]
REFERENCE = ROOT / "scripts" / "arm64" / "reference"
FIRST_CLIP = "01-explore-one-zero-zero.wav"


def run_steps(out: Path, *steps: str, clips: str | None = None) -> subprocess.CompletedProcess[str]:
    """The check's own steps, natively, in this checkout (its .venv and its code)."""
    if not (ROOT / ".venv" / "bin" / "assistant").exists():
        pytest.skip("the project environment is not installed (./test.sh installs it)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if clips is not None:
        env["STEPS_CLIPS"] = clips
    return subprocess.run([str(SCRIPTS[1]), str(out), *steps], capture_output=True, text=True, env=env,
                          timeout=300)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_script_parses(script: Path) -> None:
    assert os.access(script, os.X_OK), f"{script} is not executable"
    checked = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed (apt install shellcheck)")
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_script_passes_shellcheck(script: Path) -> None:
    checked = subprocess.run(["shellcheck", str(script)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout


def test_the_check_refuses_arguments_it_does_not_know() -> None:
    """Before anything that needs root: a mistyped option says how to use it and changes nothing."""
    wrong = subprocess.run([str(SCRIPTS[0]), "--x86-referense"], capture_output=True, text=True, timeout=30)
    assert wrong.returncode == 2
    assert "--x86-reference" in wrong.stderr


def test_x86_references_are_current(tmp_path: Path) -> None:
    """The game transcript (seed 7, virtual clock), the model checksums, the GPIO keypad on mock pins
    and what install-service writes are the committed references, byte for byte."""
    done = run_steps(tmp_path, "game", "models", "gpio", "service")
    assert done.returncode == 0, done.stderr
    for name in ("game", "models", "gpio", "service"):
        assert (tmp_path / f"{name}.txt").read_text() == (REFERENCE / f"{name}.txt").read_text(), (
            f"scripts/arm64/reference/{name}.txt is not what this checkout gives: if the change is meant, "
            "run scripts/check-arm64.sh --x86-reference and commit it")
    game = (REFERENCE / "game.txt").read_text().splitlines()
    assert game[0] == "BSAT1: Enter skill." and len(game) > 15  # a game was played, not a refusal
    assert "whisper model.bin" in (REFERENCE / "models.txt").read_text()


def test_a_clip_is_heard_as_its_reference_command(tmp_path: Path) -> None:
    """One clip through `assistant transcribe` with the default hybrid (a few seconds): the command
    the references hold for it."""
    done = run_steps(tmp_path, "commands", clips=FIRST_CLIP)
    assert done.returncode == 0, done.stderr
    heard = (tmp_path / "commands.txt").read_text().splitlines()
    expected = [line for line in (REFERENCE / "commands.txt").read_text().splitlines()
                if line.startswith(FIRST_CLIP + ":")]
    assert heard == expected == [f"{FIRST_CLIP}: explore d1=1 d2=0 d3=0 -> buttons 2 1 0 0"]
