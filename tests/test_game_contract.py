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


#: What may name no game: the menu and the voices learn every game from its GameSpec.
KNOWS_NO_GAME = ("menu.py", "menu_sentences.yaml", "voice/characters.py", "voice/text.py", "voice/prepare.py")


def _code_strings(path: Path) -> str:
    """The strings a module's code holds (its docstrings and comments left out), or a data file's text."""
    import ast

    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    tree = ast.parse(text)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return "\n".join(node.value for node in ast.walk(tree)
                     if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings)


def test_the_menu_and_the_voices_name_no_game() -> None:
    """A game's title, spoken names, characters and pronunciations are its GameSpec's alone."""
    import assistant
    from assistant.games import specs

    root = Path(assistant.__file__).parent
    facts = {fact.lower() for spec in specs()
             for fact in (spec.name, spec.title, *spec.characters, *spec.pronounce)}
    for name in KNOWS_NO_GAME:
        strings = _code_strings(root / name).lower()
        assert not [fact for fact in facts if fact in strings], name


def test_the_voice_cache_is_given_its_phrases() -> None:
    """voice/prepare.py renders what it is given: it imports neither the box, the session nor a game."""
    import ast

    import assistant

    tree = ast.parse((Path(assistant.__file__).parent / "voice" / "prepare.py").read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not {m for m in imported if m and (m in ("assistant.box", "assistant.session")
                                              or m.startswith("assistant.games"))}


def test_a_games_characters_and_pronunciations_reach_the_voices() -> None:
    from dataclasses import replace

    from assistant.games import register, unregister
    from assistant.voice.characters import CharacterSpec, character_for, character_names
    from tests import example_game

    croupier = {"voice": "", "length_scale": 1.3, "noise_scale": 0.5, "noise_w_scale": 0.5, "volume": 0.9,
                "effects": [{"type": "pitch", "semitones": 3}]}
    register(replace(example_game.SPEC, name="dice-casino", characters={"croupier": croupier},
                     pronounce={"D6": "dee six"}))
    try:
        from assistant.voice.text import speakable

        config = Config()
        names = character_names(config)
        assert "croupier" in names and "virus" in names and names[-1] == "narrator"
        assert character_for("CROUPIER", dict.fromkeys(names)) == "croupier"
        spec = CharacterSpec.from_config(config, "croupier")
        assert (spec.length_scale, spec.volume, len(spec.effects)) == (1.3, 0.9, 1)
        assert speakable("Roll the D6, BSat1.") == "Roll the dee six, B Sat one."
    finally:
        unregister("dice-casino")
    assert "croupier" not in character_names(Config())


def test_no_class_in_the_games_builds_on_a_chain_of_base_classes() -> None:
    """State by composition: a game's engine holds its phases' state objects; no class in the
    games has more than one base class of the project's above it (a Game on HandlerGame is one)."""
    import importlib
    import inspect
    import pkgutil

    import assistant.games

    chains = []
    for info in pkgutil.walk_packages(assistant.games.__path__, "assistant.games."):
        module = importlib.import_module(info.name)
        for cls in vars(module).values():
            if inspect.isclass(cls) and cls.__module__ == module.__name__:
                ours = [base for base in cls.__mro__[1:] if base.__module__.startswith("assistant.")]
                if len(ours) > 1:
                    chains.append(f"{cls.__qualname__} <- " + " <- ".join(b.__qualname__ for b in ours))
    assert not chains
