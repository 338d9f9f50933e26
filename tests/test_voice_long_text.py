"""Text to speech is bounded: however long the input, Piper gets short pieces and the audio
streams to its file, so memory stays flat (a 3,000-character sentence once took 24 GB)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT_MB = 500

# Run the command as the only child of a fresh interpreter, so the peak is that command's alone.
MEASURE = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:]); "
           "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
           "sys.exit(done.returncode)")


def test_a_100000_character_say_stays_under_500_mb(tmp_path: Path) -> None:
    # Plain English with no full stop, the input that exhausted memory. It repeats, 75 characters
    # a time, so that every 150-character piece is the same two of them (149 characters; the
    # last piece is shorter): Piper renders two pieces, and the other 665 come from the phrase
    # cache (a repeat that cut into a dozen different pieces rendered 12, 10 s more); every piece
    # still goes through the voice, the effects and the WAV file.
    text = ("the players move their pieces on the real board while the computer answers " * 1400)[:100_000]
    config = tmp_path / "config.yaml"
    config.write_text(f"voice:\n  cache_dir: {tmp_path / 'cache'}\n", encoding="utf-8")
    out = tmp_path / "out.wav"
    done = subprocess.run([sys.executable, "-c", MEASURE, sys.executable, "-m", "assistant", "--config",
                           str(config), "say", text, "--voice", "narrator", "-o", str(out)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    peak_mb = int(done.stderr.strip().splitlines()[-1]) / 1024
    wrote = re.search(r"Wrote .*: (\d+\.\d) s at (\d+) Hz", done.stdout)
    assert wrote is not None, done.stdout
    seconds = float(wrote.group(1))
    assert seconds > 3600  # all of it was said: over an hour of speech, ...
    assert out.stat().st_size >= (seconds - 0.1) * int(wrote.group(2)) * 2  # ... in the file, 16-bit
    print(f"peak {peak_mb:.0f} MB")
    assert peak_mb < LIMIT_MB, f"peak {peak_mb:.0f} MB"


def test_say_into_a_file_that_cannot_be_written(tmp_path: Path) -> None:
    """A full disk (a file-size limit) or a missing folder: said plainly, no traceback, no torn file."""
    import resource

    def full_disk() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    config = tmp_path / "config.yaml"
    config.write_text(f"voice:\n  cache_dir: {tmp_path / 'cache'}\n", encoding="utf-8")
    out = tmp_path / "out.wav"
    base = [sys.executable, "-m", "assistant", "--config", str(config), "say", "--voice", "narrator"]
    full = subprocess.run([*base, "Hello there, this sentence is longer than four kilobytes of audio.", "-o",
                           str(out)], capture_output=True, text=True, cwd=tmp_path, timeout=120, preexec_fn=full_disk)
    assert full.returncode == 1 and "Traceback" not in full.stderr, full.stderr
    assert f"Cannot write {out}: File too large; nothing was written." in full.stderr
    assert not out.exists()
    nowhere = tmp_path / "missing" / "out.wav"
    missing = subprocess.run([*base, "Hello.", "-o", str(nowhere)], capture_output=True, text=True, cwd=tmp_path,
                             timeout=120)
    assert missing.returncode == 1 and "Traceback" not in missing.stderr and "Exception" not in missing.stderr
    assert f"Cannot write {nowhere}: No such file or directory" in missing.stderr


def test_the_voice_bank_gives_piper_only_bounded_pieces() -> None:
    """Even a sentence that did not come through the text splitter reaches Piper in pieces."""
    from types import SimpleNamespace

    import numpy as np

    from assistant.voice.characters import CharacterSpec
    from assistant.voice.synth import LoadedVoice, VoiceBank, resolve_voice
    from assistant.voice.text import MAX_CHUNK_CHARS

    given: list[str] = []

    class Piper:
        def synthesize(self, text: str, config: object) -> list[SimpleNamespace]:
            given.append(text)
            return [SimpleNamespace(audio_float_array=np.ones(len(text), np.float32))]

    bank = VoiceBank()
    path = resolve_voice("", bank.voices_dir)
    bank._voices[path] = LoadedVoice(path, "fake", 22050, Piper(), 0.0)
    spec = CharacterSpec("narrator", "", 1.0, 0.667, 0.8, 1.0, 0, ())
    sentence = "and the players move their pieces, " * 300
    audio, rate = bank.synthesize(spec, sentence)
    assert len(given) > 1 and all(len(piece) <= MAX_CHUNK_CHARS for piece in given)
    assert " ".join(given).split() == sentence.split() and len(audio) == sum(len(p) for p in given)
