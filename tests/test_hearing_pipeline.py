"""The hybrid's driver: stages in order, each timed, each switchable, kept to the CPU budget
(logic with a clock that moves by given costs; once with the real recognizers on a real clip).
The closed stage (Whisper held to the grammar) decides alone when it is on; the stages of the
free text after it are tested with it off, as a player who switches it off has them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from assistant.engine import Command
from assistant.games import game_module
from assistant.hearing import STAGE_NAMES, HearingSettings, open_ear
from assistant.hearing.closed import Sentence
from assistant.hearing.events import Deferred, Doubted, NotAllowedNow, NotRecognized, OverBudget, Transcript
from assistant.hearing.pipeline import SPAN, Cascade, Closed, HeldTo, taken, without
from assistant.hearing.recognizer import Ear, SecondOpinion
from assistant.hearing.spotting import Spotter
from assistant.hearing.text_engine import TextRecognizer
from tests.support.spoken import ClipMaker, Speaker

CARDS = game_module("msx-cards").sentences()
#: the stages before the closed check (the free text's), tested with it off
FREE_TEXT = STAGE_NAMES[:-1]
#: what the driver expects spot to cost before it has timed it (below the 1 s a Costly hearing costs)
SPOT = Cascade().expected["spot"]
OMEGA = game_module("omega-virus").sentences()
#: the Command Center's moment of a move
MOVE = ["explore", "pass", "teleport", "attack", "repeat", "time_left", "inventory", "help", "pause", "new_game"]


class Clock:
    """CPU time that moves only when the transcriber works, by the costs given."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Costly:
    """A transcriber writing given transcripts (``plain``: what it writes again prompted with
    sentences, the ``as_sentences`` stage), each call costing given CPU seconds on ``clock``."""

    def __init__(self, clock: Clock, texts: list[str], plain: list[str] | None = None,
                 hearing: float = 1.0, again: float = 0.5) -> None:
        self.clock, self.texts, self.plain = clock, texts, plain or []
        self.hearing, self.again_cost = hearing, again
        self.calls: list[str] = []
        self.windows: list[str] = []  # each free text's window

    def transcribe(self, audio: bytes, prompt: str = "") -> str:
        return self.hypotheses(audio, prompt)[0]

    def hypotheses(self, audio: bytes, prompt: str = "", count: int = 1, whole: bool = True) -> list[str]:
        self.calls.append("hypotheses")
        self.windows.append("whole" if whole else "short")
        self.clock.now += self.hearing
        return self.texts[:count]

    def again(self, prompt: str = "", count: int = 1) -> list[str]:
        self.calls.append("again")
        self.clock.now += self.again_cost
        return self.plain[:count] if prompt else []

    def score(self, texts: Sequence[str], ending: bool = True) -> list[float]:
        self.calls.append("score")
        # a command 1 less likely than what Whisper wrote first: within as_sentences_within
        return [-1.0 if ending else 0.0 for _ in texts]

    def let_go(self) -> None:
        pass


def ear(whisper: Costly, clock: Clock, **settings: float) -> Ear:
    hearing = HearingSettings(**{"closed": False, "as_sentences": True, **settings})  # type: ignore[arg-type]
    e = Ear(TextRecognizer(), CARDS, second=SecondOpinion(whisper, Spotter(CARDS), hearing))  # type: ignore[arg-type]
    assert e.second is not None
    e.second.cascade.clock = clock
    return e


def hear(e: Ear, first_pass: str) -> Transcript | NotRecognized:
    e._audio = [np.zeros(16_000, dtype=np.int16).tobytes()]
    return e.decide(Transcript(first_pass, 1.0 if first_pass else 0.0))


def test_every_stage_runs_in_order_and_reports_its_cost() -> None:
    clock = Clock()
    e = ear(Costly(clock, ["Let me think."], ["Hmm."]), clock, budget_seconds=100.0)
    assert isinstance(hear(e, ""), NotRecognized)
    assert [s.stage for s in e.steps] == ["first", *STAGE_NAMES]
    assert e.steps[-1].verdict == "off"  # closed (switched off in these tests)
    costs = {s.stage: s.seconds for s in e.steps}
    assert costs["spot"] == 1.0 and costs["veto"] == 0.0 and costs["as_sentences"] == 0.5
    assert [s.verdict for s in e.steps if s.stage in ("veto", "as_sentences")] == ["nothing", "nothing"]


def test_a_stage_that_would_go_past_the_budget_is_not_run() -> None:
    clock = Clock()
    whisper = Costly(clock, ["Let me think."], ["Hmm."])
    e = ear(whisper, clock, budget_seconds=SPOT + 0.1)  # spot fits; after its 1 s, nothing more does
    heard = hear(e, "")
    assert whisper.calls == ["hypotheses"]
    assert [s.stage for s in e.steps] == ["first", "spot", "veto", "closed"]
    assert "stopped" in e.steps[-2].verdict
    # Whisper had its say and the first pass took nothing: what it decided stands (nothing: silence)
    assert isinstance(heard, NotRecognized) and not isinstance(heard, OverBudget), heard


