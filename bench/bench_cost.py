"""CPU cost of hearing, per stage and per utterance, and an estimate of it on a Raspberry Pi.

    python bench/bench_cost.py [--game omega-virus] [--conditions 'clean,talkers 10 dB']
                               [--talk-every 2] [--fsdd-entries 8]

Hears held-out clips (the synthetic held-out voices, the held-out recorded speakers' button
entries, table talk; each in the moment of play that asks for it, as ``bench_accuracy`` does)
with the hybrid as configured, and measures the CPU time (process time, every thread) each
utterance costs, split by stage: Whisper's encoder (CTranslate2; the utterance alone for the
closed stage, the free text's: Whisper's own 30 s), its decoder (the numpy decoder: the grammar
search, Whisper's own reading, the free text's beam search and the last try's, ``as_sentences``),
its weighing of the last try's command against its first transcript (forced decoding on the
same decoder: ``score``), Whisper's other work
(log-mel, noise suppression), and the first pass (PocketSphinx: the rest, split into its work
while the player speaks and at the end of speech). It also times Whisper tiny on a 4 s command
alone, the job a published Raspberry Pi measurement timed, which gives the ratio
of a Pi to this machine for that model.

The cost model (an ESTIMATE, not a measurement on a Pi): the time from the end of speech to
the answer on a Pi is taken as this machine's CPU seconds per utterance times the ratio of
the Pi to this machine for the same model:

- Whisper (multi-threaded, on the Pi's 4 cores as in the published run): the ratio is the
  published Pi time for Whisper tiny int8 through CTranslate2 on a 4 s command (about 3.2 s on
  a Raspberry Pi 400, 4 threads: fquirin/speech-recognition-experiments) over this machine's
  CPU seconds for the same job (``reference_job``). A Pi 400 is a Pi 4 at 1.8 GHz.
- The first pass (PocketSphinx, one thread): the same ratio times 2.5 (the published run's 4
  threads taken as worth 2.5 of the Pi's cores). Its live pass streams while the player is
  still speaking; at the end of speech it decodes the whole utterance once more in one piece
  and checks its phones (its reading). On a Pi's four cores the reading's two decodes run on
  decoders of their own, each started at the end of speech on a thread of its own
  (``side_decoder.py``; ``pocketsphinx_engine.SIDE_CORES``): they are timed
  here where a stage asks for the reading (read in place, where the meter can tell them from
  Whisper), and once more after the decision where no stage asked for it (the phone check's
  decode too where the reading found no command, as it runs all the same), and counted beside
  Whisper (``tests/support/pi_model.after_speech``: each side thread takes one of the Pi's four
  cores from Whisper's threads while it runs; the answer waits only for what it needs, and only
  for what Whisper's look before a stage asks for it does not cover). The estimate is given five
  times: after the end of speech (as shipped), with both decodes on one thread beside Whisper,
  with only the phone check beside Whisper, with all of the reading on the way, and with all of
  the first pass after it (an upper bound).
- A Pi 5 is taken as 2.5x a Pi 4 (published comparisons put it at 2-3x; Home Assistant's
  voice team measured their closed-grammar Speech-to-Phrase at under 1 s on a Pi 4 and about
  150 ms on a Pi 5).

The commands right, WRONG and table talk taken are counted beside the cost. The reference job
encodes Whisper's own 30 s, as the published run did.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.config import Config  # noqa: E402
from assistant.engine import Command  # noqa: E402
from assistant.games import game_module  # noqa: E402
from assistant.hearing import (  # noqa: E402
    HearingSettings,
    Transcript,
    open_ear,
    open_transcriber,
)
from assistant.hearing.audio import FREE_TEXT_MARGIN_S, RATE, loud_part, suppress_noise  # noqa: E402
from assistant.hearing.events import Deferred  # noqa: E402
from assistant.hearing.moments import listening_moments  # noqa: E402
from assistant.hearing.whisper_engine import MAX_TOKENS, PAD_SECONDS, find_model, log_mel  # noqa: E402
from bench.bench_accuracy import (  # noqa: E402
    CONDITIONS,
    TABLE_TALK,
    Condition,
    Noises,
    checked_table_talk,
    grammar_key,
    make_clip,
    sample_commands,
    sample_entries,
)
from bench.results import Results  # noqa: E402
from bench.voices import FSDD_DIR, FSDD_HELD_OUT, BenchClips, OtherTalkers, fsdd_speaker  # noqa: E402
from tests.support.pi_model import CORES, after_speech  # noqa: E402
from tests.support.spoken import HELD_OUT_SPEAKERS, Speaker, babble  # noqa: E402

#: The published Pi measurement the ratio is taken from: Whisper tiny int8 (CTranslate2), a 4 s
#: command, Raspberry Pi 400 with 4 threads (fquirin/speech-recognition-experiments).
PI4_WHISPER_TINY_4S = 3.2
#: The published run's 4 threads, in the Pi's cores (an assumed parallel efficiency of 60%)
PI4_CORES_USED = 2.5
#: A Pi 5 against a Pi 4 (published comparisons: 2-3x)
PI5_SPEEDUP = 2.5
REFERENCE_TEXT = "explore room one two zero and then attack the red probe please"
REFERENCE_SPEAKER = Speaker("piper", "joe", 1.0, 0.0)
STAGES = ("first pass, while speaking", "first pass, at the end", "Whisper encoder", "Whisper decoder",
          "Whisper weighing", "Whisper other")


class Meter:
    """CPU seconds spent in the Whisper model's calls, by stage, while an utterance is heard."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.depth = 0

    def reset(self) -> None:
        self.spent.clear()
        self.calls.clear()

    def wrap(self, stage: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            if self.depth:  # counted by the stage that called it
                return call(*args, **kwargs)
            self.depth += 1
            start = time.process_time()
            try:
                return call(*args, **kwargs)
            finally:
                self.spent[stage] += time.process_time() - start
                self.calls[stage] += 1
                self.depth -= 1
        return timed


#: The CTranslate2 Whisper model's calls, by stage (it holds the encoder alone)
MODEL_CALLS = {"encode": "Whisper encoder"}
#: The numpy decoder's (whisper_decoder.Decoder: every decoding)
DECODER_CALLS = {"attend": "Whisper decoder", "read": "Whisper decoder", "read_many": "Whisper decoder",
                 "logits": "Whisper decoder"}


class TimedModel:
    """The CTranslate2 Whisper model (or the numpy decoder), its calls metered by stage."""

    def __init__(self, model: Any, meter: Meter, calls: dict[str, str] = MODEL_CALLS) -> None:
        self._model = model
        self._meter = meter
        self._calls = calls

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._model, name)
        stage = self._calls.get(name)
        return self._meter.wrap(stage, value) if stage is not None and callable(value) else value


