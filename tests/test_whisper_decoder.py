"""Whisper's decoder in numpy (assistant/hearing/whisper_decoder.py), on the real tiny.en model:
its scores are CTranslate2's to within int8's rounding (CTranslate2's whole model, loaded here),
reading on from a shorter text gives what reading from the start gives, several texts read at
once give what each read alone gives, and a file it cannot read is refused by name."""

from __future__ import annotations

import os
import shutil
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from assistant.games import game_module
from assistant.hearing.grammar import WordGraph
from assistant.hearing.recognizer import ModelError
from assistant.hearing.whisper_decoder import (
    Decoder,
    Int8Product,
    ModelFileError,
    Reader,
    log_softmax32,
    product_model,
    read_variables,
    without_decoder,
)
from assistant.hearing.whisper_engine import (
    KNOWN_MODELS,
    READING_TOKENS,
    WhisperSettings,
    WhisperTranscriber,
    best_ending,
    find_model,
)
from tests.support.spoken import ClipMaker, Speaker

pytestmark = pytest.mark.model

VOICE = Speaker("espeak", "en-gb-scotland", 1.0, 50)  # of neither benchmark set
OMEGA = game_module("omega-virus").sentences()
TEXTS = (" Explore one two zero", " Attack the red commando", " Pass.", " How much time is left?")


@pytest.fixture(scope="module")
def whisper(tmp_path_factory: pytest.TempPathFactory) -> WhisperTranscriber:
    # the whole clip, as these readings' tolerances were measured on (not the grammar search's trim)
    transcriber = WhisperTranscriber.load(find_model("faster-whisper-tiny.en", Path("/nonexistent")),
                                          WhisperSettings(trim=0.0))
    clip = ClipMaker(tmp_path_factory.mktemp("clips")).say("explore one two zero", VOICE)
    assert transcriber.listen(clip.tobytes(), short=True)
    return transcriber


@dataclass
class Theirs:
    """CTranslate2's whole Whisper model (its own decoder too) and its encoding of the audio the
    ``whisper`` fixture heard, cut to the same window: what the numpy decoder is held to."""

    model: Any
    encoded: np.ndarray
    window: np.ndarray
    #: <|startoftranscript|> <|notimestamps|>: no prompt, as the grammar search reads
    start: list[int]
    #: CTranslate2's suppress_tokens: -1 (the model's non-speech tokens) and the control tokens
    suppress: list[int]

    def logprobs(self, prefixes: list[tuple[int, ...]]) -> list[np.ndarray]:
        """Each prefix's tokens' log probabilities and the next token's, from one batched call."""
        import ctranslate2

        features = ctranslate2.StorageView.from_array(np.ascontiguousarray(np.repeat(self.window, len(prefixes), 0)))
        longest = max(len(p) for p in prefixes)
        # CTranslate2 4.x counts a forced prefix against max_length in a way its docs do not say
        # (measured: tiny.en gives max_length // 2 positions' logits): this is enough for the
        # prefix's and the one after it
        results = self.model.generate(features, [self.start + list(p) for p in prefixes], beam_size=1,
                                      max_length=len(self.start) + 2 * (longest + 1), return_logits_vocab=True,
                                      suppress_blank=False, suppress_tokens=[])
        out = []
        for prefix, result in zip(prefixes, results, strict=True):
            logits = result.logits[0]
            assert len(logits) > len(prefix), "this CTranslate2 returns fewer of Whisper's scores than expected"
            out.append(log_softmax32(np.stack([np.asarray(logits[i]) for i in range(len(prefix) + 1)])))
        return out

    def own_reading(self, end: int, length: int) -> tuple[list[int], np.ndarray]:
        """Whisper's greedy reading of the window (up to ``length`` tokens): its text tokens and
        the log probabilities at each step."""
        import ctranslate2

        result = self.model.generate(ctranslate2.StorageView.from_array(self.window), [self.start], beam_size=1,
                                     max_length=length, return_logits_vocab=True, suppress_blank=True,
                                     suppress_tokens=self.suppress)[0]
        ids = [t for t in result.sequences_ids[0] if t < end]
        return ids, log_softmax32(np.stack([np.asarray(x) for x in result.logits[0]]))


