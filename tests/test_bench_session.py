"""bench_accuracy --session (its pure parts: tests/support/session.py): a voice's evening is its
commands game after game in a seeded order, table talk only after the learning phase's commands;
a player confirms a command heard as said (acted on, or a yes to its question), never one let go
or another; and the Learned stage's rule replayed at other margins over a kept row gives what
``learning.check`` would have decided, so the margins can be chosen offline."""

from __future__ import annotations

from typing import Any

from assistant.games import game_module
from assistant.hearing.events import Doubted, NearMiss, NotRecognized, Transcript
from tests.support.session import SessionItem, choose_margins, confirmable, replay, session_order, sweep

OMEGA = game_module("omega-virus").sentences()


def command(words: str) -> Any:
    found = OMEGA.match(OMEGA.words(words))
    assert found is not None, words
    return found


def test_a_session_is_its_commands_game_after_game_with_table_talk_after_the_learning_phase() -> None:
    commands: list[SessionItem] = [(game, f"{game} {n}", command("repeat"), n) for game in ("a", "b", "c")
                                   for n in range(6)]
    talk: list[SessionItem] = [("a", f"talk {n}", None, 100 + n) for n in range(4)]
    order = session_order(commands, talk, 5, seed=3)
    assert order == session_order(commands, talk, 5, seed=3)  # seeded
    assert order != session_order(commands, talk, 5, seed=4)
    assert sorted(order, key=repr) == sorted([*commands, *talk], key=repr)
    assert all(expected is not None for _, _, expected, _ in order[:5])
    games = [game for game, _, expected, _ in order if expected is not None]
    assert [g for n, g in enumerate(games) if n == 0 or g != games[n - 1]] == sorted(set(games), key=games.index)


def test_a_player_confirms_the_command_said_acted_on_or_answered_yes_and_nothing_else() -> None:
    explore = command("explore one zero zero")
    repeat = command("repeat")
    assert confirmable("omega-virus", OMEGA, Transcript("explore one zero zero", 0.9, "", explore), explore) == \
        (explore, "acted")
    asked = Doubted("explore one zero zero", 0.5, "", explore, why="test")
    assert confirmable("omega-virus", OMEGA, asked, explore) == (explore, "yes")
    let_go = Doubted("repeat", 0.5, "", repeat, why="test")  # harmless: let go the first time
    assert confirmable("omega-virus", OMEGA, let_go, repeat) is None
    other = command("explore one two zero")
    assert confirmable("omega-virus", OMEGA, Transcript("explore one two zero", 0.9, "", other), explore) is None
    assert confirmable("omega-virus", OMEGA, NotRecognized("", "nothing"), explore) is None
    assert confirmable("omega-virus", OMEGA, NearMiss("explore", "vetoed", "", explore), explore) is None


def off_row(got: str, ok: bool, doubted: bool = False, asked: bool = False, expected: str | None = "explore") -> \
        dict[str, Any]:
    return {"got": got, "ok": ok, "doubted": doubted, "asked": asked, "expected": expected, "not_allowed": False,
            "asked_if_doubted": True}


def test_the_rule_replayed_hears_a_doubted_command_near_its_take_and_asks_about_one_placed_elsewhere() -> None:
    near = {"command": "explore", "margin": 0.1, "distance": 0.6, "words": False, "ok": True,
            "asked_if_doubted": True}
    doubted = off_row("explore", True, doubted=True, asked=True)
    assert replay(doubted, near, 0.7, 0.2) == {**doubted, "doubted": False, "asked": False}  # a close take: heard
    assert replay(doubted, near, 0.5, 0.2) == doubted  # not close enough
    assert replay(doubted, {**near, "words": True}, 0.7, 0.05) == doubted  # the entries' words never act
    heard_other = off_row("pass", False)
    asked = {**heard_other, "got": "explore", "ok": True, "doubted": True, "asked": True}
    assert replay(heard_other, near, 0.7, 0.2) == asked  # asked about as the command the takes place it at
    assert replay(heard_other, near, 0.5, 0.2) == heard_other
    assert replay(heard_other, {**near, "words": True}, 0.0, 0.05) == asked  # the words: by their margin
    assert replay(heard_other, {**near, "words": True}, 0.7, 0.2) == heard_other
    missed = off_row("nothing", False)
    assert replay(missed, near, 0.7, 0.2) == {**missed, "got": "explore", "ok": True, "doubted": False,
                                              "asked": False}  # a close take of its sentence: heard
    assert replay(missed, {**near, "words": True}, 0.7, 0.05)["asked"]  # placed by the words: asked
    assert replay({**missed, "not_allowed": True}, near, 0.7, 0.2)["got"] == "nothing"
    assert replay(missed, None, 0.7, 0.0) == missed


def test_the_sweep_chooses_fewest_wrong_acted_on_then_most_right() -> None:
    rows = [  # a miss the takes place right, table talk they place at a command, a command heard as another
        {"expected": "explore", "off": off_row("nothing", False),
         "nearest": {"command": "explore", "margin": 0.1, "distance": 0.6, "words": False, "ok": True,
                     "asked_if_doubted": True}},
        {"expected": None, "off": off_row("nothing", True, expected=None),
         "nearest": {"command": "pass", "margin": 0.04, "distance": 0.68, "words": False, "ok": False,
                     "asked_if_doubted": True}},
        {"expected": "explore", "off": off_row("explore", True, doubted=True, asked=True),
         "nearest": {"command": "explore", "margin": 0.3, "distance": 0.69, "words": False, "ok": True,
                     "asked_if_doubted": True}},
    ]
    swept = {(d, m): (tally, questions) for d, m, tally, questions in sweep(rows, (0.0, 0.65, 0.7), (0.05,))}
    tally, questions = swept[(0.7, 0.05)]  # the talk a close take places at "pass": acted on
    assert (tally.right, tally.taken, tally.taken_acted, tally.wrong_acted) == (2, 1, 1, 0)
    distance, margin, best, _ = choose_margins(list(sweep(rows, (0.0, 0.65, 0.7), (0.05,))))
    assert best.wrong_acted + best.taken_acted == 0 and best.right == 2 and distance == 0.65
