"""PocketSphinx: the recognizer that needs no download (its English model is in the wheel).

The grammar is the game's word graph as a finite-state grammar, plus one more way
through: a loop of common English words ("the", "you", "what", ...) and of table talk
("five", "dice", "turn") that are not command words. Chatter then decodes to those words,
which the Ear rejects, instead of being forced onto the nearest command. The loop's entry
and repeat probabilities set how readily speech counts as chatter (``chatter_entry``,
``chatter_loop``).

PocketSphinx's voice-activity endpointer finds where an utterance ends. While it lasts, a
live pass gives partial results; at its end the whole utterance is decoded once more in
one piece (its noise and loudness normalized as a whole), after a moment of noise as loud
as its quietest part, and with everything far quieter than the speaker (background talk)
gated out. Those three steps are what keep it usable in noise; see bench/bench_accuracy.py.
That decode searches the grammar as its smallest deterministic automaton
(``WordGraph.minimal``: the same sentences, each as likely, a shared word searched once); the
live pass keeps the graph's own chances word by word, whose partial words the early answers
were tuned on, with only the states entered by the same word and with the same ways on made
one (``WordGraph.shared_ends``: a sentence's end that many share is searched once, and the live
pass's best words stay the graph's). Both
read their words by the search's own best path (Viterbi): PocketSphinx's best-path search of
the word lattice cost seconds for long talk through the chatter loop.

Last, a check that what was heard sounds like it (``phone_check``): the same audio is
decoded once more as free phones (PocketSphinx's phone loop, no words), and a command whose
pronunciation is too many edits away from those phones, per phone of the command, is
doubted and gives no action. Table talk forced onto a short command ("shall we order some
food" heard as "teleport") has far more phones than the command; a command said is close
to its own phones even when the phone decoder gets a few wrong.

The one-piece decode and the phone check run on decoders of their own through PocketSphinx's C
API (``side_decoder.py``: the Python binding holds the GIL while it decodes). In the hybrid the
one-piece decode starts at the end of speech on a thread of its own (``read_ahead``), beside
Whisper's look at the utterance, and is mostly done when a stage needs the first pass's
reading. On a machine with four cores or more (``SIDE_CORES``) the phone check's decode
starts then too, on a second side decoder and thread (for nothing when the reading finds no
command to check); on fewer it follows the one-piece decode on its thread.
"""

from __future__ import annotations

import functools
import logging
import os
import re
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
import yaml

from assistant.hearing.audio import SpeechEdges, as_int16
from assistant.hearing.events import Deferred, Partial, Transcript
from assistant.hearing.grammar import WordGraph
from assistant.hearing.pronouncing import pronouncing
from assistant.hearing.recognizer import BaseRecognizer
from assistant.hearing.settings import setting_field
from assistant.hearing.side_decoder import NOT_SPEECH, Reading, SideDecoder, SideDecoderError, Transition

#: Bytes of noise (0.3 s) put before each utterance (PocketSphinx estimates the noise from it).
LEAD_IN_BYTES = 2 * int(16_000 * 0.3)
#: The cores a machine needs for the phone check's decode on a thread of its own beside the
#: reading's and Whisper's (a Raspberry Pi's four; on two, three threads at once slow Whisper's
#: answer: bench_latency, 0.71 s against 0.63 s for one Whisper decides)
SIDE_CORES = 4
#: The most of an utterance the end-of-speech reading and the phone check decode (its last 30 s,
#: as Whisper hears it): each is one native call that holds the interpreter, and a command is
#: never that long (minutes of talk read in one piece took seconds, which Ctrl-C waited out).
READ_BYTES = 2 * 16_000 * 30
#: Marks a chatter word in a transcript (the Ear rejects anything with it).
UNKNOWN = "[unk]"


def phone_distance(heard: Sequence[str], said: Sequence[str]) -> float:
    """Edits (phones left out, added or changed) that turn ``said`` into ``heard``, per phone
    of ``said``: 0 is the same phones, 1 as many edits as ``said`` has phones."""
    if not said:
        return float("inf")
    row = list(range(len(said) + 1))
    for i, h in enumerate(heard, 1):
        diagonal, row[0] = row[0], i
        for j, p in enumerate(said, 1):
            diagonal, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diagonal + (h != p))
    return row[-1] / len(said)


def _word_lists() -> dict[str, list[str]]:
    text = resources.files("assistant.hearing").joinpath("common_words.yaml").read_text(encoding="utf-8")
    return {key: [str(w) for w in value] for key, value in yaml.safe_load(text).items()}