def test_nothing_decided_within_the_budget_is_to_be_said_again() -> None:
    clock = Clock()
    whisper = Costly(clock, ["Attack."])
    heard = hear(ear(whisper, clock, budget_seconds=SPOT - 0.1), "")  # not even spot fits
    assert isinstance(heard, OverBudget) and whisper.calls == [], heard
    # a first-pass command Whisper could not yet confirm or veto is not acted on either
    clock = Clock()
    whisper = Costly(clock, ["Let me think."], ["Hmm."])
    heard = hear(ear(whisper, clock, budget_seconds=SPOT + 0.1), "attack")
    assert isinstance(heard, OverBudget), heard


def test_what_may_be_a_button_entry_is_written_over_whispers_whole_window() -> None:
    """Whisper counts an entry's digits right only over its own 30 s; other commands are written
    over the shorter window (a third of the cost)."""
    for first_pass, window in (("zero two", "whole"), ("pass", "short"), ("", "short")):
        clock = Clock()
        whisper = Costly(clock, ["Let me think."], ["Hmm."])
        hearing = HearingSettings(closed=False, as_sentences=True, budget_seconds=100.0)  # type: ignore[call-arg]
        e = Ear(TextRecognizer(), OMEGA, second=SecondOpinion(whisper, Spotter(OMEGA), hearing))  # type: ignore[arg-type]
        assert e.second is not None
        e.second.cascade.clock = clock
        e.set_intents(["buttons", "pass", "help"])
        e._audio = [np.zeros(16_000, dtype=np.int16).tobytes()]
        e.decide(Transcript(first_pass, 0.3))
        assert whisper.windows == [window], (first_pass, whisper.windows)


def test_the_expected_cost_follows_what_a_stage_cost_here() -> None:
    clock = Clock()
    whisper = Costly(clock, ["Let me think."], ["Hmm."], hearing=3.0)
    e = ear(whisper, clock, budget_seconds=100.0)
    assert e.second is not None
    before = e.second.cascade.expected["spot"]
    hear(e, "")
    assert e.second.cascade.expected["spot"] == pytest.approx(before + 0.3 * (3.0 - before))
    e.second.settings.budget_seconds = 2.0  # spot now expected below 2 s: it fits, then no more
    hear(e, "")
    assert [s.stage for s in e.steps][-2] == "veto" and "stopped" in e.steps[-2].verdict


@pytest.mark.parametrize("stage", FREE_TEXT)
def test_a_stage_switched_off_is_skipped(stage: str) -> None:
    clock = Clock()
    hearing = without(HearingSettings(as_sentences=True, budget_seconds=100.0), "closed", stage)
    whisper = Costly(clock, ["Let me think."], ["Hmm."])
    e = Ear(TextRecognizer(), CARDS, second=SecondOpinion(whisper, Spotter(CARDS), hearing))  # type: ignore[arg-type]
    assert isinstance(hear(e, ""), NotRecognized)
    verdicts = {s.stage: s.verdict for s in e.steps}
    assert verdicts[stage] == "off" and all(verdicts[other] != "off" for other in FREE_TEXT if other != stage)
    assert whisper.calls.count("hypotheses") == 1  # written once, whichever stage reads it
    assert ("again" in whisper.calls) == (stage != "as_sentences")  # written again only by the last try


def test_a_command_only_a_guessing_stage_took_is_doubted() -> None:
    clock = Clock()
    heard = hear(ear(Costly(clock, ["Let me think."], ["Attack."]), clock), "")
    assert isinstance(heard, Doubted) and heard.command == Command("attack") and "as_sentences" in heard.why
    spotted = hear(ear(Costly(clock, ["Attack."]), clock), "")
    assert isinstance(spotted, Transcript) and not isinstance(spotted, Doubted), spotted


def test_the_veto_switched_off_lets_the_first_pass_command_stand() -> None:
    clock = Clock()
    hearing = without(HearingSettings(), "closed", "veto")
    e = Ear(TextRecognizer(), CARDS, second=SecondOpinion(Costly(clock, ["I would love some pizza."]),  # type: ignore[arg-type]
                                                          Spotter(CARDS), hearing))
    heard = hear(e, "attack")
    assert isinstance(heard, Transcript) and not isinstance(heard, Doubted) and heard.command == Command("attack")
    on = Ear(TextRecognizer(), CARDS, second=SecondOpinion(Costly(clock, ["I would love some pizza."]),  # type: ignore[arg-type]
                                                           Spotter(CARDS),
                                                           HearingSettings(closed=False)))
    assert isinstance(hear(on, "attack"), NotRecognized)


