"""The one small interface every recognizer offers, and the Ear that judges what it hears.

A recognizer is fed 16 kHz mono int16 audio in blocks of 0.1-0.2 s. It answers a block
with nothing, a ``Partial`` (words so far), or, when it detects the end of an utterance,
a ``Transcript``. ``finish()`` ends the utterance now (end of a file, or the live loop's
own end-of-speech), ``reset()`` drops it (e.g. while the assistant itself speaks).
``set_grammar`` may only be called between utterances; the ``Ear`` guarantees that by
holding a new grammar back until the current utterance is over.

A grammar recognizer's words are checked against the allowed sentences (exact, or snapped
one edit away); a free recognizer's (``free_text``: Whisper) are searched for an allowed
command said inside them (``spotting``). The hybrid listener gives the Ear a
``SecondOpinion``: when the streaming engine doubts, rejects or hears nothing allowed,
Whisper decides on the same utterance's audio, and its transcript can veto a command the
first pass took from table talk.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from assistant.engine import Command
from assistant.hearing.audio import Int16, blocks, suppress_noise
from assistant.hearing.events import Final, NotRecognized, Partial, Transcript
from assistant.hearing.grammar import WordGraph, snap
from assistant.hearing.spotting import Spotter
from assistant.sentences import SentenceSet

#: Words recognizers use for "something that is not in the grammar".
UNKNOWN_WORDS = frozenset({"[unk]", "<unk>", "[noise]", "<noise>"})



class ModelError(RuntimeError):
    """No usable model for an engine: the message says where it was looked for and what to do."""


def written(sentence: str) -> str:
    """A command sentence as Whisper writes one: "attack" -> "Attack." """
    return sentence[:1].upper() + sentence[1:] + "."


def prompt_for(help_sentences: Iterable[str]) -> str:
    """Whisper's prompt: the example sentences of what may be said now."""
    return ", ".join(dict.fromkeys(s.strip() for s in help_sentences if s.strip())) + "."


def prompt_as_sentences(help_sentences: Iterable[str]) -> str:
    """Whisper's last prompt: the same examples, each a sentence of its own ("Pass. Quieter.")."""
    kept = dict.fromkeys(s.strip() for s in help_sentences if s.strip())
    return " ".join(s[0].upper() + s[1:] + "." for s in kept)


@runtime_checkable
class Recognizer(Protocol):
    name: str
    #: True for a recognizer that writes free text (no grammar): the Ear spots commands in it.
    free_text: bool

    def set_grammar(self, graph: WordGraph) -> None:
        """Listen for the sentences of ``graph`` from the next utterance on."""
        ...

    def accept(self, block: bytes) -> Partial | Transcript | None:
        """Take a block of 16 kHz mono int16 audio; a Transcript means the utterance ended."""
        ...

    def finish(self) -> Transcript:
        """End the current utterance and return what was heard (text may be empty)."""
        ...

    def reset(self) -> None:
        """Forget the current utterance."""
        ...

    def doubt(self, partial: str) -> str:
        """Why the partial words of the utterance under way should not be acted on yet ("" if
        they may)."""
        ...

    def unknown_words(self, words: Iterable[str]) -> set[str]:
        """Which of ``words`` the recognizer's model cannot hear."""
        ...


class BaseRecognizer:
    """What a recognizer has unless it knows better: no doubts, every word known, a grammar."""

    name = "recognizer"
    free_text = False

    def doubt(self, partial: str) -> str:
        return ""

    def unknown_words(self, words: Iterable[str]) -> set[str]:
        return set()


class Transcriber(Protocol):
    def transcribe(self, audio: bytes, prompt: str = "") -> str: ...

    def hypotheses(self, audio: bytes, prompt: str = "", count: int = 1) -> list[str]: ...

    def again(self, prompt: str = "", count: int = 1) -> list[str]: ...

    def score(self, texts: Sequence[str], ending: bool = True) -> list[float]: ...


