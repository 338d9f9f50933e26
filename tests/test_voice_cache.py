"""The phrase cache: memory in front of a folder of WAVs, safe to share and to lose."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from assistant.voice.cache import PhraseCache, phrase_key, read_wav, write_wav


def samples(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(-20000, 20000, n).astype(np.int16)


def test_keys_depend_on_character_and_text() -> None:
    assert phrase_key("a", "Code zero one.") == phrase_key("a", "Code zero one.")
    assert phrase_key("a", "Code zero one.") != phrase_key("b", "Code zero one.")
    assert phrase_key("a", "Code zero one.") != phrase_key("a", "Code zero two.")


def test_memory_then_disk(tmp_path: Path) -> None:
    cache = PhraseCache(tmp_path)
    assert cache.get("k1") is None and cache.misses == 1
    data = samples(1000)
    cache.put("k1", data, 22050)
    got = cache.get("k1")
    assert got is not None and np.array_equal(got[0], data) and got[1] == 22050
    assert cache.hits_memory == 1
    fresh = PhraseCache(tmp_path)  # a new process: only the disk remembers
    assert fresh.on_disk("k1") and not fresh.in_memory("k1")
    got = fresh.get("k1")
    assert got is not None and np.array_equal(got[0], data)
    assert fresh.hits_disk == 1 and fresh.in_memory("k1")
    assert not list(tmp_path.glob("*.tmp"))


def test_memory_is_bounded(tmp_path: Path) -> None:
    cache = PhraseCache(None, memory_limit_bytes=5000)
    for i in range(5):
        cache.put(f"k{i}", samples(1000, i), 16000)
    assert cache.memory_bytes <= 5000
    assert not cache.in_memory("k0") and cache.in_memory("k4")


def test_torn_file_is_forgotten(tmp_path: Path) -> None:
    cache = PhraseCache(tmp_path)
    (tmp_path / "bad.wav").write_bytes(b"RIFF....garbage")
    assert cache.get("bad") is None
    assert not (tmp_path / "bad.wav").exists()


def test_wav_round_trip(tmp_path: Path) -> None:
    data = samples(777)
    write_wav(tmp_path / "a.wav", data, 16000)
    back, rate = read_wav(tmp_path / "a.wav")
    assert rate == 16000 and np.array_equal(back, data)
