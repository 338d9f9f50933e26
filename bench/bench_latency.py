"""Latency of the live loop through the PulseAudio virtual microphone and speaker.

    python -m bench.bench_latency [--trials 12] [--engines pocketsphinx,hybrid,whisper]
        [--whisper-model faster-whisper-tiny.en | faster-whisper-base]

Speaks commands into the virtual microphone again and again, and measures from the end of
the player's speech to the first sample of the answer handed to the speaker. Per engine
(each in a Command Center session of its own, turns alternating between its cases):

- pocketsphinx: "explore one zero zero" / "explore room one two zero" (the Piper voice),
  answering early (acting on a steady partial that is a whole command) and waiting for the
  recognizer's end-of-speech silence.
- hybrid: the same Piper clips, where the first pass is sure (answering early); and
  **Whisper decides**: clips of other voices that PocketSphinx alone does not take (checked
  on the clip first, under the same grammar) and Whisper alone hears right, so the answer
  only comes after Whisper's second opinion. Live, the first pass sometimes acted early on
  such clips' partial words anyway, so this case does not answer early: at the end of an
  utterance the hybrid always asks Whisper, so the time is the same as when a doubted
  utterance reaches the end in play. Each turn counts only when answered the case's way
  (``LiveLoop.on_action`` says whether an answer was early); the others are reported.
- whisper: the Piper clips, every answer from Whisper at the end of the utterance.

An engine that cannot be opened here is listed as not available. Prints the median and the
90th percentile of each case, and how many turns got no answer within 20 s; each turn goes to
stderr as it is measured. Each turn takes about 10-15 s (the answer is spoken out, then a
quiet second), plus 4 warm-up turns and about a minute of start-up per engine: the default
(12 trials; 2 + 2 + 1 cases) takes about 20 minutes on this machine, --trials 3 about 7.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.config import Config  # noqa: E402
from assistant.engine import Command  # noqa: E402
from assistant.games import omega_virus  # noqa: E402
from assistant.hearing import Ear, HearingSettings, ModelError, Transcript, open_ear  # noqa: E402
from assistant.hearing.events import Final  # noqa: E402
from assistant.hearing.whisper_engine import DEFAULT_WHISPER_MODEL, KNOWN_MODELS  # noqa: E402
from assistant.live.loop import LiveLoop, LiveSettings  # noqa: E402
from assistant.live.microphone import Microphone  # noqa: E402
from assistant.session import Session  # noqa: E402
from assistant.voice.announcer import SpokenAnnouncer  # noqa: E402
from bench.results import Results  # noqa: E402
from tests.audio_env import RATE, ensure_audio, private_mic  # noqa: E402
from tests.support.spoken import HELD_OUT_SPEAKERS, TUNING_SPEAKERS, ClipMaker, Speaker  # noqa: E402
from tests.test_live_e2e import MicFeeder, piper_clip  # noqa: E402

Int16 = np.ndarray
SIGN_ON = ["skill zero", "code one two", "skip", "skip", "skip"]
#: Commands allowed once signed on, for the clips the first pass doubts.
DOUBT_TEXTS = ("explore one zero zero", "explore room one two zero", "how much time is left", "what do i have",
               "teleport", "attack the red probe")


@dataclass
class Case:
    label: str
    early: bool
    clips: list[Int16]
    #: Only turns answered this way count (True: early, by the first pass; False: at the end of
    #: the utterance, where the hybrid's Whisper decides); None: any answer counts.
    answered_early: bool | None = None


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q))


def speech_end(clip: Int16) -> float:
    """Seconds from the clip's start to the end of its speech."""
    loud = np.nonzero(np.abs(clip.astype(np.int32)) > 500)[0]
    return int(loud[-1]) / RATE if len(loud) else len(clip) / RATE


def new_session(config: Config, announcer: SpokenAnnouncer) -> Session:
    settings = omega_virus.settings_from_config(config)
    settings.update(hazard_chance=0.0, attack_shot="random")
    session = Session.new("omega-virus", 1, settings, announcer, None)
    session.start()
    for line in SIGN_ON:
        session.hear(line)
    return session


