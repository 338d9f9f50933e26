"""Whole MSX card battles through the real command line, from the first card to the end.

Each game runs ``python -m assistant play msx-cards --text --seed N --clock virtual`` with
its own config and state folder, typed lines in, ``NARRATOR: ...`` lines out. Besides the
lines checked by hand, every roll's arithmetic and every Vitality the narrator announces
is re-added from the transcript itself.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

FIGHTER = "my fighter: attack 20, defense -8, vitality 99, pentagon 5, race blue"

#: A whole winning game on the packaged example data (seed 22): (line, how many times).
WIN: list[tuple[str, int]] = [
    ("call me Sam", 1), ("what can I say", 1), ("atack", 1), (FIGHTER, 1), ("draw an enemy", 1), ("undo", 1),
    ("draw an enemy", 1), ("capsule 2", 1), ("draw an enemy", 1), ("capsule 4", 1), ("attack", 1),
    ("draw an enemy", 1), ("capsule 1", 1), ("attack", 4), ("roll", 1), ("draw an enemy", 1), ("attack", 1),
    ("draw an enemy", 1), ("attack", 2), ("draw an enemy", 1), ("attack", 5), ("roll", 1),
    ("draw an enemy", 1), ("attack", 1), ("draw an enemy", 1), ("attack", 1), ("draw an enemy", 1),
    ("attack", 7), ("roll", 1), ("draw an enemy", 1), ("attack", 1), ("draw an enemy", 1), ("attack", 1),
    ("draw an enemy", 1), ("attack", 1), ("roll", 1), ("attack", 4), ("roll", 1), ("draw an enemy", 1),
    ("attack", 1), ("draw an enemy", 1), ("attack", 2), ("draw an enemy", 1), (FIGHTER, 1), ("attack", 2),
    ("roll", 1), ("attack", 4),
]

#: Three deaths in World 1 (seed 2).
THREE_DEATHS: list[tuple[str, int]] = [
    ("enemy: attack 12, defense -9, vitality 60, pentagon 5, race green", 1), ("my fighter is card 9", 1),
    ("attack", 2), ("my next fighter is card 1", 1), ("attack", 1),
    ("my next fighter: attack 3, defense 0, vitality 8, pentagon 0, race red", 1),
]

UNDO_HINT = "NARRATOR: If that was not right, say undo. Otherwise, say new game to play again."


def lines_of(script: list[tuple[str, int]]) -> list[str]:
    return [line for line, n in script for _ in range(n)]


def setup(tmp_path: Path, section: dict[str, object] | None = None) -> tuple[Path, dict[str, str]]:
    config = tmp_path / "config.yaml"
    settings = {"games": {"msx_cards": {"event_chance": 0.1, **(section or {})}}}
    config.write_text(yaml.safe_dump(settings), encoding="utf-8")
    env = {**os.environ, "ASSISTANT_STATE_DIR": str(tmp_path / "state")}
    return config, env


def play(config: Path, env: dict[str, str], lines: list[str], *args: str) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "assistant", "--config", str(config), "play", "msx-cards",
                           "--text", "--clock", "virtual", *args], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, env=env, timeout=120, check=True)
    assert done.stderr == ""
    return done.stdout.splitlines()


DAMAGE = re.compile(r"(\d+) damage\. (Your|Enemy) vitality (\d+)\.")
NO_DAMAGE = re.compile(r"no damage\. (Your|Enemy) vitality (\d+)\.")
GAIN = re.compile(r"(?:gains|plus) (\d+) vitality\. (Your|Enemy) vitality (\d+)\.")
ENTERED = re.compile(r"^(Your fighter|The enemy)[^:]*: \w+, attack (?:minus )?\d+, defense (?:minus )?\d+, "
                     r"vitality (\d+),")
SET = re.compile(r"^(Your|Enemy) vitality (?:is now )?(\d+)\.$")
ROLL = re.compile(r"(?:You roll|The enemy rolls|The Boss rolls) (\d+) on the d(\d+)((?:, (?:plus|minus) \d+ "
                  r"[^,:;]+)*): (minus )?(\d+)")
TERM = re.compile(r", (plus|minus) (\d+) ")


def audit(transcript: list[str]) -> int:
    """Re-add every roll and follow every Vitality through the transcript; returns the checks made."""
    vitality: dict[str, int] = {}
    checks = 0
    for line in transcript:
        assert line.startswith("NARRATOR: "), line
        text = line.removeprefix("NARRATOR: ")
        if (m := ENTERED.match(text)) is not None:
            vitality["Your" if m.group(1) == "Your fighter" else "Enemy"] = int(m.group(2))
        for m in ROLL.finditer(text):
            terms = sum(int(n) * (1 if s == "plus" else -1) for s, n in TERM.findall(m.group(3)))
            assert 1 <= int(m.group(1)) <= int(m.group(2)), line
            assert int(m.group(1)) + terms == int(m.group(5)) * (-1 if m.group(4) else 1), line
            checks += 1
        for m in DAMAGE.finditer(text):
            who, now = m.group(2), int(m.group(3))
            assert now == max(vitality[who] - int(m.group(1)), 0), line
            vitality[who] = now
            checks += 1
        for m in NO_DAMAGE.finditer(text):
            assert int(m.group(2)) == vitality[m.group(1)], line
            checks += 1
        for m in GAIN.finditer(text):
            who, now = m.group(2), int(m.group(3))
            assert now == vitality[who] + int(m.group(1)), line
            vitality[who] = now
            checks += 1
        if (m := SET.match(text)) is not None:
            vitality[m.group(1)] = int(m.group(2))
    return checks


def test_a_whole_game_won_on_the_example_data(tmp_path: Path) -> None:
    config, env = setup(tmp_path)
    out = play(config, env, lines_of(WIN), "--seed", "22")
    assert out[:4] == [
        "NARRATOR: MSX card battle. Example Mission: 5 Worlds. You tell me the cards; I roll the dice and keep "
        "the counters.",
        "NARRATOR: Note: the cards, capsules, events, bosses and worlds tables are examples, not the real "
        "game's. Edit them to match your cards and board.",
        "NARRATOR: World 1: the attack die is the d8. Defeat 3 enemies, then the Boss, Boss 1.",
        "NARRATOR: Enter your fighter, for example: my fighter, attack 6, defense minus 2, vitality 20, "
        "pentagon 3, race blue. Or: my fighter is card 3.",
    ]
    assert out[4:6] == ["NARRATOR: Hello Sam.", "NARRATOR: Sam, enter your fighter."]
    assert out[6].startswith("NARRATOR: You can say: my fighter: attack six, defense minus two, vitality twenty")
    assert out[7].startswith("NARRATOR: Say again? You can say: ")
    assert out[8] == "NARRATOR: Your fighter: blue, attack 20, defense minus 8, vitality 99, pentagon 5."
    # undo takes back the draw; drawing again gives the same card: undo is not a re-roll
    drawn = out[10]
    assert drawn.startswith("NARRATOR: The enemy drawn is card ")
    undone = out.index("NARRATOR: Undone.")
    assert out[undone + 1] == "NARRATOR: Your vitality 99. Enter the enemy's card, or say draw an enemy."
    assert drawn in out[undone + 2:undone + 8]
    for n in range(1, 6):
        assert any(line.startswith(f"NARRATOR: World {n}") and "the attack die is the d" in line for line in out)
    assert sum("Extra: you roll" in line for line in out) == 4
    assert sum("Bonus: you roll" in line for line in out) == 2
    assert sum("is destroyed!" in line for line in out) == 5
    assert any(line.startswith("NARRATOR: Event! The fight stops.") for line in out)
    assert "NARRATOR: Your fighter is defeated. Deaths in World 5: 1 of 3." in out
    assert out[-3:] == ["NARRATOR: Boss 5 is destroyed!", "NARRATOR: Mission complete: Example Mission. You win!",
                        UNDO_HINT]
    assert audit(out) > 100
    journal = next((tmp_path / "state").glob("msx-cards-*.jsonl"))
    entries = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    assert entries[0]["seed"] == 22 and entries[0]["settings"]["event_chance"] == 0.1
    assert entries[-1] == {"end": "over"}


def test_a_whole_game_lost_to_three_deaths(tmp_path: Path) -> None:
    config, env = setup(tmp_path)
    out = play(config, env, lines_of(THREE_DEATHS), "--seed", "2")
    deaths = [line for line in out if "Your fighter is defeated" in line]
    assert deaths == [f"NARRATOR: Your fighter is defeated. Deaths in World 1: {n} of 3." for n in (1, 2, 3)]
    assert out[-2:] == ["NARRATOR: 3 deaths in World 1. Game over.", UNDO_HINT]
    assert any(line.startswith("NARRATOR: Event! The fight stops.") for line in out)
    assert audit(out) > 10


@pytest.mark.parametrize("seed,end", [
    (9, "NARRATOR: No damage to the Boss on T1: the Boss wins. One defeat by a Boss ends the game. Game over."),
    (10, "NARRATOR: Defeated by the Boss. One defeat by a Boss ends the game. Game over."),
])
def test_a_game_lost_to_a_boss_from_your_own_data_files(tmp_path: Path, seed: int, end: str) -> None:
    bosses = tmp_path / "bosses.yaml"
    bosses.write_text(yaml.safe_dump({"bosses": {"The Wall": {"white": [40, -50] * 4, "gray": [-50, 40] * 4}}}),
                      encoding="utf-8")
    worlds = tmp_path / "worlds.yaml"
    worlds.write_text(yaml.safe_dump({"missions": [{"name": "Test Run", "worlds": [
        {"name": "Castle", "die": 8, "boss": "The Wall"}]}]}), encoding="utf-8")
    config, env = setup(tmp_path, {"bosses_file": str(bosses), "worlds_file": str(worlds),
                                   "enemies_per_world": 1, "event_chance": 0})
    weak = "my fighter: attack 20, defense -8, vitality 30, pentagon 0, race red"
    out = play(config, env, [weak, "enemy is card 1", "attack", "status", "attack"], "--seed", str(seed))
    assert out[0] == ("NARRATOR: MSX card battle. Test Run: 1 World. You tell me the cards; I roll the dice and "
                      "keep the counters.")
    assert "NARRATOR: World 1, Castle: the attack die is the d8. Defeat 1 enemy, then the Boss, The Wall." in out
    assert "NARRATOR: Boss fight: The Wall. No events in its dark region. 8 turns: hurt the Boss on each of " \
           "your turns, and survive its attacks." in out
    assert out[out.index(end) + 1] == UNDO_HINT  # what follows (status, attack) cannot change the end
    assert audit(out) >= 2


def test_a_killed_game_resumes_where_it_stood(tmp_path: Path) -> None:
    """kill -9 in the middle of a game; --resume rebuilds it from the journal and plays on identically."""
    config, env = setup(tmp_path)
    lines = lines_of(WIN)
    cut = 30
    head, tail = lines[:cut] + ["status"], lines[cut:]

    reference = play(config, env, head + tail, "--seed", "22", "--new")
    status_at = next(i for i, line in enumerate(reference) if line.startswith("NARRATOR: World ") and " of 5, "
                     in line)
    command = [sys.executable, "-m", "assistant", "--config", str(config), "play", "msx-cards", "--text",
               "--clock", "virtual"]
    state = tmp_path / "state2"
    env2 = {**env, "ASSISTANT_STATE_DIR": str(state)}
    proc = subprocess.Popen([*command, "--seed", "22"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env=env2)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("\n".join(head) + "\n")
    proc.stdin.flush()
    seen = []
    while True:
        line = proc.stdout.readline()
        assert line, "the game ended before the status line"
        seen.append(line.rstrip("\n"))
        if line.startswith("NARRATOR: World ") and " of 5, " in line:
            break
    proc.kill()  # SIGKILL: no clean-up, no flush
    proc.wait(timeout=10)
    assert seen == reference[:status_at + 1]

    resumed = play(config, env2, tail, "--resume")
    assert resumed[0] == "NARRATOR: Game resumed."
    after = reference[status_at + 1:]
    assert resumed[2:] == after
    # the resume says where things stood, ending with what to say next (no roll read again)
    prompt = reference[status_at - 1].removeprefix("NARRATOR: ")
    assert resumed[1].startswith("NARRATOR: ") and resumed[1].endswith(prompt) and "roll" not in resumed[1]
    assert resumed[-2:] == ["NARRATOR: Mission complete: Example Mission. You win!", UNDO_HINT]
