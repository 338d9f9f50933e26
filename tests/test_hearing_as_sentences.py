"""The hybrid's last try on the free text (``as_sentences``, push-to-talk's): Whisper writes the
audio once more prompted with each example as a sentence, and a command spotted there is taken,
with doubt, when Whisper finds it likely enough beside its first transcript (logic, with a
transcriber whose transcripts and scores are given; real audio is in test_hearing_whisper)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from assistant.engine import Command
from assistant.games import game_module
from assistant.hearing import HearingSettings
from assistant.hearing.events import Doubted, NotRecognized, Transcript
from assistant.hearing.recognizer import Ear, SecondOpinion, prompt_as_sentences
from assistant.hearing.spotting import Spotter
from assistant.hearing.text_engine import TextRecognizer

CARDS = game_module("msx-cards").sentences()


class Given:
    """Writes the given transcripts (``styled`` when asked again under a prompt); scores a text
    by the table (unknown texts: very unlikely)."""

    def __init__(self, texts: list[str], scores: dict[str, float], styled: list[str] | None = None) -> None:
        self.texts = texts
        self.scores = scores
        self.styled = styled or []
        self.scored: list[str] = []
        self.asked_again: list[str] = []

    def transcribe(self, audio: bytes, prompt: str = "") -> str:
        return self.texts[0]

    def hypotheses(self, audio: bytes, prompt: str = "", count: int = 1, whole: bool = True) -> list[str]:
        return self.texts[:count]

    def again(self, prompt: str = "", count: int = 1) -> list[str]:
        self.asked_again.append(prompt)
        return self.styled[:count] if prompt else []

    def score(self, texts: Sequence[str], ending: bool = True) -> list[float]:
        self.scored += list(texts)
        return [self.scores.get(t, -100.0) for t in texts]

    def let_go(self) -> None:
        pass


def ear(transcriber: Given, **settings: float) -> Ear:
    """An Ear whose second opinion comes from ``transcriber``: the free text's stages, the closed
    check off, no budget to keep to."""
    hearing = HearingSettings(**{"budget_seconds": 100.0, "closed": False, **settings})  # type: ignore[arg-type]
    return Ear(TextRecognizer(), CARDS, second=SecondOpinion(transcriber, Spotter(CARDS), hearing))


def hear(e: Ear, first_pass: str) -> Transcript | NotRecognized:
    """What the Ear decides on one second of audio the first pass wrote as ``first_pass``."""
    e._audio = [np.zeros(16_000, dtype=np.int16).tobytes()]
    return e.decide(Transcript(first_pass, 1.0 if first_pass else 0.0))


def test_the_last_try_writes_the_audio_again_prompted_with_sentences() -> None:
    # Nothing spotted in "Wider.": Whisper writes it once more prompted with each example as a
    # sentence; "Quieter." is taken, as Whisper finds it, under the first prompt, 3 less likely
    # than "Wider." (within as_sentences_within 4). Whisper alone took it: it is doubted.
    scores = {"Wider.": -5.0, "Quieter.": -8.0, "Louder.": -8.0}
    whisper = Given(["Wider."], scores, styled=["Quieter."])
    e = ear(whisper, as_sentences=True)
    heard = hear(e, "")
    assert isinstance(heard, Doubted) and heard.command == Command("quieter", {}), heard
    assert "as_sentences" in heard.why, heard.why
    assert whisper.asked_again == [prompt_as_sentences(CARDS.help_for(e.graph.intents))]
    assert "Quieter." in whisper.asked_again[0].split(" ")
    assert "Quieter." in whisper.scored and "Wider." in whisper.scored  # weighed against the first transcript
    # far less likely than what Whisper wrote, off (the default), or talk: nothing is taken
    unlikely = {**scores, "Quieter.": -14.0, "Louder.": -14.0}
    for whisper, settings in ((Given(["Wider."], unlikely, styled=["Quieter."]), {"as_sentences": True}),
                              (Given(["Wider."], scores, styled=["Quieter."]),
                               {"as_sentences": True, "as_sentences_within": 2.0}),
                              (Given(["Wider."], scores, styled=["Quieter."]), {}),
                              (Given(["Wider."], scores, styled=["I like it wider."]), {"as_sentences": True})):
        assert isinstance(hear(ear(whisper, **settings), ""), NotRecognized), settings
    off = Given(["Wider."], scores, styled=["Quieter."])
    hear(ear(off), "")
    assert off.asked_again == [] and off.scored == []  # off: Whisper is not asked again
