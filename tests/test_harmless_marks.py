"""What a command heard with doubt does, by its marks in the sentence files (``harmless``: acted on;
``confirms``: its own question is the only one; neither: asked about first). Each game's questions
(GameSpec.query_intents: they only tell) are harmless, so a player who asks "how long" is not asked
back "Time?"; the box's commands that lose something are not."""

from __future__ import annotations

import pytest

from assistant.games import GameSpec, available, game_spec, specs

#: Each game's, and the example game's of docs/adding-a-game.md (registered by conftest).
SPECS = {spec.name: spec for spec in specs()}
QUESTIONS = [(name, intent) for name, spec in SPECS.items() for intent in sorted(spec.query_intents)]


@pytest.mark.parametrize(("game", "intent"), QUESTIONS)
def test_each_game_s_questions_are_harmless(game: str, intent: str) -> None:
    spec: GameSpec = SPECS[game]
    sentences = spec.sentences()
    assert intent in sentences.intents, intent
    assert sentences.intents[intent].harmless, f"{game}: {intent} only tells; mark it harmless: true"


@pytest.mark.parametrize("game", available())
def test_the_box_s_costly_commands_are_not_harmless(game: str) -> None:
    intents = game_spec(game).sentences().intents
    # volume: a "volume zero" taken by mistake silences the box, and nobody hears what it did
    for name in ("stop_listening", "resume", "new_game", "main_menu", "shut_down", "undo", "yes", "volume"):
        if name in intents:
            assert not intents[name].harmless, name
    assert {name for name, intent in intents.items() if intent.confirms} == {"new_game", "main_menu", "shut_down"}
