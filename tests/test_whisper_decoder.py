"""Whisper's decoder in numpy (assistant/hearing/whisper_decoder.py), on the real tiny.en model:
its scores are CTranslate2's to within int8's rounding, reading on from a shorter text gives
what reading from the start gives, several texts read at once give what each read alone gives,
and a file it cannot read is refused by name."""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from assistant.games import game_module
from assistant.hearing.grammar import WordGraph
from assistant.hearing.whisper_decoder import Decoder, ModelFileError, Reader, log_softmax32, read_variables
from assistant.hearing.whisper_engine import WhisperTranscriber, find_model
from tests.support.spoken import ClipMaker, Speaker

pytestmark = pytest.mark.model

VOICE = Speaker("espeak", "en-gb-scotland", 1.0, 50)  # of neither benchmark set
OMEGA = game_module("omega-virus").sentences()
TEXTS = (" Explore one two zero", " Attack the red commando", " Pass.", " How much time is left?")


@pytest.fixture(scope="module")
def whisper(tmp_path_factory: pytest.TempPathFactory) -> WhisperTranscriber:
    transcriber = WhisperTranscriber.load(find_model("faster-whisper-tiny.en", Path("/nonexistent")))
    clip = ClipMaker(tmp_path_factory.mktemp("clips")).say("explore one two zero", VOICE)
    assert transcriber.listen(clip.tobytes(), short=True)
    return transcriber


def tokens(whisper: WhisperTranscriber, text: str) -> tuple[int, ...]:
    return tuple(whisper.tokenizer.encode(text, add_special_tokens=False).ids)


def test_its_scores_are_ctranslate2_s_to_within_int8_rounding(whisper: WhisperTranscriber) -> None:
    """The same texts over the same audio: CTranslate2 (int8 weights and activations) and this
    decoder (int8 weights, float32 activations) give each token's log probability within 0.4
    nat, and each text's within 0.6 nat or 3% of it, whichever is more, on this clip. (The
    rounding is CTranslate2's int8 kernels', which differ with the CPU: "Attack the red
    commando", a 37-nat text on this clip of "explore one two zero", came within 0.6 nat on the
    machine this test was written on and 0.72 apart on one whose CPU lacks AVX2; on other
    clips, for sentences far below what was said, the gap reaches about 1 nat a text.)"""
    texts = [tokens(whisper, text) for text in TEXTS]
    theirs = whisper._logprobs_ct2(texts, [0] * len(texts))
    ours = whisper.reader().logprobs(texts, [0] * len(texts))
    for text, a, b in zip(texts, theirs, ours, strict=True):
        assert a.shape == b.shape == (len(text) + 1, whisper.decoder.vocabulary)  # type: ignore[union-attr]
        said_a = [float(a[i, token]) for i, token in enumerate(text)] + [float(a[-1, whisper.end])]
        said_b = [float(b[i, token]) for i, token in enumerate(text)] + [float(b[-1, whisper.end])]
        assert np.allclose(said_a, said_b, atol=0.4), (text, said_a, said_b)
        assert abs(sum(said_a) - sum(said_b)) < max(0.6, 0.03 * abs(sum(said_a))), (text, sum(said_a), sum(said_b))
        # what either finds likeliest next, the other finds as likely to within int8's rounding
        assert all(row_b[int(np.argmax(row_a))] >= row_b.max() - 0.4 for row_a, row_b in zip(a, b, strict=True))
        assert np.allclose(np.exp(b).sum(axis=1), 1.0, atol=1e-3)


def test_reading_on_from_a_shorter_text_is_reading_from_the_start(whisper: WhisperTranscriber) -> None:
    """The grammar search grows a sentence a word at a time: what is read on from the shorter
    sentence's kept keys and values is what a fresh reading of the whole gives."""
    decoder = whisper.decoder
    assert decoder is not None
    cut, _ = whisper.window()
    text = tokens(whisper, " Attack the red commando.")
    stepwise = Reader(decoder, cut[0], whisper._start(""))
    for n in range(1, len(text) + 1):
        stepwise.logprobs([text[:n]], [n])
    whole = Reader(decoder, cut[0], whisper._start(""))
    a = stepwise.logprobs([text], [0])[0]
    b = whole.logprobs([text], [0])[0]
    assert np.allclose(a, b, atol=1e-4)


