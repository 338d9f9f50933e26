"""scripts/check-arm64.sh (the assistant installed, played, heard and spoken in an emulated arm64
Debian 12) takes half an hour, so ./test.sh does not run it. What it can check in seconds: the
script and its steps parse, and the x86 reference outputs it compares with are still what this
checkout gives natively, all but say.txt (a changed game, command, model, keypad or doctor
line would otherwise make the next arm64 run fail for the wrong reason, or pass against stale
answers). Rewrite them with ``scripts/check-arm64.sh --x86-reference``."""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = [ROOT / "scripts" / "check-arm64.sh", ROOT / "scripts" / "arm64" / "steps.sh"]
REFERENCE = ROOT / "scripts" / "arm64" / "reference"
FIRST_CLIP = "01-explore-one-zero-zero.wav"  # its command, known


def run_steps(out: Path, *steps: str) -> subprocess.CompletedProcess[str]:
    """The check's own steps, natively, in this checkout (its .venv and its code)."""
    if not (ROOT / ".venv" / "bin" / "assistant").exists():
        pytest.skip("the project environment is not installed (./test.sh installs it)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("STEPS_CLIPS", None)  # every clip
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


# The compared references this test holds to what this checkout gives natively (about 10 s
# together). Not say.txt: Piper speaking twice, heard back, costs as much again as all of these,
# and its lines change only when the voices or the hearing do (tests/test_voice_audio.py hears
# the voices speak).
CHECKED_HERE = ("game", "commands", "models", "gpio", "doctor-lines", "service")


def test_x86_references_are_current(tmp_path: Path) -> None:
    """The game transcript (seed 7, virtual clock), the commands heard from the four clips, the model
    checksums, the GPIO keypad on mock pins, doctor's hearing and voice lines and what
    install-service writes are the committed references, byte for byte: a changed doctor line or
    game is caught the day it changes, not at the next arm64 run."""
    done = run_steps(tmp_path, "game", "commands", "models", "gpio", "doctor", "service")
    assert done.returncode == 0, done.stderr
    stale = [name for name in CHECKED_HERE
             if (tmp_path / f"{name}.txt").read_text() != (REFERENCE / f"{name}.txt").read_text()]
    assert not stale, (
        f"not what this checkout gives: {', '.join(f'scripts/arm64/reference/{name}.txt' for name in stale)}; "
        "if the change is meant, run scripts/check-arm64.sh --x86-reference and commit it\n"
        + "".join(difference(REFERENCE / f"{name}.txt", tmp_path / f"{name}.txt") for name in stale))
    # and what they hold is what the check is for, not a refusal or an empty section
    game = (REFERENCE / "game.txt").read_text().splitlines()
    assert game[0] == "BSAT1: Enter skill." and len(game) > 15
    assert f"{FIRST_CLIP}: explore d1=1 d2=0 d3=0 -> buttons 2 1 0 0" in (REFERENCE / "commands.txt").read_text()
    assert "whisper model.bin" in (REFERENCE / "models.txt").read_text()
    doctor = (REFERENCE / "doctor-lines.txt").read_text().splitlines()
    assert [line for line in doctor if not line.startswith(" ")] == ["Hearing", "Voices"]
    assert any(line.split()[:2] == ["ok", "recognizer:"] for line in doctor)
    assert any(line.split()[:2] == ["ok", "speech:"] for line in doctor)


def test_every_compared_reference_is_held_here_or_said_why() -> None:
    """check-arm64.sh's COMPARED list: each is checked above, or is say (left out, above)."""
    compared = next(line for line in SCRIPTS[0].read_text().splitlines() if line.startswith("COMPARED=("))
    names = compared.removeprefix("COMPARED=(").removesuffix(")").split()
    assert sorted(names) == sorted([*CHECKED_HERE, "say"])


def difference(reference: Path, native: Path) -> str:
    return "".join(difflib.unified_diff(reference.read_text().splitlines(keepends=True),
                                        native.read_text().splitlines(keepends=True),
                                        str(reference.relative_to(ROOT)), "this checkout"))