@pytest.mark.model
def test_with_no_budget_the_real_hybrid_stops_after_the_first_pass(tmp_path: Path) -> None:
    """Real PocketSphinx and Whisper on a real clip: a budget of 0 leaves Whisper unasked and the
    player is asked to say it again; with the shipped budget Whisper decides."""
    clip = ClipMaker(tmp_path).say("explore room one zero two", Speaker("espeak", "en-gb-scotland", 1.0, 50))
    broke = open_ear(HearingSettings(recognizer="hybrid", budget_seconds=0.0), OMEGA, None, engine="hybrid",
                     fallback=False)
    assert broke.second is not None
    asked: list[str] = []
    real = broke.second.transcriber.hypotheses

    def watched(audio: bytes, prompt: str = "", count: int = 1) -> list[str]:
        asked.append(prompt)
        return real(audio, prompt, count)

    broke.second.transcriber.hypotheses = watched  # type: ignore[method-assign]
    try:
        heard = broke.hear(clip)
    finally:
        del broke.second.transcriber.hypotheses  # the model is shared: watched here only
    assert isinstance(heard, OverBudget), heard
    assert asked == [] and {s.stage for s in broke.steps} <= {"first", "spot"}, broke.steps
    shipped = open_ear(HearingSettings(recognizer="hybrid"), OMEGA, None, engine="hybrid", fallback=False)
    said = shipped.hear(clip)
    assert isinstance(said, Transcript) and said.command == Command("explore", {"d1": "1", "d2": "0", "d3": "2"})
    # the grammar search looks first; Whisper's free text is written only when it is not clear
    assert [s.stage for s in shipped.steps][:2] == ["first", "closed"] and shipped.steps[1].seconds > 0, shipped.steps
    assert shipped.steps[-1].stage == "closed" and shipped.steps[-1].seconds > 0


@pytest.mark.model
def test_the_real_hybrid_answers_the_same_with_the_first_pass_spared(tmp_path: Path) -> None:
    """Real PocketSphinx and Whisper: as shipped (``defer_reading``) the first pass's work at
    the end of speech is left undone when the grammar search hears its sentence alone, and every
    answer is the one the hybrid gives with it done; table talk still reads it (the free text's
    stages need its command)."""
    maker = ClipMaker(tmp_path)
    clips = [maker.say("explore one two zero", Speaker("piper")),
             maker.say("explore room one zero two", Speaker("espeak", "en-gb-scotland", 1.0, 50)),
             maker.say("I think we should order pizza after this game", Speaker("piper"))]
    spared = open_ear(HearingSettings(recognizer="hybrid"), OMEGA, MOVE, engine="hybrid", fallback=False)
    done = open_ear(HearingSettings(recognizer="hybrid"), OMEGA, MOVE, engine="hybrid", fallback=False)
    done.recognizer.defer_reading = False  # the first pass's work done at every end of speech
    answers, read = [], []
    for clip in clips:
        answer = spared.hear(clip)
        read.append(not spared.steps[0].verdict.startswith("not read"))
        assert answer == done.hear(clip), (spared.steps, done.steps)
        assert not done.steps[0].verdict.startswith("not read"), done.steps
        answers.append(answer.command if isinstance(answer, Transcript) else None)
    assert answers == [Command("explore", {"d1": "1", "d2": "2", "d3": "0"}),
                       Command("explore", {"d1": "1", "d2": "0", "d3": "2"}), None]
    assert read[0] is False  # said clearly: the search alone hears it
    assert read[-1] is True  # table talk: nothing clear, the free text's stages need the first pass


class Held(Costly):
    """Whisper: its free text (what spot and the stages after it read: ``texts``, ``plain``), and
    held to the grammar, the sentences it finds (likeliest first) and its own reading; the free
    hearing costs a second on ``clock``, the grammar search half a second."""

    def __init__(self, clock: Clock, texts: list[str], found: Sequence[tuple[str, float] | tuple[str, float, float]],
                 reading: tuple[str, float], plain: list[str] | None = None) -> None:
        super().__init__(clock, texts, plain)
        self.found, self.reading = found, reading
        self.spans: list[float] = []

    def listen(self, audio: bytes, short: bool = False) -> bool:
        self.calls.append("listen")
        self.clock.now += 0.5
        return True

    def held_to(self, graph: object, beam: int, keep: int = 8, span: float = 15.0) -> list[Sentence]:
        self.calls.append("held_to")
        self.spans.append(span)
        return [Sentence(tuple(text.split()), logprob, *stop) for text, logprob, *stop in self.found]

    def own_reading(self) -> tuple[str, float]:
        return self.reading


def closed_ear(held: Held, clock: Clock, **settings: float) -> Ear:
    """The closed stage, its first look and its last word (``held``'s scripted transcripts), with
    round figures unless ``settings`` say."""
    hearing = HearingSettings(**{"closed_margin": 3.0, "closed_fit": 1.0,  # type: ignore[arg-type]
                                 "closed_ask_fit": 1.0, **settings})
    e = Ear(TextRecognizer(), CARDS, second=SecondOpinion(held, Spotter(CARDS), hearing))  # type: ignore[arg-type]
    assert e.second is not None
    e.second.cascade.clock = clock
    return e


def test_a_command_the_free_text_took_stands_when_the_closed_stage_finds_it_likeliest() -> None:
    # clear of another command but too far from Whisper's own reading for the first look alone
    # (fit -1.75 per token): the free text takes it, and the last word (searched once) confirms it
    clock = Clock()
    held = Held(clock, ["Attack."], [("attack", -6.0), ("roll the dice", -12.0)], ("Hit that.", -2.5))
    e = closed_ear(held, clock)
    heard = hear(e, "")
    assert isinstance(heard, Transcript) and not isinstance(heard, Doubted) and heard.command == Command("attack")
    assert [s.stage for s in e.steps] == ["first", "closed", "spot", "closed"], e.steps
    assert e.steps[-1].verdict.startswith("confirmed") and e.steps[1].seconds == 0.5
    assert "best -6.00 other -12.00 own -2.50 words 1 first none stop 0.00" in e.steps[-1].verdict


