"""The written contract, checked on every registered game (and the tests' example game): what
the session, the voice cache and the recognizers rely on, played out by a random table."""

from __future__ import annotations

from pathlib import Path

from assistant.config import Config
from assistant.engine import Command, Game, Say, Sound
from assistant.games import GameSpec
from assistant.journal import Journal
from assistant.session import SESSION_INTENTS, PrintAnnouncer, Session, replay
from tests.harness import RandomTable, state_of, with_short_lists

GAMES_PER_SPEC = 12
STEPS = 250


def test_every_game_offered_has_a_spec(spec: GameSpec) -> None:
    game = spec.create(1, spec.settings_from_config(Config()))
    assert isinstance(game, Game)
    assert type(game).supports_undo == spec.supports_undo
    assert "repeat" in spec.query_intents
    intents = set(spec.sentences().intents)
    assert spec.query_intents <= intents
    assert SESSION_INTENTS - {"undo"} <= intents
    assert ("undo" in intents) == spec.supports_undo


def test_every_intent_has_a_help_phrase_that_means_it(spec: GameSpec) -> None:
    sentences = spec.sentences()
    for intent in sentences.intents.values():
        assert intent.help, intent.name
        assert [c.intent for c in sentences.match_all(intent.help)] == [intent.name], intent.help


def test_every_sentence_maps_back_to_exactly_its_own_command(spec: GameSpec) -> None:
    sentences = with_short_lists(spec.sentences())
    count = 0
    for text, command in sentences.expand(limit=3000):
        assert sentences.match_all(text) == [command], text
        count += 1
    assert count >= len(sentences.intents)


def test_random_play_keeps_the_contract(spec: GameSpec) -> None:
    """Refused commands change nothing and give a reason; everything said is a sentence of a
    speaker the game declares; repeat always answers and changes nothing (not even the RNG);
    what the game listens for is something it has sentences for; an ended game stays ended."""
    sentences = set(spec.sentences().intents)
    refused = accepted = 0
    for seed in range(GAMES_PER_SPEC):
        table = RandomTable(spec, seed)
        game = table.game
        speakers = set(game.speakers)
        for step in table.play(STEPS):
            for output in step.outputs:
                assert isinstance(output, Say | Sound), output
                if isinstance(output, Say):
                    assert output.speaker in speakers and output.text.strip(), output
            if step.refused:
                refused += 1
            elif step.command is not None:
                accepted += 1
            assert game.allowed_intents() - {"press"} <= sentences
            wait = game.next_event_in()
            assert wait is None or wait >= 0
            before = state_of(game)
            assert game.handle(Command("repeat")), f"{spec.name} seed {seed}: repeat said nothing"
            assert state_of(game) == before, f"{spec.name} seed {seed}: repeat changed the game"
        if game.is_over():
            assert game.allowed_intents() <= {"repeat"} | spec.query_intents | {"press"}
    assert refused > 0 and accepted > refused


def test_a_refused_command_changes_nothing(spec: GameSpec) -> None:
    for seed in range(GAMES_PER_SPEC):
        table = RandomTable(spec, seed)
        game = table.game
        game.start()
        for _ in range(STEPS):
            if game.is_over():
                break
            command = table.command()
            before = state_of(game)
            try:
                game.handle(command)
            except ValueError as reason:  # NotAllowed is one
                assert str(reason), command
                assert state_of(game) == before, f"{spec.name} seed {seed}: refused {command} changed the game"


def test_the_same_seed_and_inputs_make_the_same_game(spec: GameSpec) -> None:
    for seed in range(3):
        first = [(s.command, s.seconds, s.outputs, s.refused) for s in RandomTable(spec, seed).play(STEPS)]
        again = [(s.command, s.seconds, s.outputs, s.refused) for s in RandomTable(spec, seed).play(STEPS)]
        assert first == again


def test_the_journal_replays_the_same_game(spec: GameSpec, tmp_path: Path) -> None:
    for seed in range(4):
        table = RandomTable(spec, seed)
        said: list[str] = []
        session = Session.new(spec.name, seed, {}, PrintAnnouncer(said.append), tmp_path / str(seed))
        session.start()
        for _ in range(STEPS):
            if session.game.is_over():
                break
            table.game = session.game
            if table.rng.random() < 0.2:
                session.advance(table.rng.uniform(0.01, 40))
            elif table.rng.random() < 0.05:
                session.resumed()  # said again, not journaled
            else:
                session.apply(table.command())
        session.close()
        assert session.journal is not None
        journal = Journal.read(session.journal.path)
        rebuilt = replay(spec, journal.header, journal.entries)
        assert state_of(rebuilt) == state_of(session.game), f"{spec.name} seed {seed}"


def test_fixed_phrases_cover_everything_said_but_live_content(spec: GameSpec) -> None:
    settings = spec.settings_from_config(Config())
    fixed = {p.text for p in spec.fixed_phrases(settings)}
    said = outside = 0
    for seed in range(GAMES_PER_SPEC):
        for step in RandomTable(spec, seed, settings).play(STEPS):
            for output in step.outputs:
                if isinstance(output, Say):
                    said += 1
                    if output.text not in fixed:
                        outside += 1
                        assert spec.is_live(output.text), \
                            f"{spec.name}: not a fixed phrase, nor live content: {output.text!r}"
    assert said > 0 and outside < said


def test_the_example_game_is_known_to_the_tests_but_not_offered_to_players() -> None:
    from assistant.games import GAMES, available, game_spec

    assert game_spec("dice-race").name == "dice-race"
    assert "dice-race" not in GAMES and "dice-race" not in available()


def test_hands_free_play_changes_only_what_the_spec_says() -> None:
    """The live loop asks the spec (``live_settings(settings, config, has_keypad)``): the
    Command Center gives spoken answers live.spoken_extra_seconds more and, with no private
    keypad, fires the attacker's shot itself; the other games are played as configured."""
    from assistant.games import game_spec, specs

    omega = game_spec("omega-virus")
    config = Config({"live": {"spoken_extra_seconds": 4.0}})
    settings = omega.settings_from_config(config)
    assert omega.live_settings(settings, config, True)["response_extra_seconds"] == 4.0
    assert omega.live_settings(settings, config, True)["attack_shot"] == "keypad"
    assert omega.live_settings(settings, config, False)["attack_shot"] == "random"
    own = Config({"games": {"omega_virus": {"response_extra_seconds": 1.5}}})
    assert omega.live_settings(omega.settings_from_config(own), own, True)["response_extra_seconds"] == 1.5
    assert settings["attack_shot"] == "keypad"  # the settings given are left as they were
    for other in specs():
        if other is not omega:
            plain = other.settings_from_config(Config())
            assert other.live_settings(plain, Config(), False) == plain
