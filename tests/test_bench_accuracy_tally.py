"""bench_accuracy (its counting: tests/support/tally.py) splits wrong commands as the player
meets them: a wrong command taken with doubt whose intent is not harmless is asked about first
("Explore one zero zero?"); one whose intent is harmless is let go the first time (a near miss,
acted on when said again); every other wrong command is acted on. Checked on the real Command
Center sentences and hearing events. And its ablation takes a clip's result without a stage
from the run with it only when hearing it again without the stage gives the same (the real Ear
and cascade, with given transcripts)."""

from __future__ import annotations

import copy
from collections.abc import Sequence

import numpy as np
import pytest

from assistant.engine import Command
from assistant.games import game_module
from assistant.games.omega_virus.engine import CommandCenter, Phase
from assistant.hearing import HearingSettings
from assistant.hearing.events import Doubted, NearMiss, NotRecognized, Transcript
from assistant.hearing.pipeline import Cascade, without
from assistant.hearing.recognizer import Ear, SecondOpinion
from assistant.hearing.spotting import Spotter
from assistant.hearing.text_engine import TextRecognizer
from assistant.live.policy import missed_again
from tests.ov_helpers import explore, lines, signed_on, to_turn
from tests.support.tally import (
    Tally,
    as_played,
    asked_first,
    in_play,
    same_move,
    steps_kept,
    tally_json,
    unchanged_without,
)

CARDS = game_module("msx-cards").sentences()


def test_a_doubted_costly_command_is_asked_first_and_a_harmless_or_heard_one_is_not() -> None:
    sentences = game_module("omega-virus").sentences()
    explore = sentences.match(sentences.words("explore one zero zero"))
    repeat = sentences.match(sentences.words("repeat"))
    assert explore is not None and repeat is not None
    assert not sentences.intents[explore.intent].harmless and sentences.intents[repeat.intent].harmless
    assert asked_first(sentences, Doubted("explore one zero zero", 0.5, "", explore, why="taken by as_sentences alone"))
    assert not asked_first(sentences, Doubted("repeat", 0.5, "", repeat, why="taken by as_sentences alone"))
    assert not asked_first(sentences, Transcript("explore one zero zero", 0.9, "", explore))
    assert not asked_first(sentences, NotRecognized("explore", "vetoed"))


@pytest.mark.parametrize("words", ["stop listening", "shut down", "new game", "main menu", "resume"])
def test_the_box_s_costly_commands_heard_with_doubt_are_asked_first(words: str) -> None:
    """Asked by the loop (stop listening, resume) or by their own question (shut down, new game,
    main menu: ``confirms``, not ``harmless``): none is counted acted on."""
    sentences = game_module("omega-virus").sentences()
    command = sentences.match(sentences.words(words))
    assert command is not None
    assert asked_first(sentences, Doubted(words, 0.5, "", command, why="taken by as_sentences alone"))


def test_a_doubted_harmless_command_is_let_go_in_play_as_the_live_loop_does() -> None:
    """``in_play`` is play's own near miss (``policy.let_go``): a doubted repeat is kept near
    "repeat", not taken; a costly one or one heard without doubt is as it was. A kept row of a
    doubted harmless command, right or wrong, is a miss near it (``as_played``)."""
    sentences = game_module("omega-virus").sentences()
    explore = sentences.match(sentences.words("explore one zero zero"))
    repeat = sentences.match(sentences.words("repeat"))
    assert explore is not None and repeat is not None
    doubted_repeat = Doubted("repeat", 0.5, "Repeat it.", repeat, why="taken by as_sentences alone")
    kept = in_play(sentences, doubted_repeat)
    assert isinstance(kept, NearMiss) and kept.command == repeat and kept.heard == "Repeat it."
    assert missed_again(kept, in_play(sentences, doubted_repeat))  # said again: acted on
    doubted_explore = Doubted("explore one zero zero", 0.5, "", explore, why="taken by as_sentences alone")
    assert in_play(sentences, doubted_explore) is doubted_explore
    heard = Transcript("repeat", 0.9, "", repeat)
    assert in_play(sentences, heard) is heard
    row = {"got": "repeat {}", "expected": "repeat {}", "ok": True, "doubted": True, "asked": False}
    assert as_played(row) == {**row, "got": "nothing", "ok": False, "near": "repeat {}", "let_go": True}
    talk = {**row, "expected": None, "ok": False}
    assert as_played(talk)["got"] == "nothing" and as_played(talk)["ok"]  # table talk let go: not taken
    for kept_as_is in ({**row, "asked": True}, {**row, "doubted": False}, {**row, "got": "nothing", "ok": False}):
        assert as_played(kept_as_is) == kept_as_is


