"""The one sentence source: templates expand, match back, and make grammars."""

from __future__ import annotations

import pytest

from assistant.engine import Command
from assistant.games import omega_virus
from assistant.sentences import SentenceSet, TemplateError, normalize, number_words, parse_template

OV = omega_virus.sentences()


def test_every_omega_virus_sentence_maps_to_exactly_one_command() -> None:
    count = 0
    for text, command in OV.expand():
        found = OV.match_all(text)
        assert found == [command], text
        count += 1
    assert count > 1000


@pytest.mark.parametrize("text,intent,slots", [
    ("explore one zero zero", "explore", {"d1": "1", "d2": "0", "d3": "0"}),
    ("Explore room one oh oh.", "explore", {"d1": "1", "d2": "0", "d3": "0"}),
    ("explore 1-0-0", "explore", {"d1": "1", "d2": "0", "d3": "0"}),
    ("pass", "pass", {}),
    ("teleport", "teleport", {}),
    ("repeat", "repeat", {}),
    ("attack the red commando", "attack", {"target": "red", "unit": "commando"}),
    ("attack blue probe", "attack", {"target": "blue", "unit": "probe"}),
    ("shields zero and two", "shields", {"b1": "0", "b2": "2"}),
    ("energize zero two R", "shields", {"b1": "0", "b2": "2", "b3": "R"}),
    ("zero and are", "buttons", {"b1": "0", "b2": "R"}),
    ("skill zero", "skill", {"level": "0"}),
    ("code one two", "code", {"d1": "1", "d2": "2"}),
    ("skip", "skip", {}),
    ("terminate two", "terminate", {"b1": "2"}),
    ("how much time is left", "time_left", {}),
    ("what do I have", "inventory", {}),
    ("what can I say", "help", {}),
    ("pause", "pause", {}),
    ("resume", "resume", {}),
    ("new game", "new_game", {}),
])
def test_spoken_forms_of_the_text_contract(text: str, intent: str, slots: dict[str, str]) -> None:
    assert OV.match(text) == Command(intent, slots)


@pytest.mark.parametrize("text", ["", "explore", "explore one zero", "explore one zero zero zero",
                                  "attack the purple commando", "I think it is my turn", "three"])
def test_not_understood(text: str) -> None:
    assert OV.match(text) is None


def test_allowed_intents_restrict_matching() -> None:
    assert OV.match("zero two", allowed={"explore"}) is None
    assert OV.match("zero two", allowed={"buttons"}) == Command("buttons", {"b1": "0", "b2": "2"})


def test_is_prefix_knows_when_a_command_cannot_grow() -> None:
    words = OV.words
    assert OV.is_prefix(words("explore one zero"))
    assert not OV.is_prefix(words("explore one zero zero"), allowed={"explore"})
    assert OV.is_prefix(words("attack the red"), allowed={"attack"})  # "... commando" may follow
    assert not OV.is_prefix(words("pass"), allowed={"pass"})


def test_jsgf_lists_every_intent_and_only_spoken_words() -> None:
    grammar = OV.to_jsgf(["explore", "attack", "shields"])
    assert grammar.startswith("#JSGF V1.0;")
    assert "public <command> = <explore> | <attack> | <shields>;" in grammar
    assert "<list_digit> = ( ( zero | oh ) ) | ( one ) | ( two );" in grammar
    assert not any(ch.isdigit() for ch in grammar.split("public", 1)[1].replace("V1.0", ""))


def test_vocabulary_is_words_only() -> None:
    vocab = OV.vocabulary()
    assert {"explore", "zero", "oh", "are", "commando", "shields"} <= vocab
    assert not any(w.isdigit() for w in vocab)


def test_number_lists_take_spoken_and_written_numbers() -> None:
    s = SentenceSet({"lists": {"n": {"range": [-3, 30]}}, "intents": {"set": ["vitality {n:v}"]}})
    assert s.match("vitality twenty one") == Command("set", {"v": "21"})
    assert s.match("vitality 21") == Command("set", {"v": "21"})
    assert s.match("vitality minus two") == Command("set", {"v": "-2"})
    assert s.match("vitality -2") == Command("set", {"v": "-2"})


def test_number_words_and_normalize() -> None:
    assert number_words(0) == "zero" and number_words(21) == "twenty one"
    assert number_words(105) == "one hundred five"
    assert normalize("Explore 1.0.0!", split_digits=True) == ["explore", "one", "zero", "zero"]
    assert normalize("What's   up?") == ["what's", "up"]


@pytest.mark.parametrize("template", ["(a | b", "a ]", "{}x{"])
def test_bad_templates_are_reported(template: str) -> None:
    with pytest.raises(TemplateError):
        parse_template(template)


def test_unknown_list_and_unquoted_yes_are_reported() -> None:
    with pytest.raises(TemplateError, match="unknown list"):
        SentenceSet({"intents": {"x": ["go {nowhere}"]}})
    with pytest.raises(TemplateError, match='quote YAML words like "yes"'):
        SentenceSet({"intents": {True: ["yes"]}})
