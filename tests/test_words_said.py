"""Small words said right, through the CLI as a player meets them (issue 32, finding 7): the time
left a few seconds into a game, a repeat after a pass, the idle pause's span of time."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START = ["skill zero", "code one two", "skip", "skip", "skip"]  # a 20-minute game, Red alone


def play(tmp_path: Path, lines: list[str], seed: int = 1) -> list[str]:
    env = {**os.environ, "ASSISTANT_STATE_DIR": str(tmp_path / "state")}
    done = subprocess.run([sys.executable, "-m", "assistant", "play", "omega-virus", "--text", "--clock", "virtual",
                           "--seed", str(seed), "--new"], input="".join(f"{line}\n" for line in lines),
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done.stdout.splitlines()


def test_time_left_is_said_to_the_nearest_minute(tmp_path: Path) -> None:
    told = [play(tmp_path, [*START, f"wait {s}", "how much time is left"])[-1] for s in (5, 35, 1105, 1185)]
    assert told == ["VIRUS: 20 minutes until I take over!", "VIRUS: 19 minutes until I take over!",
                    "VIRUS: 2 minutes until I take over!", "VIRUS: 15 seconds until I take over!"]


def test_a_repeat_after_a_pass_says_what_is_current(tmp_path: Path) -> None:
    """Seed 1: Red finds a probe in Room 100, then passes; the find is old news."""
    lines = play(tmp_path, [*START, "explore one zero zero", "pass", "repeat", "pause", "resume"])
    found = lines.index("BSAT1: Probe found!")
    after_pass = lines[found + 3:]
    assert "BSAT1: Probe found!" not in after_pass, after_pass
    prompt = after_pass[0]
    assert prompt.startswith("BSAT1: Red, ")
    assert after_pass[1:] == [prompt, "BSAT1: Game paused. The clock is stopped. Say resume to go on.",
                              "BSAT1: Resuming.", prompt]
    # Right after the find, "repeat" still says it again.
    again = play(tmp_path, [*START, "explore one zero zero", "repeat"])
    assert again.count("BSAT1: Probe found!") == 2


def test_the_idle_pause_says_its_time_as_a_person_would(tmp_path: Path) -> None:
    """idle_pause_seconds: 6 once said "0.1 minutes"; through the CLI on the real clock."""
    config = tmp_path / "config.yaml"
    config.write_text("idle_pause_seconds: 2\n", encoding="utf-8")
    env = {**os.environ, "ASSISTANT_STATE_DIR": str(tmp_path / "state")}
    proc = subprocess.Popen([sys.executable, "-m", "assistant", "--config", str(config), "play", "omega-virus",
                             "--text", "--seed", "1"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(f"{line}\n" for line in START))
    proc.stdin.flush()
    try:
        for line in proc.stdout:
            if line.startswith("BSAT1: Nobody has played"):
                break
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    assert line == "BSAT1: Nobody has played for 2 seconds, so I paused the game. Nothing is lost. " \
                   "Say resume to go on.\n"


def test_said_duration() -> None:
    from assistant.session import said_duration

    assert [said_duration(s) for s in (1, 6, 30, 59, 60, 90, 150, 180, 600)] == [
        "1 second", "6 seconds", "30 seconds", "59 seconds", "1 minute", "a minute and a half",
        "2 and a half minutes", "3 minutes", "10 minutes"]
