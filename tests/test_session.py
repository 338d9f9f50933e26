"""The session driver and its journal: replay rebuilds the identical game; nothing is lost."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from assistant.config import Config
from assistant.engine import Command
from assistant.games import omega_virus
from assistant.games.omega_virus.engine import CommandCenter
from assistant.journal import Journal, find_unfinished
from assistant.session import PrintAnnouncer, Session, effective_entries, replay


def snapshot(cc: CommandCenter) -> dict[str, Any]:
    return {
        "phase": cc.phase, "mover": cc.mover, "clock": cc.clock_ms, "used": cc.used_ms, "supply": dict(cc.supply),
        "players": {c: (p.code, p.playing, sorted(p.cards), sorted(p.avds), p.probe, p.knows_virus, p.last_room)
                    for c, p in cc.players.items()},
        "virus": cc.virus_room, "shut": list(cc.shut), "rng": cc.rng.getstate(), "winner": cc.winner,
    }


def new_session(tmp_path: Path, seed: int, out: list[str]) -> Session:
    settings = omega_virus.settings_from_config(Config())
    return Session.new("omega-virus", seed, settings, PrintAnnouncer(out.append), tmp_path)


def test_replaying_the_journal_rebuilds_the_identical_game(tmp_path: Path) -> None:
    phrases = ["skill one", "code one two", "press 2 0", "skip", "code zero zero", "pass", "explore one zero zero",
               "attack the red commando", "press R", "shields zero and two", "what do i have", "repeat",
               "explore two zero one", "teleport", "press 2 1 2 0", "press 0 1 2", "how much time is left",
               "hello there", "attack blue probe", "zero", "pause", "resume", "RESUMED"]
    for seed in range(12):
        rng = random.Random(seed)
        out: list[str] = []
        session = new_session(tmp_path / str(seed), seed, out)
        session.start()
        for _ in range(300):
            if session.game.is_over():
                break
            roll = rng.random()
            if roll < 0.3:
                session.advance(rng.uniform(0.01, 40))  # chopped at odd sizes, like a real clock
            else:
                phrase = rng.choice(phrases)
                if phrase.startswith("press "):
                    session.press(phrase.split()[1:])
                elif phrase == "RESUMED":  # what the driver says after a resume: not journaled
                    session.resumed()
                else:
                    session.hear(phrase)
        session.close()
        assert session.journal is not None
        journal = Journal.read(session.journal.path)
        rebuilt = replay(omega_virus, journal.header, journal.entries)
        assert isinstance(session.game, CommandCenter) and isinstance(rebuilt, CommandCenter)
        assert snapshot(rebuilt) == snapshot(session.game)


def test_repeating_draws_nothing_from_the_games_rng() -> None:
    """Repeats that are not journaled (after pause, resume, undo) must not change the game."""
    from assistant.games import game_module

    for name in ("omega-virus", "prologue", "msx-cards", "planets"):
        module = game_module(name)
        sentences = module.sentences()
        pools = {i: [t for t, _ in sentences.expand([i], limit=50)] for i in sentences.intents}
        for seed in range(5):
            rng = random.Random(seed)
            out: list[str] = []
            session = Session.new(name, seed, {}, PrintAnnouncer(out.append), None)
            session.start()
            for _ in range(150):
                if session.game.is_over():
                    break
                state = session.game.rng.getstate()  # type: ignore[attr-defined]
                session.game.handle(Command("repeat"))
                assert session.game.rng.getstate() == state, (name, seed)  # type: ignore[attr-defined]
                if rng.random() < 0.2:
                    session.advance(rng.uniform(0.5, 30))
                else:
                    allowed = sorted(session.allowed_intents() - {"new_game", "pause"})
                    choice = pools.get(rng.choice(allowed)) if allowed else None
                    if choice:
                        session.hear(rng.choice(choice))


def test_a_torn_last_line_loses_only_that_line(tmp_path: Path) -> None:
    out: list[str] = []
    session = new_session(tmp_path, 3, out)
    session.start()
    session.hear("skill zero")
    session.hear("code one two")
    assert session.journal is not None
    with session.journal.path.open("a", encoding="utf-8") as f:
        f.write('{"cmd": {"intent": "sk')  # the power went mid-write
    journal = Journal.read(session.journal.path)
    assert [e["cmd"]["intent"] for e in journal.entries] == ["skill", "code"]
    assert find_unfinished(tmp_path, "omega-virus") is not None


def test_finished_games_are_not_offered_for_resume(tmp_path: Path) -> None:
    out: list[str] = []
    session = new_session(tmp_path, 3, out)
    session.start()
    for line in ["skill two", "code one two", "skip", "skip", "skip"]:
        session.hear(line)
    session.advance(601)
    assert session.game.is_over()
    assert find_unfinished(tmp_path, "omega-virus") is None


def test_undo_passes_over_queries() -> None:
    entries: list[dict[str, Any]] = [
        {"cmd": {"intent": "attack"}}, {"advance": 1.0}, {"cmd": {"intent": "status"}}, {"undo": True},
    ]
    assert effective_entries(entries) == [{"advance": 1.0}, {"cmd": {"intent": "status"}}]
    entries = [{"cmd": {"intent": "a"}}, {"cmd": {"intent": "b"}}, {"undo": True}, {"cmd": {"intent": "c"}}]
    assert [e["cmd"]["intent"] for e in effective_entries(entries)] == ["a", "c"]


def test_idle_game_pauses_and_keeps_its_time(tmp_path: Path) -> None:
    out: list[str] = []
    settings = omega_virus.settings_from_config(Config())
    session = Session.new("omega-virus", 5, settings, PrintAnnouncer(out.append), tmp_path, idle_pause_after=150)
    session.start()
    for line in ["skill zero", "code one two", "skip", "skip", "skip"]:
        session.hear(line)
    cc = session.game
    assert isinstance(cc, CommandCenter)
    for _ in range(100):
        session.advance(2.0)
    assert session.paused
    assert out[-1].startswith("BSAT1: Nobody has played for 2 and a half minutes, so I paused the game.")
    used = cc.used_ms
    assert used == 150_000
    session.advance(600)
    assert cc.used_ms == used
    session.hear("explore one zero zero")
    assert out[-1] == "BSAT1: The game is paused. Say resume to go on."
    session.hear("resume")
    session.advance(1)
    assert cc.used_ms == used + 1000


def test_not_understood_and_not_allowed_change_nothing(tmp_path: Path) -> None:
    out: list[str] = []
    session = new_session(tmp_path, 5, out)
    session.start()
    session.hear("skill zero")
    assert session.journal is not None
    before = list(session.journal.entries)
    session.hear("banana")
    session.hear("terminate two")
    assert session.journal.entries == before
    assert out[-2].startswith("BSAT1: Say again? You can say: code one two")
    assert out[-1] == "BSAT1: Red, enter your secret code on the keypad, or say skip."
    assert session.game.handle(Command("repeat"))[0].line() == "BSAT1: Red, enter secret code."


def test_session_phrases_are_what_the_driver_says() -> None:
    """Every listed phrase is said word for word by the driver, the box or the live loop (so the
    voice cache holds real sentences), and the voice cache preparation includes them."""
    from assistant import session
    from assistant.config import Config
    from assistant.phrases import game_phrases

    root = Path(session.__file__).parent
    source = "".join((root / name).read_text() for name in ("session.py", "box.py", "live/run.py", "live/loop.py"))
    said = source.replace(" {note}\".strip()", "\"")  # resumed() without and with its note
    for phrase in session.SESSION_PHRASES:
        first = phrase.split(". ")[0] if phrase.startswith("Game resumed. Say new") else phrase
        assert f'"{first}' in said, phrase
    texts = {p.text for p in game_phrases("omega-virus", Config.from_text(""))}
    assert set(session.SESSION_PHRASES) <= texts
