"""Whisper's text decoder in numpy, keeping what it has read: a word at a time for pennies.

The grammar search (``closed.search``) grows its sentences a word at a time and asks, at each
word, for the log probabilities of every sentence's next token. CTranslate2's
``Whisper.generate`` keeps nothing between calls, so each call read every sentence again from
its start and worked out its attention over the audio afresh: about 0.1 CPU s a call at beam 6
(a seven-word sentence cost 0.7-1.7 s). This decoder is the same network (the weights of the
CTranslate2 model file, read here as they are stored) run in numpy with its keys and values
kept: the audio's keys and values are worked out once per utterance (``Decoder.attend``), and a
sentence grown by a word is read from where its shorter self stopped (``Reader``): about ten
times cheaper a search.

Its weights are kept in int8 with a scale per output row, as CTranslate2's int8 keeps them (a
quarter of float32's memory: about 29 MB for tiny.en's decoder), and its products run in
onnxruntime's int8 kernels (``Int8Product``: the input rounded to 8 bits, each row on its own
scale, as CTranslate2 rounds it; the weights given as unsigned bytes, whose kernels are exact on
every CPU: ``unsigned``); attention, norms and GELU stay in float32. Without
onnxruntime's kernels the int8 weights are widened to float32 for each product in numpy
(about twice the CPU). Scores differ from CTranslate2's by a few hundredths to a few tenths of
a nat a token, up to about one for sentences far below what was said
(tests/test_whisper_decoder.py holds them to it). The hybrid's thresholds are read off this
decoder's scores; Whisper's free text is written by its beam search too
(``whisper_free.FreeText``), so CTranslate2 holds the encoder alone (``without_decoder``).

The model file's format (CTranslate2's ``ModelSpec._serialize``, binary version 6): the spec's
name and revision, then each variable's name, shape, type and bytes, then aliases.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import math
import struct
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float32]

_TYPES = ("float32", "int8", "int16", "int32", "float16", "bfloat16")
#: the bytes of one number of each
_SIZES = (4, 1, 2, 4, 2, 2)
#: Whisper's decoder attends to at most this many of its own positions
MAX_POSITIONS = 448
#: tokens of the output layer widened from int8 at a time (small enough to stay in cache)
_BLOCK = 1024
#: onnxruntime's int8 products are taken if, for made-up rows, they are within this share of
#: their largest output of numpy's float32 products (measured: about 0.01 for tiny.en's)
INT8_TOLERANCE = 0.05


@functools.cache
def _blas() -> Any:
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """numpy's products on one thread for the decoder's small ones: a second BLAS thread spins
    more than it works on them (measured: half the CPU time of a grammar search here, for a few
    milliseconds of waiting)."""
    with _blas().limit(limits=1, user_api="blas"):
        yield


class ModelFileError(ValueError):
    """The model file is not a CTranslate2 Whisper model this decoder can read."""


class _ModelFile:
    """Reading a CTranslate2 model file in order (its format is in the module's docstring)."""

    def __init__(self, file: BinaryIO, path: Path) -> None:
        self.file, self.path = file, path
        self.total = path.stat().st_size

    def take(self, size: int) -> bytes:
        data = self.file.read(size)
        if len(data) < size:
            raise ModelFileError(f"{self.path}: not a whole CTranslate2 model file (it ends too soon)")
        return data

    def number(self, fmt: str) -> int:
        return int(struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0])

    def string(self) -> str:
        return self.take(self.number("H"))[:-1].decode()

    def header(self) -> tuple[int, str, int]:
        """(binary version, spec name, spec revision), checked to be a Whisper model this reads."""
        version = self.number("I")
        if version < 5:
            raise ModelFileError(f"{self.path}: CTranslate2 model format {version} is older than this decoder reads")
        spec = self.string()
        if not spec.startswith("Whisper"):
            raise ModelFileError(f"{self.path}: a {spec}, not a Whisper model")
        return version, spec, self.number("I")

    def variables(self) -> Iterator[tuple[str, tuple[int, ...], int, int]]:
        """Each variable's (name, shape, type index, size in bytes); the caller takes or skips
        its bytes before asking for the next."""
        for _ in range(self.number("I")):
            name = self.string()
            shape = tuple(self.number("I") for _ in range(self.number("B")))
            kind = self.number("B")
            size = self.number("I")
            if kind >= len(_TYPES):
                raise ModelFileError(f"{self.path}: {name} has an unknown type ({kind})")
            if self.file.tell() + size > self.total:
                raise ModelFileError(f"{self.path}: not a whole CTranslate2 model file ({name} is cut short)")
            yield name, shape, kind, size

    def aliases(self) -> list[tuple[str, str]]:
        return [(self.string(), self.string()) for _ in range(self.number("I"))]


