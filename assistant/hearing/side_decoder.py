"""PocketSphinx's decodes at the end of speech through its C API, so that they run on another core
while Whisper looks at the same utterance: the first pass's reading of the whole utterance in one
piece (the moment's grammar) and the phone loop its phone check decodes (the phones with no words).

PocketSphinx's Python binding holds Python's GIL while it decodes: two of its decoders in two
threads take as long as one after the other (measured here: 2.03 s against 1.98 s for the same
12 clips). A call through ``ctypes`` lets go of the GIL for as long as the C code runs, and the
binding's extension module exports PocketSphinx's C API (``ps_init``, ``ps_add_fsg``,
``ps_process_raw``, ``ps_seg_iter``...): the same decoder, the same model, the same grammars
(built by the same C calls the binding's ``create_fsg`` makes), so the same words and phones (a
test holds them to the binding's). The live pass, which streams while the player speaks, stays
on the binding's decoder; a side decoder (its own acoustic model, about 6 MB, and only the words
its grammars use) is for the end of speech. ``SideDecoder.start`` runs a piece of work on its
worker thread: ``PocketSphinxRecognizer`` starts its reading there at the end of speech, and on
four cores or more the phone check's decode on a second side decoder's.
Where the C API cannot be had (another build of PocketSphinx), ``SideDecoderError`` says why
and the recognizer decodes through the binding, on the way to the answer, as before.
"""

from __future__ import annotations

import ctypes
import json
import os
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

#: What the phone loop writes for silence and noises (not compared with a command's phones).
NOT_SPEECH = frozenset({"SIL", "+NSN+", "+SPN+", "+BREATH+", "+COUGH+", "+UM+", "+UH+", "+SMACK+"})
#: The phone loop's search in the decoder (the grammars' are named by the recognizer)
PHONES = "_phones"
#: The phone loop's language weight (its phone bigram's; the grammars keep PocketSphinx's default)
PHONE_WEIGHT = 2.0

_P = ctypes.c_void_p
_INT = ctypes.c_int
_STR = ctypes.c_char_p
#: PocketSphinx 5's C functions used here: (result type, argument types)
_API: dict[str, tuple[Any, list[Any]]] = {
    "ps_config_parse_json": (_P, [_P, _STR]),
    "ps_config_free": (_INT, [_P]),
    "ps_config_float": (ctypes.c_double, [_P, _STR]),
    "ps_config_set_float": (_P, [_P, _STR, ctypes.c_double]),
    "ps_config_set_bool": (_P, [_P, _STR, _INT]),
    "ps_init": (_P, [_P]),
    "ps_free": (_INT, [_P]),
    "ps_get_config": (_P, [_P]),
    "ps_get_logmath": (_P, [_P]),
    "ps_add_word": (_INT, [_P, _STR, _STR, _INT]),
    "ps_add_fsg": (_INT, [_P, _STR, _P]),
    "ps_add_allphone_file": (_INT, [_P, _STR, _STR]),
    "ps_activate_search": (_INT, [_P, _STR]),
    "ps_reinit_feat": (_INT, [_P, _P]),
    "ps_start_utt": (_INT, [_P]),
    "ps_process_raw": (_INT, [_P, _P, ctypes.c_size_t, _INT, _INT]),
    "ps_end_utt": (_INT, [_P]),
    "ps_get_hyp": (_STR, [_P, ctypes.POINTER(ctypes.c_int32)]),
    "ps_get_prob": (ctypes.c_int32, [_P]),
    "ps_seg_iter": (_P, [_P]),
    "ps_seg_next": (_P, [_P]),
    "ps_seg_word": (_STR, [_P]),
    "fsg_model_init": (_P, [_STR, _P, ctypes.c_float, ctypes.c_int32]),
    "fsg_model_free": (_INT, [_P]),
    "fsg_model_word_add": (ctypes.c_int32, [_P, _STR]),
    "fsg_model_trans_add": (None, [_P, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32]),
    "fsg_model_null_trans_add": (ctypes.c_int32, [_P, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32]),
    "logmath_log": (_INT, [_P, ctypes.c_double]),
    "logmath_exp": (ctypes.c_double, [_P, _INT]),
}