@contextmanager
def metered(settings: HearingSettings) -> Iterator[tuple[Meter, Callable[[], float]]]:
    """Meter the shared Whisper transcriber: yields the meter and a function giving the CPU
    seconds of all of Whisper's work in the utterance (its calls, log-mel and suppression)."""
    transcriber = open_transcriber(settings)
    meter = Meter()
    whole = Meter()
    model = transcriber.model
    saved = {name: getattr(transcriber, name) for name in ("hypotheses", "again", "score", "listen", "held_to",
                                                          "own_reading")}
    transcriber.model = TimedModel(model, meter)
    decoder = transcriber.decoder
    transcriber.decoder = TimedModel(decoder, meter, DECODER_CALLS)  # type: ignore[assignment]
    score = saved["score"]

    def scoring(texts: Any, ending: bool = True) -> list[float]:
        # forced decoding inside score is weighing, not the beam search
        meter.depth += 1
        start = time.process_time()
        try:
            return score(texts, ending)  # type: ignore[no-any-return]
        finally:
            meter.depth -= 1
            meter.spent["Whisper weighing"] += time.process_time() - start
            meter.calls["Whisper weighing"] += 1

    for name in ("hypotheses", "again", "listen", "held_to", "own_reading"):
        setattr(transcriber, name, whole.wrap("whisper", saved[name]))
    transcriber.score = whole.wrap("whisper", scoring)  # type: ignore[method-assign]
    try:
        yield meter, lambda: whole.spent["whisper"]
    finally:
        transcriber.model = model
        transcriber.decoder = decoder
        for name in saved:
            delattr(transcriber, name)  # the class's own methods again


