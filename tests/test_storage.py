"""Storage never stops a game: full, missing or read-only state folders, torn journals, and who is
asked to resume. Through the real CLI (``python -m assistant play ... --text``)."""

from __future__ import annotations

import io
import os
import pty
import re
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from assistant import cli, journal
from assistant.journal import Journal, find_unfinished

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ["skill zero", "code one two", "skip", "skip", "skip", "explore one zero zero", "what do I have",
          "pass", "how much time is left"]
NOT_SAVED = "Progress is not being saved"


def play(state: Path, lines: list[str], *args: str, limit: int | None = None,
         stdin: int | None = None, seed: str | None = "7") -> subprocess.CompletedProcess[str]:
    """The text CLI, optionally with the journal's size limited to ``limit`` bytes (a full disk)."""
    def limited() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = {**os.environ, "ASSISTANT_STATE_DIR": str(state)}
    command = [sys.executable, "-m", "assistant", "play", "omega-virus", "--text", "--clock", "virtual",
               *(["--seed", seed] if seed is not None else []), *args]
    if stdin is not None:
        done = subprocess.run(command, stdin=stdin, capture_output=True, text=True, env=env, cwd=ROOT,
                              timeout=60, preexec_fn=limited)
    else:
        done = subprocess.run(command, input="".join(f"{line}\n" for line in lines), capture_output=True,
                              text=True, env=env, cwd=ROOT, timeout=60, preexec_fn=limited)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr
    return done


def journals(state: Path) -> list[Path]:
    return sorted(state.glob("*.jsonl")) if state.is_dir() else []


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> str:
    """What the script prints when the journal can be written."""
    return play(tmp_path_factory.mktemp("healthy"), SCRIPT).stdout


@pytest.mark.parametrize("limit", [0, 2500, 2700])
def test_a_full_disk_never_stops_the_game(tmp_path: Path, healthy: str, limit: int) -> None:
    """At the start (nothing fits) and mid-game (the header and a few entries fit)."""
    state = tmp_path / "state"
    done = play(state, SCRIPT, limit=limit)
    assert done.stdout == healthy
    assert done.stderr.count(NOT_SAVED) == 1, done.stderr
    assert "full" in done.stderr or "larger than this system allows" in done.stderr
    for path in journals(state):  # what is on disk is a whole journal: no empty or torn file
        saved = Journal.read(path)
        assert path.read_bytes().endswith(b"\n")
        assert saved.saved_bytes == path.stat().st_size
    if limit == 0:
        assert journals(state) == []


def test_a_state_folder_that_cannot_be_made(tmp_path: Path, healthy: str) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    done = play(blocker / "state", SCRIPT)
    assert done.stdout == healthy
    assert done.stderr.count(NOT_SAVED) == 1
    assert "cannot be made" in done.stderr and str(blocker / "state") in done.stderr


def test_a_read_only_state_folder(tmp_path: Path, healthy: str) -> None:
    """A read-only tmpfs (root can write anywhere else, so chmod would prove nothing)."""
    mount = tmp_path / "ro"
    mount.mkdir()
    if shutil.which("mount") is None or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(mount)], capture_output=True).returncode:
        pytest.skip("cannot mount a read-only tmpfs here (needs root)")
    try:
        done = play(mount, SCRIPT)
        resumed = play(mount, ["repeat"], "--resume")
    finally:
        subprocess.run(["umount", str(mount)], check=True)
    assert done.stdout == healthy
    assert done.stderr.count(NOT_SAVED) == 1 and "read-only" in done.stderr
    assert "No unfinished omega-virus game to resume" in resumed.stderr