class Features:
    """A stand-in for the transcriber's CTranslate2 model that keeps the features it is asked to
    encode (the log-mel spectrogram as ``listen`` made it)."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.given: np.ndarray | None = None

    def encode(self, features: Any, to_cpu: bool = False) -> Any:
        self.given = np.array(features)
        return self.model.encode(features, to_cpu=to_cpu)


@pytest.fixture(scope="module")
def ctranslate2_s(whisper: WhisperTranscriber) -> Theirs:
    """The same model and clip on CTranslate2's whole model, loaded here (not through the
    transcriber, which holds CTranslate2's encoder alone): given the features ``listen`` made."""
    import ctranslate2

    assert whisper._heard is not None
    audio = whisper._heard[0]
    features = Features(whisper.model)
    whisper.forget()
    whisper.model = features
    try:
        assert whisper.listen(audio, short=True)
    finally:
        whisper.model = features.model
    assert features.given is not None
    folder = find_model("faster-whisper-tiny.en", Path("/nonexistent"))
    model = ctranslate2.models.Whisper(str(folder), device="cpu", compute_type="int8",
                                       intra_threads=os.cpu_count() or 1)
    encoded = np.asarray(model.encode(ctranslate2.StorageView.from_array(features.given), to_cpu=True))
    window = np.ascontiguousarray(encoded[:, :whisper.window().shape[1]])
    ids = {name: whisper.tokenizer.token_to_id(f"<|{name}|>") for name in (
        "startoftranscript", "startofprev", "startoflm", "nocaptions", "transcribe", "translate", "notimestamps")}
    start = [ids["startoftranscript"], ids["notimestamps"]]
    assert start == whisper._start("")  # no prompt: what the grammar search reads after
    suppress = [-1, *(ids[name] for name in ids if name != "notimestamps")]
    return Theirs(model, encoded, window, start, suppress)


def tokens(whisper: WhisperTranscriber, text: str) -> tuple[int, ...]:
    return tuple(whisper.tokenizer.encode(text, add_special_tokens=False).ids)


def test_its_scores_are_ctranslate2_s_to_within_int8_rounding(whisper: WhisperTranscriber,
                                                              ctranslate2_s: Theirs) -> None:
    """The same texts over the same audio: CTranslate2 (int8 weights and activations) and this
    decoder (int8 weights; float32 activations but for the output layer's, rounded to 8 bits
    in onnxruntime) give each token's log probability within 0.6 nat, and each text's within
    0.6 nat or 3% of it, whichever is more, on this clip. (Both round to 8 bits, each its own
    way, and CTranslate2's kernels differ with the CPU: "Attack the red commando", a 37-nat
    text on this clip of "explore one two zero", came 0.92 nat apart here, its "the" 0.49; 0.72
    and 0.38 with numpy's float32 output layer; on other clips, for sentences far below what
    was said, the gap reaches about 1 nat a text.)"""
    texts = [tokens(whisper, text) for text in TEXTS]
    theirs = ctranslate2_s.logprobs(texts)
    ours = whisper.reader().logprobs(texts, [0] * len(texts))
    for text, a, b in zip(texts, theirs, ours, strict=True):
        assert a.shape == b.shape == (len(text) + 1, whisper.decoder.vocabulary)
        said_a = [float(a[i, token]) for i, token in enumerate(text)] + [float(a[-1, whisper.end])]
        said_b = [float(b[i, token]) for i, token in enumerate(text)] + [float(b[-1, whisper.end])]
        assert np.allclose(said_a, said_b, atol=0.6), (text, said_a, said_b)
        assert abs(sum(said_a) - sum(said_b)) < max(0.6, 0.03 * abs(sum(said_a))), (text, sum(said_a), sum(said_b))
        # what either finds likeliest next, the other finds as likely to within int8's rounding
        assert all(row_b[int(np.argmax(row_a))] >= row_b.max() - 0.6 for row_a, row_b in zip(a, b, strict=True))
        assert np.allclose(np.exp(b).sum(axis=1), 1.0, atol=1e-3)


