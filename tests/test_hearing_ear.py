"""The Ear's rules, with a scripted recognizer (logic only: real audio is in test_hearing_pocketsphinx)."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.engine import Command
from assistant.games import game_module
from assistant.hearing.events import NotRecognized, Partial, Transcript
from assistant.hearing.grammar import WordGraph
from assistant.hearing.recognizer import BaseRecognizer, Ear, Recognizer

OMEGA = game_module("omega-virus").sentences()


class Scripted(BaseRecognizer):
    """Answers each block with the next scripted event and records grammar changes."""

    name = "scripted"

    def __init__(self, script: list[Partial | Transcript | None], final: str = "") -> None:
        self.script = list(script)
        self.final = final
        self.grammars: list[frozenset[str]] = []
        self.log: list[str] = []

    def set_grammar(self, graph: WordGraph) -> None:
        self.grammars.append(graph.intents)
        self.log.append("grammar")

    def accept(self, block: bytes) -> Partial | Transcript | None:
        self.log.append("block")
        return self.script.pop(0) if self.script else None

    def finish(self) -> Transcript:
        self.log.append("finish")
        return Transcript(self.final, 0.9)

    def reset(self) -> None:
        self.log.append("reset")


def test_scripted_recognizer_has_the_interface() -> None:
    assert isinstance(Scripted([]), Recognizer)


@pytest.mark.parametrize("heard, confidence, outcome", [
    ("explore one zero zero", 0.9, Command("explore", {"d1": "1", "d2": "0", "d3": "0"})),
    ("attack the the red commando", 0.9, Command("attack", {"target": "red", "unit": "commando"})),
    ("", 0.0, "nothing heard"),
    ("[unk] pass", 0.9, "words outside the commands"),
    ("pass", 0.2, "low confidence"),
    ("teleport", 0.9, "teleport is not allowed now"),
    ("explore one zero", 0.9, "could mean more than one command"),
    ("what is the weather", 0.9, "no allowed sentence near"),
])
def test_judging(heard: str, confidence: float, outcome: Command | str) -> None:
    ear = Ear(Scripted([]), OMEGA, ["explore", "attack", "pass", "repeat"], min_confidence=0.5)
    result = ear.judge(Transcript(heard, confidence))
    if isinstance(outcome, Command):
        assert isinstance(result, Transcript)
        assert result.command == outcome
        assert result.heard == heard
        assert OMEGA.match(result.text) == outcome
        assert result.snapped == (result.text != heard)
    else:
        assert isinstance(result, NotRecognized)
        assert outcome in result.reason
        assert result.heard == heard


def test_no_snapping_when_turned_off() -> None:
    ear = Ear(Scripted([]), OMEGA, snap_edits=0)
    assert isinstance(ear.judge(Transcript("attack the the red commando")), NotRecognized)


def test_grammar_waits_for_the_end_of_the_utterance() -> None:
    rec = Scripted([None, Partial("explore one"), Transcript("explore one zero zero", 0.9)])
    ear = Ear(rec, OMEGA, ["explore"])
    assert rec.grammars == [frozenset({"explore"})]
    assert ear.feed(b"\0\0") is None
    ear.set_intents(["skill"])                # mid-utterance: held back
    assert rec.grammars == [frozenset({"explore"})]
    assert ear.intents == frozenset({"skill"})
    assert ear.feed(b"\0\0") == Partial("explore one")
    final = ear.feed(b"\0\0")                 # judged with the grammar it was spoken under
    assert isinstance(final, Transcript) and final.command is not None
    assert final.command.intent == "explore"
    assert rec.grammars == [frozenset({"explore"}), frozenset({"skill"})]
    assert rec.log == ["grammar", "block", "block", "block", "grammar"]


def test_grammar_changes_at_once_between_utterances_and_only_when_different() -> None:
    rec = Scripted([])
    ear = Ear(rec, OMEGA, ["explore"])
    ear.set_intents(["skill", "nonsense"])
    ear.set_intents(["skill"])
    assert rec.grammars == [frozenset({"explore"}), frozenset({"skill"})]
    ear.feed(b"\0\0")
    ear.set_intents(["pass"])
    ear.reset()
    assert rec.grammars[-1] == frozenset({"pass"})
    assert rec.log[-2:] == ["reset", "grammar"]


def test_partial_marks_a_complete_command_that_cannot_grow() -> None:
    rec = Scripted([Partial("explore one zero"), Partial("explore one zero zero"), Partial("attack the red"),
                    Partial("pass")])
    ear = Ear(rec, OMEGA, ["explore", "attack", "pass"])
    assert ear.feed(b"") == Partial("explore one zero")
    assert ear.feed(b"") == Partial("explore one zero zero", Command("explore", {"d1": "1", "d2": "0", "d3": "0"}))
    assert ear.feed(b"") == Partial("attack the red")  # "... commando" may follow
    assert ear.feed(b"") == Partial("pass", Command("pass"))


def test_hear_takes_the_first_final_or_the_end() -> None:
    clip = np.zeros(16000, dtype=np.int16)
    rec = Scripted([None, Transcript("pass", 0.9)])
    first = Ear(rec, OMEGA, ["pass"]).hear(clip)
    assert isinstance(first, Transcript) and first.command == Command("pass")
    rec = Scripted([], final="repeat that")
    result = Ear(rec, OMEGA, ["repeat"]).hear(clip)
    assert isinstance(result, Transcript) and result.command == Command("repeat")
    assert rec.log[-1] == "finish"


def test_an_ear_feeds_the_session() -> None:
    """The Ear listens for what the session allows; its sentence is what the session applies."""
    from assistant.config import Config
    from assistant.session import Heard, PrintAnnouncer, Session

    module = game_module("omega-virus")
    said: list[str] = []
    session = Session.new("omega-virus", 5, module.settings_from_config(Config()), PrintAnnouncer(said.append),
                          None)
    session.start()
    ear = Ear(Scripted([]), OMEGA, session.allowed_intents())
    assert "skill" in ear.intents and "explore" not in ear.intents
    result = ear.judge(Transcript("enter skill skill level one", 0.9))  # snapped: one "skill" too many
    assert isinstance(result, Transcript) and result.snapped
    assert session.hear(result.text) is Heard.ACCEPTED
    ear.set_intents(session.allowed_intents())
    assert ear.intents == session.allowed_intents()


def test_typed_lines_through_the_text_recognizer() -> None:
    import io

    from assistant.hearing.text_engine import TextRecognizer, lines

    ear = Ear(TextRecognizer(), OMEGA, ["explore", "pass"])
    results = [e for block in lines(io.StringIO("explore one zero two\nteleport\n\npass")) if
               (e := ear.feed(block)) is not None]
    assert [r.command if isinstance(r, Transcript) else r.reason for r in results] == [
        Command("explore", {"d1": "1", "d2": "0", "d3": "2"}), "teleport is not allowed now", "nothing heard",
        Command("pass")]
    ear.feed(b"pa")
    assert ear.finish() == NotRecognized("pa", "not an allowed sentence", 1.0)