def reference_job(settings: HearingSettings, maker: BenchClips, trials: int = 5) -> tuple[float, float]:
    """CPU and wall seconds (medians) of Whisper tiny.en hearing a command of about 4 s alone
    (beam 5, as the published Pi run): the same job as the Pi figure the ratio comes from, on
    the same code (CTranslate2's whole model, its decoder too, as faster-whisper runs it, loaded
    here: the assistant's own decoding runs on the numpy decoder's int8 products, scaled by the
    same ratio: an assumption docs/raspberry-pi.md names). The audio is prepared as the
    assistant prepares a free text's (the loud part, padded, its log-mel)."""
    import ctranslate2
    import tokenizers

    whisper = settings.whisper
    folder = find_model("faster-whisper-tiny.en", settings.models_dir)
    model = ctranslate2.models.Whisper(str(folder), device="cpu", compute_type="int8",
                                       intra_threads=whisper.threads or os.cpu_count() or 1)
    tokenizer = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    start = [tokenizer.token_to_id(f"<|{name}|>") for name in ("startoftranscript", "notimestamps")]
    # -1: the model's own non-speech tokens; and never a control token inside the text
    suppress = [-1, *(tokenizer.token_to_id(f"<|{name}|>") for name in (
        "startoftranscript", "startofprev", "startoflm", "nocaptions", "transcribe", "translate"))]
    assert None not in start and None not in suppress, "not tiny.en's tokenizer"

    def transcribe(audio: bytes) -> str:
        samples = suppress_noise(np.frombuffer(audio, dtype=np.int16), whisper.noise_suppression)
        samples = loud_part(samples, whisper.trim, FREE_TEXT_MARGIN_S)
        pad = np.zeros(int(PAD_SECONDS * RATE), dtype=np.int16)
        mel = log_mel(np.concatenate([pad, samples, pad]).astype(np.float32) / 32768.0)
        result = model.generate(ctranslate2.StorageView.from_array(mel[None]), [start], beam_size=whisper.beam_size,
                                max_length=MAX_TOKENS, suppress_blank=True, suppress_tokens=suppress)
        return str(tokenizer.decode(list(result[0].sequences_ids[0])).strip())

    clip = maker.say(REFERENCE_TEXT, REFERENCE_SPEAKER)
    audio = clip.tobytes()
    transcribe(audio)  # the first call is slower
    cpu, wall = [], []
    for _ in range(trials):
        c, w = time.process_time(), time.perf_counter()
        transcribe(audio)
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    print(f"reference job: Whisper tiny.en, beam 5, a {len(clip) / 16000:.1f} s command "
          f"({REFERENCE_TEXT!r}), {trials} runs: CPU {statistics.median(cpu):.3f} s, "
          f"wall {statistics.median(wall):.3f} s (medians)")
    return statistics.median(cpu), statistics.median(wall)


def q90(values: list[float]) -> float:
    return float(np.percentile(values, 90)) if values else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="omega-virus")
    parser.add_argument("--conditions", default="clean,talkers 10 dB")
    parser.add_argument("--per-intent", type=int, default=1)
    parser.add_argument("--talk-every", type=int, default=2)
    parser.add_argument("--fsdd", type=Path, default=FSDD_DIR)
    parser.add_argument("--fsdd-entries", type=int, default=8)
    parser.add_argument("--limit", type=int, default=0, help="hear only the first N lines (0: all; a quick check)")
    parser.add_argument("--cache", type=Path, help="clip cache folder (default: a temp folder)")
    parser.add_argument("--config", help="settings file (default: ./config.yaml)")
    parser.add_argument("--results", default="bench_cost", help="bench/results/NAME.md ('' : none)")
    parser.add_argument("--note", action="append", default=[])
    args = parser.parse_args(argv)
    name = args.results
    results = Results(name or "unused", "CPU cost of hearing per stage, and a Raspberry Pi estimate",
                      ["bench/bench_cost.py", *(sys.argv[1:] if argv is None else argv)])
    results.notes.extend(args.note)
    results.record(lambda: run(args), write=bool(name))
    return 0