def test_reading_on_from_a_shorter_text_is_reading_from_the_start(whisper: WhisperTranscriber) -> None:
    """The grammar search grows a sentence a word at a time: what is read on from the shorter
    sentence's kept keys and values is what a fresh reading of the whole gives."""
    decoder = whisper.decoder
    cut = whisper.window()
    text = tokens(whisper, " Attack the red commando.")
    stepwise = Reader(decoder, cut[0], whisper._start(""))
    for n in range(1, len(text) + 1):
        stepwise.logprobs([text[:n]], [n])
    whole = Reader(decoder, cut[0], whisper._start(""))
    assert np.allclose(stepwise.hidden([text])[0], whole.hidden([text])[0], rtol=1e-5, atol=1e-4)
    a = stepwise.logprobs([text], [0])[0]
    b = whole.logprobs([text], [0])[0]
    # the output layer rounds the states to 8 bits: a difference of 1e-6 can round a value the
    # other way (a few hundredths of a nat at most)
    assert np.allclose(a, b, atol=0.05)


def test_texts_read_together_are_read_as_each_alone(whisper: WhisperTranscriber) -> None:
    decoder = whisper.decoder
    cut = whisper.window()
    texts = [tokens(whisper, text) for text in TEXTS]
    together = Reader(decoder, cut[0], whisper._start("")).logprobs(texts, [1, 0, 1, 2])
    for text, since, rows in zip(texts, [1, 0, 1, 2], together, strict=True):
        alone = Reader(decoder, cut[0], whisper._start("")).logprobs([text], [since])[0]
        assert np.allclose(rows, alone, atol=1e-4)


def test_a_beam_search_step_read_together_is_each_text_read_alone(whisper: WhisperTranscriber) -> None:
    """A beam search reads one token more for texts read as far: their attention to their own
    earlier tokens is one batched product (Decoder._step), giving what each read alone gives,
    and the keys and values each keeps read on as before."""
    decoder = whisper.decoder
    cut = whisper.window()
    texts = [tokens(whisper, text)[:3] for text in TEXTS if len(tokens(whisper, text)) >= 3]
    assert len(texts) == 3
    memory = decoder.attend(cut[0])
    start = decoder.read(memory, decoder.start(), whisper._start(""))[1]
    states = [decoder.read(memory, start, text[:2])[1] for text in texts]
    together = decoder.read_many(memory, [(state, text[2:]) for state, text in zip(states, texts, strict=True)])
    for state, text, (hidden, after) in zip(states, texts, together, strict=True):
        alone, alone_after = decoder.read(memory, state, text[2:])
        assert np.allclose(hidden, alone, rtol=1e-5, atol=1e-4)
        assert all(np.allclose(a, b, rtol=1e-5, atol=1e-4) for a, b in zip(after.keys, alone_after.keys, strict=True))
        on, _ = decoder.read(memory, after, tokens(whisper, " now"))
        assert np.allclose(on, decoder.read(memory, alone_after, tokens(whisper, " now"))[0], rtol=1e-5, atol=1e-4)


@pytest.fixture(scope="module")
def plain() -> Decoder:
    """The decoder with every product in numpy (onnxruntime's int8 kernels not asked for)."""
    return Decoder.load(find_model("faster-whisper-tiny.en", Path("/nonexistent")) / "model.bin", int8=False)


def test_its_products_are_the_plain_ones_for_any_number_of_rows(plain: Decoder) -> None:
    """Numpy's output layer and a layer's products are worked out token-major and turned round
    (the cheaper way for OpenBLAS): each row of the result is that row's plain product with the
    widened weights, for one row as for many."""
    decoder = plain
    assert decoder.output is None and decoder.embedding is not None
    rng = np.random.default_rng(7)
    wide = decoder.embedding.astype(np.float32) * decoder.scales[:, None]
    ffn = decoder.layers[0].ffn_in
    ffn_wide = ffn.weight.astype(np.float32) * ffn.scale[:, None]
    for rows in (1, 2, 3, 8, 17):
        hidden = rng.standard_normal((rows, decoder.width)).astype(np.float32)
        logits = decoder.logits(hidden)
        assert logits.shape == (rows, decoder.vocabulary) and logits.flags.c_contiguous
        assert np.allclose(logits, hidden @ wide.T, rtol=1e-4, atol=1e-3)
        out = ffn(hidden)
        assert out.shape == (rows, ffn_wide.shape[0]) and out.flags.c_contiguous
        assert np.allclose(out, hidden @ ffn_wide.T + ffn.bias, rtol=1e-4, atol=1e-3)