def test_a_command_the_free_text_took_is_asked_about_when_the_closed_stage_hears_another() -> None:
    # spot, trusted alone before, took most of the wrong moves measured: now a second reading
    # of the same audio, held to the grammar, must agree
    clock = Clock()
    held = Held(clock, ["Attack."], [("roll the dice", -3.0), ("attack", -5.0)], ("Roll the dice.", -2.5))
    heard = hear(closed_ear(held, clock), "")  # a margin of 2: not clear at the first look
    assert isinstance(heard, Doubted) and heard.command == Command("attack"), heard
    assert "roll the dice" in heard.why


def test_when_the_free_text_took_nothing_a_clear_likely_sentence_is_taken() -> None:
    clock = Clock()
    held = Held(clock, ["Let me think."], [("attack", -3.0), ("roll the dice", -9.0)], ("Hit that.", -2.5),
                plain=["Hmm."])
    e = closed_ear(held, clock)
    heard = hear(e, "")
    assert isinstance(heard, Transcript) and not isinstance(heard, Doubted) and heard.command == Command("attack")
    assert e.steps[-1].stage == "closed" and e.steps[-1].verdict.startswith("took"), e.steps


@pytest.mark.parametrize("found, reading, why", [
    ([("attack", -3.0), ("roll the dice", -5.0)], ("Hit that.", -2.5), "another command nearly as likely"),
    ([("attack", -9.0), ("roll the dice", -20.0)], ("Pass the chips.", -4.0), "far less likely than Whisper's own"),
    ([], ("", -1.0), "nothing found"),
])
def test_when_the_free_text_took_nothing_nothing_unclear_is_taken(
        found: list[tuple[str, float]], reading: tuple[str, float], why: str) -> None:
    clock = Clock()
    held = Held(clock, ["Let me think."], found, reading, plain=["Hmm."])
    heard = hear(closed_ear(held, clock), "roll")  # nor with the first pass's command, another one
    assert isinstance(heard, NotRecognized) and not isinstance(heard, OverBudget), (why, heard)


def test_a_command_not_allowed_now_is_named() -> None:
    clock = Clock()
    held = Held(clock, ["Roll the dice."], [("roll the dice", -14.0), ("attack", -20.0)], ("Roll the dice.", -2.0))
    e = closed_ear(held, clock)
    e.set_intents(["attack", "help"])
    heard = hear(e, "")
    assert isinstance(heard, NotAllowedNow) and heard.command is not None and heard.command.intent == "roll", heard


def test_whisper_s_own_reading_of_a_command_refused_now_is_named_not_forced_onto_an_allowed_one() -> None:
    # "roll the dice" said where only attack and help are allowed: the search, held to what is
    # allowed, finds "attack" clearly likeliest; Whisper's own reading says the refused command
    # outright, so the game says why instead of attacking
    clock = Clock()
    held = Held(clock, ["Roll the dice."], [("attack", -3.0), ("help", -9.0)], ("Roll the dice.", -2.5))
    e = closed_ear(held, clock)
    e.set_intents(["attack", "help"])
    heard = hear(e, "")
    assert isinstance(heard, NotAllowedNow) and heard.command == Command("roll"), (heard, e.steps)
    # a reading that only comes near it (or says nothing) leaves the search's answer standing
    held = Held(clock, ["Hmm."], [("attack", -3.0), ("help", -9.0)], ("Roll the ice cream over.", -2.5))
    e = closed_ear(held, clock)
    e.set_intents(["attack", "help"])
    heard = hear(e, "")
    assert isinstance(heard, Transcript) and heard.command == Command("attack"), (heard, e.steps)


def test_the_fit_is_counted_per_token_of_the_sentence() -> None:
    # 4 nats below Whisper's own reading: too far for a one-word command, near enough for a
    # sentence of seven words (a long command said in noise strays a little at every word)
    clock = Clock()
    short = hear(closed_ear(Held(clock, ["Hmm."], [("attack", -6.0)], ("Hit that.", -2.0)), clock), "")
    assert isinstance(short, NotRecognized), short
    long = hear(closed_ear(Held(clock, ["Hmm."], [("use capsule five and attack", -6.0)],
                                ("Use cap 5 and attack.", -2.0)), clock), "")
    assert isinstance(long, Transcript) and long.command is not None and long.command.intent == "capsule", long


def test_the_first_pass_taking_the_same_command_makes_it_heard() -> None:
    # another command nearly as likely, and far below Whisper's own reading: alone, nothing is
    # taken; with the first pass's same command (two recognizers agreeing: 0 wrong of 167 such
    # clips on the tuning set), it is heard
    clock = Clock()
    found = [("attack", -9.0), ("roll the dice", -10.0)]
    assert isinstance(hear(closed_ear(Held(clock, ["Hmm."], found, ("Hit that.", -2.0)), clock), ""), NotRecognized)
    e = closed_ear(Held(clock, ["Hmm."], found, ("Hit that.", -2.0)), clock, veto=False)  # the first pass's stands
    heard = hear(e, "attack")
    assert isinstance(heard, Transcript) and not isinstance(heard, Doubted) and heard.command == Command("attack")
    assert "first same" in e.steps[-1].verdict