@contextlib.contextmanager
def _model_file_errors(path: Path) -> Iterator[None]:
    """A file that is not a whole model file raises ModelFileError, whatever broke reading it."""
    try:
        yield
    except ModelFileError:
        raise
    except (struct.error, IndexError, ValueError, UnicodeDecodeError) as error:
        raise ModelFileError(f"{path}: not a whole CTranslate2 model file ({error})") from error


def read_variables(path: Path, prefix: str = "decoder/",
                   mapped: Collection[str] = ()) -> dict[str, npt.NDArray[np.generic]]:
    """The variables of a CTranslate2 model file whose names start with ``prefix`` (as stored:
    float16 weights stay float16). Only those are read: the file is not held in memory whole.
    Those named in ``mapped`` are not read but mapped from the file (read-only): a row looked
    up costs a page of the file, not the whole matrix in memory."""
    out: dict[str, npt.NDArray[np.generic]] = {}
    with path.open("rb") as file, _model_file_errors(path):
        model = _ModelFile(file, path)
        model.header()
        for name, shape, kind, size in model.variables():
            if not name.startswith(prefix):
                file.seek(size, 1)
                continue
            if _TYPES[kind] == "bfloat16":
                raise ModelFileError(f"{path}: bfloat16 weights are not read here")
            if name.endswith("weight_scale"):  # a quantized conversion: its int weights mean nothing unscaled
                raise ModelFileError(f"{path}: quantized weights ({name}) are not read here")
            if name in mapped and size:
                out[name] = np.memmap(path, dtype=_TYPES[kind], mode="r", offset=file.tell(), shape=shape)
                file.seek(size, 1)
                continue
            out[name] = np.frombuffer(model.take(size), dtype=_TYPES[kind]).reshape(shape)
        for alias, name in model.aliases():
            if alias.startswith(prefix) and name in out:
                out[alias] = out[name]
    return out


def without_decoder(path: Path) -> bytes:
    """The model file with every weight of its decoder cut to a single zero (its shape's rank
    kept), for CTranslate2 to load as the encoder alone: the decoder it would hold (about 29 MB
    of tiny.en's 46 in int8) is this module's. CTranslate2 checks the decoder's variables are
    there, not their sizes, when it loads; the encoder's output is the full model's to the bit
    (tests/test_whisper_decoder.py)."""
    out = bytearray()

    def put(fmt: str, value: int) -> None:
        out.extend(struct.pack(fmt, value))

    def put_string(text: str) -> None:
        data = text.encode() + b"\0"
        put("H", len(data))
        out.extend(data)

    with path.open("rb") as file, _model_file_errors(path):
        model = _ModelFile(file, path)
        version, spec, revision = model.header()
        put("I", version)
        put_string(spec)
        put("I", revision)
        kept: list[tuple[str, tuple[int, ...], int, bytes]] = []
        for name, shape, kind, size in model.variables():
            if name.startswith("decoder/") and math.prod(shape) > 1:
                file.seek(size, 1)
                shape = (1,) * len(shape)
                data = bytes(_SIZES[kind])
            else:
                data = model.take(size)
            kept.append((name, shape, kind, data))
        aliases = model.aliases()
    put("I", len(kept))
    for name, shape, kind, data in kept:
        put_string(name)
        put("B", len(shape))
        for dim in shape:
            put("I", dim)
        put("B", kind)
        put("I", len(data))
        out.extend(data)
    put("I", len(aliases))
    for alias, name in aliases:
        put_string(alias)
        put_string(name)
    return bytes(out)