@dataclass
class SecondOpinion:
    """Whisper's say on an utterance (the hybrid listener).

    Whisper's command wins when it spots one. Otherwise a first-pass command stands when what
    Whisper wrote is within ``confirm_distance`` of it (Whisper half-heard the same thing), and
    is vetoed when Whisper wrote words far from it (``veto``: table talk the grammar engine
    forced onto a command).

    Whisper's runners-up (``hypotheses`` > 1, the beam's next best transcripts) speak only
    beside its best one: a command spotted in a runner-up is taken when the best transcript is
    within ``runner_up_distance`` of it ("explore two near one" beside "explore two zero one"),
    whether the first pass heard nothing or a command none of them confirms; and a first-pass
    command stands when any of them comes within ``confirm_distance``. Both chosen on the
    tuning voices with bench/veto_study.py.

    When none of that takes a command, Whisper weighs the commands nearest its transcripts
    (``score_nearest`` per transcript, at most ``score_distance`` away, and the first pass's):
    the one it finds most likely as what was said is taken when that likelihood is within
    ``score_within`` (natural log) of its own best transcript's and ``score_margin`` above every
    other candidate's. Beam search ranks transcripts by their mean token likelihood, which lets
    a longer mishearing ("Hit that.") beat a short command ("Attack.") that Whisper, summed over
    its tokens, finds more likely. ``score_nearest`` 0 turns this off. When the likeliest is the
    command the first pass heard, two recognizers agree on it, and it needs only be within
    ``first_within`` (wider): "Call for interchange." is far likelier to Whisper than "Call
    orange james.", but no other candidate comes near that, and the first pass heard it.

    The prompt pulls Whisper towards the game's words, and sometimes past them: prompted with
    the card game's sentences it wrote "Enemy's defense is seventeen one." where, unprompted, it
    wrote "Enemy's defense is 71." So when nothing is spotted in the prompted transcript,
    Whisper writes the same audio once more without the prompt (``unprompted``; the decoding
    alone, the audio's encoding is kept) and a command spotted there is taken, before the first
    pass's command is confirmed or vetoed. Chosen on the tuning voices with bench/veto_study.py.

    Last, when nothing at all has taken a command (the first pass's would be vetoed), Whisper
    writes the audio once more prompted with the same examples each as a sentence of its own
    ("Pass. Quieter. Phone keypad.") rather than as one list, and a command spotted there is
    taken (``as_sentences``) when Whisper, under the first prompt, finds it at most
    ``as_sentences_within`` less likely than its own best transcript: a short command alone is
    likelier to be written as one ("Quieter." where the list prompt gave "Wider."), and so, in
    loud babble, is a command nobody said ("Keep going." for "repeat after me", which Whisper
    finds likelier than what it wrote first). On the tuning voices (bench/veto_study.py
    --restyle) it took 12 more of 735 commands and one more of 448 table-talk clips, so it is
    off when listening always and on with push-to-talk, where table talk is not heard. Tried
    before everything else it took more wrong commands than it gave right ones
    (bench/prompt_study.py).

    ``again_suppressed`` (1-4; 0: off): when all that took no command, Whisper hears the
    utterance once more through WebRTC's noise suppressor at that level (audio.suppress_noise)
    and decides alone on what it writes then, as if the first pass had heard nothing: noise it
    could not write through the first time may be gone (a command already taken is never heard
    again), and a first-pass command it vetoed stays vetoed (given a second chance, Whisper's
    weighing took "repeat" for "repeat after me"), and a command it weighs must come within
    ``again_within`` of its own transcript (tighter than ``score_within``: on the tuning voices'
    records, bench/veto_study.py, 4 took one table-talk line more, 3 none and 2 commands fewer
    than 4, no weighing 8 fewer). It costs one more hearing of the utterance, only when nothing
    was taken."""

    transcriber: Transcriber
    spotter: Spotter
    veto: bool = True
    confirm_distance: float = 0.4
    max_seconds: float = 15.0
    hypotheses: int = 3
    runner_up_distance: float = 0.6
    score_nearest: int = 3
    score_distance: float = 1.2  # tiny.en's (HearingSettings.weigh_distance gives the model's)
    score_within: float = 4.0
    score_margin: float = 3.0
    first_within: float = 14.0
    unprompted: bool = True
    as_sentences: bool = False
    as_sentences_within: float = 4.0
    again_suppressed: int = 0
    again_within: float = 3.0