def test_a_sentence_a_little_farther_from_whisper_s_reading_is_asked_about() -> None:
    clock = Clock()
    found = [("attack", -5.0), ("roll the dice", -15.0)]
    asked = hear(closed_ear(Held(clock, ["Hmm."], found, ("Hit that.", -2.0)), clock, closed_fit=1.0,
                            closed_ask_fit=2.0), "")
    assert isinstance(asked, Doubted) and asked.command == Command("attack"), asked  # 1.5 per token below
    far = hear(closed_ear(Held(clock, ["Hmm."], found, ("Hit that.", -2.0)), clock, closed_fit=1.0,
                          closed_ask_fit=1.2), "")
    assert isinstance(far, NotRecognized), far


def test_a_longer_utterance_is_expected_to_cost_the_closed_stage_more() -> None:
    # the closed stage encodes the utterance alone: its cost grows with it (the free text's
    # stages hear Whisper's 30 s window whatever the command's length)
    clock = Clock()
    held = Held(clock, ["Hmm."], [("attack", -3.0), ("roll the dice", -9.0)], ("Attack.", -2.5))
    e = closed_ear(held, clock, budget_seconds=1.0)
    assert e.second is not None
    e.second.cascade.expected["closed"] = 0.4  # CPU s per second of audio; spot costs 1 s
    heard = hear(e, "")  # one second: 0.4 fits
    assert e.steps[-1].stage == "closed" and not e.steps[-1].verdict.startswith("stopped"), e.steps
    assert isinstance(heard, Transcript) and heard.command == Command("attack")
    e.second.cascade.expected["closed"] = 0.4
    e._audio = [np.zeros(3 * 16_000, dtype=np.int16).tobytes()]
    e.decide(Transcript("", 0.0))  # three seconds: 1.2 does not, neither first nor after spot
    assert e.steps[-1].stage == "closed" and e.steps[-1].verdict.startswith("stopped"), e.steps


def test_a_clear_best_sentence_is_taken_before_whisper_writes_freely() -> None:
    # the grammar search first: clear, it decides, and Whisper's free text (its 30 s window,
    # the costliest part) is never written
    clock = Clock()
    held = Held(clock, ["Roll the dice."], [("attack", -3.0), ("roll the dice", -9.0)], ("Attack.", -2.5))
    e = closed_ear(held, clock)
    heard = hear(e, "")
    assert isinstance(heard, Transcript) and not isinstance(heard, Doubted) and heard.command == Command("attack")
    assert [s.stage for s in e.steps] == ["first", "closed"] and e.steps[-1].verdict.startswith("took"), e.steps
    assert "hypotheses" not in held.calls and e.steps[-1].seconds == 0.5


def test_an_unclear_first_look_lets_the_free_text_decide_and_is_not_searched_again() -> None:
    clock = Clock()
    found = [("attack", -3.0), ("roll the dice", -5.0)]  # a margin of 2: not clear
    held = Held(clock, ["Attack."], found, ("Attack.", -2.5))
    e = closed_ear(held, clock)
    heard = hear(e, "")  # the free text's command, not clear of another: asked about
    assert isinstance(heard, Doubted) and heard.command == Command("attack"), heard
    assert [s.stage for s in e.steps] == ["first", "closed", "spot", "closed"], e.steps
    assert e.steps[1].verdict.startswith("first look: not clear") and "best -3.00 other -5.00" in e.steps[1].verdict
    assert held.calls.count("held_to") == 1, held.calls


def test_a_clear_best_sentence_whisper_s_own_reading_says_is_heard_however_likelier_that_reading() -> None:
    # "Explore 100." is far likelier to Whisper, token by token, than "explore one zero zero":
    # the fit alone would take nothing, but the reading says the same command
    clock = Clock()
    found = [("attack", -6.0), ("roll the dice", -12.0)]  # margin 6; fit (-6 + 1) / 2 = -2.5 per token
    held = Held(clock, ["Hmm."], found, ("Attack!", -1.0))
    e = closed_ear(held, clock)
    heard = hear(e, "")
    assert isinstance(heard, Transcript) and not isinstance(heard, Doubted) and heard.command == Command("attack")
    assert [s.stage for s in e.steps] == ["first", "closed"] and "reads 0.00" in e.steps[-1].verdict, e.steps
    assert "hypotheses" not in held.calls  # the free text is never written


def test_an_own_reading_of_another_command_or_a_best_sentence_not_clear_is_not_heard_for_it() -> None:
    clock = Clock()
    found = [("attack", -6.0), ("roll the dice", -12.0)]
    other = closed_ear(Held(clock, ["Hmm."], found, ("Roll the dice!", -1.0)), clock)
    assert isinstance(hear(other, ""), NotRecognized), other.steps
    unclear = closed_ear(Held(clock, ["Hmm."], [("attack", -6.0), ("roll the dice", -7.0)], ("Attack!", -1.0)),
                         clock)
    assert isinstance(hear(unclear, ""), NotRecognized), unclear.steps


