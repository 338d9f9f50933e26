"""A Piper voice cut in two, its decoder run in windows (assistant/voice/vocoder.py): the same
audio as the voice run whole, a long sentence's memory no more than a short one's, and a voice
that cannot be cut still speaks, run whole."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from assistant.voice.characters import CharacterSpec
from assistant.voice.synth import VoiceBank, bundled_voice, voice_id
from assistant.voice.vocoder import (
    MANIFEST,
    PARTS_ENV,
    WINDOW_FRAMES,
    SplitError,
    cut_voice,
    decode_in_windows,
    load_split,
    parts_dir,
    split_folder,
)

ROOT = Path(__file__).resolve().parent.parent
LONG = ("You have ninety seconds left, commandos; the station is mine, and every sector falls before me, "
        "one by one, until nothing is left of you at all.")
#: no noise: the voice says a sentence the same way each time
STEADY = CharacterSpec("steady", "", 1.0, 0.0, 0.0, 1.0, 0, ())


def smear(feed: dict[str, npt.NDArray[np.float32]]) -> npt.NDArray[np.float32]:
    """A made-up decoder of short reach: each frame becomes 4 samples, each the frame's value
    plus a third of each neighbour's (as a convolution sees its edges: zeros beyond them)."""
    z = feed["z"][0, 0]
    padded = np.concatenate([[0.0], z, [0.0]])
    frame = padded[1:-1] + (padded[:-2] + padded[2:]) / 3
    return np.repeat(frame, 4).astype(np.float32)


@pytest.mark.parametrize("frames", [1, 99, 100, 101, 250, 777])
def test_windows_join_into_what_the_whole_gives(frames: int) -> None:
    z = np.random.default_rng(frames).normal(size=(1, 1, frames)).astype(np.float32)
    speaker = np.ones((1, 3, 1), np.float32)
    seen: list[tuple[int, ...]] = []

    def decode(feed: dict[str, npt.NDArray[np.float32]]) -> npt.NDArray[np.float32]:
        seen.append(feed["g"].shape)
        return smear(feed)

    windows = decode_in_windows(decode, {"z": z, "g": speaker}, ("z",))
    assert np.allclose(windows, smear({"z": z}), atol=1e-6)
    assert len(seen) == -(-frames // WINDOW_FRAMES) and set(seen) == {(1, 3, 1)}  # untimed tensors go whole


def test_a_window_without_enough_context_would_show() -> None:
    """The check above can fail: with no overlap, a window's edge lacks its neighbour."""
    z = np.random.default_rng(0).normal(size=(1, 1, 250)).astype(np.float32)
    cut = decode_in_windows(smear, {"z": z}, ("z",), overlap=0)
    assert not np.allclose(cut, smear({"z": z}), atol=1e-3)


@pytest.fixture(scope="module")
def parts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("parts")


@pytest.mark.model
def test_the_bundled_voice_cut_in_two_says_what_it_says_whole(parts: Path) -> None:
    whole = VoiceBank(parts_dir=None)
    cut = VoiceBank(parts_dir=parts)
    assert whole.load("").whole_because is not None and cut.load("").whole_because is None
    assert (split_folder(parts, voice_id(bundled_voice())) / MANIFEST).is_file()
    a, rate = whole.synthesize(STEADY, LONG)
    b, rate_b = cut.synthesize(STEADY, LONG)
    assert rate == rate_b and len(a) == len(b) and len(a) > 3 * WINDOW_FRAMES * 256  # several windows
    assert float(np.max(np.abs(a - b))) < 1e-3


@pytest.mark.model
def test_a_long_sentence_costs_the_memory_of_a_short_one(parts: Path) -> None:
    """Peak memory of saying a 150-character sentence, each way in a fresh process (measured:
    about +175 MB whole, +40 MB in windows)."""
    VoiceBank(parts_dir=parts).load("")  # cut already (or now): the child only loads the parts
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from assistant.memory import give_back_memory
        from assistant.voice.synth import VoiceBank
        from assistant.voice.characters import CharacterSpec
        def rss(key):
            return next(int(line.split()[1]) for line in Path("/proc/self/status").read_text().splitlines()
                        if line.startswith(key + ":")) // 1024
        bank = VoiceBank(threads=1, parts_dir=None if sys.argv[1] == "whole" else Path({str(parts)!r}))
        spec = CharacterSpec("steady", "", 1.0, 0.0, 0.0, 1.0, 0, ())
        bank.synthesize(spec, "Ready.")
        give_back_memory()
        Path("/proc/self/clear_refs").write_text("5")  # the peak from here on
        before = rss("VmRSS")
        bank.synthesize(spec, {LONG!r})
        print(rss("VmHWM") - before)
    """)
    growth = {}
    for way in ("whole", "windows"):
        done = subprocess.run([sys.executable, "-c", script, way], capture_output=True, text=True, timeout=120,
                              cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 0, done.stderr
        growth[way] = int(done.stdout.split()[-1])
    assert growth["whole"] > 120, growth  # the figure the windows are there for
    assert growth["windows"] < growth["whole"] / 2, growth


def test_a_voice_without_a_folder_for_its_parts_runs_whole() -> None:
    with pytest.raises(SplitError, match="no folder"):
        load_split(bundled_voice(), "x", None)


@pytest.mark.model
def test_a_folder_that_cannot_be_written_leaves_the_voice_whole_and_speaking(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    bank = VoiceBank(parts_dir=blocker / "parts")
    loaded = bank.load("")
    assert loaded.whole_because is not None and "cannot write" in loaded.whole_because
    audio, _ = bank.synthesize(STEADY, "Ready.")
    assert len(audio) > 0


def test_a_graph_that_is_not_piper_s_is_not_cut(tmp_path: Path) -> None:
    import onnx
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Relu", ["input"], ["output"], name="/enc/Relu")], "g",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 4])])
    model = tmp_path / "other.onnx"
    onnx.save(helper.make_model(graph), str(model))
    with pytest.raises(SplitError, match="no decoder nodes"):
        cut_voice(model, tmp_path / "parts")
    with pytest.raises(SplitError, match="no decoder nodes"):  # the same, from the process that cuts
        load_split(model, "other", tmp_path / "cache")
    assert not list((tmp_path / "cache").glob("split-voices/*"))  # its scratch folder removed


@pytest.mark.model
def test_torn_parts_are_thrown_away_and_cut_again(tmp_path: Path) -> None:
    ident = voice_id(bundled_voice())
    VoiceBank(parts_dir=tmp_path).load("")
    folder = split_folder(tmp_path, ident)
    (folder / "front.onnx").write_bytes(b"torn")
    with pytest.raises(SplitError, match="cut again"):
        load_split(bundled_voice(), ident, tmp_path)
    assert not folder.exists()
    assert VoiceBank(parts_dir=tmp_path).load("").whole_because is None  # cut again
    (folder / MANIFEST).unlink()  # parts without their manifest (a folder someone else left)
    assert VoiceBank(parts_dir=tmp_path).load("").whole_because is None and (folder / MANIFEST).is_file()


def test_the_environment_names_the_parts_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(PARTS_ENV, str(tmp_path))
    assert parts_dir(Path("/elsewhere")) == tmp_path
    monkeypatch.delenv(PARTS_ENV)
    assert parts_dir(Path("/elsewhere")) == Path("/elsewhere") and parts_dir(None) is None

