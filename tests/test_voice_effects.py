"""Each effect does what its name says, measured on synthetic signals (no voice needed)."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from assistant.voice import effects as fx
from tests.support.analysis import median_pitch, spectral_centroid

RATE = 22050


def harmonic(f0: float = 120.0, seconds: float = 1.5, rate: int = RATE) -> fx.Audio:
    """A buzzy vowel-like tone: f0 and its harmonics, falling 6 dB per octave."""
    t = np.arange(int(seconds * rate)) / rate
    return fx.as_audio(0.1 * sum(np.sin(2 * np.pi * f0 * k * t) / k for k in range(1, 25)))


def band_energy(audio: fx.Audio, low: float, high: float, rate: int = RATE) -> float:
    spectrum = np.abs(np.fft.rfft(audio)) ** 2
    freqs = np.fft.rfftfreq(len(audio), 1 / rate)
    return float(spectrum[(freqs >= low) & (freqs < high)].sum() / spectrum.sum())


def test_resample_keeps_a_tone() -> None:
    t = np.arange(RATE) / RATE
    tone = fx.as_audio(np.sin(2 * np.pi * 440 * t))
    out = fx.resample_rate(tone, RATE, 16000)
    assert len(out) == 16000
    expected = np.sin(2 * np.pi * 440 * np.arange(16000) / 16000)
    assert np.max(np.abs(out[200:-200] - expected[200:-200])) < 1e-3


@pytest.mark.parametrize("semitones", [-12, -5, 4])
def test_pitch_moves_pitch_not_length(semitones: float) -> None:
    source = harmonic()
    out = fx.Pitch(semitones).apply(source, RATE)
    assert len(out) == len(source)
    expected = 120 * 2 ** (semitones / 12)
    assert median_pitch(out, RATE)[0] == pytest.approx(expected, rel=0.04)


def test_pitch_keeps_formants_unless_asked() -> None:
    """Formants kept: the spectral balance stays; formants moved: it drops with the pitch."""
    source = fx.Band(low=600, high=1500).apply(harmonic(), RATE)  # a "formant" around 1 kHz
    kept = fx.Pitch(-7).apply(source, RATE)
    moved = fx.Pitch(-7, formants=True).apply(source, RATE)
    original = spectral_centroid(source, RATE)
    assert spectral_centroid(kept, RATE) == pytest.approx(original, rel=0.15)
    assert spectral_centroid(moved, RATE) < 0.8 * original


def test_speed_moves_pitch_and_length_together() -> None:
    source = harmonic()
    out = fx.Speed(-12).apply(source, RATE)
    assert len(out) == 2 * len(source)
    assert median_pitch(out, RATE)[0] == pytest.approx(60, rel=0.04)


def test_layer_adds_a_sub_octave() -> None:
    source = harmonic(f0=200)
    out = fx.Layer(-12, mix=0.5).apply(source, RATE)
    assert len(out) == len(source)
    assert band_energy(source, 80, 120) < 0.01
    assert band_energy(out, 80, 120) > 0.05


def test_robot_imposes_its_own_monotone() -> None:
    source = harmonic(f0=95)
    out = fx.Robot(pitch_hz=165).apply(source, RATE)
    assert len(out) == len(source)
    assert median_pitch(out, RATE)[0] == pytest.approx(RATE / round(RATE / 165), rel=0.03)


def test_ring_modulation_makes_sidebands() -> None:
    t = np.arange(RATE) / RATE
    tone = fx.as_audio(0.5 * np.sin(2 * np.pi * 1000 * t))
    out = fx.Ring(frequency=100, mix=1.0).apply(tone, RATE)
    assert band_energy(out, 990, 1010) < 0.01
    assert band_energy(out, 890, 910) + band_energy(out, 1090, 1110) > 0.95


def test_band_removes_what_is_outside() -> None:
    source = harmonic()
    out = fx.Band(low=400, high=3000).apply(source, RATE)
    assert band_energy(source, 0, 300) > 0.5
    low_left = (np.abs(np.fft.rfft(out)) ** 2)[np.fft.rfftfreq(len(out), 1 / RATE) < 300].sum()
    assert low_left < 1e-4 * (np.abs(np.fft.rfft(source)) ** 2).sum()


def test_band_of_any_length_filters_as_at_twice_its_length() -> None:
    """A length whose double has a large prime factor (10007: 2 x 10007) is padded further, to a
    fast FFT size; what comes out is the same filter's."""
    source = harmonic(seconds=10007 / RATE)
    assert len(source) == 10007 and fx.fast_size(2 * 10007) > 2 * 10007
    out = fx.Band(low=350, high=5000).apply(source, RATE)
    spectrum = np.fft.rfft(source.astype(np.float64), 2 * 10007)  # the filter at exactly twice the length
    freqs = np.fft.rfftfreq(2 * 10007, 1 / RATE).astype(np.float64)
    spectrum *= fx._soft_step(freqs, 350 / 1.25, 350)
    spectrum *= 1 - fx._soft_step(freqs, 5000, 5000 * 1.25)
    exact = np.fft.irfft(spectrum, 2 * 10007)[:10007]
    assert len(out) == 10007
    assert float(np.max(np.abs(out - exact))) < 1e-3 * float(np.max(np.abs(exact)))