def test_onnxruntime_s_int8_products_are_numpy_s_and_each_state_scored_alone(whisper: WhisperTranscriber,
                                                                            plain: Decoder) -> None:
    """With its products in onnxruntime's int8 kernels (the input rounded to 8 bits, as
    CTranslate2's int8 does), a real reading's log probabilities are numpy's float32 decoder's
    to within that rounding (as far apart as CTranslate2's and numpy's float32 are), for one
    state as for many; a state's scores are the same whatever is given with it (each state
    rounded on its own scale); and the embedding's rows come from the model file, rounded as
    numpy's kept int8 matrix rounds them."""
    decoder = whisper.decoder
    assert decoder.output is not None, decoder.int8_because
    assert decoder.embedding is None  # let go: the rows are read from the mapped model file
    some = [0, 7, 50256, decoder.vocabulary - 1]
    assert np.array_equal(decoder.embed(some), plain.embed(some))
    assert all(isinstance(part.product, Int8Product) and part.weight is None
               for layer in decoder.layers for part in vars(layer).values() if hasattr(part, "product"))
    cut = whisper.window()
    texts = [tokens(whisper, text) for text in TEXTS]
    ours = Reader(decoder, cut[0], whisper._start("")).logprobs(texts, [0] * len(texts))
    numpy_s = Reader(plain, cut[0], whisper._start("")).logprobs(texts, [0] * len(texts))
    for text, a, b in zip(texts, ours, numpy_s, strict=True):
        assert float(np.abs(a - b).max()) < 0.75  # measured: 0.45-0.51 over the whole vocabulary
        said = [float(a[i, token] - b[i, token]) for i, token in enumerate(text)]
        assert max(map(abs, said)) < 0.4 and abs(sum(said)) < 1.0  # measured: 0.32 and 0.57 at most
    hidden = np.concatenate(whisper.reader().hidden(texts))
    together = log_softmax32(decoder.logits(hidden))
    assert together.shape == (len(hidden), decoder.vocabulary) and len(hidden) > 12
    for row in (0, 5, 12):
        alone = log_softmax32(decoder.logits(hidden[row:row + 1]))[0]
        assert np.array_equal(alone, together[row])


def test_the_int8_product_s_model_is_what_the_onnx_package_reads() -> None:
    """The one-node ONNX model is written field by field (the onnx package costs 16 MB to
    import): the onnx package reads it back as the graph meant."""
    import onnx

    model = onnx.load_from_string(product_model(384, 51864))
    (node,) = model.graph.node
    assert (node.op_type, node.domain, list(node.input), list(node.output)) == (
        "DynamicQuantizeMatMul", "com.microsoft", ["x", "weight", "scale", "zero"], ["y"])
    assert {(o.domain, o.version) for o in model.opset_import} == {("", 17), ("com.microsoft", 1)}
    weight, scale, zero = model.graph.initializer
    assert (weight.name, list(weight.dims), weight.data_type) == ("weight", [384, 51864], onnx.TensorProto.UINT8)
    assert (scale.name, list(scale.dims), scale.data_type) == ("scale", [51864], onnx.TensorProto.FLOAT)
    assert (zero.name, list(zero.dims), zero.data_type) == ("zero", [51864], onnx.TensorProto.UINT8)
    assert all(given.data_location == onnx.TensorProto.EXTERNAL for given in (weight, scale, zero))
    (given,) = model.graph.input
    assert [d.dim_param or d.dim_value for d in given.type.tensor_type.shape.dim] == ["rows", 384]
    (made,) = model.graph.output
    assert [d.dim_param or d.dim_value for d in made.type.tensor_type.shape.dim] == ["rows", 51864]


