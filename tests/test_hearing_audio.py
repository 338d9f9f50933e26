"""Any WAV (rate, channels, sample format) becomes 16 kHz mono int16 without changing the sound."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from assistant.hearing.audio import (
    LOUD_MARGIN_S,
    AudioError,
    blocks,
    load_16k,
    loud_part,
    read_wav,
    resample,
    write_wav,
)
from tests.support.spoken import add_noise, speech_power


def tone(rate: int, seconds: float = 0.5, freq: float = 440.0, amp: float = 0.5) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    return amp * np.sin(2 * np.pi * freq * t)


def write_raw_wav(path: Path, samples: np.ndarray, rate: int, tag: int, bits: int,
                  extensible: bool = False, open_length: bool = False) -> None:
    """A WAV written by hand, so formats the wave module cannot write are covered too."""
    frames, channels = samples.shape
    if tag == 3:
        data = samples.astype("<f4" if bits == 32 else "<f8").tobytes()
    elif bits == 8:
        data = np.clip(samples * 128 + 128, 0, 255).astype(np.uint8).tobytes()
    elif bits == 24:
        ints = np.clip(samples * (1 << 23), -(1 << 23), (1 << 23) - 1).astype(np.int32).reshape(-1)
        data = b"".join(struct.pack("<i", int(v))[:3] for v in ints)
    else:
        scale = {16: 32767, 32: (1 << 31) - 1}[bits]
        data = np.round(samples * scale).astype("<i2" if bits == 16 else "<i4").tobytes()
    block = channels * bits // 8
    if extensible:
        fmt = struct.pack("<HHIIHHHHIH14s", 0xFFFE, channels, rate, rate * block, block, bits, 22, bits, 0,
                          tag, b"\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71")
    else:
        fmt = struct.pack("<HHIIHH", tag, channels, rate, rate * block, block, bits)
    size = 0xFFFFFFFF if open_length else len(data)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", size) + data
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)


def dominant_hz(samples: np.ndarray, rate: int = 16000) -> float:
    spectrum = np.abs(np.fft.rfft(samples.astype(np.float64)))
    return float(np.argmax(spectrum) * rate / len(samples))


@pytest.mark.parametrize("rate, channels, tag, bits, extensible", [
    (16000, 1, 1, 16, False),
    (22050, 1, 1, 16, False),
    (44100, 2, 1, 16, False),
    (48000, 2, 1, 24, False),
    (8000, 1, 1, 8, False),
    (48000, 1, 1, 32, False),
    (44100, 2, 3, 32, False),
    (32000, 1, 3, 64, False),
    (48000, 2, 1, 16, True),
])
def test_formats_become_16k_mono(tmp_path: Path, rate: int, channels: int, tag: int, bits: int,
                                 extensible: bool) -> None:
    mono = tone(rate)
    samples = np.stack([mono] * channels, axis=1)
    path = tmp_path / "tone.wav"
    write_raw_wav(path, samples, rate, tag, bits, extensible)
    out = load_16k(path)
    assert out.dtype == np.int16
    assert abs(len(out) - 8000) <= 1
    assert dominant_hz(out) == pytest.approx(440, abs=3)
    peak = np.abs(out[1000:-1000]).max() / 32768
    assert peak == pytest.approx(0.5, abs=0.02)


def test_stereo_is_mixed_down(tmp_path: Path) -> None:
    left, right = tone(44100, freq=300), tone(44100, freq=1000)
    path = tmp_path / "two.wav"
    write_raw_wav(path, np.stack([left, right], axis=1), 44100, 1, 16)
    spectrum = np.abs(np.fft.rfft(load_16k(path).astype(np.float64)))
    hz = np.fft.rfftfreq(8000, 1 / 16000)
    assert spectrum[np.argmin(abs(hz - 300))] == pytest.approx(spectrum[np.argmin(abs(hz - 1000))], rel=0.05)


def test_streamed_wav_with_open_length(tmp_path: Path) -> None:
    path = tmp_path / "open.wav"
    write_raw_wav(path, tone(22050)[:, None], 22050, 1, 16, open_length=True)
    assert abs(len(load_16k(path)) - 8000) <= 1


def test_resampling_keeps_frequencies_below_nyquist_and_drops_those_above() -> None:
    mixed = tone(48000, 1.0, 1000) + tone(48000, 1.0, 11000)  # 11 kHz cannot exist at 16 kHz
    out = resample(mixed, 48000, 16000)
    spectrum = np.abs(np.fft.rfft(out))
    hz = np.fft.rfftfreq(len(out), 1 / 16000)
    assert spectrum[np.argmin(abs(hz - 1000))] > 100 * spectrum[np.argmin(abs(hz - 5000))]


def test_a_long_recording_is_resampled_in_pieces_that_match_one_piece(monkeypatch: pytest.MonkeyPatch) -> None:
    # 75 s of speech-band tones at 22050 Hz: resampled 30 s at a time (each FFT a short native
    # call, so Ctrl-C is not held for seconds), the same signal as in one piece, within a small
    # fraction of a sample's drift, and the same length
    import assistant.hearing.audio as audio_module

    seconds, rate = 75, 22050
    t = np.arange(seconds * rate) / rate
    signal = 0.3 * np.sin(2 * np.pi * 440 * t) + 0.2 * np.sin(2 * np.pi * 1700 * t + 1.0)
    lengths: list[int] = []
    one = audio_module._resample

    def counted(samples: np.ndarray, old: int, new: int) -> np.ndarray:
        lengths.append(len(samples))
        return one(samples, old, new)

    monkeypatch.setattr(audio_module, "_resample", counted)
    pieces = resample(signal, rate, 16000)
    assert len(lengths) == 3 and max(lengths) <= 32 * rate, lengths
    whole = one(signal, rate, 16000)
    assert len(pieces) == len(whole) == seconds * 16000
    assert np.sqrt(np.mean((pieces - whole) ** 2)) < 0.01 and np.abs(pieces - whole).max() < 0.05


@pytest.mark.parametrize("content, message", [
    (b"not a wav at all", "not a WAV file"),
    (b"RIFF\x04\x00\x00\x00WAVE", "without audio data"),
])
def test_bad_files_are_named(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.wav"
    path.write_bytes(content)
    with pytest.raises(AudioError, match=message):
        read_wav(path)


def test_unsupported_sample_format(tmp_path: Path) -> None:
    path = tmp_path / "alaw.wav"
    write_raw_wav(path, tone(8000)[:, None], 8000, 1, 16)
    raw = bytearray(path.read_bytes())
    raw[20:22] = struct.pack("<H", 6)  # A-law
    path.write_bytes(bytes(raw))
    with pytest.raises(AudioError, match="not supported"):
        read_wav(path)


def test_write_and_blocks(tmp_path: Path) -> None:
    clip = (tone(16000, 1.0) * 20000).astype(np.int16)
    write_wav(tmp_path / "x.wav", clip)
    assert np.array_equal(load_16k(tmp_path / "x.wav"), clip)
    parts = blocks(clip, 0.1)
    assert len(parts) == 10 and all(len(p) == 3200 for p in parts)


def test_the_loud_part_is_cut_from_what_is_far_quieter_around_it() -> None:
    """Two seconds of a talker 15 dB down, a second at full level with a 50 ms click of silence
    inside, a second of the talker again, and silence: cut within 12 dB of the loudest, 0.2 s
    kept each side; within 20 dB the talker stays; 0 keeps everything; a click louder than all
    does not set the level (the loudest 100 ms does)."""
    rng = np.random.default_rng(1)
    rate = 16000
    talker = rng.normal(0, 1000 * 10 ** (-15 / 20), 2 * rate)
    player = rng.normal(0, 1000, rate)
    player[rate // 2:rate // 2 + 800] = 0
    clip = np.concatenate([talker, player, talker[:rate], np.zeros(rate)]).astype(np.int16)
    margin = int(LOUD_MARGIN_S * rate)
    cut = loud_part(clip, 12.0)
    assert np.array_equal(cut, clip[2 * rate - margin:3 * rate + margin])
    assert np.array_equal(loud_part(clip, 20.0), clip[:4 * rate + margin])
    assert np.array_equal(loud_part(clip, 0.0), clip)
    clicked = clip.copy()
    clicked[rate // 2:rate // 2 + 32] = 30000  # 2 ms, far louder than the player
    assert np.array_equal(loud_part(clicked, 12.0), cut)
    assert np.array_equal(loud_part(np.zeros(rate, np.int16), 12.0), np.zeros(rate, np.int16))
    assert len(loud_part(clip[:1000], 12.0)) == 1000  # under 100 ms: all of it


@pytest.mark.parametrize("snr", [20.0, 10.0, 5.0])
def test_noise_is_mixed_at_the_asked_snr(snr: float) -> None:
    quiet = np.zeros(8000)
    clip = np.concatenate([quiet, tone(16000, 1.0) * 10000, quiet]).astype(np.int16)
    for kind, noise in (("white", None), ("babble", np.random.default_rng(1).normal(0, 1, 50000))):
        mixed = add_noise(clip, kind, snr, noise)
        added = mixed.astype(np.float64) - clip
        assert 10 * np.log10(speech_power(clip) / np.mean(added ** 2)) == pytest.approx(snr, abs=0.1)


@pytest.mark.model
def test_noise_suppression_takes_white_noise_down_and_keeps_the_speech(tmp_path: Path) -> None:
    """WebRTC's suppressor on a real Piper render with white noise at 10 dB: the pause before the
    speech loses most of its noise, the speech keeps most of its power, level 0 changes nothing."""
    from assistant.hearing.audio import suppress_noise
    from tests.support.spoken import ClipMaker, Speaker

    speech = ClipMaker(tmp_path).say("explore room one zero zero", Speaker("piper", "joe", 1.0, 0.0, 0.667, 0.8))
    lead = 16000  # a second of noise alone before the speech
    clip = np.concatenate([np.zeros(lead, np.int16), speech])
    noisy = add_noise(clip, "white", 10.0, None, seed=3)
    assert np.array_equal(suppress_noise(noisy, 0), noisy)
    cleaned = suppress_noise(noisy, 4)
    assert cleaned.dtype == np.int16 and len(cleaned) == len(noisy)

    def power(x: np.ndarray) -> float:
        return float(np.mean(x.astype(np.float64) ** 2))

    pause = slice(lead // 2, lead)  # after the suppressor's first half second of learning the noise
    assert 10 * np.log10(power(noisy[pause]) / power(cleaned[pause])) > 10.0
    talk = slice(lead, len(clip))
    assert 10 * np.log10(power(noisy[talk]) / power(cleaned[talk])) < 4.0
    # the speech left is the speech: its spectrum, frame by frame where the render speaks, is
    # nearer the clean render's than the noisy input's is (the suppressor keeps no waveform)

    def spectra(x: np.ndarray) -> np.ndarray:
        frames = np.lib.stride_tricks.sliding_window_view(x[talk].astype(np.float64), 400)[::160]
        return 10 * np.log10(np.abs(np.fft.rfft(frames * np.hanning(400), axis=1)) ** 2 + 1e3)

    said = spectra(clip)
    speaking = said.max(axis=1) > said.max() - 30

    def off(x: np.ndarray) -> float:
        return float(np.mean(np.abs(spectra(x) - said)[speaking]))
    assert off(cleaned) < 0.8 * off(noisy)
    with pytest.raises(ValueError, match="0-4"):
        suppress_noise(noisy, 5)


@pytest.mark.model
def test_noise_suppression_keeps_the_hiss_a_command_starts_with(tmp_path: Path) -> None:
    """The "s" of "status" said clean by an espeak-ng voice: a suppressor started cold takes it
    for noise (about 5.5 dB of its first 0.1 s gone); suppress_noise, warmed on the same audio,
    keeps it within 3 dB."""
    from assistant.hearing.audio import suppress_noise
    from tests.support.spoken import ClipMaker, Speaker

    said = ClipMaker(tmp_path).say("status", Speaker("espeak", "en-us+f3", 1.15, 65))
    start = int(np.nonzero(np.abs(said) > 300)[0][0])
    onset = slice(start, start + 1600)
    kept = suppress_noise(said, 4)

    def level(x: np.ndarray) -> float:
        return float(10 * np.log10(np.mean(x[onset].astype(np.float64) ** 2) + 1))

    assert level(said) - level(kept) < 3.0