def test_when_the_first_look_is_not_clear_whisper_writes_its_free_text_for_spotting() -> None:
    # the grammar search's best sentence not clear: Whisper writes the utterance freely (its own
    # 30 s window, prompted), and what it says is spotted
    clock = Clock()
    found = [("attack", -6.0), ("roll the dice", -7.0)]  # not clear: margin 1
    held = Held(clock, ["Attack."], found, ("Roll the dice.", -1.0))
    e = closed_ear(held, clock)
    heard = hear(e, "")
    assert "hypotheses" in held.calls, held.calls
    assert [s.stage for s in e.steps][:3] == ["first", "closed", "spot"], e.steps
    assert isinstance(heard, Transcript) and heard.command == Command("attack"), e.steps


class Later:
    """A first pass's reading put off (``Deferred``): counts how often it is asked for."""

    def __init__(self, text: str) -> None:
        self.text, self.reads = text, 0

    def __call__(self) -> Transcript:
        self.reads += 1
        return Transcript(self.text, 1.0 if self.text else 0.0)

    def hear(self, e: Ear) -> Transcript | NotRecognized:
        e._audio = [np.zeros(16_000, dtype=np.int16).tobytes()]
        return e.decide(Deferred("", 0.0, settle=self))


def test_the_first_pass_is_not_read_when_the_search_hears_its_sentence_whatever_the_first_pass_took() -> None:
    clock = Clock()
    held = Held(clock, ["Roll the dice."], [("attack", -3.0), ("roll the dice", -9.0)], ("Attack.", -2.5))
    later = Later("roll the dice")  # what the first pass took makes no difference to a clear best sentence
    heard = later.hear(closed_ear(held, clock))
    assert isinstance(heard, Transcript) and not isinstance(heard, Doubted) and heard.command == Command("attack")
    assert later.reads == 0


def test_the_first_pass_is_read_when_the_first_look_needs_it_and_counted_apart() -> None:
    # a margin of 2 is not clear alone: the first pass taking the same command hears it
    clock = Clock()
    found = [("attack", -3.0), ("roll the dice", -5.0)]
    later = Later("attack")
    e = closed_ear(Held(clock, ["Hmm."], found, ("Attack.", -2.5)), clock)
    heard = later.hear(e)
    assert isinstance(heard, Transcript) and not isinstance(heard, Doubted) and heard.command == Command("attack")
    assert later.reads == 1 and [s.stage for s in e.steps] == ["first", "closed"], e.steps
    assert e.steps[0].verdict == "took" and "first same" in e.steps[1].verdict and e.steps[1].seconds == 0.5
    # the first pass took nothing: the free text decides, and the first pass is read once
    clock = Clock()
    nothing = Later("")
    e = closed_ear(Held(clock, ["Hmm."], found, ("Hmm.", -2.5)), clock)
    assert isinstance(nothing.hear(e), NotRecognized)
    assert nothing.reads == 1 and [s.stage for s in e.steps][:3] == ["first", "closed", "spot"], e.steps
    assert "first none" in e.steps[1].verdict and e.steps[0].verdict == "nothing"


def test_a_first_pass_not_read_says_so_and_without_a_second_opinion_it_is_read_at_once() -> None:
    clock = Clock()
    held = Held(clock, ["Hmm."], [("attack", -3.0), ("roll the dice", -9.0)], ("Attack.", -2.5))
    e = closed_ear(held, clock)
    Later("attack").hear(e)
    assert e.steps[0].stage == "first" and e.steps[0].verdict.startswith("not read"), e.steps
    assert "first unread" in e.steps[1].verdict
    alone = Ear(TextRecognizer(), CARDS)
    later = Later("attack")
    heard = alone.decide(Deferred("", 0.0, settle=later))
    assert isinstance(heard, Transcript) and heard.command == Command("attack") and later.reads == 1


def test_talk_far_below_whisper_s_own_reading_takes_nothing_without_the_free_text() -> None:
    # "I think we should order pizza" is far likelier to Whisper as itself than as any command:
    # nothing is taken at once, and the free text (its 30 s window) is never written
    clock = Clock()
    found = [("attack", -30.0), ("roll the dice", -31.0)]  # fit (-30 + 3) / 2 = -13.5 per token
    held = Held(clock, ["Attack."], found, ("I think we should order pizza.", -3.0))
    e = closed_ear(held, clock)
    heard = hear(e, "")
    assert isinstance(heard, NotRecognized) and "far below" in heard.reason, heard
    assert [s.stage for s in e.steps] == ["first", "closed"] and "hypotheses" not in held.calls, e.steps
    assert e.steps[-1].verdict.startswith("first look: nothing taken"), e.steps
    # switched off, the free text has its say (here it spots the command)
    clock = Clock()
    held = Held(clock, ["Attack."], found, ("I think we should order pizza.", -3.0))
    e = closed_ear(held, clock, closed_reject_fit=0.0)
    assert isinstance(hear(e, ""), Transcript) and "hypotheses" in held.calls, e.steps


