"""What the assistant holds between hearings, part by part: resident memory after each of its
parts is loaded and used once, in one process, with the assistant's malloc settings.

    .venv/bin/python -m bench.bench_memory_parts [--game omega-virus]

bench_memory gives the peak of hands-free play; this says where the memory under that peak
goes: Python and the imports, PocketSphinx's decoders (an ear on the first pass alone), then
Whisper tiny.en piece by piece (the numpy decoder with onnxruntime's int8 products, CTranslate2's
encoder, the tokenizer, the encoder's working memory after its first run, a free text and a
grammar search on a spoken command), then the Piper voice (loaded, then saying the longest answer
of play twice). Each figure is the process's resident memory after the part, freed heap given
back (``malloc_trim``), less the figure before it: a library two parts share (onnxruntime, for
Whisper's products and for Piper) is counted in the first. The command is synthesized in a
process of its own, so no part of it is counted here.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.results import Results  # noqa: E402

#: The longest answer of play (the commands, as asked for: bench_memory's last step)
LONG_ANSWER = ("You can say: explore one zero zero, pass, teleport, repeat, how much time is left, what do I "
               "have, what can I say, pause, new game.")
COMMAND = "attack the red commando"


def resident_mb() -> float:
    """This process's resident memory (MB), freed heap given back first."""
    from assistant.memory import give_back_memory

    give_back_memory()
    with open("/proc/self/status", encoding="ascii") as status:
        line = next(line for line in status if line.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


def spoken(text: str) -> Any:
    """``text`` said by the bundled voice, 16 kHz int16, made in a process of its own."""
    from assistant.hearing.audio import load_16k

    with tempfile.TemporaryDirectory(prefix="memory-parts-") as folder:
        wav = Path(folder) / "command.wav"
        subprocess.run([sys.executable, "-m", "assistant", "say", text, "-o", str(wav)], check=True,
                       capture_output=True, cwd=Path(__file__).resolve().parents[1])
        return load_16k(wav)


def _main(args: argparse.Namespace) -> int:
    from assistant.memory import limit_malloc_arenas, map_big_blocks

    limit_malloc_arenas()  # as assistant/cli.py does before any thread starts
    map_big_blocks()
    command = spoken(COMMAND)
    last = resident_mb()

    def part(name: str, load: Callable[[], object]) -> Any:
        nonlocal last
        made = load()
        now = resident_mb()
        print(f"{now:7.1f} MB  +{now - last:6.1f} MB  {name}", flush=True)
        last = now
        return made

    print(f"{last:7.1f} MB  Python, numpy and the benchmark's own imports", flush=True)

    def imports() -> Any:
        from assistant.config import Config
        from assistant.games import game_spec
        from assistant.hearing import HearingSettings

        config = Config.load(Path(__file__).resolve().parents[1] / "config.yaml")
        return config, HearingSettings.from_config(config), game_spec(args.game).sentences()

    config, settings, sentences = part("the assistant's imports, the config and the game's sentences", imports)

    def first_pass() -> Any:
        from assistant.hearing import open_ear

        ear = open_ear(settings, sentences, engine="pocketsphinx", fallback=False)
        ear.hear(command)
        return ear

    part("PocketSphinx: an ear on the first pass alone, one command heard", first_pass)

    from assistant.hearing.whisper_decoder import Decoder
    from assistant.hearing.whisper_engine import WhisperTranscriber, find_model, load_encoder_alone

    whisper = settings.whisper
    folder = find_model(whisper.model, settings.models_dir)
    decoder = part("Whisper: the numpy decoder, its products in onnxruntime's int8 kernels",
                   lambda: Decoder.load(folder / "model.bin"))
    encoder = part("Whisper: CTranslate2's encoder", lambda: load_encoder_alone(folder, whisper.threads or 2))

    def tokenizer() -> Any:
        import tokenizers

        return tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))

    words = part("Whisper: the tokenizer", tokenizer)
    transcriber = part("Whisper: the encoder's first run (warm-up)", lambda: _warm(
        WhisperTranscriber(encoder, words, decoder, whisper.beam_size, 0, [], whisper.trim)))
    audio = command.tobytes()
    part("Whisper: a free text of the command", lambda: transcriber.hypotheses(audio, COMMAND))

    def search() -> Any:
        from assistant.hearing.grammar import WordGraph

        transcriber.listen(audio, short=True)
        transcriber.own_reading()
        return transcriber.held_to(WordGraph(sentences), settings.closed_beam)

    part("Whisper: the grammar search over the game's sentences, and its own reading", search)

    def voice() -> Any:
        from assistant.voice.characters import CharacterSpec, character_names
        from assistant.voice.synth import VoiceBank
        from assistant.voice.vocoder import parts_dir
        from assistant.voice.voices import VoiceSettings

        voice_settings = VoiceSettings.from_config(config)
        spec = CharacterSpec.from_config(config, character_names(config)[0])
        bank = VoiceBank(voice_settings.voices_dir, voice_settings.threads, parts_dir(voice_settings.cache_dir))
        bank.load(spec.voice)
        return bank, spec

    bank, spec = part("Piper: the voice loaded", voice)
    part("Piper: the longest answer said", lambda: bank.render(spec, LONG_ANSWER))
    part("Piper: the longest answer said again", lambda: bank.render(spec, LONG_ANSWER))
    print(f"{last:7.1f} MB  in all (resident, after the parts above)")
    return 0


def _warm(transcriber: Any) -> Any:
    transcriber.warm_up()
    return transcriber


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="omega-virus")
    parser.add_argument("--results", default="bench_memory_parts",
                        help="write bench/results/NAME.md ('' : none)")
    args = parser.parse_args(argv)
    results = Results(args.results or "unused", "What the assistant holds, part by part",
                      ["bench/bench_memory_parts.py", *(sys.argv[1:] if argv is None else argv)])
    with results.capture():
        code = _main(args)
    if args.results and code == 0:
        results.write()
    return code


if __name__ == "__main__":
    sys.exit(main())