#: The voices the Whisper cases are said in: espeak-ng's, none of them the Piper voice
ESPEAK_VOICES: tuple[Speaker, ...] = tuple(s for s in (*HELD_OUT_SPEAKERS, *TUNING_SPEAKERS) if s.engine == "espeak")


def only_second_takes(first: Ear, second: Ear, clip: Int16, expected: Command) -> Final | None:
    """What ``first`` made of ``clip`` when it takes no command from it and ``second`` takes
    ``expected``; otherwise None."""
    heard = first.hear(clip)
    if isinstance(heard, Transcript) and heard.command is not None:
        return None  # the first takes it: not a case for the second
    decided = second.hear(clip)
    return heard if isinstance(decided, Transcript) and decided.command == expected else None


def doubted_clips(config: Config, session: Session, count: int = 3, cache: Path | None = None) -> list[Int16]:
    """Clips of other voices than Piper's that PocketSphinx alone does not take but Whisper
    alone hears right, under the grammar of the session's moment (empty if Whisper cannot
    be opened or none is found)."""
    settings = HearingSettings.from_config(config)
    intents = session.allowed_intents()
    first = open_ear(settings, session.sentences, intents, "pocketsphinx", fallback=False)
    try:
        second = open_ear(settings, session.sentences, intents, "whisper", fallback=False)
    except (ModelError, ValueError) as error:
        print(f"  (no clips for Whisper to decide: {error})")
        return []
    maker = ClipMaker(cache)
    found: list[Int16] = []
    for text in DOUBT_TEXTS:
        expected = session.sentences.match(text, intents)
        if expected is None:
            continue
        for speaker in ESPEAK_VOICES:
            clip = maker.say(text, speaker)
            heard = only_second_takes(first, second, clip, expected)
            if heard is not None:
                print(f"  Whisper decides: {text!r} said by {speaker.label} (PocketSphinx alone: "
                      f"{heard.heard!r}, {getattr(heard, 'reason', '')})")
                found.append(clip)
                break
        if len(found) >= count:
            break
    return found


def measure(engine: str, trials: int, warm_up: int = 4, cache: Path | None = None,
            whisper_model: str = DEFAULT_WHISPER_MODEL) -> dict[str, list[float]] | None:
    """One session and one speaker per engine, its cases alternating trial by trial (a fair pairing)."""
    config = Config.from_text(f"voice:\n  render_at_start: false\nhearing:\n  whisper:\n    model: {whisper_model}\n")
    ensure_audio()  # PulseAudio and its virtual speaker (started here, and stopped at exit, if need be)
    announcer = SpokenAnnouncer.from_config(config, echo=False, game="omega-virus",
                                            settings=omega_virus.settings_from_config(config))
    try:
        session = new_session(config, announcer)
        try:
            ear = open_ear(HearingSettings.from_config(config), session.sentences, session.allowed_intents(),
                           engine, fallback=False)
        except (ModelError, ValueError) as error:
            print(f"{engine}: not available here ({error})")
            return None
        piper = [piper_clip(f"explore {room}") for room in ("one zero zero", "one two zero")]
        if engine == "pocketsphinx":
            cases = [Case("answering early", True, piper), Case("waiting for silence", False, piper)]
        elif engine == "hybrid":
            cases = [Case("first pass sure (answering early)", True, piper, answered_early=True)]
            doubted = doubted_clips(config, session, cache=cache)
            if doubted:
                cases.append(Case("Whisper decides (first pass doubts)", False, doubted, answered_early=False))
        else:
            cases = [Case("every answer from Whisper", True, piper)]
        with private_mic("latency") as mic:
            results = _measure(mic, session, ear, announcer, cases, trials, warm_up)
    finally:
        announcer.close()
    return results