def _erf(x: Array) -> Array:
    """The error function to about 1e-7 (Abramowitz and Stegun 7.1.26; numpy has none)."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return (sign * (1.0 - poly * np.exp(-a * a))).astype(np.float32)


def _gelu(x: Array) -> Array:
    return (0.5 * x * (1.0 + _erf(x * np.float32(1.0 / math.sqrt(2.0))))).astype(np.float32)


def _norm(x: Array, gamma: Array, beta: Array) -> Array:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    return (centred / np.sqrt(var + np.float32(1e-5)) * gamma + beta).astype(np.float32)


def _varint(number: int) -> bytes:
    out = bytearray()
    while True:
        low, number = number & 0x7F, number >> 7
        out.append(low | (0x80 if number else 0))
        if not number:
            return bytes(out)


def _field(number: int, value: int | str | bytes) -> bytes:
    """One protobuf field: an integer (varint) or a string or message (length-delimited)."""
    if isinstance(value, int):
        return _varint(number << 3) + _varint(value)
    data = value.encode() if isinstance(value, str) else value
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def product_model(inputs: int, outputs: int) -> bytes:
    """The ONNX model of one int8 product, y = x W^T with W (outputs, inputs) given turned round:
    x rounded to 8 bits as it comes (onnxruntime's DynamicQuantizeMatMul, as CTranslate2's int8
    does) and W's int8 numbers given as unsigned bytes, 128 above, with a zero point of 128 and a
    scale per output (``unsigned``). Its weight, scale and zero point are not in the model: they
    are given from memory when the session is made. Written here field by field (onnx.proto's
    numbers), as the onnx package costs 16 MB of memory to import for a graph of one node
    (tests/test_whisper_decoder.py holds it to what the onnx package reads)."""
    float32, uint8, external = 1, 2, 1

    def shape(dims: Sequence[int | str]) -> bytes:
        return b"".join(_field(1, _field(1, d) if isinstance(d, int) else _field(2, d)) for d in dims)

    def value(name: str, kind: int, dims: Sequence[int | str]) -> bytes:
        return _field(1, name) + _field(2, _field(1, _field(1, kind) + _field(2, shape(dims))))

    def given(name: str, kind: int, dims: Sequence[int], size: int) -> bytes:
        entries = (("location", name), ("offset", "0"), ("length", str(size)))
        return (b"".join(_field(1, d) for d in dims) + _field(2, kind) + _field(8, name)
                + b"".join(_field(13, _field(1, k) + _field(2, v)) for k, v in entries) + _field(14, external))

    node = (_field(1, "x") + _field(1, "weight") + _field(1, "scale") + _field(1, "zero") + _field(2, "y")
            + _field(3, "product") + _field(4, "DynamicQuantizeMatMul") + _field(7, "com.microsoft"))
    graph = (_field(1, node) + _field(2, "int8_product")
             + _field(5, given("weight", uint8, (inputs, outputs), inputs * outputs))
             + _field(5, given("scale", float32, (outputs,), 4 * outputs))
             + _field(5, given("zero", uint8, (outputs,), outputs))
             + _field(11, value("x", float32, ("rows", inputs)))
             + _field(12, value("y", float32, ("rows", outputs))))
    opsets = _field(8, _field(1, "") + _field(2, 17)) + _field(8, _field(1, "com.microsoft") + _field(2, 1))
    return _field(1, 8) + opsets + _field(7, graph)


def unsigned(weight: npt.NDArray[np.int8]) -> npt.NDArray[np.uint8]:
    """W's int8 numbers as unsigned bytes, 128 above (zero point 128), turned round for the model.
    With signed weights onnxruntime multiplies unsigned inputs by them in 16-bit pairs on x86
    CPUs without VNNI (AVX2's vpmaddubsw), and a pair's sum above 32,767 saturates: outputs a
    tenth or more of their size wrong. Unsigned by unsigned it widens to 16 bits first (and on
    arm64 uses its dot products): the same integers, exact on every CPU. A third slower than
    signed on a CPU with VNNI, where signed was exact."""
    turned = np.empty((weight.shape[1], weight.shape[0]), dtype=np.uint8)
    np.add(weight.T.view(np.uint8), 128, out=turned, casting="unsafe")
    return turned


class Int8Product:
    """x W^T in onnxruntime's int8 kernels: the input rounded to 8 bits, W int8 with a scale per
    output, as CTranslate2's int8 runs Whisper. Several times as fast as widening the int8
    weights to float32 for numpy's product (the output layer: 1.1 ms instead of 9 ms for five
    states of tiny.en here). onnxruntime packs the weight into its own layout when the session
    is made: the int8 matrix given to it can be let go after."""

    def __init__(self, weight: npt.NDArray[np.int8], scale: Array) -> None:
        import onnxruntime

        outputs, inputs = weight.shape
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # the decoder runs on one thread (its products would not gain)
        options.inter_op_num_threads = 1
        options.enable_cpu_mem_arena = False  # scores for many states are megabytes: given back, not pooled
        # an OrtValue does not keep its array alive: all are held until the session has its copy
        given = (unsigned(weight), np.ascontiguousarray(scale, dtype=np.float32), np.full(outputs, 128, np.uint8))
        values = [onnxruntime.OrtValue.ortvalue_from_numpy(array) for array in given]
        options.add_external_initializers(["weight", "scale", "zero"], values)
        self.session = onnxruntime.InferenceSession(product_model(inputs, outputs), sess_options=options,
                                                    providers=["CPUExecutionProvider"])
        del values, given
        self.inputs = inputs

    def __call__(self, x: Array) -> Array:
        # onnxruntime rounds all the rows it is given to 8 bits on one scale, from their least
        # to their greatest value: each row is brought to a greatest magnitude of one (its
        # product back after), and a made-up row from -1 to 1 is given with them, so the scale is
        # always the same and a row's product does not depend on the others given with it
        size = np.abs(x).max(axis=1, keepdims=True).astype(np.float32)
        size[size == 0] = 1.0
        given = np.empty((x.shape[0] + 1, self.inputs), dtype=np.float32)
        np.divide(x, size, out=given[:-1])
        given[-1] = 0.0
        given[-1, :2] = (-1.0, 1.0)
        out: Array = self.session.run(None, {"x": given})[0][:-1]
        out *= size
        return out


@dataclass(frozen=True)
class _Linear:
    """y = x W^T + b, W kept in int8 with a scale per output (as CTranslate2's int8 keeps it: a
    quarter of float32's memory): in onnxruntime's int8 product (``product``), or widened for
    numpy's (about a millisecond a step for all of tiny.en's layers here)."""

    weight: npt.NDArray[np.int8] | None  # (out, in); None once the product holds it
    scale: Array  # (out,)
    bias: Array
    product: Int8Product | None = None

    @classmethod
    def of(cls, weight: Array, bias: Array) -> _Linear:
        scale = np.abs(weight).max(axis=1) / 127.0
        scale[scale == 0] = 1.0
        return cls(np.round(weight / scale[:, None]).astype(np.int8), scale.astype(np.float32), bias)

    def in_int8(self) -> _Linear:
        """The same layer on onnxruntime's int8 product, its numpy weights let go."""
        assert self.weight is not None
        return _Linear(None, self.scale, self.bias, Int8Product(self.weight, self.scale))

    def without_bias(self, x: Array) -> Array:
        out: Array = self(x) - self.bias
        return out

    def __call__(self, x: Array) -> Array:
        if self.product is not None:
            out: Array = self.product(x)
            out += self.bias
            return out
        assert self.weight is not None
        # W x^T, turned round: x W^T (W turned round, in the product) cost OpenBLAS about twice
        # as much for 2 to 16 rows (see Decoder.logits)
        wide = self.weight.astype(np.float32) @ x.T
        out = np.ascontiguousarray(wide.T)
        out *= self.scale
        out += self.bias
        return out