def common_words() -> list[str]:
    """The chatter words, most frequent first (committed data; see ``make_common_words``)."""
    return _word_lists()["words"]


def table_words() -> list[str]:
    """Words of table talk that are always chatter (numbers, dice, cards, turns)."""
    return _word_lists()["table_words"]


def make_common_words(n: int = 300) -> list[str]:
    """The ``n`` most probable words of PocketSphinx's bundled English language model that its
    dictionary can say: how common_words.yaml was made (not used at run time)."""
    from pocketsphinx import Config, LogMath, NGramModel, get_model_path

    folder = Path(get_model_path()) / "en-us"
    config, logmath = Config(), LogMath()  # kept alive: the model points into both
    lm = NGramModel(config, logmath, str(folder / "en-us.lm.bin"))
    with (folder / "cmudict-en-us.dict").open(encoding="utf-8") as f:
        words = {line.split()[0] for line in f if line.strip() and "(" not in line.split()[0]}
    scored = sorted((-lm.prob([w]), w) for w in words if re.fullmatch(r"[a-z][a-z']*", w))
    return [w for _, w in scored[:n]]


def gate(audio: bytes, below_db: float, floor: float, seed: int = 0,
         before_s: float = 0.05, after_s: float = 0.1) -> bytes:
    """Quiet everything more than ``below_db`` under the loudest moment (bar a margin around
    the loud parts, for soft consonants): a faint noise floor takes its place.

    The player talking to the assistant is the loudest voice in the utterance. PocketSphinx
    normalizes loudness away, so quieter talk in the background would otherwise be heard as
    more command words ("pass" heard as "oh and oh and")."""
    x = np.frombuffer(audio, dtype=np.int16).astype(np.float64)
    frame = 160  # 10 ms
    n = len(x) // frame
    if n < 10:
        return audio
    level = 10 * np.log10((x[:n * frame].reshape(n, frame) ** 2).mean(axis=1) + 1.0)
    loud = level >= level.max() - below_db
    keep = np.zeros(n, dtype=bool)
    for i in np.flatnonzero(loud):
        keep[max(i - int(before_s * 100), 0):i + int(after_s * 100) + 1] = True
    gain = np.repeat(keep.astype(np.float64), frame)
    gain = np.convolve(gain, np.ones(80) / 80, mode="same")  # 5 ms fades
    gain = np.concatenate([gain, np.ones(len(x) - len(gain))])
    quiet = np.random.default_rng(seed).normal(0.0, floor, len(x))
    out = x * gain + quiet * (1.0 - gain)
    return as_int16(out).tobytes()


@dataclass
class PocketSphinxTuning:
    """PocketSphinx's knobs: the settings ``hearing.pocketsphinx.*`` (each field named as its key's
    last part, its default the declared one), then constants chosen on the benchmark."""

    chatter_words: int = setting_field("hearing.pocketsphinx.chatter_words")  # beside the commands
    chatter_entry: float = setting_field("hearing.pocketsphinx.chatter_entry")  # how readily the loop is entered ...
    chatter_loop: float = setting_field("hearing.pocketsphinx.chatter_loop")  # ... and stayed in
    #: faint noise added (digital silence is misread)
    noise_floor: float = setting_field("hearing.pocketsphinx.noise_floor")
    #: a command that sounds this unlike itself is doubted ...
    phone_check: float = setting_field("hearing.pocketsphinx.phone_check")
    #: ... and before answering early
    early_phone_check: float = setting_field("hearing.pocketsphinx.early_phone_check")
    gate_db: float = 20.0           # quieter talk than this under the loudest is quieted
    #: Narrower beams than PocketSphinx's defaults (1e-48 / 7e-29): about three times faster
    #: with the chatter loop, at the same accuracy on the benchmark's development set.
    beam: float = 1e-30
    word_beam: float = 1e-20
    seed: int = 0                   # of the noise floor: the same utterance is heard the same
    #: start the reading's decodes at the end of speech on cores of their own (side_decoder.py):
    #: the phone check's always, the one-piece decode's with ``defer_reading``, ready when a stage
    #: needs them, Whisper having looked at the utterance meanwhile (False: decoded when asked,
    #: as bench_cost times them)
    read_ahead: bool = True