def test_the_first_pass_taking_the_same_command_outweighs_a_far_reading() -> None:
    # a sentence 3.5 per token below Whisper's own reading ("Software." read for "quieter" on the
    # tuning voices: 2.5 to 4), within closed_agree_fit (4), the first pass taking the same: two
    # recognizers agree
    clock = Clock()
    held = Held(clock, ["Hmm."], [("attack", -10.0), ("roll the dice", -11.0)], ("Hit that.", -3.0))
    heard = hear(closed_ear(held, clock), "attack")
    assert isinstance(heard, Transcript) and not isinstance(heard, Doubted) and heard.command == Command("attack")
    assert Closed.verdict(HeldTo(-10.0, -11.0, -3.0, 1, "same"), HearingSettings()) == "heard"
    # far beyond it (13.5 per token), the agreement is two readings forcing talk onto a general
    # command ("I read that book twice." as "what's the score"): not heard for it
    assert Closed.verdict(HeldTo(-30.0, -31.0, -3.0, 1, "same"), HearingSettings()) == ""
    clock = Clock()
    held = Held(clock, ["I read that book twice."], [("attack", -30.0), ("roll the dice", -31.0)],
                ("I read that book twice.", -3.0))
    assert not taken(hear(closed_ear(held, clock), "attack"))
    assert Closed.verdict(HeldTo(-30.0, -31.0, -3.0, 1, "same"), HearingSettings(closed_agree_fit=50.0)) == "heard"
    assert Closed.verdict(HeldTo(-30.0, -31.0, -3.0, 1, "other"), HearingSettings()) == "no"
    assert Closed.verdict(HeldTo(-30.0, -31.0, -3.0, 1, "other", stop=-5.0), HearingSettings()) == "no"
    assert Closed.verdict(HeldTo(-8.0, -31.0, -3.0, 1, "other", stop=-5.0), HearingSettings()) == ""


def test_two_recognizers_agreeing_on_a_near_coin_toss_is_not_heard_at_once() -> None:
    """The first pass taking the best sentence's command is enough only when that sentence is
    ``closed_agree_margin`` likelier than another command's: "it's carl" 0.13 above "it's carol"
    (a tuning clip, said "It's Carol.") is no agreement; the free text has its say."""
    def heard_with(**settings: float) -> tuple[Transcript | NotRecognized, Ear]:
        clock = Clock()
        held = Held(clock, ["Roll the dice."], [("attack", -7.10), ("roll the dice", -7.23)], ("Roll the dice.", -1.7))
        e = closed_ear(held, clock, **settings)
        return hear(e, "attack"), e
    thin, e = heard_with()
    assert not (isinstance(thin, Transcript) and not isinstance(thin, Doubted) and thin.command == Command("attack"))
    assert "spot" in [s.stage for s in e.steps], e.steps
    agreed, e = heard_with(closed_agree_margin=0.0)
    assert isinstance(agreed, Transcript) and not isinstance(agreed, Doubted) and agreed.command == Command("attack")
    assert [s.stage for s in e.steps] == ["first", "closed"], e.steps
    assert Closed.verdict(HeldTo(-7.10, -7.23, -1.7, 1, "same"), HearingSettings()) == ""
    assert Closed.verdict(HeldTo(-7.10, -7.56, -1.7, 1, "same"), HearingSettings()) == "heard"
    assert not Closed.clear(HeldTo(-7.10, -7.23, -1.7, 1, "same"), HearingSettings())


def test_talk_that_starts_with_a_command_is_not_heard_by_the_grammar_search_alone() -> None:
    """Whisper's own reading going on ``closed_tail`` words after a sentence of the best command
    ("Keep going, you're nearly there." for "keep going", heard by its fit on the tuning voices'
    table talk) is not heard unless the first pass took the same command."""
    talk = "Attack the thing over there now."
    def heard_with(first: str, **settings: float) -> Transcript | NotRecognized:
        clock = Clock()
        held = Held(clock, [talk], [("attack", -3.0), ("roll the dice", -9.0)], (talk, -2.5))
        return hear(closed_ear(held, clock, **settings), first)
    assert not taken(heard_with(""))
    agreed = heard_with("attack")
    assert isinstance(agreed, Transcript) and not isinstance(agreed, Doubted) and agreed.command == Command("attack")
    off = heard_with("", closed_tail=0)
    assert isinstance(off, Transcript) and not isinstance(off, Doubted) and off.command == Command("attack")
    assert Closed.verdict(HeldTo(-3.0, -9.0, -2.5, 1, "none", tail=1), HearingSettings()) == "heard"
    assert Closed.verdict(HeldTo(-3.0, -9.0, -2.5, 1, "none", tail=2), HearingSettings()) == ""


def test_a_short_command_whisper_would_write_again_is_not_talk_that_goes_on() -> None:
    """In a short window Whisper writes a one-word command over and over ("Status. Status."):
    the end after it is more than ``closed_stop`` below the likeliest next token (2.17 for a clean
    "status" on the tuning voices), yet its own reading, repeats cut, is the command and nothing
    more (``HeldTo.whole``). That is no talk going on: heard, not doubted. A reading that goes on
    with other words is still held back."""
    def heard_with(reading: str) -> Transcript | NotRecognized:
        clock = Clock()
        held = Held(clock, [reading], [("status", -3.67, -2.17), ("roll the dice", -12.0)], (reading, -3.61))
        return hear(closed_ear(held, clock), "status")
    loop = heard_with("Status. Status. Status.")
    assert isinstance(loop, Transcript) and not isinstance(loop, Doubted) and loop.command == Command("status"), loop
    assert not (isinstance(talk := heard_with("Status of the thing."), Transcript)
                and not isinstance(talk, Doubted)), talk
    held = HeldTo(-3.67, -12.0, -3.61, 1, "same", stop=-2.17)
    assert Closed.verdict(held, HearingSettings()) == ""
    assert Closed.verdict(replace(held, whole=True), HearingSettings()) == "heard"
    assert Closed.goes_on(held, HearingSettings()) and not Closed.goes_on(replace(held, whole=True), HearingSettings())