class _FsgHead(ctypes.Structure):
    """The head of PocketSphinx 5's ``fsg_model_t`` (``fsg_model.h``), as far as its start and
    final states: C code sets them as fields (the binding's ``create_fsg`` does), there is no
    function for it. ``SideDecoder`` checks the layout on each grammar it makes (the state count
    and language weight it gave must read back) and refuses one that does not match."""

    _fields_ = [("refcount", ctypes.c_int), ("name", _P), ("n_word", ctypes.c_int32),
                ("n_word_alloc", ctypes.c_int32), ("vocab", _P), ("silwords", _P), ("altwords", _P),
                ("lmath", _P), ("n_state", ctypes.c_int32), ("start_state", ctypes.c_int32),
                ("final_state", ctypes.c_int32), ("lw", ctypes.c_float)]


#: A transition of a grammar: (from, to, probability) or (from, to, probability, word)
Transition = tuple[int, int, float] | tuple[int, int, float, str]
T = TypeVar("T")


class SideDecoderError(RuntimeError):
    """PocketSphinx's C API cannot be had here, or would not do what it was asked; the message
    says why."""


@dataclass(frozen=True)
class Reading:
    """A decode of an utterance with a grammar: the words PocketSphinx found (``hypstr``: the
    chatter loop's as themselves), their posterior probability as the binding's ``hyp().prob``
    gives it, and the words of its segmentation (alternative pronunciations marked ``word(2)``)."""

    hypstr: str
    prob: float
    segments: tuple[str, ...]


def _library() -> ctypes.CDLL:
    try:
        from pocketsphinx import _pocketsphinx  # type: ignore[attr-defined]

        lib = ctypes.CDLL(_pocketsphinx.__file__)  # already loaded: the same code and model loader
        for name, (result, arguments) in _API.items():
            function = getattr(lib, name)
            function.restype, function.argtypes = result, arguments
    except (ImportError, OSError, AttributeError) as error:
        raise SideDecoderError(f"PocketSphinx's C API is not reachable: {error}") from error
    return lib