class PocketSphinxRecognizer(BaseRecognizer):
    """PocketSphinx with a grammar from the sentence templates and a chatter-word loop."""

    name = "pocketsphinx"

    def __init__(self, tuning: PocketSphinxTuning | None = None) -> None:
        from pocketsphinx import Decoder, get_model_path

        self.tuning = t = tuning or PocketSphinxTuning()
        # No pronouncing dictionary of its own (PocketSphinx's copy of CMUdict costs 21 MB): the
        # words its grammars use are added as they come, from the file looked up in Python.
        self.dictionary = pronouncing(Path(get_model_path()) / "en-us" / "cmudict-en-us.dict")
        self.decoder = Decoder(loglevel="FATAL", lm=None, dict=os.devnull, beam=t.beam, pbeam=t.beam,
                               wbeam=t.word_beam)
        self._words_added: set[str] = set()
        # The end of speech reads on a decoder of its own, loaded now (about 0.3 s): through the C
        # API, so that it decodes beside Python (side_decoder.py); else through the binding.
        self._side: SideDecoder | None = None
        #: a second one for the phone check, which then decodes beside the reading (each on a core)
        self._phone_side: SideDecoder | None = None
        #: the phone check's decode the end of speech started: (its audio, its phones to come)
        self._phones_ahead: tuple[bytes, Future[list[str]]] | None = None
        self._phone_decoder: Decoder | None = None
        #: why the end of speech decodes through the binding ("" when through the C API)
        self.side_problem = ""
        try:
            self._side = SideDecoder(t.beam, t.word_beam)
            # the phone check decodes on a side decoder and thread of its own, beside the reading,
            # where the machine has the cores for both beside Whisper's threads; else after it
            beside = (os.cpu_count() or 1) >= SIDE_CORES
            self._phone_side = SideDecoder(t.beam, t.word_beam) if beside else None
        except SideDecoderError as error:
            self._side = None
            self.side_problem = str(error)
            logging.getLogger(__name__).warning("The first pass reads through PocketSphinx's Python binding, on the "
                                                "way to the answer rather than beside Whisper: %s", error)
            phone_lm = Path(get_model_path()) / "en-us" / "en-us-phone.lm.bin"
            # No pronouncing dictionary: the phone loop needs none, and its own copy would cost 22 MB.
            self._phone_decoder = Decoder(loglevel="FATAL", lm=None, allphone=str(phone_lm), lw=2.0,
                                          dict=os.devnull, beam=t.beam, pbeam=t.beam, wbeam=t.word_beam)
        self._rng = np.random.default_rng(t.seed)
        self._common = common_words()
        self._table = table_words()
        self._searches: dict[frozenset[str], tuple[str, set[str]]] = {}
        self._read_search = ""  # the search the end of speech decodes with (``_read``)
        self._chatter: set[str] = set()
        self.missing_words: set[str] = set()
        self._started = False
        self._last_partial = ""
        self._utterance: list[bytes] = []
        self._background: deque[bytes] = deque()
        self._edges = SpeechEdges()

    def unknown_words(self, words: Iterable[str]) -> set[str]:
        """Words the pronouncing dictionary lacks (sentences with them cannot be heard)."""
        return {w for w in words if not self.dictionary.variants(w)}

    def pronunciation(self, word: str) -> str | None:
        """``word``'s first pronunciation in the dictionary (space-separated phones)."""
        return next(iter(self.dictionary.variants(word)), None)

    @property
    def chatter_words(self) -> frozenset[str]:
        """The chatter loop's words in the current grammar."""
        return frozenset(self._chatter)

    # ----------------------------------------------------------------- grammar

    def set_grammar(self, graph: WordGraph) -> None:
        if graph.intents not in self._searches:
            name = f"g{len(self._searches)}"
            # No search reads its words by a best-path search of its word lattice (seconds for long
            # talk through the chatter loop): the live pass's partial words never do, its final
            # words are not read, and the reading takes the search's own best path.
            config = self.decoder.config
            config["bestpath"] = False
            live = graph.shared_ends()
            # the words of commands refused now are chatter in the reading of a whole utterance,
            # which decides; not in the live pass, whose partial words answer early
            transitions, chatter = self._transitions(graph, *live)
            self._add_search(name, *live[:2], transitions)
            read = graph.minimal()
            read_transitions, read_chatter = self._transitions(graph, *read, refused=True)
            chatter |= read_chatter
            if self._side is not None:
                self._add_side(f"{name}m", *read[:2], read_transitions)
            else:
                self._add_search(f"{name}m", *read[:2], read_transitions)
            config["bestpath"] = True
            self._searches[graph.intents] = (name, chatter)
        name, self._chatter = self._searches[graph.intents]
        self._read_search = f"{name}m"
        self.decoder.activate_search(name)

    def _pronunciations(self, word: str) -> set[str]:
        return set(self._variants(word))

    def _chatter_words(self, vocabulary: set[str], refused: Iterable[str] = ()) -> set[str]:
        """Common words that neither are nor sound exactly like a command word; and the words of
        the commands the rules refuse now (``refused``: the game's other words) that do not sound
        like an allowed one. Without them a refused command ("read capsules" where only "repeat"
        and a few more may be said) could only be heard as an allowed command, forced onto the
        nearest; as chatter, the first pass takes nothing and Whisper's stages name it."""
        taken = set().union(*(self._pronunciations(w) for w in vocabulary)) if vocabulary else set()

        def free(word: str) -> bool:
            sounds = self._pronunciations(word)
            return bool(sounds) and word not in vocabulary and not sounds & taken

        chosen = [w for w in self._common if free(w)][:self.tuning.chatter_words]
        if self.tuning.chatter_words:
            chosen += [w for w in self._table if free(w) and w not in chosen]
            chosen += [w for w in sorted(refused) if free(w) and w not in chosen]
        return set(chosen)

    def _transitions(self, graph: WordGraph, start: int, final: int,
                     ways: list[tuple[int, int, float, str | None]],
                     refused: bool = False) -> tuple[list[Transition], set[str]]:
        """A finite-state search's transitions: the automaton ``ways`` (the graph's own transitions,
        or its smallest deterministic form) plus the chatter loop from ``start`` to ``final``
        (with the words of the commands refused now when ``refused``); and the chatter loop's
        words."""
        vocabulary = graph.vocabulary()
        missing = self.unknown_words(vocabulary)
        self.missing_words |= missing
        transitions: list[Transition] = []
        for src, dst, prob, word in ways:
            if word is None:
                transitions.append((src, dst, prob))
            elif word not in missing:
                transitions.append((src, dst, prob, word))
        chatter = sorted(self._chatter_words(vocabulary, graph.refused_vocabulary() if refused else ()))
        if chatter:
            loop = 1 + max([start, final, *(max(src, dst) for src, dst, *_ in ways)])
            for word in chatter:
                transitions.append((start, loop, self.tuning.chatter_entry / len(chatter), word))
                transitions.append((loop, loop, self.tuning.chatter_loop / len(chatter), word))
            transitions.append((loop, final, 1.0))
        return transitions, set(chatter)

    def _add_search(self, name: str, start: int, final: int, transitions: list[Transition]) -> None:
        """The grammar ``name`` in the live pass's decoder, with the words it did not have yet."""
        for word, phones in self._spoken(transitions, self._words_added).items():
            self.decoder.add_word(word, phones, False)
            self._words_added.add(word)
        fsg = self.decoder.create_fsg(name, start, final, transitions)
        self.decoder.add_fsg(name, fsg)

    def _add_side(self, name: str, start: int, final: int, transitions: list[Transition]) -> None:
        """The grammar ``name`` in the side decoder, with its words' pronunciations."""
        assert self._side is not None
        self._side.add_words(self._spoken(transitions, set(self._side.pronunciations)))
        self._side.add_grammar(name, start, final, transitions)

    def _spoken(self, transitions: list[Transition], known: set[str]) -> dict[str, str]:
        """The pronunciations of the words of ``transitions`` that are not in ``known``, as a
        decoder's dictionary names them (``word``, then ``word(2)``... for the others)."""
        spoken: dict[str, str] = {}
        for word in sorted({t[3] for t in transitions if len(t) == 4} - known):
            for n, phones in enumerate(self._variants(word)):
                spoken[word if n == 0 else f"{word}({n + 1})"] = phones
        return spoken

    def _variants(self, word: str) -> list[str]:
        """``word``'s pronunciations in the dictionary's order (``word``, ``word(2)``...)."""
        return self.dictionary.variants(word)

    # ----------------------------------------------------------------- audio

    def _floor(self, block: bytes) -> bytes:
        """Add a faint noise floor: the acoustic model misreads digital silence (exact zeros)."""
        samples = np.frombuffer(block, dtype=np.int16).astype(np.float64)
        if self.tuning.noise_floor > 0:
            samples = samples + self._rng.normal(0.0, self.tuning.noise_floor, samples.shape)
        return as_int16(samples).tobytes()

    def _start(self) -> None:
        """Begin an utterance with the audio heard just before the endpointer noticed speech
        (the onset of the first word and some background), after a moment of noise as loud as
        the quietest of it: PocketSphinx estimates the noise from what comes first, and a file
        may start straight with speech."""
        before = b"".join(self._background)
        self._background.clear()
        self._utterance = [self._comfort_noise(before), before]
        self._started = True
        self._last_partial = ""
        self.decoder.start_utt()
        self.decoder.process_raw(b"".join(self._utterance))

    def _comfort_noise(self, audio: bytes) -> bytes:
        x = np.frombuffer(audio, dtype=np.int16).astype(np.float64)
        n = len(x) // 160
        quietest = np.sqrt(np.percentile((x[:n * 160].reshape(n, 160) ** 2).mean(axis=1), 10)) if n else 0.0
        level = max(quietest, self.tuning.noise_floor)
        noise = self._rng.normal(0.0, level, LEAD_IN_BYTES // 2)
        return as_int16(noise).tobytes()

    def _add(self, frame: bytes) -> None:
        if not self._started:
            self._background.append(frame)
            while sum(map(len, self._background)) > 2 * LEAD_IN_BYTES:
                self._background.popleft()
            return
        self._utterance.append(frame)
        self.decoder.process_raw(frame)

    def accept(self, block: bytes) -> Partial | Transcript | None:
        for frame, was_speaking, speaking in self._edges.frames(self._floor(block)):
            self._add(frame)
            if speaking and not self._started:
                self._start()
            elif was_speaking and not speaking and self._started:
                self._edges.hold_rest()  # the next utterance may begin in this block
                return self._end()  # the utterance ends with the silence that ended it
        return self._partial() if self._started else None

    def _partial(self) -> Partial | None:
        hyp = self.decoder.hyp()
        text = self._words(hyp.hypstr) if hyp is not None else ""
        if text and text != self._last_partial:
            self._last_partial = text
            return Partial(text)
        return None

    def _words(self, hypstr: str, chatter: set[str] | None = None) -> str:
        """A hypothesis's words, the chatter loop's (the current grammar's, or ``chatter``) as UNKNOWN."""
        loop = self._chatter if chatter is None else chatter
        return " ".join(UNKNOWN if w in loop else w for w in hypstr.split())

    def _end(self) -> Transcript:
        """The utterance is over: its reading (``_read``), or, when ``defer_reading`` is set, a
        ``Deferred`` transcript whose ``settle`` gives it: begun now on the side decoder's thread
        (``read_ahead``), else read when first asked."""
        self.decoder.end_utt()
        self._started = False
        self._boundary()
        audio = self._utterance_audio()[-READ_BYTES:]
        self._utterance = []
        phones = self._phone_side
        if phones is not None and self.tuning.phone_check > 0 and self.tuning.read_ahead:
            # on its own core beside the reading (``heard_phones`` takes it); for nothing when the
            # reading finds no command to check
            self._phones_ahead = (audio, phones.start(functools.partial(phones.phones, audio)))
        read = functools.partial(self._read, audio, self._read_search, self._chatter)
        if not self.defer_reading:
            return read()
        # The live pass's words as its last partial gave them: its final reading would cost a
        # best-path search over the whole lattice (seconds for long talk through the chatter
        # loop), and nothing judges it (``settle`` gives the reading).
        if self._side is not None and self.tuning.read_ahead:
            return Deferred(self._last_partial, 0.0, settle=self._side.start(read).result)
        return Deferred(self._last_partial, 0.0, settle=read)

    def _read(self, audio: bytes, search: str, chatter: set[str]) -> Transcript:
        """Decode the whole utterance once more in one piece: PocketSphinx then normalizes it
        as a whole (batch CMN), which holds up far better in noise than the live pass; then
        the phone check. ``search`` is the moment's grammar as it was when the utterance
        ended, as its smallest deterministic automaton (the same sentences, each as likely; a
        word shared by many sentences searched once), which the live pass does not use because
        its pushed chances change the partial words."""
        reading = self._side_read(audio, search) if self._side is not None else self._binding_read(audio, search)
        if reading is None:
            return Transcript("", 0.0)
        text = self._words(reading.hypstr, chatter)
        doubt = ""
        if text and UNKNOWN not in text.split():
            said = self._phones_of(reading.segments, self._pronounced)
            doubt = self._doubt(audio, text, said, self.tuning.phone_check)
        return Transcript(text, reading.prob, doubt=doubt)

    def _side_read(self, audio: bytes, search: str) -> Reading | None:
        assert self._side is not None
        return self._side.read(audio, search)

    def _binding_read(self, audio: bytes, search: str) -> Reading | None:
        """The reading through the binding's decoder, whose live search is active again after."""
        live = self.decoder.current_search()
        self.decoder.activate_search(search)
        try:
            self.decoder.reinit_feat()  # forget the noise estimate of earlier audio: same words, same result
            self.decoder.start_utt()
            self.decoder.process_raw(audio, full_utt=True)
            self.decoder.end_utt()
            hyp = self.decoder.hyp()
            segments = tuple(s.word for s in self.decoder.seg() or []) if hyp is not None else ()
        finally:
            self.decoder.activate_search(live)
        return Reading(hyp.hypstr, float(hyp.prob), segments) if hyp is not None else None

    def _pronounced(self, word: str) -> str | None:
        """``word``'s phones (``word(2)``: its second pronunciation) as the reading decoder has them."""
        if self._side is not None:
            return self._side.pronunciations.get(word)
        return self.decoder.lookup_word(word)

    def _utterance_audio(self) -> bytes:
        """The utterance so far, background talk gated out."""
        audio = b"".join(self._utterance)
        return gate(audio, self.tuning.gate_db, max(self.tuning.noise_floor, 1.0)) if self.tuning.gate_db > 0 else audio

    # ----------------------------------------------------------------- phone check

    @staticmethod
    def _phones_of(segments: Iterable[str], pronounced: Callable[[str], str | None]) -> list[str]:
        """The phones of a decode's words (its segmentation's, fillers and silences left out), in
        the pronunciations it used."""
        phones: list[str] = []
        for word in segments:
            if not word.startswith(("<", "[", "+")):
                phones.extend((pronounced(word) or "").split())
        return phones

    def _said_phones(self) -> list[str]:
        """The phones of the words the live pass has found so far."""
        return self._phones_of((s.word for s in self.decoder.seg() or []), self.decoder.lookup_word)

    def heard_phones(self, audio: bytes) -> list[str]:
        """The phones in ``audio`` (16 kHz mono int16), decoded with no words at all."""
        ahead = self._phones_ahead
        if ahead is not None and ahead[0] is audio:
            return ahead[1].result()
        side = self._phone_side or self._side
        if side is not None:
            return side.phones(audio)
        decoder = self._phone_decoder
        assert decoder is not None
        decoder.reinit_feat()
        decoder.start_utt()
        decoder.process_raw(audio, full_utt=True)
        decoder.end_utt()
        return [s.word for s in decoder.seg() or [] if s.word not in NOT_SPEECH]

    def _doubt(self, audio: bytes, text: str, said: list[str], limit: float) -> str:
        """Why ``text`` should not be trusted ("" if it should): it sounds too unlike its phones."""
        if limit <= 0 or not said:
            return ""
        distance = phone_distance(self.heard_phones(audio), said)
        if distance <= limit:
            return ""
        return f"it did not sound like {text!r} (phone distance {distance:.2f} > {limit:g})"

    def doubt(self, text: str) -> str:
        """Why the partial words ``text`` of the utterance under way should not be acted on yet
        ("" if they may): the phone check on the audio so far, with the stricter limit
        ``early_phone_check`` (a doubted partial is not lost: the end of the utterance decides).
        Partial words can be a whole command while more is being said: "help" on the way to
        "teleport", "teleport" half-way through "shall we order some food"."""
        if self.tuning.early_phone_check <= 0 or not self._started or not text:
            return ""
        return self._doubt(self._utterance_audio(), text, self._said_phones(), self.tuning.early_phone_check)

    def finish(self) -> Transcript:
        if self._started and self._edges.leftover:
            self._add(self._edges.leftover)
        self._edges.leftover = b""
        if not self._started:
            self._background.clear()
            self._boundary()
            return Transcript("", 0.0)
        return self._end()

    def reset(self) -> None:
        if self._started:
            self.decoder.end_utt()
        self._started = False
        self._utterance = []
        self._edges.leftover = b""
        self._background.clear()
        self._boundary()

    def _boundary(self) -> None:
        """Between utterances: a fresh endpointer, and the same noise floor every time (so an
        utterance is heard the same whatever came before it)."""
        self._edges.restart()
        self._rng = np.random.default_rng(self.tuning.seed)