def test_texts_read_together_are_read_as_each_alone(whisper: WhisperTranscriber) -> None:
    decoder = whisper.decoder
    assert decoder is not None
    cut, _ = whisper.window()
    texts = [tokens(whisper, text) for text in TEXTS]
    together = Reader(decoder, cut[0], whisper._start("")).logprobs(texts, [1, 0, 1, 2])
    for text, since, rows in zip(texts, [1, 0, 1, 2], together, strict=True):
        alone = Reader(decoder, cut[0], whisper._start("")).logprobs([text], [since])[0]
        assert np.allclose(rows, alone, atol=1e-4)


def test_its_products_are_the_plain_ones_for_any_number_of_rows(whisper: WhisperTranscriber) -> None:
    """The output layer and a layer's products are worked out token-major and turned round (the
    cheaper way for OpenBLAS): each row of the result is that row's plain product with the
    widened weights, for one row as for many."""
    decoder = whisper.decoder
    assert decoder is not None
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


def test_whisper_s_own_reading_on_it_is_ctranslate2_s(whisper: WhisperTranscriber) -> None:
    """Whisper's greedy reading of the window, on this decoder and on CTranslate2's: the same
    tokens, and a log probability within half a nat; or the same tokens up to a step where the
    two next tokens they chose (the end counts as one) tie to within int8's rounding in both
    decoders' scores (on a CPU without AVX2, "Next, let run to 0" here against CTranslate2's
    "... to 0." on its own kernels: a full stop and the end within a few hundredths of a nat)."""
    ours, our_rows = whisper._read_own()
    theirs, their_rows = whisper._read_own_ct2()
    if ours == theirs:
        text, logprob = whisper.own_reading()
        decoder = whisper.decoder
        try:
            whisper.decoder = None
            text_ct2, logprob_ct2 = whisper.own_reading()
        finally:
            whisper.decoder = decoder
        assert text == text_ct2
        assert abs(logprob - logprob_ct2) < 0.5
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
        assert whisper.decoder is not None
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
    ids, rows = whisper._read_own()
    assert whisper.tokenizer.decode(ids).strip() == "Pass."
    assert len(rows) == len(ids) + 1


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


def test_a_whisper_model_whose_decoder_numpy_cannot_read_still_hears_on_ctranslate2_s(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    """A model CTranslate2 runs but this decoder cannot read (a bfloat16 conversion, say) is not
    refused: the grammar search and the own reading run on CTranslate2's decoder, and the log
    says why and what it costs."""
    def unreadable(path: Path) -> Decoder:
        raise ModelFileError(f"{path}: bfloat16 weights are not read here")

    monkeypatch.setattr(Decoder, "load", staticmethod(unreadable))
    with caplog.at_level("WARNING"):
        whisper = WhisperTranscriber.load(find_model("faster-whisper-tiny.en", Path("/nonexistent")))
    assert whisper.decoder is None
    assert "runs on CTranslate2's decoder" in caplog.text and "bfloat16" in caplog.text
    clip = ClipMaker(tmp_path).say("pass", VOICE)
    assert whisper.listen(clip.tobytes(), short=True)
    found = whisper.held_to(WordGraph(OMEGA, ["pass", "pause", "help"]), beam=6)
    assert found and found[0].words == ("pass",)
    assert whisper.own_reading()[1] > -20


def test_a_loop_of_one_token_ends_the_reading_once_its_score_is_settled(whisper: WhisperTranscriber,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """"1 1 1 1 1 ..." to the end of Whisper's 60 tokens (a recorded speaker's "one", heard on a
    short window) stops after a few ones: the likeliest ending is already behind it."""
    one = tokens(whisper, " 1")[0]

    def scores(written: int, row: np.ndarray) -> None:
        row[one] = 12.0
        row[whisper.end] = 11.0 if written == 1 else 2.0  # ending after the first one is likely

    monkeypatch.setattr(whisper, "_reader", Scripted(whisper, scores))
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
