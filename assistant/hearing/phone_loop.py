"""PocketSphinx's phone loop (the phones in an utterance, decoded with no words) through its C
API, so that the phone check can run on another core while Whisper looks at the same utterance.

PocketSphinx's Python binding holds Python's GIL while it decodes: two of its decoders in two
threads take as long as one after the other (measured here: 2.03 s against 1.98 s for the same
12 clips). A call through ``ctypes`` lets go of the GIL for as long as the C code runs, and the
binding's extension module exports PocketSphinx's C API (``ps_init``, ``ps_process_raw``,
``ps_seg_iter``...): the same decoder, the same model, the same phones (a test holds them to
the binding's). ``PhoneLoop.start`` begins the decode of an utterance on a worker thread at
the end of speech; ``heard`` gives its phones when the phone check needs them, by then mostly
decoded (Whisper's look at the utterance, which frees the GIL in its own C code, runs
meanwhile). Where the C API cannot be had (another build of PocketSphinx), ``PhoneLoopError``
says why and the recognizer decodes through the binding, as before.
"""

from __future__ import annotations

import ctypes
import json
import os
import threading
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

#: What the phone loop writes for silence and noises (not compared with a command's phones).
NOT_SPEECH = frozenset({"SIL", "+NSN+", "+SPN+", "+BREATH+", "+COUGH+", "+UM+", "+UH+", "+SMACK+"})

_P = ctypes.c_void_p
#: PocketSphinx 5's C functions used here: (result type, argument types)
_API: dict[str, tuple[Any, list[Any]]] = {
    "ps_config_parse_json": (_P, [_P, ctypes.c_char_p]),
    "ps_config_free": (ctypes.c_int, [_P]),
    "ps_init": (_P, [_P]),
    "ps_free": (ctypes.c_int, [_P]),
    "ps_reinit_feat": (ctypes.c_int, [_P, _P]),
    "ps_start_utt": (ctypes.c_int, [_P]),
    "ps_process_raw": (ctypes.c_int, [_P, _P, ctypes.c_size_t, ctypes.c_int, ctypes.c_int]),
    "ps_end_utt": (ctypes.c_int, [_P]),
    "ps_seg_iter": (_P, [_P]),
    "ps_seg_next": (_P, [_P]),
    "ps_seg_word": (ctypes.c_char_p, [_P]),
}


class PhoneLoopError(RuntimeError):
    """PocketSphinx's C API cannot be had here; the message says why."""


def _library() -> ctypes.CDLL:
    try:
        from pocketsphinx import _pocketsphinx  # type: ignore[attr-defined]

        lib = ctypes.CDLL(_pocketsphinx.__file__)  # already loaded: the same code and model loader
        for name, (result, arguments) in _API.items():
            function = getattr(lib, name)
            function.restype, function.argtypes = result, arguments
    except (ImportError, OSError, AttributeError) as error:
        raise PhoneLoopError(f"PocketSphinx's C API is not reachable: {error}") from error
    return lib


class PhoneLoop:
    """One phone-loop decoder, used by one thread at a time (a lock), and a worker thread that
    decodes an utterance ahead of need (``start``)."""

    def __init__(self, beam: float, word_beam: float) -> None:
        from pocketsphinx import get_model_path

        self._lib = lib = _library()
        model = Path(get_model_path()) / "en-us"
        # No pronouncing dictionary: the phone loop needs none, and its own copy would cost 22 MB.
        settings = {"hmm": str(model / "en-us"), "allphone": str(model / "en-us-phone.lm.bin"), "lw": 2.0,
                    "dict": os.devnull, "beam": beam, "pbeam": beam, "wbeam": word_beam, "loglevel": "FATAL"}
        config = lib.ps_config_parse_json(None, json.dumps(settings).encode())
        if not config:
            raise PhoneLoopError("PocketSphinx did not take the phone loop's settings")
        self._ps = lib.ps_init(config)
        lib.ps_config_free(config)  # the decoder keeps its own reference
        if not self._ps:
            raise PhoneLoopError(f"PocketSphinx could not load its phone loop from {model}")
        weakref.finalize(self, lib.ps_free, self._ps)
        self._lock = threading.Lock()
        self._worker: ThreadPoolExecutor | None = None
        self._ahead: tuple[bytes, Future[list[str]]] | None = None

    def phones(self, audio: bytes) -> list[str]:
        """The phones in ``audio`` (16 kHz mono int16), decoded now, as one utterance whose
        noise and loudness are normalized as a whole."""
        lib, ps = self._lib, self._ps
        with self._lock:
            lib.ps_reinit_feat(ps, None)  # forget earlier audio's noise estimate: same audio, same phones
            lib.ps_start_utt(ps)
            lib.ps_process_raw(ps, audio, len(audio) // 2, 0, 1)
            lib.ps_end_utt(ps)
            found = []
            segment = lib.ps_seg_iter(ps)
            while segment:
                word = (lib.ps_seg_word(segment) or b"").decode()
                if word not in NOT_SPEECH:
                    found.append(word)
                segment = lib.ps_seg_next(segment)  # frees the iterator after the last
            return found

    def start(self, audio: bytes) -> None:
        """Begin decoding ``audio`` on the worker thread (``heard`` with the same object takes
        its phones); an earlier utterance started and not asked for is let go."""
        if self._worker is None:
            self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="phone-loop")
        self._ahead = (audio, self._worker.submit(self.phones, audio))

    def heard(self, audio: bytes) -> list[str]:
        """The phones in ``audio``: the decode ``start`` began, when it was this audio, else now."""
        ahead = self._ahead
        if ahead is not None and ahead[0] is audio:
            self._ahead = None
            return ahead[1].result()
        return self.phones(audio)