def test_wrong_commands_are_counted_acted_on_and_asked_first_apart_and_together() -> None:
    tally = Tally()
    tally.add(True, ok=True, took=True, seconds=1.0, cpu=0.5)
    tally.add(True, ok=False, took=True, seconds=1.0, cpu=0.5, asked=False)  # wrong, acted on
    tally.add(True, ok=False, took=True, seconds=1.0, cpu=0.5, asked=True)   # wrong, asked first
    tally.add(True, ok=False, took=True, seconds=1.0, cpu=0.5, asked=True)
    tally.add(True, ok=False, took=False, seconds=1.0, cpu=0.5)              # missed
    tally.add(False, ok=False, took=True, seconds=1.0, cpu=0.5, asked=True)  # table talk, asked first
    tally.add(False, ok=True, took=False, seconds=1.0, cpu=0.5)
    merged = Tally()
    merged.merge(tally)
    figures = tally_json(merged)
    assert (figures["right"], figures["wrong"], figures["wrong_acted_on"], figures["wrong_asked_first"],
            figures["missed"]) == (1, 3, 1, 2, 1)
    assert (figures["table_talk"], figures["table_talk_taken"], figures["table_talk_acted_on"],
            figures["table_talk_asked_first"]) == (2, 1, 0, 1)


class Written:
    """Whisper writing given transcripts (``styled``: written again prompted with sentences) and
    scoring by a table, each call costing CPU seconds on a clock of its own (the cascade's budget
    is kept by that clock)."""

    def __init__(self, texts: list[str], styled: list[str] | None = None,
                 scores: dict[str, float] | None = None) -> None:
        self.texts, self.styled, self.scores = texts, styled or [], scores or {}
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    def transcribe(self, audio: bytes, prompt: str = "") -> str:
        return self.hypotheses(audio, prompt)[0]

    def hypotheses(self, audio: bytes, prompt: str = "", count: int = 1, whole: bool = True) -> list[str]:
        self.now += 1.0
        return self.texts[:count]

    def again(self, prompt: str = "", count: int = 1) -> list[str]:
        self.now += 0.5
        return self.styled[:count] if prompt else []

    def score(self, texts: Sequence[str], ending: bool = True) -> list[float]:
        self.now += 0.3
        return [self.scores.get(t, -100.0) if ending else self.scores.get(t, 0.0) for t in texts]

    def let_go(self) -> None:
        pass


CASES = (
    # (what the first pass wrote, Whisper's transcripts, written again prompted with sentences, scores)
    ("", ["Hit that.", "Hit it.", "Hit attack."], ["Attack."], {"Attack.": -4.7, "Hit that.": -6.2}),  # as_sentences
    ("", ["Let me think."], ["Hmm."], {}),  # nothing
    ("attack", ["Let me think about it."], ["Hmm."], {}),  # vetoed
    ("", ["Attack."], [], {}),  # spotted
    ("", ["Let me think."], ["Attack."], {}),  # as_sentences wrote a command, far less likely: nothing
    ("roll", ["Roll."], [], {}),  # confirmed
)


def heard_with(settings: HearingSettings, case: tuple[str, list[str], list[str], dict[str, float]]
               ) -> tuple[Command | None, float, list[tuple[str, str, float, list[float] | None]]]:
    """The command the real Ear and cascade decide, the CPU seconds it cost, and its steps."""
    first, texts, styled, scores = case
    whisper = Written(texts, styled, scores)
    e = Ear(TextRecognizer(), CARDS, second=SecondOpinion(whisper, Spotter(CARDS), settings))
    assert e.second is not None
    e.second.cascade.clock = whisper.clock
    steps: list[tuple[str, str, float, list[float] | None]] = []
    e._audio = [np.zeros(16_000, dtype=np.int16).tobytes()]
    decided = steps_kept(e, steps)(Transcript(first, 1.0 if first else 0.0))
    return (decided.command if isinstance(decided, Transcript) else None), whisper.now, steps