def _measure(mic: Path, session: Session, ear: Ear, announcer: SpokenAnnouncer, cases: list[Case],
             trials: int, warm_up: int) -> dict[str, list[float]]:
    loop = LiveLoop(session, ear, Microphone(""), announcer.speaking, None, LiveSettings())
    actions: list[bool] = []  # early or not, of every command acted on
    loop.on_action = lambda command, early: actions.append(early)
    stop = threading.Event()
    worker = threading.Thread(target=loop.run, args=(stop,), daemon=True)
    feeder = MicFeeder(mic)
    feeder.thread.start()
    worker.start()
    time.sleep(3)
    results: dict[str, list[float]] = {case.label: [] for case in cases}
    missed: dict[str, int] = {case.label: 0 for case in cases}
    other_way: dict[str, int] = {case.label: 0 for case in cases}
    try:
        for i in range(warm_up + len(cases) * trials):
            case = cases[i % len(cases)]
            loop.settings.answer_early = case.early
            while announcer.speaking.is_speaking() or announcer.speaking.quiet_for() < 1.0:
                time.sleep(0.05)
            time.sleep(0.5)
            before = announcer.last.called_at
            acted = len(actions)
            clip = case.clips[(i // len(cases)) % len(case.clips)]
            ended = feeder.say_at(clip) + speech_end(clip)
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                first = announcer.last.first_audio_at
                if announcer.last.called_at > before and first is not None:
                    early = actions[acted] if len(actions) > acted else None
                    counts = case.answered_early is None or early == case.answered_early
                    if i >= warm_up:  # the first answers fill the voice cache
                        if counts:
                            results[case.label].append(first - ended)
                        else:
                            other_way[case.label] += 1
                    how = {True: "early", False: "at the end", None: "no command"}[early]
                    print(f"  turn {i + 1}: {case.label}: {first - ended:.3f} s, answered {how}"
                          f"{' (warming up)' if i < warm_up else ''}{'' if counts else ' (not counted)'}",
                          file=sys.stderr, flush=True)
                    break
                time.sleep(0.005)
            else:
                if i >= warm_up:
                    missed[case.label] += 1
    finally:
        stop.set()
        # PortAudio streams must not be closed from two threads at once: let the loop finish
        # its last answer and close the microphone before the speaker is closed. The feeder
        # keeps the microphone fed meanwhile: closing a stream that gets no audio waits long.
        worker.join()
        feeder.stop.set()
    for label, count in missed.items():
        if count:
            print(f"  {label}: {count} turns got no answer within 20 s")
    for case in cases:
        if other_way[case.label]:
            way = "early by the first pass" if not case.answered_early else "only at the end of the utterance"
            print(f"  {case.label}: {other_way[case.label]} turns answered {way} (not counted)")
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=12)
    parser.add_argument("--engines", default="pocketsphinx,hybrid,whisper", help="comma-separated")
    parser.add_argument("--cache", type=Path, help="clip cache folder (default: a temp folder)")
    parser.add_argument("--whisper-model", default=DEFAULT_WHISPER_MODEL, choices=list(KNOWN_MODELS),
                        help="hearing.whisper.model for the hybrid and Whisper")
    parser.add_argument("--results", default="bench_latency",
                        help="write bench/results/NAME.md ('' : none)")
    args = parser.parse_args(argv)
    results = Results(args.results or "unused", "Latency of the live loop: end of speech to the answer",
                      ["bench/bench_latency.py", *(sys.argv[1:] if argv is None else argv)])
    figures: dict[str, dict[str, dict[str, float | int]]] = {}
    with results.capture():
        print("End of the player's speech to the first sample of the answer (PulseAudio virtual devices,")
        print(f"Command Center after sign-on; {args.trials} trials each; Whisper model {args.whisper_model}):")
        with tempfile.TemporaryDirectory() as tmp:
            for engine in (e.strip() for e in args.engines.split(",") if e.strip()):
                measured = measure(engine, args.trials, cache=args.cache or Path(tmp),
                                   whisper_model=args.whisper_model)
                if measured is None:
                    continue
                print(f"{engine}:")
                figures[engine] = {}
                for label, values in measured.items():
                    if not values:
                        print(f"  {label:<38} no answers")
                        continue
                    print(f"  {label:<38} median {statistics.median(values):.3f} s   90th percentile "
                          f"{percentile(values, 90):.3f} s   ({len(values)} answers)")
                    figures[engine][label] = {"median_s": statistics.median(values),
                                              "p90_s": percentile(values, 90), "answers": len(values)}
    if args.results:
        results.figures = {"engines": figures}
        results.write()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