def mean_of(values: list[float]) -> str:
    """The mean of the values that are not 0 (the utterances a part of the work was done for)."""
    done = [v for v in values if v > 0]
    return f"{len(done)} utterances, {statistics.mean(done):.3f} CPU s mean" if done else "none"


def run(args: argparse.Namespace) -> dict[str, Any]:
    config = Config.load(args.config)
    settings = HearingSettings.from_config(config)
    known = {c.name: c for c in CONDITIONS}
    conditions: list[Condition] = [known[c.strip()] for c in args.conditions.split(",")]
    sentences = game_module(args.game).sentences()
    with tempfile.TemporaryDirectory() as tmp:
        maker = BenchClips(args.cache or Path(tmp), args.fsdd)
        noises = Noises(babble(maker), OtherTalkers(maker))
        said: list[tuple[str, Speaker, Command | None]] = []
        for n, (text, command) in enumerate(sample_commands(sentences, args.per_intent)):
            said.append((text, HELD_OUT_SPEAKERS[n % len(HELD_OUT_SPEAKERS)], command))
        for text, command in sample_entries(sentences, args.fsdd_entries):
            said.extend((text, fsdd_speaker(who), command) for who in FSDD_HELD_OUT)
        talk = checked_table_talk({args.game: sentences}, TABLE_TALK)
        talk = [(t, tag) for t, tag in talk if tag in (None, args.game)][::max(args.talk_every, 1)]
        said.extend((text, HELD_OUT_SPEAKERS[(n + 3) % len(HELD_OUT_SPEAKERS)], None)
                    for n, (text, _) in enumerate(talk))
        if args.limit:
            said = [said[i * len(said) // args.limit] for i in range(min(args.limit, len(said)))]  # spread evenly
        moments = listening_moments(args.game)
        ref_cpu, ref_wall = reference_job(settings, maker)
        ear = open_ear(settings, sentences, engine="hybrid", fallback=False)
        # the first pass's work once speech has ended: PocketSphinx ends its live pass (``_end``),
        # then decodes the whole utterance once more in one piece and checks its phones (``_read``:
        # left undone when the grammar search decides without it); what it
        # does while the player speaks (its live pass, partials) is the rest of its time
        ending = Meter()
        first_pass: Any = ear.recognizer
        ended: list[Any] = []  # the transcript the end of speech gave (a reading put off)
        timed_end = ending.wrap("end", first_pass._end)

        def end_kept() -> Any:
            ended.append(timed_end())
            return ended[-1]

        first_pass._end = end_kept
        # The reading is timed where a stage asks for it (as it was before it was started at the
        # end of speech on the side decoder's thread, which this meter's process time could not
        # tell from Whisper's): the model then puts it beside Whisper; its phone check timed too
        first_pass.tuning.read_ahead = False
        phone_meter = Meter()  # its own: inside the read, the ending meter counts it as the read's
        first_pass.heard_phones = phone_meter.wrap("phone check", first_pass.heard_phones)
        read = ending.wrap("read", first_pass._read)
        whisper_before: list[float] = []
        read_audio: list[bytes] = []  # what the reading decoded (the utterance, background gated out)

        def read_after_whisper(*args: Any) -> Any:
            whisper_before.append(whisper_spent() - before)  # Whisper's look so far, before this read
            read_audio.append(args[0])
            return read(*args)

        first_pass._read = read_after_whisper
        per_stage: dict[str, list[float]] = defaultdict(list)
        totals: list[float] = []
        phones: list[float] = []  # the phone check's decode, within the first pass's work at the end
        reads: list[float] = []  # its reading (the phone check's decode in it), where a stage asked for it
        unasked: list[float] = []  # the reading no stage asked for (read ahead all the same, as shipped)
        # As shipped, the reading's two decodes, each on a thread of its own from the end of speech
        # (the phone check's even where the reading finds no command to check): their CPU s, and
        # whether the answer waited for them
        decodes: list[tuple[tuple[float, bool], tuple[float, bool]]] = []
        looked: list[float] = []  # Whisper's CPU before the first pass was read (all of it when it was not)
        whisper_total: list[float] = []
        right = wrong = commands = taken = talked = 0
        with metered(settings) as (meter, whisper_spent):
            for n, (text, speaker, expected) in enumerate(said):
                for k, condition in enumerate(conditions):
                    clip = make_clip(maker, text, speaker, condition, noises, n * 31 + k)
                    ear.set_intents(grammar_key(moments, sentences, expected))
                    meter.reset()
                    ending.reset()
                    phone_meter.reset()
                    ended.clear()
                    whisper_before.clear()
                    read_audio.clear()
                    before = whisper_spent()
                    start = time.process_time()
                    result = ear.hear(clip)
                    total = time.process_time() - start
                    whisper = whisper_spent() - before
                    got = result.command if isinstance(result, Transcript) else None
                    if expected is not None:
                        commands += 1
                        right += got == expected
                        wrong += got is not None and got != expected
                    else:
                        talked += 1
                        taken += got is not None
                    totals.append(total)
                    whisper_total.append(whisper)
                    model = sum(meter.spent.values())
                    at_end = ending.spent["end"] + ending.spent["read"]
                    per_stage["first pass, at the end"].append(at_end)
                    per_stage["first pass, while speaking"].append(max(total - whisper - at_end, 0.0))
                    phones.append(phone_meter.spent["phone check"])
                    reads.append(ending.spent["read"])
                    looked.append(whisper_before[0] if whisper_before else whisper)
                    unasked.append(0.0)
                    asked, checked = reads[-1] > 0, phones[-1] > 0
                    phone_decode = phones[-1]
                    if not asked and ended and isinstance(ended[-1], Deferred):
                        phone_meter.reset()
                        start = time.process_time()  # what reading it ahead cost though no stage asked
                        ended[-1].settle()
                        unasked[-1] = time.process_time() - start
                        phone_decode = phone_meter.spent["phone check"]
                    read_decode = (reads[-1] if asked else unasked[-1]) - phone_decode
                    if not phone_decode and read_audio:  # decoded all the same, as shipped
                        start = time.process_time()
                        first_pass.heard_phones(read_audio[-1])
                        phone_decode = time.process_time() - start
                    decodes.append(((read_decode, asked), (phone_decode, asked and checked)))
                    for stage in ("Whisper encoder", "Whisper decoder", "Whisper weighing"):
                        per_stage[stage].append(meter.spent.get(stage, 0.0))
                    per_stage["Whisper other"].append(max(whisper - model, 0.0))
                    if (n * len(conditions) + k) % 25 == 0:
                        print(f"  {n * len(conditions) + k} of {len(said) * len(conditions)} utterances",
                              file=sys.stderr, flush=True)
    utterances = len(totals)
    print(f"\n{utterances} utterances of {args.game} (held-out voices and recorded speakers; conditions: "
          f"{', '.join(c.name for c in conditions)}), the hybrid as configured (Whisper "
          f"{settings.whisper.model}, beam {settings.whisper.beam_size})")
    print(f"commands right {right}/{commands}, WRONG {wrong}, missed {commands - right - wrong}; table talk taken "
          f"{taken}/{talked}\n")
    print("| stage | CPU s per utterance: median | mean | p90 | share of the total |")
    print("|---|---|---|---|---|")
    whole = sum(totals)
    for stage in STAGES:
        values = per_stage[stage]
        print(f"| {stage} | {statistics.median(values):.3f} | {statistics.mean(values):.3f} | {q90(values):.3f} | "
              f"{100 * sum(values) / max(whole, 1e-9):.0f}% |")
    print(f"| all (the utterance) | {statistics.median(totals):.3f} | {statistics.mean(totals):.3f} | "
          f"{q90(totals):.3f} | 100% |")
    ratio = PI4_WHISPER_TINY_4S / ref_cpu
    per_core = ratio * PI4_CORES_USED
    print(f"(the phone check's decode: {statistics.median(phones):.3f} median, {statistics.mean(phones):.3f} mean, "
          f"{q90(phones):.3f} p90 CPU s per utterance, within the first pass's work at the end; its reading, where a "
          f"stage asked for it: {mean_of(reads)}; read ahead though no stage asked: {mean_of(unasked)})")
    ends = per_stage["first pass, at the end"]
    on_the_way = [end * per_core + whisper * ratio for end, whisper in zip(ends, whisper_total, strict=True)]
    after = [after_speech(end - read, sides, whisper, look, ratio, per_core) for end, read, sides, whisper, look
             in zip(ends, reads, decodes, whisper_total, looked, strict=True)]
    one_thread = [after_speech(end - read, [(read or spare, read > 0)], whisper, look, ratio, per_core)
                  for end, read, spare, whisper, look in zip(ends, reads, unasked, whisper_total, looked, strict=True)]
    phones_beside = [after_speech(end - phone, [(phone, True)], whisper, look, ratio, per_core)
                     for end, phone, whisper, look in zip(ends, phones, whisper_total, looked, strict=True)]
    live_pass = per_stage["first pass, while speaking"]
    pi4_all = [live * per_core + rest for live, rest in zip(live_pass, on_the_way, strict=True)]
    print(f"\nCost model (an ESTIMATE, not measured on a Pi): Pi 4 seconds = Whisper CPU s here x {ratio:.2f} "
          f"(published {PI4_WHISPER_TINY_4S} s on a Pi 400 with 4 threads, over {ref_cpu:.3f} CPU s here for the "
          f"same job), + first-pass CPU s here x {per_core:.2f} (one thread; the published run's 4 threads taken "
          f"as {PI4_CORES_USED:g} cores); Pi 5 = Pi 4 / {PI5_SPEEDUP:g}. After the end of speech: Whisper and the "
          "first pass's work at the end (its reading: a decode of the whole utterance in one piece and its phone "
          "check), its live pass done while the player spoke. As shipped on a Pi (four cores: phones_beside), the "
          "reading's two decodes run beside Whisper, each on a thread of its own started at the end of speech "
          "(tests/support/pi_model.after_speech: "
          f"each takes one of the Pi's {CORES} cores from Whisper's threads while it runs; the answer waits only for "
          "what it needs and Whisper's look before a stage asks for it does not cover); before, both on one thread "
          "(c180d7e); before that, only the phone check beside Whisper (d20a85f); before that, all of it on the "
          "way; with all of the first pass: an upper bound.\n")
    print("| end of speech to answer | median | p90 |")
    print("|---|---|---|")
    print(f"| this machine, CPU s of the whole utterance | {statistics.median(totals):.2f} | {q90(totals):.2f} |")
    estimates: dict[str, dict[str, float]] = {}
    for board, speed in (("Raspberry Pi 4", 1.0), ("Raspberry Pi 5", PI5_SPEEDUP)):
        for part, values in (("after the end of speech", after), ("the reading on one thread beside", one_thread),
                             ("only the phone check beside", phones_beside),
                             ("the reading on the way", on_the_way), ("with all of the first pass", pi4_all)):
            scaled = [v / speed for v in values]
            estimates[f"{board}, {part}"] = {"median_s": statistics.median(scaled), "p90_s": q90(scaled)}
            print(f"| {board} (estimate), {part} | {statistics.median(scaled):.2f} | {q90(scaled):.2f} |")
    return {"utterances": utterances, "right": right, "wrong": wrong,
            "commands": commands, "table_talk_taken": taken, "table_talk": talked,
            "reference_cpu_s": ref_cpu, "reference_wall_s": ref_wall, "pi4_ratio_whisper": ratio,
            "stages": {s: {"median_s": statistics.median(v), "mean_s": statistics.mean(v), "p90_s": q90(v)}
                       for s, v in per_stage.items()},
            "total": {"median_s": statistics.median(totals), "p90_s": q90(totals)},
            "estimates": estimates}


if __name__ == "__main__":
    sys.exit(main())
