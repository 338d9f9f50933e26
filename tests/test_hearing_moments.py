"""Moments of play (assistant.hearing.moments): what the box listens for at each point of a game,
found by playing the real sessions. The accuracy benchmark hears each command in the largest
moment that asks for it, and ``assistant transcribe --moment NAME`` hears a file as that moment
would: a command is never heard among more sentences than play listens for at once ("start
listening" only after "stop listening", when nothing else is listened for), and the commands
random play does not reach ("terminate" when the Virus is found, Prologue's "points") in the
moment that asks for them. Each game declares, in its GameSpec, what it is asking now
(``moment``) and the scenes that play to those moments (``scenes``): hearing is not edited
for a new game.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from assistant.box import ASLEEP_COMMANDS, PHONE_COMMANDS
from assistant.engine import Game
from assistant.games import Table, register, unregister
from assistant.hearing.moments import ASLEEP, MENU, WITH_PHONES, find_moment, grammar_for, listening_moments, moments


def test_start_listening_is_heard_in_the_moment_after_stop_listening() -> None:
    found = listening_moments("planets", games=2, steps=40)
    assert grammar_for(found, "start_listening") == ASLEEP_COMMANDS  # where it acts
    # awake too it is listened for ("I am listening."), not left to be heard as "stop listening"
    assert "start_listening" in (grammar_for(found, None) or set())  # table talk: the widest moment
    assert "stop_listening" in (grammar_for(found, None) or set())
    assert grammar_for(found, "stop_listening") != ASLEEP_COMMANDS


def test_phone_commands_are_heard_beside_the_widest_moment_and_table_talk_without_them() -> None:
    found = listening_moments("omega-virus", games=2, steps=40)
    talk = grammar_for(found, None) or frozenset()
    assert not talk & PHONE_COMMANDS
    for intent in PHONE_COMMANDS:
        assert grammar_for(found, intent) == talk | PHONE_COMMANDS


def test_terminate_and_points_are_heard_in_the_moments_that_ask_for_them() -> None:
    for game, intent, beside in (("omega-virus", "terminate", "buttons"), ("prologue", "points", "status")):
        found = listening_moments(game, games=1, steps=10)
        grammar = grammar_for(found, intent)
        assert grammar is not None and beside in grammar, (game, grammar)
        assert "explore" not in grammar and "done" not in grammar  # not every intent of the game


def test_moments_are_named_by_what_the_game_asks() -> None:
    named = {m.name: m.intents for m in moments("omega-virus", games=3, steps=60)}
    assert {"skill", "signon", "move", "terminate", ASLEEP, WITH_PHONES} <= set(named), sorted(named)
    assert "skill" in named["skill"] and "explore" not in named["skill"]
    assert {"explore", "attack", "pass", "teleport"} <= named["move"] and "skill" not in named["move"]
    assert named[ASLEEP] == ASLEEP_COMMANDS
    prologue = {m.name: m.intents for m in moments("prologue", games=1, steps=10)}
    assert "points" in prologue["points asked"] and "done" not in prologue["points asked"]


def test_find_moment_takes_spoken_forms_and_names_the_known_ones_when_wrong() -> None:
    assert find_moment("omega-virus", "Move").name == "move"
    assert find_moment("planets", "players_asked").name == "players asked"
    menu = find_moment("planets", MENU)
    assert "choose_game" in menu.intents and "spin" not in menu.intents
    with pytest.raises(KeyError, match="known: .*move.*menu"):
        find_moment("omega-virus", "moev")


def test_a_game_declares_its_moments_and_scenes_in_its_spec() -> None:
    from tests import example_game

    def doubling(table: Table) -> None:
        table.hear("double")

    def asking(game: Game) -> str:
        return "doubling" if isinstance(game, example_game.DiceRace) and game.doubling else "roll"

    register(replace(example_game.SPEC, name="dice-moments", moment=asking, scenes=(doubling,)))
    try:
        named = {m.name: m.intents for m in moments("dice-moments", games=2, steps=20)}
        assert {"roll", ASLEEP, WITH_PHONES} <= set(named) and "roll" in named["roll"], sorted(named)
        assert [m.name for m in moments("dice-moments", games=0)] == ["doubling"]  # the scene alone
    finally:
        unregister("dice-moments")
