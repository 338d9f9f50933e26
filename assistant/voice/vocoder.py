"""A Piper voice run in two parts, so that a long sentence costs no more memory than a short one.

A Piper voice (VITS) turns phonemes into a latent sequence (about 86 frames a second of speech)
and its decoder (HiFi-GAN) turns that into audio, 256 samples a frame. The decoder's working
memory grows with the sentence: measured on the bundled voice, about 20 MB a second of speech,
170 MB for a 150-character piece, on top of everything else the assistant holds. Its reach is
short (each sample depends on a few frames around it), so the decoder is run here on windows of
``WINDOW_FRAMES`` frames, each heard with ``OVERLAP_FRAMES`` frames of context on both sides
that are then dropped: the samples agree with the decoder run whole to about 1e-5 (checked for
every voice when it is split, below), and its memory stays that of one window whatever the
sentence's length.

The voice file is cut once into its front part (phonemes to latent frames) and its decoder, by
the ``onnx`` package in a process of its own (loading a voice as ONNX protobuf takes about
three times the file in memory, which the game's process should never hold), and the two parts
are kept beside the phrase cache. A voice that cannot be cut (another exporter's graph, a
multi-output model, no ``onnx`` package, a cache folder that cannot be written) is run whole,
as before, with the reason logged: it speaks the same, at the old memory cost.

    python -m assistant.voice.vocoder VOICE.onnx FOLDER    # cut a voice into FOLDER (used by the assistant)
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

#: Latent frames decoded at a time (about 0.6 s of speech at 22,050 Hz): the decoder's working
#: memory is that of one window (+170 MB for a 150-character piece decoded whole). Its CPU time
#: grows as the windows shrink (each window's context is decoded again): ad hoc, on the longest
#: line hands-free play says (the commands listed, 130 characters), the sentence's peak was
#: 26-42 MB at 100 frames, 12-28 MB at 50 (CPU +8%), 9-25 MB at 25 (+30%). That line is the
#: peak of hands-free play (bench/bench_memory.py), so 50.
WINDOW_FRAMES = 50
#: Frames of context decoded on each side of a window and dropped: with 10 the samples agree
#: with the decoder run whole to 1e-5 on the bundled voice (8 frames: differences of 2e-3)
OVERLAP_FRAMES = 10
#: The largest difference, in samples of full scale 1.0, a voice's windows may make from its
#: decoder run whole (checked when the voice is cut; a voice over it is run whole)
TOLERANCE = 1e-3
#: The name of the part of a Piper (VITS) export that is its decoder (HiFi-GAN): its nodes'
#: names start with it in the graphs piper-train writes
DECODER_SCOPE = "/dec/"
#: What describes a cut voice, beside its two parts
MANIFEST = "split.json"
FRONT, DECODER = "front.onnx", "decoder.onnx"
SPLIT_SECONDS = 300.0

log = logging.getLogger(__name__)


class SplitError(RuntimeError):
    """A voice that cannot be run in two parts (it is run whole)."""


@dataclass(frozen=True)
class Split:
    """A voice cut in two: the front part's inputs are the voice's own; it gives ``cut``, which
    the decoder takes; ``timed`` are the cut tensors that run along the frames (the latent
    sequence: windowed), the others (a speaker's embedding) go to every window whole."""

    folder: Path
    cut: tuple[str, ...]
    timed: tuple[str, ...]
    output: str

    @classmethod
    def read(cls, folder: Path) -> Split:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        return cls(folder, tuple(data["cut"]), tuple(data["timed"]), str(data["output"]))

    def write(self) -> None:
        (self.folder / MANIFEST).write_text(json.dumps(
            {"cut": list(self.cut), "timed": list(self.timed), "output": self.output,
             "window_frames": WINDOW_FRAMES, "overlap_frames": OVERLAP_FRAMES}, indent=1), encoding="utf-8")


def decode_in_windows(decode: Any, cut: dict[str, npt.NDArray[Any]], timed: tuple[str, ...],
                      window: int = WINDOW_FRAMES, overlap: int = OVERLAP_FRAMES) -> npt.NDArray[np.float32]:
    """The decoder's audio (flat) for the front part's ``cut`` tensors, ``window`` frames at a
    time, each decoded with ``overlap`` frames of context on both sides. ``decode(feed)`` runs
    the decoder on one window's tensors and returns its audio."""
    frames = int(cut[timed[0]].shape[-1])
    pieces: list[npt.NDArray[np.float32]] = []
    for first in range(0, max(frames, 1), window):
        low, high = max(0, first - overlap), min(frames, first + window + overlap)
        feed = {name: (np.ascontiguousarray(value[..., low:high]) if name in timed else value)
                for name, value in cut.items()}
        audio = np.asarray(decode(feed), dtype=np.float32).reshape(-1)
        per_frame = len(audio) // max(high - low, 1)
        keep = min(window, frames - first)
        pieces.append(audio[(first - low) * per_frame:(first - low + keep) * per_frame])
    return np.concatenate(pieces) if pieces else np.zeros(0, np.float32)


class WindowedSession:
    """Stands in for Piper's onnxruntime session (``run`` as Piper calls it): the front part,
    then the decoder window by window. ``options``: the run options every run gets (the
    arena's shrinking, assistant.voice.synth)."""

    def __init__(self, front: Any, decoder: Any, split: Split, options: Any = None) -> None:
        self.front = front
        self.decoder = decoder
        self.split = split
        self.options = options

    def run(self, output_names: list[str] | None, input_feed: dict[str, Any], run_options: Any = None) -> list[Any]:
        options = run_options if run_options is not None else self.options
        values = self.front.run(list(self.split.cut), input_feed, options)
        cut = dict(zip(self.split.cut, values, strict=True))
        audio = decode_in_windows(lambda feed: self.decoder.run([self.split.output], feed, options)[0],
                                  cut, self.split.timed)
        return [audio.reshape(1, 1, -1)]


# ----------------------------------------------------------------- cutting a voice (own process)

def cut_voice(model: Path, folder: Path) -> Split:
    """Cut the voice ``model`` into ``folder`` (front part, decoder, manifest) and check that
    its windows decode as the decoder run whole does. Raises SplitError when it cannot."""
    try:
        import onnx
        from onnx.utils import extract_model
    except ImportError as error:
        raise SplitError("the onnx package is not installed (`.venv/bin/pip install onnx`; ./start.sh "
                         "installs it)") from error
    graph = onnx.load(str(model), load_external_data=False).graph
    if len(graph.output) != 1:
        raise SplitError(f"the voice has {len(graph.output)} outputs, not one (audio)")
    inside = [node for node in graph.node if node.name.startswith(DECODER_SCOPE)]
    if not inside:
        raise SplitError(f"no decoder nodes ({DECODER_SCOPE}...) in the graph: not a Piper VITS export")
    made_inside = {name for node in inside for name in node.output}
    constants = {tensor.name for tensor in graph.initializer}
    cut = sorted({name for node in inside for name in node.input
                  if name and name not in made_inside and name not in constants})
    inputs = [tensor.name for tensor in graph.input if tensor.name not in constants]
    output = graph.output[0].name
    del graph
    folder.mkdir(parents=True, exist_ok=True)
    try:
        extract_model(str(model), str(folder / FRONT), inputs, cut)
        extract_model(str(model), str(folder / DECODER), cut, [output])
    except Exception as error:  # onnx's checker and extractor raise their own kinds
        raise SplitError(f"onnx could not cut the voice: {error}") from error
    decoder_inputs = {tensor.name for tensor in onnx.load(str(folder / DECODER)).graph.input}
    if not decoder_inputs <= set(cut) | constants:
        raise SplitError(f"the decoder needs more than the cut ({sorted(decoder_inputs - set(cut))})")
    split = Split(folder, tuple(cut), _timed(folder, inputs, cut), output)
    _check(split, inputs)
    split.write()
    return split


def _feed(inputs: list[str], phonemes: int) -> dict[str, npt.NDArray[Any]]:
    """A made-up input of ``phonemes`` phoneme ids in Piper's form (ids 1 to 9, scales as Piper's
    defaults, speaker 0)."""
    known: dict[str, npt.NDArray[Any]] = {
        "input": (np.arange(phonemes, dtype=np.int64) % 9 + 1)[None],
        "input_lengths": np.array([phonemes], dtype=np.int64),
        "scales": np.array([0.0, 1.0, 0.0], dtype=np.float32),  # no noise: the same frames each time
        "sid": np.array([0], dtype=np.int64)}
    missing = [name for name in inputs if name not in known]
    if missing:
        raise SplitError(f"the voice has inputs Piper does not give ({', '.join(missing)})")
    return {name: known[name] for name in inputs}


def open_session(model: Path, threads: int = 0) -> Any:
    """An onnxruntime session of ``model`` on the CPU (``threads``: its threads; 0: all cores)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    if threads > 0:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(str(model), sess_options=options, providers=["CPUExecutionProvider"])


def _sessions(folder: Path, threads: int = 1) -> tuple[Any, Any]:
    """The front part's and the decoder's sessions of the voice cut into ``folder``."""
    return open_session(folder / FRONT, threads), open_session(folder / DECODER, threads)


def _timed(folder: Path, inputs: list[str], cut: list[str]) -> tuple[str, ...]:
    """The cut tensors whose last axis grows with the sentence (the front part run on 20 and 40
    phonemes)."""
    front, _ = _sessions(folder)
    short, long = (front.run(cut, _feed(inputs, n)) for n in (20, 40))
    timed = tuple(name for name, a, b in zip(cut, short, long, strict=True)
                  if np.ndim(a) == 3 and np.shape(a)[-1] != np.shape(b)[-1])
    if not timed:
        raise SplitError("no tensor of the cut runs along the frames")
    return timed


def _check(split: Split, inputs: list[str]) -> None:
    """The decoder in windows against the decoder whole, on a made-up sentence long enough for
    several windows."""
    front, decoder = _sessions(split.folder)
    cut = dict(zip(split.cut, front.run(list(split.cut), _feed(inputs, 120)), strict=True))
    whole = np.asarray(decoder.run([split.output], cut)[0], dtype=np.float32).reshape(-1)
    frames = int(cut[split.timed[0]].shape[-1])
    if frames <= WINDOW_FRAMES or len(whole) % frames:
        raise SplitError(f"the decoder gave {len(whole)} samples for {frames} frames")
    windows = decode_in_windows(lambda feed: decoder.run([split.output], feed)[0], cut, split.timed)
    worst = float(np.max(np.abs(windows - whole))) if len(windows) == len(whole) else float("inf")
    if worst > TOLERANCE:
        raise SplitError(f"its windows differ from the whole decoder by {worst:.2g} (at most {TOLERANCE} allowed)")


#: Where cut voices are kept instead of inside voice.cache_dir (the tests share one folder this
#: way, rather than cutting the voice again for each test's own cache folder)
PARTS_ENV = "ASSISTANT_VOICE_PARTS_DIR"


def parts_dir(cache_dir: Path | None) -> Path | None:
    """Where cut voices are kept: $ASSISTANT_VOICE_PARTS_DIR, else the phrase cache's folder
    (None when it cannot be written: voices run whole)."""
    return Path(os.environ[PARTS_ENV]) if os.environ.get(PARTS_ENV) else cache_dir


def split_folder(cache: Path, ident: str) -> Path:
    """Where the parts of the voice identified by ``ident`` (synth.voice_id) are kept."""
    return cache / "split-voices" / "".join(c if c.isalnum() or c in "-_." else "_" for c in ident)


def load_split(model: Path, ident: str, cache: Path | None, threads: int = 0) -> WindowedSession:
    """The voice ``model`` as a WindowedSession, cut now (in a process of its own) unless its
    parts are kept in ``cache`` already. Raises SplitError (the reason) when it cannot be."""
    if cache is None:
        raise SplitError("no folder to keep its parts in (voice.cache_dir)")
    folder = split_folder(cache, ident)
    if not (folder / MANIFEST).is_file():
        shutil.rmtree(folder, ignore_errors=True)  # a folder without its manifest is not a cut voice
        _cut_in_own_process(model, folder)
    try:
        split = Split.read(folder)
        front, decoder = _sessions(folder, threads)
    except Exception as error:  # a torn or foreign folder: cut again next time
        shutil.rmtree(folder, ignore_errors=True)
        raise SplitError(f"its parts in {folder} would not load ({error}); they are cut again next time") from error
    return WindowedSession(front, decoder, split)


def _cut_in_own_process(model: Path, folder: Path) -> None:
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=".cutting-", dir=folder.parent))
    except OSError as error:
        raise SplitError(f"cannot write its parts under {folder.parent}: {error}") from error
    try:
        root = str(Path(__file__).resolve().parents[2])
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
        try:
            done = subprocess.run([sys.executable, "-m", "assistant.voice.vocoder", str(model), str(scratch)],
                                  capture_output=True, text=True, timeout=SPLIT_SECONDS, env=env)
        except subprocess.TimeoutExpired as error:
            raise SplitError(f"cutting it took over {SPLIT_SECONDS:.0f} s") from error
        if done.returncode != 0:
            lines = (done.stderr or done.stdout).strip().splitlines()
            raise SplitError(lines[-1] if lines else f"cutting it failed (exit status {done.returncode})")
        try:
            scratch.rename(folder)
        except OSError:
            if not (folder / MANIFEST).is_file():  # not another process's cut, finished first
                raise SplitError(f"cannot move its parts into {folder}") from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        split = cut_voice(Path(args[0]), Path(args[1]))
    except SplitError as error:
        print(f"{args[0]}: {error}", file=sys.stderr)
        return 1
    print(f"{args[0]}: cut into {split.folder} (decoder takes {', '.join(split.cut)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
