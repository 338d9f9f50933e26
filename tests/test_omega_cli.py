"""The text contract through the real CLI: scripted whole games, bad input, kill -9 and resume."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from assistant.config import Config
from assistant.games import omega_virus
from assistant.games.omega_virus.engine import AVDS, ROOM_ITEMS, CommandCenter, Phase
from assistant.session import PrintAnnouncer, Session

ROOT = Path(__file__).resolve().parent.parent


def run_cli(script: str, tmp_path: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ASSISTANT_STATE_DIR": str(tmp_path / "state")}
    tmp_path.mkdir(parents=True, exist_ok=True)
    return subprocess.run([sys.executable, "-m", "assistant", "play", "omega-virus", "--text", *args],
                          input=script, capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=timeout)


def room_words(code: str) -> str:
    return " ".join({"0": "zero", "1": "one", "2": "two"}[d] for d in code)


def oracle_script(seed: int, players: dict[str, str], win: bool = True) -> tuple[list[str], list[str]]:
    """Plays a game in-process as a player who always picks the right room, returning the typed
    lines and the printed output. The same lines fed to the real CLI must print the same."""
    out: list[str] = []
    settings = omega_virus.settings_from_config(Config())
    session = Session.new("omega-virus", seed, settings, PrintAnnouncer(out.append), None)
    session.start()
    script: list[str] = []

    def feed(line: str) -> None:
        script.append(line)
        if line.startswith("press "):
            session.press(line.split()[1:])
        elif line.startswith("wait "):
            session.advance(float(line.split()[1]))
        else:
            session.hear(line)

    cc = session.game
    assert isinstance(cc, CommandCenter)
    feed("skill zero")
    for color in cc.board.seat_order:
        feed(f"press {' '.join(players[color])}" if color in players else "skip")
    tried: set[str] = set()
    for _ in range(400):
        if cc.is_over():
            break
        if cc.phase is Phase.MOVE:
            feed("wait 15")  # moving the piece on the board takes time
        if cc.phase is Phase.SHIELDS:
            assert cc.defense is not None
            n = cc.defense.n
            feed("shields " + " and ".join(["zero", "one", "two", "r"][:n]))
            continue
        if cc.phase is Phase.TERMINATE:
            if not win or not tried:
                wrong = next(b for b in "012R" if b != cc.termination_button and b not in tried)
                tried.add(wrong)
                feed(f"press {wrong}")
            else:
                feed(f"press {cc.termination_button}")
            continue
        if cc.phase is not Phase.MOVE or cc.mover is None:
            feed("repeat")
            continue
        color, unit = cc.mover
        player = cc.players[color]
        virus = cc.board.room(cc.virus_room)
        assert virus is not None
        if unit == "commando" and player.avds == set(AVDS) and f"{virus.color} card" in player.cards:
            feed(f"explore {room_words(virus.code)}")
            continue
        rooms = [r for r in cc.board.rooms if f"{r.color} card" in player.cards
                 and r.sector not in cc.shut and r.code != player.last_room]
        lacking = {r.code for r in rooms if any(not player.holds(i) for i in ROOM_ITEMS[r.color])}
        good = [r for r in rooms if cc.nature[(color, r.code)] == "wanted" and r.code in lacking]
        room = (good or [r for r in rooms if r.code in lacking] or rooms)[0]
        feed(f"explore room {room_words(room.code)}")
    return script, out


def test_scripted_game_ends_with_the_virus_terminated(tmp_path: Path) -> None:
    script, expected = oracle_script(7, {"red": "12", "blue": "01"})
    assert expected[-1] == "VIRUS: You win! I am terminated!"
    assert "VIRUS: You found me! Try and stop me!" in expected
    assert "VIRUS: Wrong!" in expected and "SOUND: buzz" in expected
    result = run_cli("\n".join(script) + "\n", tmp_path, "--seed", "7", "--clock", "virtual")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [*expected, "BSAT1: Say new game to play again."]


@pytest.mark.parametrize("how", ["won", "time ran out"])
def test_the_game_stays_open_after_it_ends(tmp_path: Path, how: str) -> None:
    """After "You win!" or a time-out loss, "new game" starts the next one, as in the other games."""
    if how == "won":
        script, expected = oracle_script(7, {"red": "12", "blue": "01"})
    else:
        script = ["skill zero", "code one two", "skip", "skip", "skip", "wait 2000"]
    result = run_cli("\n".join([*script, "new game", "skill one", "what can I say"]) + "\n", tmp_path,
                     "--seed", "7", "--clock", "virtual")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    lines = result.stdout.splitlines()
    over = lines.index("BSAT1: Say new game to play again.")
    assert lines[over - 1] == ("VIRUS: You win! I am terminated!" if how == "won" else "VIRUS: Red terminated!")
    assert lines[over + 1:over + 3] == ["BSAT1: Enter skill.", "BSAT1: Red, enter secret code."]
    assert lines[-1].startswith("BSAT1: You can say:")
    journals = list((tmp_path / "state").glob("omega-virus-*.jsonl"))  # (their times may tie: not sorted)
    ends = sorted(journal.read_text().splitlines()[-1] == '{"end": "over"}' for journal in journals)
    assert ends == [False, True]  # the game that ended, and the new one going on


def test_scripted_game_ends_with_time_running_out(tmp_path: Path) -> None:
    script = ["skill two", "code one two", "skip", "press 2 0", "skip", "wait 300", "pass", "wait 400",
              "how much time is left", "pass", "wait 200"]
    result = run_cli("\n".join(script) + "\n", tmp_path, "--seed", "3", "--clock", "virtual")
    lines = result.stdout.splitlines()
    assert result.returncode == 0, result.stderr
    assert lines[:5] == ["BSAT1: Enter skill.", "BSAT1: Red, enter secret code.", "BSAT1: Blue, enter secret code.",
                         "BSAT1: Green, enter secret code.", "BSAT1: Yellow, enter secret code."]
    assert lines[5] == "VIRUS: 10 minutes until I take over!"
    assert "VIRUS: 5 minutes until I take over!" in lines
    assert "VIRUS: 1 minute until I take over!" in lines
    assert "VIRUS: Red must be terminated!" not in lines
    assert not any(line.endswith("Sector shut down!") for line in lines)  # skill 2
    assert lines[-6:] == ["VIRUS: Too late! This station is mine! I win!", "VIRUS: Red terminated!",
                          "VIRUS: Green terminated!", "BSAT1: Say new game to play again.",
                          "BSAT1: Time ran out: the Virus took over.",  # the time is still told
                          "BSAT1: The game is over. Say new game to play again."]  # the game stays open


def test_shutdowns_and_the_final_sector_at_skill_zero(tmp_path: Path) -> None:
    script = ["skill 0", "code 1 2", "skip", "skip", "skip", "wait 1300"]
    lines = run_cli("\n".join(script) + "\n", tmp_path, "--seed", "5", "--clock", "virtual").stdout.splitlines()
    shutdowns = [line for line in lines if line.endswith("Sector shut down!")]
    assert len(shutdowns) == 3
    assert lines.index(shutdowns[0]) > lines.index("VIRUS: 10 minutes until I take over!")
    assert lines[-3:] == ["VIRUS: Too late! This station is mine! I win!", "VIRUS: Red terminated!",
                          "BSAT1: Say new game to play again."]


def test_bad_input_gets_a_clear_answer_and_loses_nothing(tmp_path: Path) -> None:
    script = ["skill zero", "the cat sat on the mat", "code one two", "skip", "skip", "skip",
              "attack the blue commando", "press 7", "wait soon", "what can I say", "explore one zero zero"]
    result = run_cli("\n".join(script) + "\n", tmp_path, "--seed", "2", "--clock", "virtual")
    lines = result.stdout.splitlines()
    assert result.returncode == 0
    say_again = [line for line in lines if line.startswith("BSAT1: Say again?")]
    assert len(say_again) == 1 and "code one two" in say_again[0]
    assert "BSAT1: There is no one to attack in solo play." in lines
    assert any("press takes buttons 0 1 2 R" in line for line in lines)
    assert any("wait needs a number" in line for line in lines)
    assert any(line.startswith("BSAT1: You can say: explore one zero zero, pass") for line in lines)
    assert any(line.startswith("VIRUS: Code ") for line in lines)  # the explore still went through


def test_new_game_is_confirmed_first(tmp_path: Path) -> None:
    script = ["skill zero", "new game", "no", "new game", "yes"]
    lines = run_cli("\n".join(script) + "\n", tmp_path, "--seed", "2", "--clock", "virtual").stdout.splitlines()
    assert lines.count("BSAT1: Start a new game? This one will be lost. Say yes or no.") == 2
    assert "BSAT1: Carrying on." in lines
    assert lines[-1] == "BSAT1: Enter skill."


def test_pause_stops_the_clock(tmp_path: Path) -> None:
    script = ["skill one", "code one two", "skip", "skip", "skip", "pause", "wait 600", "resume",
              "how much time is left"]
    lines = run_cli("\n".join(script) + "\n", tmp_path, "--seed", "2", "--clock", "virtual").stdout.splitlines()
    assert "BSAT1: Game paused. The clock is stopped. Say resume to go on." in lines
    assert lines[-1] == "VIRUS: 15 minutes until I take over!"


def test_kill_minus_nine_then_resume_keeps_the_same_game(tmp_path: Path) -> None:
    script, _ = oracle_script(11, {"red": "12", "blue": "01", "yellow": "22"})
    cut = len(script) // 2
    queries = ["what do i have", "how much time is left"]
    env = {**os.environ, "ASSISTANT_STATE_DIR": str(tmp_path / "state")}
    base = [sys.executable, "-m", "assistant", "play", "omega-virus", "--text", "--clock", "virtual"]

    straight = run_cli("\n".join(script[:cut] + queries) + "\n", tmp_path / "a", "--seed", "11", "--clock",
                       "virtual")
    expected_answers = straight.stdout.splitlines()[-2:]

    proc = subprocess.Popen([*base, "--seed", "11", "--new"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env=env, cwd=tmp_path)
    assert proc.stdin is not None and proc.stdout is not None
    for line in script[:cut]:
        proc.stdin.write(line + "\n")
    proc.stdin.write("repeat\n")  # its answer shows that everything before it was taken
    proc.stdin.flush()
    marker = script[:cut] + ["repeat"]
    expected_before = run_cli("\n".join(marker) + "\n", tmp_path / "x", "--seed", "11", "--clock",
                              "virtual").stdout.splitlines()
    seen: list[str] = []
    reader = threading.Thread(target=lambda: seen.extend(line.rstrip("\n") for line in proc.stdout),
                              daemon=True)
    reader.start()
    deadline = time.monotonic() + 60
    while len(seen) < len(expected_before) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert seen == expected_before
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()

    resumed = subprocess.run([*base, "--resume"], input="\n".join(queries) + "\n", capture_output=True,
                             text=True, env=env, cwd=tmp_path, timeout=60)
    lines = resumed.stdout.splitlines()
    assert lines[0] == "BSAT1: Game resumed."
    assert lines[-2:] == expected_answers


def test_board_command_prints_the_tables(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "assistant", "board"], capture_output=True, text=True,
                            cwd=tmp_path)
    assert result.returncode == 0
    assert "  1.0.0  green  Supply Depot" in result.stdout
    assert "  1.0.0  Red Commando" in result.stdout


def test_real_clock_takes_lines_that_arrive_together(tmp_path: Path) -> None:
    """Pasted or piped lines arrive in one read: each is handled at once, none waits for the next."""
    env = {**os.environ, "ASSISTANT_STATE_DIR": str(tmp_path / "state")}
    proc = subprocess.Popen([sys.executable, "-m", "assistant", "play", "omega-virus", "--text", "--seed", "3",
                             "--new"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
                            cwd=tmp_path)
    assert proc.stdin is not None and proc.stdout is not None
    seen: list[str] = []
    reader = threading.Thread(target=lambda: seen.extend(line.rstrip("\n") for line in proc.stdout),
                              daemon=True)
    reader.start()
    proc.stdin.write("skill zero\npress 1 2\nskip\nskip\nskip\n")  # one write, stdin stays open
    proc.stdin.flush()
    deadline = time.monotonic() + 30
    while not any("until I take over" in line for line in seen) and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.stdin.close()
    proc.wait(timeout=30)
    assert any("until I take over" in line for line in seen), seen  # all five lines were taken
    assert seen.count("BSAT1: Red, enter secret code.") == 1, seen  # nobody timed out waiting