def test_an_int8_product_holds_its_own_copy_of_the_weights() -> None:
    """onnxruntime is given the weights from memory: the product is the same after the arrays
    it was made from are gone and their memory used again (it packed its own copy)."""
    import gc

    rng = np.random.default_rng(5)
    weight = rng.integers(-127, 128, (1152, 384), dtype=np.int8)
    scale = rng.uniform(0.001, 0.01, 1152).astype(np.float32)
    x = rng.standard_normal((4, 384)).astype(np.float32)
    product = Int8Product(weight.copy(), scale.copy())
    before = product(x)
    wide = weight.astype(np.float32) * scale[:, None]
    assert np.abs(before - x @ wide.T).max() < 0.05 * np.abs(x @ wide.T).max()
    gc.collect()
    junk = [np.full((1152, 384), 99, dtype=np.int8) for _ in range(20)]
    assert np.array_equal(product(x), before)
    del junk


#: Run under an emulated CPU (qemu's user mode, Debian's qemu-user, which test.sh installs): a
#: product of the decoder's own kind and, as a control, onnxruntime's product with signed weights
#: (the kind the decoder used to make), on the inputs and weights that saturate 16-bit pairs.
_ELSEWHERE = """
import sys
import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper
from assistant.hearing.whisper_decoder import Int8Product
rng = np.random.default_rng(3)
weight = rng.integers(-127, 128, (256, 384)).astype(np.int8)
weight[:8] = 127  # rows of the greatest weights: a pair of them by an input of 255 is 64,770
scale = rng.uniform(0.001, 0.01, 256).astype(np.float32)
x = rng.standard_normal((4, 384)).astype(np.float32)
x[0] = np.abs(x).max()
wanted = x @ (weight.astype(np.float32) * scale[:, None]).T
def apart(y): return float(np.abs(y - wanted).max() / np.abs(wanted).max())
node = helper.make_node("DynamicQuantizeMatMul", ["x", "w", "s"], ["y"], domain="com.microsoft")
graph = helper.make_graph([node], "signed", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["r", 384])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["r", 256])],
                          [numpy_helper.from_array(weight.T.copy(), "w"), numpy_helper.from_array(scale, "s")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
signed = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
print(apart(Int8Product(weight, scale)(x)), apart(signed.run(None, {"x": x})[0]))
"""


