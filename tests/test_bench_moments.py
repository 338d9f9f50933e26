"""The accuracy benchmark hears each command with the grammar of a moment of play that asks for
it, as the box listens: a command is never heard among more sentences than play ever listens
for at once ("start listening" only after "stop listening", when nothing else is listened for:
the box's moment, tests/test_menu.py), and commands random play does not reach ("terminate"
when the Virus is found, Prologue's "points") in the moment that asks for them.
"""

from __future__ import annotations

from assistant.box import ASLEEP_COMMANDS, PHONE_COMMANDS
from bench.bench_accuracy import grammar_for, listening_moments


def test_start_listening_is_heard_in_the_moment_after_stop_listening() -> None:
    moments = listening_moments("planets", games=2, steps=40)
    assert grammar_for(moments, "start_listening") == ASLEEP_COMMANDS
    assert "start_listening" not in (grammar_for(moments, None) or set())  # table talk: the widest moment
    assert "stop_listening" in (grammar_for(moments, None) or set())
    assert grammar_for(moments, "stop_listening") != ASLEEP_COMMANDS


def test_phone_commands_are_heard_beside_the_widest_moment_and_table_talk_without_them() -> None:
    moments = listening_moments("omega-virus", games=2, steps=40)
    talk = grammar_for(moments, None) or frozenset()
    assert not talk & PHONE_COMMANDS
    for intent in PHONE_COMMANDS:
        assert grammar_for(moments, intent) == talk | PHONE_COMMANDS


def test_terminate_and_points_are_heard_in_the_moments_that_ask_for_them() -> None:
    for game, intent, beside in (("omega-virus", "terminate", "buttons"), ("prologue", "points", "status")):
        moments = listening_moments(game, games=1, steps=10)
        grammar = grammar_for(moments, intent)
        assert grammar is not None and beside in grammar, (game, grammar)
        assert "explore" not in grammar and "done" not in grammar  # not every intent of the game
