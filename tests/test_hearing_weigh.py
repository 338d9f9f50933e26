"""The hybrid's last word: Whisper's own score over the commands nearest what it wrote (logic,
with a transcriber whose transcripts and scores are given; real audio is in
test_hearing_whisper)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from assistant.engine import Command
from assistant.games import game_module
from assistant.hearing import HearingSettings
from assistant.hearing.events import NotRecognized, Transcript
from assistant.hearing.recognizer import Ear, SecondOpinion, prompt_as_sentences, written
from assistant.hearing.spotting import Spotter
from assistant.hearing.text_engine import TextRecognizer

CARDS = game_module("msx-cards").sentences()


class Given:
    """Writes the given transcripts; scores a text by the table (unknown texts: very unlikely)."""

    def __init__(self, texts: list[str], scores: dict[str, float], plain: list[str] | None = None,
                 styled: list[str] | None = None) -> None:
        self.texts = texts
        self.scores = scores
        self.plain = plain or []
        self.styled = styled or []  # written under any other prompt
        self.scored: list[str] = []
        self.asked_again: list[str] = []

    def transcribe(self, audio: bytes, prompt: str = "") -> str:
        return self.texts[0]

    def hypotheses(self, audio: bytes, prompt: str = "", count: int = 1) -> list[str]:
        return self.texts[:count]

    def again(self, prompt: str = "", count: int = 1) -> list[str]:
        self.asked_again.append(prompt)
        return (self.styled if prompt else self.plain)[:count]

    def score(self, texts: Sequence[str], ending: bool = True) -> list[float]:
        self.scored += list(texts)
        return [self.scores.get(t, -100.0) for t in texts]

    def let_go(self) -> None:
        pass


def ear(transcriber: Given, **settings: float) -> Ear:
    """An Ear whose second opinion comes from ``transcriber`` (weighing, the unprompted text and
    the runners-up on, off by default; no second hearing unless asked; no budget to keep to)."""
    # the free text's stages, the closed check off
    hearing = HearingSettings(**{"again_suppressed": 0, "budget_seconds": 100.0, "weigh": True,  # type: ignore[arg-type]
                                 "unprompted": True, "runners_up": True, "closed": False, **settings})
    return Ear(TextRecognizer(), CARDS, second=SecondOpinion(transcriber, Spotter(CARDS), hearing))


def hear(e: Ear, first_pass: str) -> Transcript | NotRecognized:
    """What the Ear decides on one second of audio the first pass wrote as ``first_pass``."""
    e._audio = [np.zeros(16_000, dtype=np.int16).tobytes()]
    return e.decide(Transcript(first_pass, 1.0 if first_pass else 0.0))


def test_a_short_command_whisper_finds_likelier_than_its_own_transcript_is_taken() -> None:
    whisper = Given(["Hit that.", "Attack.", "Hit attack."], {"Hit that.": -6.2, "Attack.": -4.7})
    heard = hear(ear(whisper), "")
    assert isinstance(heard, Transcript) and heard.command == Command("attack", {}), heard
    assert "Attack." in whisper.scored and "Hit that." in whisper.scored


def test_a_command_far_less_likely_than_what_was_written_is_not_taken() -> None:
    whisper = Given(["Hit that.", "Attack.", "Hit attack."], {"Hit that.": -6.2, "Attack.": -11.0})
    assert isinstance(hear(ear(whisper), ""), NotRecognized)  # 4.8 below, more than score_within 4
    assert isinstance(hear(ear(whisper, score_within=5.0), ""), Transcript)


def test_only_commands_within_score_distance_of_a_transcript_are_weighed() -> None:
    # "Okay." written for "attack" (an espeak voice nobody tuned on): "attack" is 0.825 from it,
    # nearer than score_distance 1.2 (tiny.en's) but not than 0.8 (base's)
    scores = {"Okay.": -1.7, "Attack.": -4.9, "Score.": -11.7, "Resume.": -12.0}
    heard = hear(ear(Given(["Okay."], scores), score_distance=1.2), "")
    assert isinstance(heard, Transcript) and heard.command == Command("attack", {}), heard
    narrow = Given(["Okay."], scores)
    assert isinstance(hear(ear(narrow, score_distance=0.8), ""), NotRecognized)
    assert "Attack." not in narrow.scored and "Score." in narrow.scored


def test_two_commands_scored_alike_give_neither() -> None:
    near = [n.sentence for n in Spotter(CARDS).nearest("Hit that.", CARDS.intents, 3)]
    scores = {"Hit that.": -6.0, written(near[0]): -5.0, written(near[1]): -6.0}
    assert isinstance(hear(ear(Given(["Hit that."], scores)), ""), NotRecognized)
    scores[written(near[1])] = -9.0
    heard = hear(ear(Given(["Hit that."], scores)), "")
    assert isinstance(heard, Transcript) and heard.text == near[0]


def test_nothing_written_or_weighing_off_scores_nothing() -> None:
    silent = Given([""], {})
    assert isinstance(hear(ear(silent), ""), NotRecognized) and silent.scored == []
    off = Given(["Hit that.", "Attack."], {"Hit that.": -6.2, "Attack.": -4.7})
    assert isinstance(hear(ear(off, score_nearest=0), ""), NotRecognized) and off.scored == []


def test_the_first_pass_command_is_weighed_before_it_is_vetoed() -> None:
    # The first pass took "roll the dice"; Whisper wrote something else, far from it, but finds
    # "Roll the dice." likelier than its own transcript: the command stands.
    whisper = Given(["Rolling nice."], {"Rolling nice.": -8.0, "Roll the dice.": -6.0})
    heard = hear(ear(whisper), "roll the dice")
    assert isinstance(heard, Transcript) and heard.command is not None and heard.command.intent == "roll", heard
    whisper = Given(["Rolling nice."], {"Rolling nice.": -8.0, "Roll the dice.": -23.0})
    assert isinstance(hear(ear(whisper), "roll the dice"), NotRecognized)  # 15 below: past first_within 14


def test_a_command_whisper_would_not_end_with_is_not_taken() -> None:
    # "Keep going, you're really near." (talk that starts with a command): Whisper made to write
    # "Keep going." would go on writing, so it scores minus infinity, and nothing is taken however
    # unlikely the rest are.
    prologue = game_module("prologue").sentences()
    whisper = Given(["Keep going, you're really near."], {"Keep going, you're really near.": -4.0,
                                                        "Keep going.": float("-inf")})
    opinion = SecondOpinion(whisper, Spotter(prologue), HearingSettings(again_suppressed=0, weigh=True, closed=False))
    e = Ear(TextRecognizer(), prologue, second=opinion)
    assert isinstance(hear(e, ""), NotRecognized)
    assert "Keep going." in whisper.scored


def test_a_command_written_without_the_prompt_is_taken_when_the_prompted_text_gives_none() -> None:
    # Prompted with the card game's sentences Whisper wrote "seventeen one"; unprompted, "71".
    whisper = Given(["Enemy's defense is seventeen one."], {}, plain=["Enemies Defense is 71."])
    heard = hear(ear(whisper), "enemy's defense is seventy four")
    assert isinstance(heard, Transcript) and heard.command == Command(
        "set_stat", {"who": "enemy", "stat": "defense", "value": "71"}), heard
    assert whisper.asked_again == [""]  # asked once, with no prompt
    # off: the first pass's command, which Whisper's prompted text is near, stands
    whisper = Given(["Enemy's defense is seventeen one."], {}, plain=["Enemies Defense is 71."])
    heard = hear(ear(whisper, unprompted=False), "enemy's defense is seventy four")
    assert isinstance(heard, Transcript) and heard.command is not None and heard.command.slots["value"] == "74"
    assert whisper.asked_again == []


def test_the_unprompted_text_is_not_asked_for_when_the_prompted_one_gives_a_command() -> None:
    whisper = Given(["Roll the dice."], {}, plain=["Attack."])
    heard = hear(ear(whisper), "")
    assert isinstance(heard, Transcript) and heard.command is not None and heard.command.intent == "roll"
    assert whisper.asked_again == []


def test_table_talk_written_without_the_prompt_takes_nothing() -> None:
    whisper = Given(["Who's ready for dessert?"], {}, plain=["Who's ready for dessert?"])
    assert isinstance(hear(ear(whisper), ""), NotRecognized)
    assert whisper.asked_again == [""]  # unprompted; the last try is off by default


def test_the_first_pass_command_whisper_ranks_first_may_be_further_from_its_own_transcript() -> None:
    # Two recognizers agree: the first pass heard "roll the dice" and, of the candidates, Whisper
    # finds it the likeliest, 6 below its own "Rolling nice.": within first_within, not score_within.
    scores = {"Rolling nice.": -8.0, "Roll the dice.": -14.0}
    heard = hear(ear(Given(["Rolling nice."], scores), first_within=10.0), "roll the dice")
    assert isinstance(heard, Transcript) and heard.command is not None and heard.command.intent == "roll", heard
    assert isinstance(hear(ear(Given(["Rolling nice."], scores), first_within=4.0), "roll the dice"), NotRecognized)
    # the same likelihood for a command the first pass did not hear is not enough
    assert isinstance(hear(ear(Given(["Rolling nice."], scores), first_within=10.0), ""), NotRecognized)


def test_a_command_in_a_lesser_transcript_near_the_best_is_taken_over_an_unconfirmed_first_pass() -> None:
    # The first pass took a stat change; Whisper's best transcript spots nothing and is far from
    # it, but its second is "Roll the dice.", which the best ("Rolling nice.") is 0.6 from.
    whisper = Given(["Rolling nice.", "Roll the dice.", "Rolling dice, guys."], {})
    heard = hear(ear(whisper), "enemy's defense is seventy four")
    assert isinstance(heard, Transcript) and heard.command == Command("roll", {}), heard
    # past runner_up_distance, the lesser transcript is not taken, and the first pass is vetoed
    heard = hear(ear(Given(["Rolling nice.", "Roll the dice."], {}), runner_up_distance=0.5),
                 "enemy's defense is seventy four")
    assert isinstance(heard, NotRecognized) and "vetoed" in heard.reason, heard


def test_the_last_try_writes_the_audio_again_prompted_with_sentences() -> None:
    # Nothing spotted in "Wider.", and "louder" and "quieter" weigh alike: Whisper writes it once
    # more prompted with each example as a sentence; "Quieter." is taken, as Whisper finds it,
    # under the first prompt, 3 less likely than "Wider." (within as_sentences_within 4).
    scores = {"Wider.": -5.0, "Quieter.": -8.0, "Louder.": -8.0}
    whisper = Given(["Wider."], scores, styled=["Quieter."])
    e = ear(whisper, as_sentences=True)
    heard = hear(e, "")
    assert isinstance(heard, Transcript) and heard.command == Command("quieter", {}), heard
    assert whisper.asked_again[0] == "" and len(whisper.asked_again) == 2
    assert whisper.asked_again[1] == prompt_as_sentences(CARDS.help_for(e.graph.intents))
    assert "Quieter." in whisper.asked_again[1].split(" ")
    # far less likely than what Whisper wrote, off (the default), or talk: nothing is taken
    unlikely = {**scores, "Quieter.": -14.0, "Louder.": -14.0}
    for whisper, settings in ((Given(["Wider."], unlikely, styled=["Quieter."]), {"as_sentences": True}),
                              (Given(["Wider."], scores, styled=["Quieter."]),
                               {"as_sentences": True, "as_sentences_within": 2.0}),
                              (Given(["Wider."], scores, styled=["Quieter."]), {}),
                              (Given(["Wider."], scores, styled=["I like it wider."]), {"as_sentences": True})):
        assert isinstance(hear(ear(whisper, **settings), ""), NotRecognized), settings


class Twice(Given):
    """Writes ``first`` at the first hearing and the given transcripts at the next (the second
    hearing, through the noise suppressor)."""

    def __init__(self, first: list[str], texts: list[str], scores: dict[str, float]) -> None:
        super().__init__(texts, scores)
        self.first = first
        self.heard = 0

    def hypotheses(self, audio: bytes, prompt: str = "", count: int = 1) -> list[str]:
        self.heard += 1
        return (self.first if self.heard == 1 else self.texts)[:count]


def test_the_second_hearing_weighs_commands_only_within_again_within() -> None:
    # First hearing: talk, nothing near. Through the suppressor Whisper writes "Okay." and finds
    # "Attack." 2.5 below it: within again_within 3, not within 2 (score_within is 4).
    scores = {"Lovely weather.": -2.0, "Okay.": -1.7, "Attack.": -4.2}
    whisper = Twice(["Lovely weather."], ["Okay."], scores)
    heard = hear(ear(whisper, again_suppressed=4, again_within=3.0), "")
    assert isinstance(heard, Transcript) and heard.command == Command("attack", {}), heard
    assert whisper.heard == 2
    whisper = Twice(["Lovely weather."], ["Okay."], scores)
    assert isinstance(hear(ear(whisper, again_suppressed=4, again_within=2.0), ""), NotRecognized)
    assert whisper.heard == 2
    # off: heard once
    whisper = Twice(["Lovely weather."], ["Okay."], scores)
    assert isinstance(hear(ear(whisper), ""), NotRecognized) and whisper.heard == 1


def test_a_first_pass_command_vetoed_stays_vetoed_at_the_second_hearing() -> None:
    # The first pass took "roll the dice"; Whisper wrote talk both times: vetoed, and Whisper
    # writing no words at the second hearing does not let the first pass's command stand.
    whisper = Twice(["Lovely weather tonight."], [""], {"Lovely weather tonight.": -2.0})
    heard = hear(ear(whisper, again_suppressed=4), "roll the dice")
    assert isinstance(heard, NotRecognized), heard
    assert whisper.heard == 2