def test_the_search_follows_sentences_to_span_below_the_best_and_never_less_than_the_margin() -> None:
    clock = Clock()
    found = [("attack", -3.0), ("roll the dice", -9.0)]
    for settings, span in (({"closed_margin": 3.0}, SPAN), ({"closed_margin": SPAN + 2.0}, SPAN + 2.0)):
        held = Held(clock, ["Attack."], found, ("Attack.", -2.5))
        hear(closed_ear(held, clock, **settings), "")
        assert held.spans == [span], (settings, held.spans)


def test_strict_a_command_the_free_text_took_is_asked_about_unless_the_search_would_take_it() -> None:
    # the same command as the search's best, but not clearly: asked about ("Attack?"), not acted on
    clock = Clock()
    held = Held(clock, ["Attack."], [("attack", -3.0), ("roll the dice", -5.0)], ("Attack.", -2.5))
    asked = hear(closed_ear(held, clock), "")
    assert isinstance(asked, Doubted) and asked.command == Command("attack") and "not clearly" in asked.why, asked
    clear = Held(clock, ["Attack."], [("attack", -3.0), ("roll the dice", -9.0)], ("Attack.", -2.5))
    heard = hear(closed_ear(clear, clock), "")
    assert isinstance(heard, Transcript) and not isinstance(heard, Doubted) and heard.command == Command("attack")


def test_the_first_look_is_kept_to_the_budget() -> None:
    # too dear for the budget before anything runs: no first look, the free text's stages go on
    # and the last word is over the budget (asked about)
    clock = Clock()
    held = Held(clock, ["Attack."], [("attack", -3.0), ("roll the dice", -9.0)], ("Attack.", -2.5))
    e = closed_ear(held, clock, budget_seconds=1.5)
    assert e.second is not None
    e.second.cascade.expected["closed"] = 2.0
    heard = hear(e, "")
    assert [s.stage for s in e.steps] == ["first", "spot", "closed"] and "stopped" in e.steps[-1].verdict, e.steps
    assert isinstance(heard, Doubted) and heard.command == Command("attack"), heard


def test_the_first_look_asks_at_once_about_a_sentence_its_rule_would_ask_about() -> None:
    # the search's best is clear of other commands but far from Whisper's own reading (its rule
    # would ask about it): the player is asked "Attack?" at once; Whisper's free text is not
    # written, so it can neither take the command silently nor cost its 30 s window
    clock = Clock()
    found = [("attack", -6.0), ("roll the dice", -12.0)]  # margin 6; fit (-6 + 2.5) / 2 = -1.75 per token
    held = Held(clock, ["Attack."], found, ("Hit that.", -2.5))
    e = closed_ear(held, clock, closed_ask_fit=3.0)
    heard = hear(e, "")
    assert isinstance(heard, Doubted) and heard.command == Command("attack") and "below its own reading" in heard.why
    assert [s.stage for s in e.steps] == ["first", "closed"] and e.steps[-1].verdict.startswith("asked"), e.steps
    assert "hypotheses" not in held.calls
    # a search its rule would take nothing from leaves the free text to decide, and past the
    # budget, "Say again?"
    unclear = Held(clock, ["Attack."], [("attack", -6.0), ("roll the dice", -7.0)], ("Hit that.", -2.5))
    again = hear(closed_ear(unclear, clock, closed_ask_fit=3.0, budget_seconds=0.5 + SPOT / 2), "")
    assert isinstance(again, OverBudget), again


def test_the_last_word_reads_the_first_look_even_past_the_budget() -> None:
    # the search is paid for: the free text running past the budget does not keep it out
    clock = Clock()
    held = Held(clock, ["Attack."], [("attack", -6.0), ("roll the dice", -12.0)], ("Hit that.", -2.5))
    e = closed_ear(held, clock, budget_seconds=0.5 + SPOT + 0.01)
    heard = hear(e, "")  # the look 0.5 s, spot 1 s: past the budget
    assert [s.stage for s in e.steps] == ["first", "closed", "spot", "closed"], e.steps
    assert e.steps[-1].verdict.startswith("confirmed"), e.steps
    assert isinstance(heard, Transcript) and not isinstance(heard, Doubted) and heard.command == Command("attack")


def test_a_stage_kept_out_by_one_slow_utterance_runs_again_later() -> None:
    """A stage's expected cost is learned from what it cost; one that is not run learns nothing,
    so after a slow utterance it drifts back to its typical cost rather than stay out for good."""
    clock = Clock()
    whisper = Costly(clock, ["Let me think."], ["Hmm."])
    e = ear(whisper, clock, budget_seconds=2 * SPOT)
    assert e.second is not None
    e.second.cascade.expected["spot"] = 20 * SPOT  # as after a very slow utterance
    outcomes = [type(hear(e, "")).__name__ for _ in range(12)]
    assert outcomes[0] == "OverBudget" and "NotRecognized" in outcomes, outcomes
    assert whisper.calls.count("hypotheses") >= 1