@pytest.mark.parametrize("budget", [100.0, 3.0, 2.0, 1.2])
def test_a_clip_is_taken_without_a_stage_only_when_hearing_it_again_would_give_the_same(budget: float) -> None:
    # every stage of the free text on (the closed stage, which decides alone, off: the reuse rule
    # is for the free text's cascade); at 1.2 CPU s the last one (as_sentences) is stopped
    settings = HearingSettings(as_sentences=True, budget_seconds=budget, closed=False)
    taken = heard_again = 0
    for case in CASES:
        command, cpu, steps = heard_with(settings, case)
        row = {"cpu": cpu, "steps": steps}
        for stage in (s.name for s in Cascade().stages if s.on(settings)):
            same = unchanged_without(stage, row, budget)
            command_without, cpu_without, _ = heard_with(without(settings, stage), case)
            if same is None:
                heard_again += 1
                continue
            taken += 1
            assert command_without == command, (case, stage)
            assert same["cpu"] == pytest.approx(cpu_without), (case, stage)
    assert taken and heard_again


def test_a_stage_that_decided_nothing_is_heard_again_when_its_seconds_would_have_let_a_later_one_run() -> None:
    # as_sentences, the last of the free text's stages, decided nothing in 0.6 CPU s, and the
    # closed check after it was stopped by the budget: without as_sentences it would have had
    # 1.0 + 0.3 s, within a budget of 1.5 (heard again) but not of 1.2 (the row is kept, less 0.6 s)
    steps = [("first", "nothing", 0.0, None), ("spot", "nothing", 1.0, None), ("veto", "nothing", 0.0, None),
             ("as_sentences", "nothing", 0.6, None),
             ("closed", "stopped: 1.60 + 0.30 s is over the budget", 0.0, [1.6, 0.3])]
    row = {"cpu": 1.6, "steps": steps}
    assert unchanged_without("as_sentences", row, 1.5) is None
    kept = unchanged_without("as_sentences", row, 1.2)
    assert kept is not None and kept["cpu"] == pytest.approx(1.0) and kept["steps"] == steps
    assert unchanged_without("spot", row, 1.2) is None  # spot writes the audio for the others


def _played(cc: CommandCenter, command: Command) -> tuple[list[str], str]:
    """What ``command`` says and the phase it leaves, played on a copy of the game ``cc``."""
    game = copy.deepcopy(cc)
    return lines(game.handle(command)), game.phase.value


def test_commands_that_press_the_same_keys_count_as_the_same_move_and_do_the_same() -> None:
    """bench_accuracy counts a result by the move made (``same_move``): held to the real Command
    Center, "pass"/"teleport" at a move and shields/bare buttons when shields are asked say and do
    the same from the same game, and a different set of buttons does not. (Terminate and the bare
    button are checked by name only: ``_cmd_terminate`` presses its button as the terminate
    phase's press does, and reaching that phase takes a whole game.)"""
    cc, _ = signed_on(3, players=("red",), wanted_chance=0.0, hazard_chance=1.0, teleport_trap_share=0.0)
    to_turn(cc, "red")
    assert cc.phase is Phase.MOVE
    pass_, teleport = Command("pass", {}), Command("teleport", {})
    assert same_move("omega-virus", teleport, pass_) and _played(cc, teleport) == _played(cc, pass_)
    room = next(r.code for r in cc.board.rooms if r.color == "green" and r.code != cc.virus_room)
    explore(cc, room)
    assert cc.phase is Phase.SHIELDS and cc.defense is not None
    keys = [b for b in "012" if b != cc.defense.hidden][: cc.defense.n]
    slots = {f"b{i + 1}": b for i, b in enumerate(keys)}
    shields, buttons = Command("shields", slots), Command("buttons", slots)
    assert same_move("omega-virus", buttons, shields) and _played(cc, buttons) == _played(cc, shields)
    other = Command("buttons", {**slots, "b1": cc.defense.hidden})
    assert not same_move("omega-virus", other, shields) and _played(cc, other) != _played(cc, shields)
    assert same_move("omega-virus", Command("buttons", {"b1": "0"}), Command("terminate", {"b1": "0"}))
    assert not same_move("omega-virus", Command("buttons", {"b1": "1"}), Command("terminate", {"b1": "0"}))
    # "repeat" presses R only at a move; elsewhere it says the prompt again: never the same as a skip
    assert not same_move("omega-virus", Command("repeat", {}), Command("skip", {}))
    assert not same_move("msx-cards", Command("status", {}), Command("undo", {}))
    assert same_move("msx-cards", Command("status", {}), Command("status", {}))