def test_fast_size_has_small_factors_only() -> None:
    for n in (1, 2, 97, 10007, 441022, 441023):
        size = fx.fast_size(n)
        assert size >= n and fx._smooth(size)
        assert all(not fx._smooth(m) for m in range(n, size))


def test_band_on_a_long_sentence_stays_small() -> None:
    """A 10 s sentence whose length has a large prime factor: the band filter's peak memory stays
    that of a fast FFT (measured: about 16 MB; a size with a large prime factor took 69 MB,
    hands-free play's highest peak). In a process of its own: VmHWM is the kernel's peak."""
    code = textwrap.dedent("""
        import numpy as np
        from pathlib import Path
        from assistant.memory import map_big_blocks
        from assistant.voice import effects as fx
        map_big_blocks()  # as the assistant sets it
        def hwm():
            return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM")) / 1024
        audio = (np.random.default_rng(1).random(220511).astype(np.float32) - 0.5) * 0.3  # 220511 is prime
        fx.Band(low=350, high=5000).apply(audio[:1000], 22050)
        Path("/proc/self/clear_refs").write_text("5")
        before = hwm()
        fx.Band(low=350, high=5000).apply(audio, 22050)
        print(hwm() - before)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 0, done.stderr
    assert float(done.stdout.strip()) < 35.0


def test_crush_quantizes_and_holds() -> None:
    source = harmonic()
    out = fx.Crush(bits=4, hold=3).apply(source, RATE)
    assert len(np.unique(out)) <= 2**4 + 1
    held = out[: len(out) // 3 * 3].reshape(-1, 3)
    assert np.all(held == held[:, :1])


def test_echo_repeats_with_a_tail() -> None:
    click = np.zeros(RATE, np.float32)
    click[0] = 1.0
    out = fx.Echo(delay=0.1, feedback=0.5, mix=0.5, repeats=3).apply(click, RATE)
    step = int(0.1 * RATE)
    assert len(out) == RATE + 3 * step
    assert [out[0], out[step], out[2 * step], out[3 * step]] == pytest.approx([1.0, 0.5, 0.25, 0.125])


def test_drive_saturates_without_clipping() -> None:
    source = harmonic()
    out = fx.Drive(amount=3).apply(source, RATE)
    assert np.max(np.abs(out)) <= np.max(np.abs(source)) + 1e-6
    assert fx._rms(out) > 1.2 * fx._rms(source)


def test_glitch_inserts_more_when_urgent_and_removes_nothing() -> None:
    source = harmonic(seconds=3.0)
    glitch = fx.Glitch(rate=0.2, urgent_rate=3.0)
    calm = [len(glitch.apply_live(source, RATE, 0.0, random.Random(s))) for s in range(20)]
    urgent = [len(glitch.apply_live(source, RATE, 1.0, random.Random(s))) for s in range(20)]
    assert min(calm) >= len(source) and min(urgent) >= len(source)
    assert np.mean(urgent) > np.mean(calm) + 0.2 * RATE

    # nothing is removed: every original sample is still there, in order, between the insertions
    ramp = fx.as_audio(np.linspace(-0.5, 0.5, 3 * RATE))
    out = glitch.apply_live(ramp, RATE, 1.0, random.Random(3))
    assert len(out) > len(ramp)
    found = 0
    for sample in out:
        if found < len(ramp) and sample == ramp[found]:
            found += 1
    assert found == len(ramp)


def test_normalize_levels_characters() -> None:
    quiet = harmonic() * 0.05
    loud = fx.Drive(5).apply(harmonic(), RATE)
    a, b = fx.normalize(quiet), fx.normalize(loud)
    assert fx._rms(a) == pytest.approx(fx._rms(b), rel=0.1)
    assert np.max(np.abs(a)) <= 0.95 + 1e-6 and np.max(np.abs(b)) <= 0.95 + 1e-6


def test_chain_from_data_reports_problems_and_keeps_the_rest() -> None:
    chain, problems = fx.parse_chain([
        {"type": "pitch", "semitones": -5},
        {"type": "wobble"},
        {"type": "echo", "delay": "long", "feedback": 0.2},
        {"type": "ring", "frequency": 30, "mix": 3},
        {"type": "crush", "bits": 6.5, "colour": 2},
        {"type": "pitch", "formants": "yes"},
        "reverb",
    ])
    assert [e.type for e in chain] == ["pitch", "echo", "ring", "crush", "pitch"]
    assert chain[1] == fx.Echo(feedback=0.2)
    assert chain[2] == fx.Ring(frequency=30)
    assert chain[3] == fx.Crush()
    text = "\n".join(f"{i}: {p}" for i, p in problems)
    assert "1: unknown effect type 'wobble'" in text
    assert "2: echo.delay = 'long' must be a number" in text
    assert "3: ring.mix = 3 must be between 0 and 1" in text
    assert "4: crush.bits = 6.5 must be a whole number" in text
    assert "4: crush: unknown setting 'colour'" in text
    assert "5: pitch.formants = 'yes' must be true or false" in text
    assert "6: each effect must be a group" in text


def test_only_glitch_is_live() -> None:
    chain, _ = fx.parse_chain([{"type": "robot"}, {"type": "glitch"}, {"type": "band"}])
    assert [e.type for e in fx.fixed_part(chain)] == ["robot", "band"]
    assert fx.glitch_of(chain) == fx.Glitch()
    assert fx.describe(chain)[0] == {"type": "robot", "pitch_hz": 140.0, "mix": 1.0}


FRAME_EFFECTS = [fx.Robot(165.0), fx.Pitch(-5.0), fx.Pitch(4.0, formants=True), fx.Layer(-12.0, 0.35, ring=40.0)]


@pytest.mark.parametrize("effect", FRAME_EFFECTS, ids=lambda e: e.type)
def test_frame_effects_in_blocks_are_the_same_as_whole(effect: fx.Effect, monkeypatch: pytest.MonkeyPatch) -> None:
    """The STFT effects transform a block of frames at a time, carrying the phase vocoder's
    phases across blocks: the audio is the same as with every frame in one block."""
    rng = np.random.default_rng(3)
    source = fx.as_audio(harmonic(130.0, 4.0) + 0.02 * rng.normal(size=4 * RATE))
    source[RATE: RATE + RATE // 2] = 0  # a pause inside the sentence
    in_blocks = effect.apply(source, RATE)
    monkeypatch.setattr(fx, "FRAME_BLOCK", 10 ** 9)
    whole = effect.apply(source, RATE)
    assert len(in_blocks) == len(source)
    assert np.max(np.abs(in_blocks - whole)) < 1e-5


@pytest.mark.parametrize("effect", FRAME_EFFECTS, ids=lambda e: e.type)
def test_frame_effects_memory_does_not_grow_with_the_sentence(effect: fx.Effect) -> None:
    """A long sentence's effects hold a block of frames, not all of them: numpy's allocations
    (tracemalloc sees them) peak at a few MB over the audio itself for 30 s of speech; all the
    frames at once would be over 150 MB."""
    import tracemalloc

    source = harmonic(120.0, 30.0)
    tracemalloc.start()
    try:
        effect.apply(source, RATE)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 40e6, f"{effect.type} peaked at {peak / 1e6:.0f} MB on 30 s of audio"
