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
quarter of float32's memory: about 40 MB for tiny.en's decoder), and widened to float32 for
each product; CTranslate2 also rounds the activations to int8, this decoder does not. Scores
differ from CTranslate2's by a few hundredths to a few tenths of a nat a token, up to about one
for sentences far below what was said (tests/test_whisper_decoder.py holds them to it). The
hybrid's thresholds are read off this decoder's scores (the first look's search and Whisper's
own reading of the window both come from it).

The model file's format (CTranslate2's ``ModelSpec._serialize``, binary version 6): the spec's
name and revision, then each variable's name, shape, type and bytes, then aliases.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float32]

_TYPES = ("float32", "int8", "int16", "int32", "float16", "bfloat16")
#: Whisper's decoder attends to at most this many of its own positions
MAX_POSITIONS = 448
#: tokens of the output layer widened from int8 at a time (small enough to stay in cache)
_BLOCK = 1024


class ModelFileError(ValueError):
    """The model file is not a CTranslate2 Whisper model this decoder can read."""


def read_variables(path: Path, prefix: str = "decoder/") -> dict[str, npt.NDArray[np.generic]]:
    """The variables of a CTranslate2 model file whose names start with ``prefix`` (as stored:
    float16 weights stay float16). Only those are read: the file is not held in memory whole."""
    with path.open("rb") as file:
        total = path.stat().st_size

        def take(size: int) -> bytes:
            data = file.read(size)
            if len(data) < size:
                raise ModelFileError(f"{path}: not a whole CTranslate2 model file (it ends too soon)")
            return data

        def number(fmt: str) -> int:
            return int(struct.unpack(fmt, take(struct.calcsize(fmt)))[0])

        def string() -> str:
            return take(number("H"))[:-1].decode()

        try:
            version = number("I")
            if version < 5:
                raise ModelFileError(f"{path}: CTranslate2 model format {version} is older than this decoder reads")
            spec = string()
            if not spec.startswith("Whisper"):
                raise ModelFileError(f"{path}: a {spec}, not a Whisper model")
            number("I")  # the spec's revision
            out: dict[str, npt.NDArray[np.generic]] = {}
            for _ in range(number("I")):
                name = string()
                shape = tuple(number("I") for _ in range(number("B")))
                kind = _TYPES[number("B")]
                size = number("I")
                if file.tell() + size > total:
                    raise ModelFileError(f"{path}: not a whole CTranslate2 model file ({name} is cut short)")
                if not name.startswith(prefix):
                    file.seek(size, 1)
                    continue
                if kind == "bfloat16":
                    raise ModelFileError(f"{path}: bfloat16 weights are not read here")
                out[name] = np.frombuffer(take(size), dtype=kind).reshape(shape)
            for _ in range(number("I")):
                alias, name = string(), string()
                if alias.startswith(prefix) and name in out:
                    out[alias] = out[name]
        except (struct.error, IndexError, ValueError) as error:
            if isinstance(error, ModelFileError):
                raise
            raise ModelFileError(f"{path}: not a whole CTranslate2 model file ({error})") from error
    return out


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


@dataclass(frozen=True)
class _Linear:
    """y = x W^T + b, W kept in int8 with a scale per output (as CTranslate2's int8 keeps it: a
    quarter of float32's memory) and widened for each product (about a millisecond a step for
    all of tiny.en's layers here)."""

    weight: npt.NDArray[np.int8]  # (out, in)
    scale: Array  # (out,)
    bias: Array

    @classmethod
    def of(cls, weight: Array, bias: Array) -> _Linear:
        scale = np.abs(weight).max(axis=1) / 127.0
        scale[scale == 0] = 1.0
        return cls(np.round(weight / scale[:, None]).astype(np.int8), scale.astype(np.float32), bias)

    def __call__(self, x: Array) -> Array:
        # W x^T, turned round: x W^T (W turned round, in the product) cost OpenBLAS about twice
        # as much for 2 to 16 rows (see Decoder.logits)
        wide = self.weight.astype(np.float32) @ x.T
        out: Array = np.ascontiguousarray(wide.T)
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
    """Whisper's decoder (pre-norm transformer, erf GELU, tied output embedding) over float32
    weights."""

    def __init__(self, variables: dict[str, npt.NDArray[np.generic]]) -> None:
        """From the model file's decoder variables (``read_variables``), taken out of
        ``variables`` as they are made the decoder's own."""
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
        # float32 for tiny.en): kept in int8 with a scale per token, as CTranslate2 keeps it, and
        # widened a block at a time when scores are wanted (as fast here as float32: the product
        # is bound by memory, not arithmetic)
        if "decoder/embeddings/weight" not in variables:
            raise ModelFileError("the model file has no decoder/embeddings/weight")
        stored = variables.pop("decoder/embeddings/weight")
        variables.pop("decoder/projection/weight", None)  # the same matrix (an alias)
        tokens, width = (int(n) for n in stored.shape)
        self.embedding: npt.NDArray[np.int8] = np.empty((tokens, width), dtype=np.int8)
        self.scales: Array = np.empty(tokens, dtype=np.float32)
        for first in range(0, tokens, 4 * _BLOCK):  # a block at a time: no float32 copy of it all
            block = np.asarray(stored[first:first + 4 * _BLOCK], dtype=np.float32)
            scales = np.abs(block).max(axis=1) / 127.0
            scales[scales == 0] = 1.0
            self.embedding[first:first + 4 * _BLOCK] = np.round(block / scales[:, None])
            self.scales[first:first + 4 * _BLOCK] = scales
        del stored
        self.positions = get("position_encodings/encodings")
        self.width = width
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

    @classmethod
    def load(cls, model_file: Path) -> Decoder:
        return cls(read_variables(model_file))

    @property
    def vocabulary(self) -> int:
        return int(self.embedding.shape[0])

    def embed(self, tokens: Sequence[int]) -> Array:
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
        for i, layer in enumerate(self.layers):
            qkv = layer.self_qkv(_norm(x, *layer.self_norm))
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
        """Scores over the vocabulary for the token after each hidden state (rows). Worked out
        token-major (a block of the output layer times the hidden states, into contiguous rows of
        the result) and turned round at the end: the other way round, hidden states times a
        block turned round, into a strided slice of the result, cost OpenBLAS two to four times
        as much for 2 to 8 hidden states (on one thread; for a single state both cost the same)."""
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

    def __init__(self, decoder: Decoder, encoded: Array, start: Sequence[int]) -> None:
        self.decoder = decoder
        self.memory = decoder.attend(encoded)
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
        rows = [hidden[first:] for hidden, first in zip(self.hidden(texts), since, strict=True)]
        scores = log_softmax32(self.decoder.logits(np.concatenate(rows)), overwrite=True)
        out, at = [], 0
        for row in rows:
            out.append(scores[at:at + len(row)])
            at += len(row)
        return out