@dataclass(frozen=True)
class _Layer:
    self_norm: tuple[Array, Array]
    self_qkv: _Linear
    self_out: _Linear
    cross_norm: tuple[Array, Array]
    cross_q: _Linear
    cross_kv: _Linear
    cross_out: _Linear
    ffn_norm: tuple[Array, Array]
    ffn_in: _Linear
    ffn_out: _Linear


@dataclass(frozen=True)
class Memory:
    """The audio's keys and values for each layer's attention over it: (heads, positions, depth)."""

    keys: tuple[Array, ...]
    values: tuple[Array, ...]


@dataclass(frozen=True)
class State:
    """A text read so far: each layer's keys and values of its own positions (heads, length,
    depth), and its length."""

    keys: tuple[Array, ...]
    values: tuple[Array, ...]
    length: int


class Decoder:
    """Whisper's decoder (pre-norm transformer, erf GELU, tied output embedding): weights in
    int8 with a scale per output, products in onnxruntime's int8 kernels (``Int8Product``), the
    rest (attention, norms, GELU) in numpy float32."""

    def __init__(self, variables: dict[str, npt.NDArray[np.generic]], int8: bool = True) -> None:
        """From the model file's decoder variables (``read_variables``), taken out of
        ``variables`` as they are made the decoder's own. ``int8`` False: every product in numpy,
        the int8 weights widened to float32 for each (as when onnxruntime cannot make them)."""
        def get(name: str) -> Array:
            if f"decoder/{name}" not in variables:
                raise ModelFileError(f"the model file has no decoder/{name}")
            # taken out as it is widened, so the file's copy is let go as the decoder's is made
            return np.ascontiguousarray(variables.pop(f"decoder/{name}"), dtype=np.float32)

        def linear(name: str) -> _Linear:
            return _Linear.of(get(f"{name}/weight"), get(f"{name}/bias"))

        def norm(name: str) -> tuple[Array, Array]:
            return get(f"{name}/gamma"), get(f"{name}/beta")

        flags = {name: int(np.asarray(variables.get(f"decoder/{name}", -1)).reshape(-1)[0])
                 for name in ("activation", "pre_norm", "scale_embeddings", "alibi")}
        if flags != {"activation": 3, "pre_norm": 1, "scale_embeddings": 0, "alibi": 0}:
            raise ModelFileError(f"not Whisper's decoder as this one runs it ({flags})")
        self.heads = int(np.asarray(variables["decoder/num_heads"]).reshape(-1)[0])
        # The token embedding is also the output layer, and by far the largest matrix (80 MB in
        # float32 for tiny.en): rounded to int8 with a scale per token, as CTranslate2 keeps it,
        # for the output layer's int8 product; the rows a reading looks up are then read from
        # the model file as it is mapped. Without onnxruntime's products the int8 matrix is kept
        # and widened a block at a time when scores are wanted.
        if "decoder/embeddings/weight" not in variables:
            raise ModelFileError("the model file has no decoder/embeddings/weight")
        stored = variables.pop("decoder/embeddings/weight")
        variables.pop("decoder/projection/weight", None)  # the same matrix (an alias)
        tokens, width = (int(n) for n in stored.shape)
        self.embedding: npt.NDArray[np.int8] | None = np.empty((tokens, width), dtype=np.int8)
        self.scales: Array = np.empty(tokens, dtype=np.float32)
        for first in range(0, tokens, 4 * _BLOCK):  # a block at a time: no float32 copy of it all
            block = np.asarray(stored[first:first + 4 * _BLOCK], dtype=np.float32)
            scales = np.abs(block).max(axis=1) / 127.0
            scales[scales == 0] = 1.0
            self.embedding[first:first + 4 * _BLOCK] = np.round(block / scales[:, None])
            self.scales[first:first + 4 * _BLOCK] = scales
        self.width = width
        #: the output layer's int8 product; None: numpy's (``int8`` off, or onnxruntime could not
        #: make the products: ``int8_because`` says why)
        self.output: Int8Product | None = None
        self.int8_because = "" if int8 else "not asked for"
        #: the embedding's rows as the model file holds them (mapped), when the int8 copy is let go
        self._rows: npt.NDArray[np.generic] | None = None
        self.positions = get("position_encodings/encodings")
        self.depth = self.width // self.heads
        self.final_norm = norm("layer_norm")
        layers: list[_Layer] = []
        while f"decoder/layer_{len(layers)}/ffn/linear_0/weight" in variables:
            at = f"layer_{len(layers)}"
            layers.append(_Layer(
                norm(f"{at}/self_attention/layer_norm"), linear(f"{at}/self_attention/linear_0"),
                linear(f"{at}/self_attention/linear_1"), norm(f"{at}/attention/layer_norm"),
                linear(f"{at}/attention/linear_0"), linear(f"{at}/attention/linear_1"),
                linear(f"{at}/attention/linear_2"), norm(f"{at}/ffn/layer_norm"),
                linear(f"{at}/ffn/linear_0"), linear(f"{at}/ffn/linear_1")))
        if not layers:
            raise ModelFileError("the model file has no decoder layers")
        self.layers = tuple(layers)
        self.scale = np.float32(1.0 / math.sqrt(self.depth))
        if int8:
            self._in_int8(stored)
        del stored

    def _in_int8(self, stored: npt.NDArray[np.generic]) -> None:
        """Every product on onnxruntime's int8 kernels, each checked against numpy's on a few
        made-up rows (within INT8_TOLERANCE of the largest output; one of them all at its
        greatest, as a saturating kernel would show at once); their numpy weights let go,
        and the embedding's int8 matrix too when the model file's rows can be looked up instead.
        If onnxruntime cannot make one (missing, too old for the operator, or wrong), numpy
        makes them all, and the log says why."""
        assert self.embedding is not None
        rows = np.random.default_rng(0).normal(0.0, 1.0, (3, self.width)).astype(np.float32)
        rows[0] = np.abs(rows).max()  # every input at its greatest: 255 once rounded, beside the others

        def checked(product: Int8Product, numpy_product: Callable[[Array], Array], given: Array) -> Int8Product:
            theirs, ours = product(given), numpy_product(given)
            apart = float(np.abs(theirs - ours).max() / max(float(np.abs(ours).max()), 1e-6))
            if not apart <= INT8_TOLERANCE:
                raise ValueError(f"an int8 product is {apart:.3f} of its largest output from numpy's")
            return product

        try:
            output = checked(Int8Product(self.embedding, self.scales), self._numpy_logits, rows)
            layers = []
            for layer in self.layers:
                parts: dict[str, Any] = {}
                for name, part in vars(layer).items():
                    if isinstance(part, _Linear):
                        made = part.in_int8()
                        assert made.product is not None and part.weight is not None
                        given = np.random.default_rng(1).normal(0.0, 1.0, (3, part.weight.shape[1]))
                        given[0] = np.abs(given).max()
                        checked(made.product, part.without_bias, given.astype(np.float32))
                        parts[name] = made
                layers.append(dataclasses.replace(layer, **parts))
        except Exception as error:
            self.int8_because = f"onnxruntime's int8 arithmetic cannot be used here ({error})"
            logging.getLogger(__name__).warning(
                "Hearing takes about twice the CPU time on this machine: %s, so Whisper's decoding runs in plain "
                "float arithmetic. It hears the same; `assistant doctor` says this too.", self.int8_because)
            return
        self.output = output
        self.layers = tuple(layers)
        if isinstance(stored, np.memmap) and stored.dtype in (np.float16, np.float32) and stored.filename:
            # mapped afresh: the mapping read whole to round it holds every page of it (40 MB of
            # tiny.en's file counted in the process's memory); a fresh one holds the rows looked up
            self._rows = np.memmap(stored.filename, dtype=stored.dtype, mode="r", offset=stored.offset,
                                   shape=stored.shape)
            self.embedding = None

    @classmethod
    def load(cls, model_file: Path, int8: bool = True) -> Decoder:
        return cls(read_variables(model_file, mapped={"decoder/embeddings/weight"}), int8)

    @property
    def vocabulary(self) -> int:
        return int(self.scales.shape[0])

    def embed(self, tokens: Sequence[int]) -> Array:
        if self._rows is not None:  # rounded to int8 as the kept matrix is, to the same numbers
            rows = np.asarray(self._rows[list(tokens)], dtype=np.float32)
            scales = self.scales[list(tokens)][:, None]
            out_rows: Array = (np.round(rows / scales) * scales).astype(np.float32)
            return out_rows
        assert self.embedding is not None
        out: Array = (self.embedding[list(tokens)] * self.scales[list(tokens)][:, None]).astype(np.float32)
        return out

    def _split(self, x: Array) -> Array:
        """(length, width) -> (heads, length, depth)"""
        return np.ascontiguousarray(x.reshape(x.shape[0], self.heads, self.depth).transpose(1, 0, 2))

    def attend(self, encoded: Array) -> Memory:
        """The keys and values of each layer's attention over the audio's encoding
        (positions, width): worked out once per utterance."""
        keys, values = [], []
        for layer in self.layers:
            kv = layer.cross_kv(np.ascontiguousarray(encoded, dtype=np.float32))
            keys.append(self._split(kv[:, :self.width]))
            values.append(self._split(kv[:, self.width:]))
        return Memory(tuple(keys), tuple(values))

    def start(self) -> State:
        empty = np.zeros((self.heads, 0, self.depth), dtype=np.float32)
        return State(tuple(empty for _ in self.layers), tuple(empty for _ in self.layers), 0)

    def read(self, memory: Memory, state: State, tokens: Sequence[int]) -> tuple[Array, State]:
        """Read ``tokens`` after ``state``: the final hidden state after each (len(tokens),
        width; ``logits`` turns them into scores for the token after each) and the new state."""
        return self.read_many(memory, [(state, tokens)])[0]

    def read_many(self, memory: Memory, texts: Sequence[tuple[State, Sequence[int]]]) -> list[tuple[Array, State]]:
        """``read`` for several texts over the same audio at once: every step but a text's
        attention to its own earlier tokens is one product for all of them."""
        sizes = [len(tokens) for _, tokens in texts]
        if not texts or 0 in sizes:
            raise ValueError("nothing to read")
        if max(state.length + n for (state, _), n in zip(texts, sizes, strict=True)) > MAX_POSITIONS:
            raise ValueError(f"Whisper's decoder reads at most {MAX_POSITIONS} tokens")
        cuts = np.cumsum([0, *sizes])
        x: Array = self.embed([t for _, tokens in texts for t in tokens]) + np.concatenate(
            [self.positions[state.length:state.length + n] for (state, _), n in zip(texts, sizes, strict=True)])
        # a new token attends to every earlier one and to itself, not to those after it
        masks = [np.triu(np.full((n, state.length + n), -np.inf, dtype=np.float32), k=state.length + 1)
                 for (state, _), n in zip(texts, sizes, strict=True)]
        keys: list[list[Array]] = [[] for _ in texts]
        values: list[list[Array]] = [[] for _ in texts]
        w = self.width
        # a beam search's step: one token more for texts read as far, their attention one product
        steps = len(texts) > 1 and max(sizes) == 1 and len({state.length for state, _ in texts}) == 1
        for i, layer in enumerate(self.layers):
            qkv = layer.self_qkv(_norm(x, *layer.self_norm))
            if steps:
                x = x + layer.self_out(self._step(qkv, [state for state, _ in texts], i, keys, values))
            else:
                heard = []
                for j, (state, _) in enumerate(texts):
                    part = qkv[cuts[j]:cuts[j + 1]]
                    k = np.concatenate([state.keys[i], self._split(part[:, w:2 * w])], axis=1)
                    v = np.concatenate([state.values[i], self._split(part[:, 2 * w:])], axis=1)
                    keys[j].append(k)
                    values[j].append(v)
                    heard.append(self._merge(self._attention(self._split(part[:, :w]), k, v, masks[j])))
                x = x + layer.self_out(np.concatenate(heard))
            q = self._split(layer.cross_q(_norm(x, *layer.cross_norm)))
            x = x + layer.cross_out(self._merge(self._attention(q, memory.keys[i], memory.values[i], None)))
            x = x + layer.ffn_out(_gelu(layer.ffn_in(_norm(x, *layer.ffn_norm))))
        hidden = _norm(x, *self.final_norm)
        return [(hidden[cuts[j]:cuts[j + 1]], State(tuple(keys[j]), tuple(values[j]), state.length + sizes[j]))
                for j, (state, _) in enumerate(texts)]

    def _step(self, qkv: Array, states: list[State], i: int, keys: list[list[Array]],
              values: list[list[Array]]) -> Array:
        """Layer ``i``'s attention of one new token of each text to its own earlier ones, for
        texts read as far (a beam search's step): one batched product instead of one a text.
        Each text's keys and values (heads, length + 1, depth) are kept as a slice of the
        batch's."""
        count, w, length = len(states), self.width, states[0].length
        shape = (count, self.heads, length + 1, self.depth)
        k, v = np.empty(shape, dtype=np.float32), np.empty(shape, dtype=np.float32)
        for j, state in enumerate(states):
            k[j, :, :length] = state.keys[i]
            v[j, :, :length] = state.values[i]
        k[:, :, length] = qkv[:, w:2 * w].reshape(count, self.heads, self.depth)
        v[:, :, length] = qkv[:, 2 * w:].reshape(count, self.heads, self.depth)
        for j in range(count):
            keys[j].append(k[j])
            values[j].append(v[j])
        q = qkv[:, :w].reshape(count, self.heads, 1, self.depth)
        scores = (q @ k.transpose(0, 1, 3, 2)) * self.scale
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        out: Array = ((scores / scores.sum(axis=-1, keepdims=True)) @ v).reshape(count, w)
        return out

    def _attention(self, q: Array, k: Array, v: Array, mask: Array | None) -> Array:
        scores = (q @ k.transpose(0, 2, 1)) * self.scale
        if mask is not None:
            scores = scores + mask
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        out: Array = (scores / scores.sum(axis=-1, keepdims=True)) @ v
        return out

    def _merge(self, x: Array) -> Array:
        """(heads, length, depth) -> (length, width)"""
        return np.ascontiguousarray(x.transpose(1, 0, 2).reshape(x.shape[1], self.width))

    def logits(self, hidden: Array) -> Array:
        """Scores over the vocabulary for the token after each hidden state (rows): onnxruntime's
        int8 product when it runs, else numpy's."""
        if self.output is not None:
            return self.output(hidden)
        return self._numpy_logits(hidden)

    def _numpy_logits(self, hidden: Array) -> Array:
        """The output layer in numpy, worked out token-major (a block of the int8 weights widened,
        times the hidden states, into contiguous rows of the result) and turned round at the end:
        the other way round, hidden states times a block turned round, into a strided slice of
        the result, cost OpenBLAS two to four times as much for 2 to 8 hidden states (on one
        thread; for a single state both cost the same)."""
        assert self.embedding is not None
        rows = np.ascontiguousarray(hidden.T)  # (width, states)
        out = np.empty((self.vocabulary, hidden.shape[0]), dtype=np.float32)
        block = np.empty((_BLOCK, self.width), dtype=np.float32)
        for at in range(0, self.vocabulary, _BLOCK):
            end = min(at + _BLOCK, self.vocabulary)
            np.copyto(block[:end - at], self.embedding[at:end], casting="unsafe")
            np.matmul(block[:end - at], rows, out=out[at:end])
        out *= self.scales[:, None]
        turned: Array = np.ascontiguousarray(out.T)
        return turned