class SideDecoder:
    """One PocketSphinx decoder, used by one thread at a time (a lock), with the phone loop and the
    grammars it is given, and a worker thread for decodes ahead of need (``start``)."""

    def __init__(self, beam: float, word_beam: float) -> None:
        from pocketsphinx import get_model_path

        self._lib = lib = _library()
        model = Path(get_model_path()) / "en-us"
        # No pronouncing dictionary (its copy would cost 22 MB): the grammars' words are added as
        # they come (``add_words``); the phone loop needs none. Words read by the search's own
        # best path, as the binding's reading decoder does (``bestpath`` off).
        settings = {"hmm": str(model / "en-us"), "dict": os.devnull, "beam": beam, "pbeam": beam,
                    "wbeam": word_beam, "bestpath": False, "loglevel": "FATAL"}
        config = lib.ps_config_parse_json(None, json.dumps(settings).encode())
        if not config:
            raise SideDecoderError("PocketSphinx did not take the side decoder's settings")
        self._ps = lib.ps_init(config)
        lib.ps_config_free(config)  # the decoder keeps its own reference
        if not self._ps:
            raise SideDecoderError(f"PocketSphinx could not load its model from {model}")
        weakref.finalize(self, lib.ps_free, self._ps)
        self._config = lib.ps_get_config(self._ps)
        self._weight = lib.ps_config_float(self._config, b"lw")  # the grammars' (PocketSphinx's default)
        lib.ps_config_set_float(self._config, b"lw", PHONE_WEIGHT)
        added = lib.ps_add_allphone_file(self._ps, PHONES.encode(), str(model / "en-us-phone.lm.bin").encode())
        lib.ps_config_set_float(self._config, b"lw", self._weight)
        if added < 0:
            raise SideDecoderError(f"PocketSphinx could not load its phone loop from {model}")
        self._lock = threading.Lock()
        self._worker: ThreadPoolExecutor | None = None
        self._ahead: Future[Any] | None = None
        #: the words added, with their phones (a word's other pronunciations as ``word(2)``...)
        self.pronunciations: dict[str, str] = {}

    # ----------------------------------------------------------------- what it decodes with

    def add_words(self, pronunciations: Mapping[str, str]) -> None:
        """Add words (``word`` or ``word(2)`` for another pronunciation) with their phones."""
        with self._lock:
            for word, phones in pronunciations.items():
                if self.pronunciations.get(word) == phones:
                    continue
                if self._lib.ps_add_word(self._ps, word.encode(), phones.encode(), 0) < 0:
                    raise SideDecoderError(f"PocketSphinx would not add the word {word!r} ({phones})")
                self.pronunciations[word] = phones

    def add_grammar(self, name: str, start: int, final: int, transitions: Sequence[Transition]) -> None:
        """Add the finite-state grammar ``name`` (its words added first: ``add_words``), made by the
        C calls the binding's ``create_fsg`` makes: the same chances, so the same readings."""
        lib = self._lib
        with self._lock:
            logmath = lib.ps_get_logmath(self._ps)
            states = max(max(t[0], t[1]) for t in transitions) + 1
            fsg = lib.fsg_model_init(name.encode(), logmath, self._weight, states)
            head = _FsgHead.from_address(fsg)
            if head.n_state != states or abs(head.lw - self._weight) > 1e-6:
                lib.fsg_model_free(fsg)
                raise SideDecoderError("PocketSphinx's grammar structure is not the one this code knows")
            head.start_state, head.final_state = start, final
            for transition in transitions:
                chance = lib.logmath_log(logmath, transition[2])
                if len(transition) == 4:
                    word = lib.fsg_model_word_add(fsg, transition[3].encode())
                    lib.fsg_model_trans_add(fsg, transition[0], transition[1], chance, word)
                else:
                    lib.fsg_model_null_trans_add(fsg, transition[0], transition[1], chance)
            added = lib.ps_add_fsg(self._ps, name.encode(), fsg)
            lib.fsg_model_free(fsg)  # the decoder keeps its own reference
            if added < 0:
                raise SideDecoderError(f"PocketSphinx would not search the grammar {name!r}")

    # ----------------------------------------------------------------- decoding

    def _decode(self, audio: bytes, search: str) -> None:
        """Decode ``audio`` (16 kHz mono int16) with ``search`` as one utterance whose noise and
        loudness are normalized as a whole (the lock held)."""
        lib, ps = self._lib, self._ps
        if lib.ps_activate_search(ps, search.encode()) < 0:
            raise SideDecoderError(f"no search {search!r} in the side decoder")
        lib.ps_reinit_feat(ps, None)  # forget earlier audio's noise estimate: same audio, same result
        lib.ps_start_utt(ps)
        lib.ps_process_raw(ps, audio, len(audio) // 2, 0, 1)
        lib.ps_end_utt(ps)

    def _segments(self) -> list[str]:
        found = []
        segment = self._lib.ps_seg_iter(self._ps)
        while segment:
            found.append((self._lib.ps_seg_word(segment) or b"").decode())
            segment = self._lib.ps_seg_next(segment)  # frees the iterator after the last
        return found

    def read(self, audio: bytes, grammar: str) -> Reading | None:
        """``audio`` decoded with the grammar ``grammar`` (None: no words found)."""
        with self._lock:
            self._decode(audio, grammar)
            score = ctypes.c_int32()
            hypstr = self._lib.ps_get_hyp(self._ps, ctypes.byref(score))
            if hypstr is None:
                return None
            prob = self._lib.logmath_exp(self._lib.ps_get_logmath(self._ps), self._lib.ps_get_prob(self._ps))
            return Reading(hypstr.decode(), prob, tuple(self._segments()))

    def phones(self, audio: bytes) -> list[str]:
        """The phones in ``audio`` (16 kHz mono int16), decoded now with no words."""
        with self._lock:
            self._decode(audio, PHONES)
            return [word for word in self._segments() if word not in NOT_SPEECH]

    # ----------------------------------------------------------------- ahead of need

    def start(self, work: Callable[[], T]) -> Future[T]:
        """Run ``work`` (decodes of this decoder) on the worker thread; work started earlier and
        not begun yet is let go (its utterance is over: nobody will ask for it)."""
        if self._worker is None:
            self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="side-decoder")
        if self._ahead is not None:
            self._ahead.cancel()
        self._ahead = future = self._worker.submit(work)
        return future