class Ear:
    """A recognizer plus the game's sentences: audio in, allowed commands (or nothing) out.

    Every final transcript is checked against the intents allowed now: an exact sentence
    passes, a near miss is snapped to the single command it can only mean, and [unk],
    low confidence, silence, ambiguity or a command not allowed now give NotRecognized.
    """

    def __init__(self, recognizer: Recognizer, sentences: SentenceSet, intents: Iterable[str] | None = None,
                 *, snap_edits: int = 1, min_confidence: float = 0.0, spotter: Spotter | None = None,
                 second: SecondOpinion | None = None) -> None:
        self.recognizer = recognizer
        self.sentences = sentences
        self.snap_edits = snap_edits
        self.min_confidence = min_confidence
        self.second = second
        self.spotter = spotter or (second.spotter if second is not None else None)
        if recognizer.free_text and self.spotter is None:
            self.spotter = Spotter(sentences)
        self._audio: list[bytes] = []
        self._audio_bytes = 0
        self.graph = WordGraph(sentences, intents)
        self._pending: WordGraph | None = None
        self._in_utterance = False
        self._graphs: dict[frozenset[str], WordGraph] = {self.graph.intents: self.graph}
        recognizer.set_grammar(self.graph)

    @property
    def intents(self) -> frozenset[str]:
        return (self._pending or self.graph).intents

    def set_intents(self, intents: Iterable[str]) -> None:
        """Listen for these intents from the next utterance on (now, if none is under way)."""
        key = frozenset(n for n in self.sentences.intents if n in set(intents))
        if key == self.intents:
            return
        graph = self._graphs.get(key)
        if graph is None:
            graph = self._graphs[key] = WordGraph(self.sentences, key)
        if self._in_utterance:
            self._pending = graph
        else:
            self._use(graph)

    def _use(self, graph: WordGraph) -> None:
        self._pending = None
        if graph is not self.graph:
            self.graph = graph
            self.recognizer.set_grammar(graph)

    def _between_utterances(self) -> None:
        self._in_utterance = False
        self._audio, self._audio_bytes = [], 0
        if self._pending is not None:
            self._use(self._pending)

    def _keep(self, block: bytes) -> None:
        """The utterance's audio, for the second opinion (the last ``max_seconds`` of it)."""
        if self.second is None:
            return
        self._audio.append(block)
        self._audio_bytes += len(block)
        limit = int(self.second.max_seconds * 16_000 * 2)
        while self._audio_bytes - len(self._audio[0]) > limit:
            self._audio_bytes -= len(self._audio.pop(0))

    def feed(self, block: bytes) -> Partial | Final | None:
        self._in_utterance = True
        self._keep(block)
        event = self.recognizer.accept(block)
        if isinstance(event, Transcript):
            final = self.decide(event)  # under the grammar it was spoken under
            self._between_utterances()
            return final
        if isinstance(event, Partial):
            words = self.sentences.words(event.text)
            complete = (bool(words) and self.sentences.match(words, self.graph.intents) is not None
                        and not self.sentences.is_prefix(words, self.graph.intents))
            return Partial(event.text, complete)
        return None

    def finish(self) -> Final:
        final = self.decide(self.recognizer.finish())
        self._between_utterances()
        return final

    def reset(self) -> None:
        self.recognizer.reset()
        self._between_utterances()

    def hear(self, samples: Int16, block_seconds: float = 0.1) -> Final:
        """One whole utterance (a file, a test clip): the first final result, or the end's."""
        result: Final | None = None
        for block in blocks(np.asarray(samples, dtype=np.int16), block_seconds):
            event = self.feed(block)
            if isinstance(event, Transcript):
                self.reset()  # the rest of the clip is not part of the next one
                return event
            if isinstance(event, NotRecognized) and result is None and event.heard:
                result = event
        final = self.finish()
        if isinstance(final, NotRecognized) and result is not None:
            return result  # what the speech was heard as, not its echo's ("Okay." for a room's tail)
        return final

    def doubt(self, partial: str) -> str:
        """Why the partial words of the utterance under way should not be acted on yet ("" if
        they may): the recognizer's own check (for answering early)."""
        return self.recognizer.doubt(partial)

    def unknown_words(self) -> list[str]:
        """Words of the game's sentences the recognizer's model cannot hear (checked at start-up)."""
        return sorted(self.recognizer.unknown_words(self.sentences.vocabulary()))

    def decide(self, transcript: Transcript) -> Final:
        """The first pass's judgement, and the second opinion's where there is one: Whisper
        decides when the first pass took nothing, and may veto what it took."""
        first = self.judge(transcript)
        if self.second is None:
            return first
        audio = b"".join(self._audio)
        if len(audio) < 16_000 * 2 // 5:  # under 0.2 s: nothing to say about
            return first
        final = self._second_opinion(first, audio)
        level = self.second.again_suppressed
        if level and not (isinstance(final, Transcript) and final.command is not None):
            cleaned = suppress_noise(np.frombuffer(audio, dtype=np.int16), level).tobytes()
            # Whisper alone decides the second time: a first-pass command it vetoed stays vetoed
            alone = (NotRecognized(first.text, "vetoed by Whisper", first.confidence)
                     if isinstance(first, Transcript) and first.command is not None else first)
            again = self._second_opinion(alone, cleaned, within=self.second.again_within)
            if isinstance(again, Transcript) and again.command is not None:
                return again
        return final

    def _second_opinion(self, first: Final, audio: bytes, within: float | None = None) -> Final:
        """Whisper's say on ``audio`` beside the first pass's judgement ``first`` (see decide);
        ``within``: how far below Whisper's own transcript a weighed command may be, when not
        ``score_within`` (the second hearing, through the suppressor: ``again_within``)."""
        second = self.second
        assert second is not None
        texts = second.transcriber.hypotheses(audio, self._prompt(), second.hypotheses) or [""]
        text = texts[0]
        opinion = self.spot(text)
        if isinstance(opinion, Transcript):
            return opinion
        if second.unprompted:
            plain = second.transcriber.again("", 1)
            spotted = self.spot(plain[0]) if plain else opinion
            if isinstance(spotted, Transcript):
                return spotted
        if isinstance(first, Transcript) and first.command is not None:
            if not second.veto or not self.sentences.words(text):
                return first  # Whisper heard nothing to speak against it
            distance = min(second.spotter.distance(t, first.command) for t in texts)
            if distance <= second.confirm_distance:
                return first  # Whisper (half-)heard the same command
            weighed = self._runner_up(texts) or self._weigh(texts, first) or self._as_sentences(texts)
            if weighed is not None:
                return weighed
            return NotRecognized(text, f"vetoed {first.text!r}: Whisper heard {text!r} "
                                       f"({distance:.2f} from it)", first.confidence)
        weighed = (self._runner_up(texts) or self._weigh(texts, None, within)
                   or self._as_sentences(texts))
        if weighed is not None:
            return weighed
        if "not allowed now" in opinion.reason or not isinstance(first, NotRecognized):
            return opinion
        return NotRecognized(first.heard or text, f"{first.reason}; Whisper heard {text!r}: {opinion.reason}",
                             first.confidence, first.alternatives)

    def _runner_up(self, texts: list[str]) -> Transcript | None:
        """A command spotted in one of Whisper's lesser transcripts that its best transcript is
        near ("Alice landed on the Intruder." below "Finally landed on the Intruder."), or None.
        Asked whether the first pass heard nothing or a command Whisper does not confirm."""
        second = self.second
        assert second is not None
        for other in texts[1:]:
            spotted = self.spot(other)
            if (isinstance(spotted, Transcript) and spotted.command is not None
                    and second.spotter.distance(texts[0], spotted.command) <= second.runner_up_distance):
                return Transcript(spotted.text, spotted.confidence, texts[0], spotted.command, True)
        return None

    def _as_sentences(self, texts: list[str]) -> Transcript | None:
        """The last try (``SecondOpinion.as_sentences``): the command spotted in what Whisper
        writes of the same audio prompted with each allowed example as a sentence, when Whisper,
        under the first prompt, finds it within ``as_sentences_within`` as likely as its own best
        transcript ``texts[0]``; or None."""
        second = self.second
        assert second is not None
        if not second.as_sentences:
            return None
        again = second.transcriber.again(prompt_as_sentences(self.sentences.help_for(self.graph.intents)), 1)
        spotted = self.spot(again[0]) if again else None
        if not isinstance(spotted, Transcript) or spotted.command is None:
            return None
        score = second.transcriber.score([written(spotted.text)])[0]
        own = second.transcriber.score([texts[0]], ending=False)[0]
        if own == -math.inf or score < own - second.as_sentences_within:
            return None
        return Transcript(spotted.text, spotted.confidence, again[0], spotted.command, True)

    def _weigh(self, texts: list[str], first: Transcript | None, within: float | None = None) -> Transcript | None:
        """The command Whisper itself scores as what was said, among those nearest its
        transcripts and the first pass's (see SecondOpinion), or None; ``within`` instead of
        ``score_within`` / ``first_within`` when given (see _second_opinion)."""
        second = self.second
        assert second is not None
        if second.score_nearest <= 0 or not self.sentences.words(texts[0]):
            return None
        candidates: dict[Command, str] = {}
        if first is not None and first.command is not None:
            candidates[first.command] = first.text  # as the first pass heard it
        for text in texts:
            for near in second.spotter.nearest(text, self.graph.intents, second.score_nearest):
                if near.command is not None and near.distance <= second.score_distance:
                    candidates.setdefault(near.command, near.sentence)
        if not candidates:
            return None
        scores = second.transcriber.score([written(s) for s in candidates.values()])
        ranked = sorted(((score, item) for score, item in zip(scores, candidates.items(), strict=True)
                         if score > -math.inf), key=lambda x: -x[0])
        if not ranked:
            return None  # Whisper would go on writing after each of them
        # Whisper's own best transcript, its tokens alone (it may not end where the beam ended it)
        own = second.transcriber.score([texts[0]], ending=False)[0]
        best, (command, sentence) = ranked[0]
        runner_up = ranked[1][0] if len(ranked) > 1 else -math.inf
        agreed = first is not None and command == first.command  # the first pass heard it too
        if within is None:
            within = max(second.score_within, second.first_within) if agreed else second.score_within
        if best < own - within or best - runner_up < second.score_margin:
            return None
        return Transcript(sentence, 0.5, texts[0], command, True)

    def _prompt(self) -> str:
        return prompt_for(self.sentences.help_for(self.graph.intents))

    def spot(self, text: str) -> Final:
        """The allowed command said somewhere in free text, or why there is none (a command the
        rules do not allow now is named, so its reason can be spoken)."""
        assert self.spotter is not None
        heard = text.strip()
        found = self.spotter.spot(heard, self.graph.intents)
        if found.command is not None:
            return Transcript(found.sentence, max(0.0, 1.0 - found.distance), heard, found.command,
                              found.distance > 0)
        if found.sentence and self.sentences.words(heard):
            anywhere = self.spotter.spot(heard)
            if anywhere.command is not None and anywhere.command.intent not in self.graph.intents:
                return NotRecognized(anywhere.sentence, f"{anywhere.command.intent} is not allowed now",
                                     0.0)
        return NotRecognized(heard, found.reason or "nothing heard", 0.0)

    def judge(self, transcript: Transcript) -> Final:
        """The allowed command a recognizer's transcript stands for, or why there is none."""
        if self.recognizer.free_text:
            return self.spot(transcript.text)
        heard = transcript.text.strip()
        words = self.sentences.words(heard)
        if not words:
            return NotRecognized(heard, "nothing heard", transcript.confidence)
        if UNKNOWN_WORDS & set(heard.lower().split()):
            return NotRecognized(heard, "words outside the commands", transcript.confidence)
        if transcript.doubt:
            return NotRecognized(heard, transcript.doubt, transcript.confidence)
        if transcript.confidence < self.min_confidence:
            return NotRecognized(heard, f"low confidence {transcript.confidence:.2f}", transcript.confidence)
        result = snap(words, self.graph, self.sentences, self.snap_edits)
        if result.command is None:
            anywhere = self.sentences.match(words)
            reason = (f"{anywhere.intent} is not allowed now" if anywhere is not None else result.reason)
            return NotRecognized(heard, reason, transcript.confidence, result.candidates)
        return Transcript(result.text, transcript.confidence, heard, result.command, result.edits > 0)