def test_saving_comes_back_with_everything_written(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries made while the folder could not be written reach the disk at the next write that can."""
    monkeypatch.setattr(journal, "_reported", None)
    heard: list[str] = []
    journal.report_to(heard.append)
    try:
        blocker = tmp_path / "state"
        blocker.write_text("a file where the folder should be\n")
        saved = Journal.create(blocker, "omega-virus", 3, {})
        saved.append({"cmd": {"intent": "skill", "slots": {"level": "0"}}})
        saved.append({"advance": 1.5})
        assert not saved.path.exists()
        blocker.unlink()
        saved.append({"cmd": {"intent": "repeat", "slots": {}}})
    finally:
        journal.report_to(None)
    again = Journal.read(saved.path)
    assert again.header == saved.header and again.entries == saved.entries and len(again.entries) == 3
    assert len(heard) == 2 and heard[0].startswith(NOT_SAVED) and heard[1] == journal.RECOVERED
    assert capsys.readouterr().err.count(NOT_SAVED) == 1


def test_a_journal_removed_under_its_game_is_written_again_whole(tmp_path: Path) -> None:
    """(state/ deleted by hand, or the game given up by another assistant while not held)"""
    saved = Journal.create(tmp_path / "state", "omega-virus", 3, {})
    saved.append({"cmd": {"intent": "skill", "slots": {"level": "0"}}})
    shutil.rmtree(tmp_path / "state")
    saved.append({"advance": 1.5})
    again = Journal.read(saved.path)
    assert again.header == saved.header and again.entries == saved.entries and len(again.entries) == 2
    assert again.saved_bytes == saved.path.stat().st_size


def _resume_in_process(state: Path, lines: list[str], monkeypatch: pytest.MonkeyPatch,
                       capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    monkeypatch.setenv("ASSISTANT_STATE_DIR", str(state))
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(f"{line}\n" for line in lines)))
    code = cli.main(["play", "omega-virus", "--text", "--clock", "virtual", "--resume"])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_journal_cut_at_every_byte_of_its_last_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A power cut mid-write: resume goes on from the last whole line, and later entries are kept."""
    state = tmp_path / "state"
    play(state, SCRIPT[:3])
    [path] = journals(state)
    whole = path.read_bytes()
    last_start = whole.rindex(b"\n", 0, len(whole) - 1) + 1
    reference: dict[bool, str] = {}
    for keep_last in (False, True):  # what resuming prints without / with the last entry
        path.write_bytes(whole if keep_last else whole[:last_start])
        reference[keep_last] = _resume_in_process(state, ["repeat"], monkeypatch, capsys)[1]
        for extra in journals(state):
            extra.unlink()
    assert reference[False] != reference[True]
    for cut in range(last_start, len(whole) + 1):
        path.write_bytes(whole[:cut])
        code, out, err = _resume_in_process(state, ["repeat"], monkeypatch, capsys)
        assert code == 0 and "Traceback" not in err
        assert out == reference[cut == len(whole)], f"cut at byte {cut - last_start} of the last line"
        after = Journal.read(path)  # the torn tail was replaced by whole lines
        assert path.read_bytes().endswith(b"\n") and after.saved_bytes == path.stat().st_size
        assert after.entries[-1] == {"cmd": {"intent": "repeat", "slots": {}}}


def test_an_empty_or_cut_header_is_not_offered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state"
    play(state, SCRIPT[:3])
    [path] = journals(state)
    header = path.read_bytes().split(b"\n")[0]
    for cut in (0, 1, len(header) // 2, len(header)):
        path.write_bytes(header[:cut])
        code, out, err = _resume_in_process(state, [], monkeypatch, capsys)
        assert code == 0 and "No unfinished omega-virus game to resume" in err
        assert out.splitlines() == ["BSAT1: Enter skill."]
        for extra in journals(state):
            if extra != path:
                extra.unlink()


def test_a_journal_with_nothing_but_its_header_is_not_offered(tmp_path: Path) -> None:
    """A start that never got going (e.g. no speaker) leaves nothing to resume."""
    Journal.create(tmp_path, "omega-virus", 3, {})
    assert find_unfinished(tmp_path, "omega-virus") is None


def _at_a_terminal(state: Path, typed: str) -> str:
    """The CLI with a terminal as its input; returns what it printed."""
    leader, follower = pty.openpty()
    try:
        os.write(leader, typed.encode())
        os.write(leader, b"\x04")  # end of input
        return play(state, [], stdin=follower, seed=None).stdout  # a seed would ask for a new game
    finally:
        os.close(leader)
        os.close(follower)


def test_only_a_terminal_is_asked_to_resume(tmp_path: Path) -> None:
    state = tmp_path / "state"
    play(state, SCRIPT[:2])
    [first] = journals(state)
    piped = play(state, ["skill zero", "code one two"])
    assert piped.stdout.splitlines()[:2] == ["BSAT1: Enter skill.", "BSAT1: Red, enter secret code."]
    assert "Starting a new omega-virus game. At its first move it replaces the unfinished omega-virus game " \
           "from " in piped.stderr
    [second] = journals(state)  # each game keeps one unfinished game: the newer
    assert second != first
    offered = _at_a_terminal(state, "resume\nrepeat\n").splitlines()
    assert offered[0].startswith("An unfinished omega-virus game from ")
    assert offered[1:3] == ["BSAT1: Game resumed.", "BSAT1: Blue, enter secret code."]
    declined = _at_a_terminal(state, "no\nyes\n").splitlines()  # a new game, confirmed
    assert declined[1].endswith("will be lost. Type yes or no.")
    assert declined[2] == "BSAT1: Enter skill."


@pytest.mark.parametrize("fits", ["nothing", "the header"])
def test_a_new_game_that_cannot_be_saved_gives_up_no_unfinished_one(tmp_path: Path, fits: str) -> None:
    """Each game keeps one unfinished game, but an older one goes only once the new one has a move
    on disk: with a full disk (nothing fits, or the header and no move) the old one stays."""
    state = tmp_path / "state"
    play(state, SCRIPT[:2])
    [first] = journals(state)
    header = len(first.read_bytes().split(b"\n")[0]) + 1  # the new game's is as long (same seed)
    done = play(state, SCRIPT[:4], limit=0 if fits == "nothing" else header + 10)
    assert NOT_SAVED in done.stderr
    found = find_unfinished(state, "omega-virus")
    assert found is not None and found.path == first and len(found.entries) == 2


def test_an_unfinished_game_being_played_is_never_given_up(tmp_path: Path) -> None:
    """Another assistant plays the unfinished game (resumed) while a new game of it starts here:
    the new game's first move leaves the one being played alone."""
    state = tmp_path / "state"
    play(state, SCRIPT[:2])
    [first] = journals(state)
    env = {**os.environ, "ASSISTANT_STATE_DIR": str(state)}
    other = subprocess.Popen([sys.executable, "-m", "assistant", "play", "omega-virus", "--text", "--clock",
                              "virtual", "--resume"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, env=env, cwd=ROOT)
    assert other.stdin is not None and other.stdout is not None
    try:
        assert other.stdout.readline() == "BSAT1: Game resumed.\n"  # (held before it is said)
        play(state, SCRIPT[:3])  # a new game here, its moves saved
        assert first.exists()
        other.stdin.write("skip\n")
        other.stdin.flush()
        assert other.stdout.readline() == "BSAT1: Blue, enter secret code.\n"
        assert other.stdout.readline() == "BSAT1: Green, enter secret code.\n"
    finally:
        other.stdin.close()
        assert other.wait(timeout=60) == 0
        other.stdout.close()
    assert len(Journal.read(first).entries) == 3  # its move was saved where it was


def readme_example() -> tuple[str, list[str]]:
    """The piped example in the README: its input and the options after ``play omega-virus``."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"^printf '([^']*)' \\\n\s*\| \.venv/bin/assistant play omega-virus (.*)$", text, re.MULTILINE)
    assert found is not None, "the README's piped example moved"
    return found.group(1).replace("\\n", "\n"), found.group(2).split()


def test_the_readme_piped_example_twice_with_a_kill_between(tmp_path: Path) -> None:
    """An unfinished game left by kill -9 must not swallow the next piped script's first line."""
    script, options = readme_example()
    state = tmp_path / "state"
    command = [sys.executable, "-m", "assistant", "play", "omega-virus", *options]
    env = {**os.environ, "ASSISTANT_STATE_DIR": str(state)}

    def example() -> str:
        done = subprocess.run(command, input=script, capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        return done.stdout

    first = example()
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(script.split("\n")[0] + "\n")
    proc.stdin.flush()
    while proc.stdout.readline().strip() != "BSAT1: Red, enter secret code.":
        pass
    proc.kill()  # an unfinished game is left behind
    proc.wait(timeout=10)
    proc.stdout.close()
    proc.stdin.close()
    assert find_unfinished(state, "omega-virus") is not None
    second = example()
    assert first.splitlines()[:2] == ["BSAT1: Enter skill.", "BSAT1: Red, enter secret code."]
    assert second == first


def test_an_unfinished_game_is_named_with_its_time_left_when_it_has_a_countdown(tmp_path: Path) -> None:
    """Choosing what to go on with: the Command Center's game says how long it has left (the game
    replayed from its journal), before its countdown runs it says none; a game with no countdown
    (Battle of the Planets) says only its moves and time played."""
    from assistant.session import journal_said

    state = tmp_path / "state"
    play(state, SCRIPT[:1])
    early = find_unfinished(state, "omega-virus")
    assert early is not None and "left" not in journal_said(early), journal_said(early)
    play(state, SCRIPT[:6])
    found = find_unfinished(state, "omega-virus")
    assert found is not None
    said = journal_said(found)
    assert re.search(r"\(\d+ moves, (.*, )?\d+( and a half)? minutes left\)$", said), said
    from assistant.games import game_spec

    planets = game_spec("planets")
    assert planets.time_left(planets.create(7, {})) is None