def log_softmax32(logits: Array, overwrite: bool = False) -> Array:
    """Log probabilities from raw scores (last axis), in float32; ``overwrite``: in ``logits``
    itself (the grammar search's scores are (states, vocabulary): one temporary fewer of that
    size per call, the same numbers)."""
    out: Array = logits if overwrite else logits.copy()
    out -= out.max(axis=-1, keepdims=True)
    out -= np.log(np.exp(out).sum(axis=-1, keepdims=True))
    return out


class Reader:
    """One utterance's decoder reading: texts (token tuples after the start sequence) read once
    each, a longer text read on from the longest shorter one already read (the grammar search
    grows its sentences a word at a time)."""

    def __init__(self, decoder: Decoder, encoded: Array | Memory, start: Sequence[int]) -> None:
        """``encoded``: the audio's encoding, or the attention over it another Reader of the
        same audio worked out (``memory``: readings under other prompts share it)."""
        self.decoder = decoder
        self.memory = encoded if isinstance(encoded, Memory) else decoder.attend(encoded)
        self.start = tuple(start)
        hidden, state = decoder.read(self.memory, decoder.start(), start)
        #: each text read so far: the hidden state after its last token (the root: the start's)
        self._hidden: dict[tuple[int, ...], Array] = {(): hidden[-1]}
        self._states: dict[tuple[int, ...], State] = {(): state}

    def hidden(self, texts: Sequence[Sequence[int]]) -> list[Array]:
        """For each text, the hidden state after each of its prefixes, the empty one first:
        (len + 1, width). The texts not read yet are read together, each from the longest of
        its prefixes already read."""
        wanted = self._read(texts)
        return [np.stack([self._hidden[text[:n]] for n in range(len(text) + 1)]) for text in wanted]

    def last(self, text: Sequence[int]) -> Array:
        """The hidden state after the whole of ``text`` (what ``hidden`` gives last), read as
        ``hidden`` reads it: a greedy reading asks for it a token at a time."""
        return self._hidden[self._read([text])[0]]

    def lasts(self, texts: Sequence[Sequence[int]]) -> Array:
        """``last`` for several texts, those not read yet read together: (len(texts), width)."""
        return np.stack([self._hidden[text] for text in self._read(texts)])

    def keep(self, texts: Sequence[Sequence[int]]) -> None:
        """Let go of the keys and values of every text read but ``texts`` (and the start): a beam
        search reads on from its open beams only, and each text's keys and values are its own
        copy (a 40-token reading of five beams kept whole would hold about 60 MB)."""
        wanted = {tuple(text) for text in texts} | {()}
        for text in [text for text in self._states if text not in wanted]:
            del self._states[text]

    def _read(self, texts: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
        """Read the texts not read yet, together; the texts as tuples (the keys of what is kept)."""
        wanted = [tuple(text) for text in texts]
        todo: dict[tuple[int, ...], int] = {}
        for text in wanted:
            if text not in self._hidden:
                todo[text] = max(n for n in range(len(text)) if text[:n] in self._states)
        if todo:
            read = self.decoder.read_many(self.memory, [(self._states[text[:base]], text[base:])
                                                        for text, base in todo.items()])
            for (text, base), (rows, state) in zip(todo.items(), read, strict=True):
                for n in range(base + 1, len(text) + 1):
                    self._hidden[text[:n]] = rows[n - base - 1]
                self._states[text] = state
        return wanted

    def logprobs(self, texts: Sequence[Sequence[int]], since: Sequence[int]) -> list[Array]:
        """For each text, the log probabilities of the token at each position from ``since`` to
        just after the text: (len(text) + 1 - since, vocabulary). One product with the output
        embedding for all of them."""
        return self.logprobs_along(texts, since, None)[0]

    def logprobs_along(self, texts: Sequence[Sequence[int]], since: Sequence[int],
                       along: Sequence[int] | None) -> tuple[list[Array], Array | None]:
        """``logprobs``, and in the same decoder calls the raw scores for the token after
        ``along`` (another text, read with them: a greedy reading's next step riding along with
        a search's)."""
        wanted = self._read([*texts, along] if along is not None else texts)
        rows = [np.stack([self._hidden[text[:n]] for n in range(first, len(text) + 1)])
                for text, first in zip(wanted[:len(texts)], since, strict=True)]
        if along is not None:
            rows.append(self._hidden[wanted[-1]][None])
        logits = self.decoder.logits(np.concatenate(rows))
        raw = logits[-1].copy() if along is not None else None
        scores = log_softmax32(logits, overwrite=True)
        out, at = [], 0
        for row in rows[:len(texts)]:
            out.append(scores[at:at + len(row)])
            at += len(row)
        return out, raw