@pytest.mark.parametrize("cpu", ["Haswell", "Nehalem", "cortex-a72", "cortex-a76"])
def test_the_int8_products_are_numpy_s_on_cpus_without_vnni(cpu: str) -> None:
    """onnxruntime picks its int8 kernels by the CPU it runs on. Its unsigned-by-signed kernels
    add 16-bit pairs that saturate on x86 CPUs without VNNI (AVX2: Haswell to Skylake, Zen 1-3):
    outputs a tenth or more wrong, once the input's 8 bits and a pair of weights are large. The
    decoder's products (unsigned by unsigned) are numpy's on each CPU its users have, run here
    under emulation (an x86-64 host emulates x86 CPUs; an arm64 host, a Pi 4's and a Pi 5's
    cores); the signed kind is run beside them on Haswell to show it is a CPU where that fails."""
    import platform
    import shutil
    import subprocess
    import sys

    host = platform.machine()
    emulator = {"x86_64": "qemu-x86_64", "aarch64": "qemu-aarch64"}.get(host)
    if emulator is None:
        pytest.skip(f"no emulated CPUs for a {host} host")
    if (cpu in ("Haswell", "Nehalem")) != (host == "x86_64"):
        pytest.skip(f"{cpu} is not emulated on a {host} host")
    qemu = shutil.which(emulator)
    assert qemu is not None, f"{emulator} is missing: ./test.sh installs Debian's qemu-user"
    run = subprocess.run([qemu, "-cpu", cpu, sys.executable, "-c", _ELSEWHERE], capture_output=True, text=True,
                         cwd=Path(__file__).parent.parent, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    ours, signed = map(float, run.stdout.split())
    assert ours < 0.01, f"the decoder's int8 product is {ours:.3f} of its largest output from numpy's on {cpu}"
    if cpu == "Haswell":  # the control: AVX2 without VNNI, where signed weights saturate
        assert signed > 0.05, f"signed weights no longer saturate on {cpu}: choose a CPU model where they do"


def test_ctranslate2_holds_the_encoder_alone_and_encodes_as_the_whole_model(whisper: WhisperTranscriber,
                                                                           ctranslate2_s: Theirs) -> None:
    """CTranslate2 is given the model with its decoder cut to one number a weight (the numpy
    decoder does all the decoding): its encoding of the audio is the whole model's to the bit,
    and the model it holds is about 29 MB smaller."""
    folder = find_model("faster-whisper-tiny.en", Path("/nonexistent"))
    cut = without_decoder(folder / "model.bin")
    assert len(cut) < (folder / "model.bin").stat().st_size / 3
    assert np.array_equal(np.asarray(whisper._encoded), ctranslate2_s.encoded)


def test_whisper_s_own_reading_on_it_is_ctranslate2_s(whisper: WhisperTranscriber, ctranslate2_s: Theirs) -> None:
    """Whisper's greedy reading of the window, on this decoder and on CTranslate2's: the same
    tokens, and a log probability within half a nat; or the same tokens up to a step where the
    two next tokens they chose (the end counts as one) tie to within int8's rounding in both
    decoders' scores (on a CPU without AVX2, "Next, let run to 0" here against CTranslate2's
    "... to 0." on its own kernels: a full stop and the end within a few hundredths of a nat)."""
    ours, our_rows = whisper._read_own()
    theirs, their_rows = ctranslate2_s.own_reading(whisper.end, READING_TOKENS)
    if ours == theirs:
        # the likeliest way to end along that path, as own_reading weighs it
        best = best_ending(theirs, their_rows, whisper.end)
        assert abs(whisper.own_reading()[1] - best) < 0.5
        return
    at = next(i for i in range(min(len(ours), len(theirs)) + 1)
              if i == len(ours) or i == len(theirs) or ours[i] != theirs[i])
    ours_next = ours[at] if at < len(ours) else whisper.end
    theirs_next = theirs[at] if at < len(theirs) else whisper.end
    for rows in (our_rows, their_rows):
        assert abs(float(rows[at][ours_next]) - float(rows[at][theirs_next])) < 0.4, (
            at, whisper.tokenizer.decode(ours), whisper.tokenizer.decode(theirs))


class Scripted:
    """A reader whose decoder's scores for the next token are written by ``scores(tokens
    written so far, row)``: a logic test of the reading's stopping rules."""

    def __init__(self, whisper: WhisperTranscriber, scores: Callable[[int, np.ndarray], None]) -> None:
        self.vocabulary = whisper.decoder.vocabulary
        self.scores = scores
        self.decoder = self

    def last(self, text: list[int]) -> np.ndarray:
        return np.full(1, float(len(text)), dtype=np.float32)

    def logits(self, hidden: np.ndarray) -> np.ndarray:
        row = np.zeros((1, self.vocabulary), dtype=np.float32)
        self.scores(int(hidden[0, 0]), row[0])
        return row


def test_a_sentence_written_twice_running_ends_the_reading(whisper: WhisperTranscriber,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A short window can make Whisper write a command over and over: the reading stops when a
    sentence comes again, and keeps it once (the decoder's choice of tokens scripted here)."""
    said = list(tokens(whisper, " Pass. Pass. Pass. Pass."))

    def scores(written: int, row: np.ndarray) -> None:
        row[said[written] if written < len(said) else whisper.end] = 10.0

    monkeypatch.setattr(whisper, "_reader", Scripted(whisper, scores))
    monkeypatch.setattr(whisper, "_own", None)
    ids, rows = whisper._read_own()
    assert whisper.tokenizer.decode(ids).strip() == "Pass."
    assert len(rows) == len(ids) + 1


def test_the_own_reading_rides_along_with_the_grammar_search_and_reads_the_same(
        whisper: WhisperTranscriber, tmp_path: Path) -> None:
    """The grammar search's decoder calls carry Whisper's own reading a token each (one call for
    both, not one more per token); read so, or alone afterwards, it is the same text, and its log
    probability differs only by the int8 products' rounding (their input's scale is the batch's)."""
    maker = ClipMaker(tmp_path)
    graph = WordGraph(OMEGA, ["explore", "pass", "help"])
    for said in ("explore one zero zero", "pass"):
        audio = maker.say(said, VOICE).tobytes()
        whisper.forget()
        assert whisper.listen(audio, short=True)
        alone = whisper.own_reading()
        whisper.forget()
        assert whisper.listen(audio, short=True)
        found = whisper.held_to(graph, beam=6)
        own = whisper._own
        assert found and own is not None and len(own.rows) >= 2, "the search's calls read none of it"
        along = whisper.own_reading()
        assert along[0] == alone[0]
        assert abs(along[1] - alone[1]) < 0.05
        assert whisper.own_reading() == along  # read once an utterance


def write_model(path: Path, spec: str, variables: dict[str, np.ndarray], cut: int = 0) -> Path:
    """A CTranslate2 model file in its binary version 6 (ModelSpec._serialize)."""
    def string(text: str) -> bytes:
        return struct.pack("H", len(text) + 1) + text.encode() + b"\0"

    kinds = {"float32": 0, "int8": 1, "int16": 2, "float16": 4}
    out = struct.pack("I", 6) + string(spec) + struct.pack("II", 1, len(variables))
    for name, value in variables.items():
        out += string(name) + struct.pack("B", value.ndim) + b"".join(struct.pack("I", d) for d in value.shape)
        out += struct.pack("B", kinds[value.dtype.name]) + struct.pack("I", value.nbytes) + value.tobytes()
    out += struct.pack("I", 0)
    path.write_bytes(out[:len(out) - cut] if cut else out)
    return path


def test_a_file_it_cannot_read_is_refused_by_name(tmp_path: Path) -> None:
    weights = {"decoder/embeddings/weight": np.ones((4, 2), dtype=np.float16)}
    read = read_variables(write_model(tmp_path / "ok.bin", "WhisperSpec", weights))
    assert read["decoder/embeddings/weight"].shape == (4, 2)
    with pytest.raises(ModelFileError, match="TransformerSpec, not a Whisper model"):
        read_variables(write_model(tmp_path / "other.bin", "TransformerSpec", weights))
    with pytest.raises(ModelFileError, match="not a whole CTranslate2 model file"):
        read_variables(write_model(tmp_path / "cut.bin", "WhisperSpec", weights, cut=5))
    with pytest.raises(ModelFileError, match="no decoder/num_heads|not Whisper's decoder"):
        Decoder.load(write_model(tmp_path / "parts.bin", "WhisperSpec", weights))
    quantized = {"decoder/layer_0/ffn/linear_0/weight": np.ones((4, 2), dtype=np.int8),
                 "decoder/layer_0/ffn/linear_0/weight_scale": np.ones(4, dtype=np.float32)}
    with pytest.raises(ModelFileError, match="quantized weights"):  # int8 read unscaled would mean nothing
        read_variables(write_model(tmp_path / "int8.bin", "WhisperSpec", quantized))


def test_a_whisper_model_whose_decoder_numpy_cannot_read_is_refused_saying_what_it_reads(tmp_path: Path) -> None:
    """A model folder whose model.bin the numpy decoder cannot read (here tiny.en's cut short, as
    an interrupted copy leaves it) is refused with a ModelError that names the file's fault, what
    the decoder reads, and the setting and models to use instead."""
    whole = find_model("faster-whisper-tiny.en", Path("/nonexistent"))
    folder = tmp_path / "cut-whisper"
    folder.mkdir()
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        shutil.copy(whole / name, folder / name)
    with (whole / "model.bin").open("rb") as model:
        (folder / "model.bin").write_bytes(model.read(1 << 20))
    with pytest.raises(ModelError) as refused:
        WhisperTranscriber.load(folder, WhisperSettings(model=str(folder), check_sha256=False))
    message = str(refused.value)
    assert str(folder) in message and "cannot read model.bin" in message
    assert "not a whole CTranslate2 model file" in message  # what is wrong with it
    assert "float16 or float32" in message and "hearing.whisper.model" in message
    assert all(name in message for name in KNOWN_MODELS)
    assert isinstance(refused.value.__cause__, ModelFileError)


def test_a_loop_of_one_token_ends_the_reading_once_its_score_is_settled(whisper: WhisperTranscriber,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """"1 1 1 1 1 ..." to the end of Whisper's 60 tokens (a recorded speaker's "one", heard on a
    short window) stops after a few ones: the likeliest ending is already behind it."""
    one = tokens(whisper, " 1")[0]

    def scores(written: int, row: np.ndarray) -> None:
        row[one] = 12.0
        row[whisper.end] = 11.0 if written == 1 else 2.0  # ending after the first one is likely

    monkeypatch.setattr(whisper, "_reader", Scripted(whisper, scores))
    monkeypatch.setattr(whisper, "_own", None)
    ids, rows = whisper._read_own()
    # each further one costs about 0.28 nat; ending after the first is 2.04 below nothing: settled
    # at the sixth
    assert ids == [one] * 6
    assert len(rows) == len(ids)


def test_log_probabilities_in_place_are_the_same_numbers() -> None:
    scores = np.random.default_rng(3).normal(0, 8, (5, 51864)).astype(np.float32)
    kept = scores.copy()
    apart = log_softmax32(scores)
    assert np.array_equal(scores, kept)  # left as it was
    inside = log_softmax32(scores, overwrite=True)
    assert inside is scores and np.array_equal(inside, apart)
    assert np.allclose(np.exp(apart.astype(np.float64)).sum(axis=1), 1.0, atol=1e-4)


def test_ctranslate2_refusing_the_cut_model_loads_the_whole_one(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    """A CTranslate2 that checks the decoder's sizes (a later version, say) is given the whole
    model: the decoder is then held twice, the log says so, and hearing is unchanged."""
    from assistant.hearing import whisper_engine

    def refused(path: Path) -> bytes:
        raise RuntimeError("decoder/embeddings/weight has the wrong shape")

    monkeypatch.setattr(whisper_engine, "without_decoder", refused)
    with caplog.at_level("WARNING"):
        whisper = WhisperTranscriber.load(find_model("faster-whisper-tiny.en", Path("/nonexistent")))
    assert whisper.decoder is not None
    assert "holds Whisper's decoder as well" in caplog.text and "wrong shape" in caplog.text
    clip = ClipMaker(tmp_path).say("explore room one zero two", VOICE).tobytes()
    monkeypatch.undo()
    usual = WhisperTranscriber.load(find_model("faster-whisper-tiny.en", Path("/nonexistent")))
    prompt = "explore room one zero two, pass, pause, help"
    assert whisper.hypotheses(clip, prompt, 2) == usual.hypotheses(clip, prompt, 2)
    assert "one zero two" in whisper.hypotheses(clip, prompt, 1)[0].lower().replace(",", "")


def test_without_onnxruntime_s_int8_kernels_the_products_run_in_numpy(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """When onnxruntime cannot make the int8 products (missing, or too old for the operator),
    numpy makes them all, from the int8 weights it keeps, and the log says why."""
    from assistant.hearing import whisper_decoder

    class Missing:
        def __init__(self, *args: object) -> None:
            raise ImportError("No module named 'onnxruntime'")

    monkeypatch.setattr(whisper_decoder, "Int8Product", Missing)
    with caplog.at_level("WARNING"):
        decoder = Decoder.load(find_model("faster-whisper-tiny.en", Path("/nonexistent")) / "model.bin")
    assert decoder.output is None and decoder.embedding is not None
    assert all(part.product is None and part.weight is not None
               for layer in decoder.layers for part in vars(layer).values() if hasattr(part, "product"))
    assert "onnxruntime" in decoder.int8_because and "twice the CPU time" in caplog.text
    assert decoder.logits(np.ones((2, decoder.width), dtype=np.float32)).shape == (2, decoder.vocabulary)
