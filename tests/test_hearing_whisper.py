"""Whisper tiny.en for real: the model found and checked, fetched from a (local) server, and
commands spotted in what it writes, said by voices nobody tuned on; and the hybrid listener."""

from __future__ import annotations

import functools
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from assistant.engine import Command
from assistant.games import game_module
from assistant.hearing import Ear, HearingSettings, choose, open_ear
from assistant.hearing.events import NotRecognized, Transcript
from assistant.hearing.recognizer import ModelError, prompt_as_sentences
from assistant.hearing.whisper_engine import (
    FREE_TEXT_SECONDS,
    MAX_SECONDS,
    WHISPER_FILES,
    WhisperSettings,
    WhisperTranscriber,
    find_model,
    is_whisper_model,
    packaged_model,
    sha256_file,
    verify,
)
from assistant.setup import NoNetwork, SetupError, install_whisper_model
from tests.support.spoken import ClipMaker, Speaker

pytestmark = pytest.mark.model

OMEGA = game_module("omega-virus").sentences()
MOVE = ["explore", "pass", "teleport", "attack", "repeat", "time_left", "inventory", "help", "pause", "new_game"]
#: Voices of neither the tuning nor the held-out benchmark set, so no threshold was chosen on them.
OTHER_VOICES = (Speaker("espeak", "en-gb-scotland", 1.0, 50), Speaker("espeak", "en-us+f2", 1.1, 60),
                Speaker("espeak", "en-029", 1.0, 45))


@pytest.fixture(scope="module")
def maker(tmp_path_factory: pytest.TempPathFactory) -> ClipMaker:
    return ClipMaker(tmp_path_factory.mktemp("clips"))


# --------------------------------------------------------------------------- the model


def test_the_packaged_model_is_found_and_its_files_check_out(tmp_path: Path) -> None:
    folder = find_model("faster-whisper-tiny.en", tmp_path)  # nothing in models/: the package's copy
    assert folder == packaged_model()
    assert is_whisper_model(folder)
    verify(folder)


def test_a_changed_model_file_is_refused_by_name(tmp_path: Path) -> None:
    source = packaged_model()
    assert source is not None
    copy = tmp_path / "faster-whisper-tiny.en"
    copy.mkdir()
    for name in WHISPER_FILES:
        (copy / name).symlink_to(source / name) if name == "model.bin" else shutil.copy(source / name, copy)
    with (copy / "config.json").open("a") as f:
        f.write(" ")
    assert find_model("faster-whisper-tiny.en", tmp_path) == copy  # models/ comes first
    with pytest.raises(ModelError, match="config.json"):
        verify(copy)


def test_no_model_anywhere_says_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("assistant.hearing.whisper_engine.packaged_model", lambda: None)
    with pytest.raises(ModelError, match="assistant setup"):
        find_model("faster-whisper-tiny.en", tmp_path)
    settings = HearingSettings(recognizer="auto", models_dir=tmp_path)
    assert choose(settings).second is None  # auto listens without the second opinion
    assert "not installed" in choose(settings).note


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    root = tmp_path / "www"
    root.mkdir()
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/", root
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_setup_fetches_every_file_and_checks_it(server: tuple[str, Path], tmp_path: Path) -> None:
    url, root = server
    files = {"config.json": b"{}", "model.bin": b"\x07" * 200_000, "tokenizer.json": b"{\"t\": 1}",
             "vocabulary.txt": b"a\nb\n"}
    for name, data in files.items():
        (root / name).write_bytes(data)
    expected = {name: sha256_file(root / name) for name in files}
    target = tmp_path / "models" / "faster-whisper-tiny.en"
    log = tmp_path / "log.txt"
    with log.open("w") as out:
        assert install_whisper_model(target, url, expected, out) == target
    assert {p.name for p in target.iterdir()} == set(files)
    assert (target / "model.bin").read_bytes() == files["model.bin"]
    assert not target.with_name(target.name + ".part").exists()


def test_a_file_that_does_not_check_out_installs_nothing(server: tuple[str, Path], tmp_path: Path) -> None:
    url, root = server
    for name in WHISPER_FILES:
        (root / name).write_bytes(b"not the model")
    expected = {name: "0" * 64 for name in WHISPER_FILES}
    target = tmp_path / "models" / "faster-whisper-tiny.en"
    with (tmp_path / "log.txt").open("w") as out, pytest.raises(SetupError, match="SHA-256"):
        install_whisper_model(target, url, expected, out)
    assert not target.exists()


def test_no_network_is_told_apart(tmp_path: Path) -> None:
    with (tmp_path / "log.txt").open("w") as out, pytest.raises(NoNetwork):
        install_whisper_model(tmp_path / "m", "http://127.0.0.1:9/", None, out)


# --------------------------------------------------------------------------- our CTranslate2 front end


def test_the_log_mel_input_and_the_transcripts_are_faster_whispers(maker: ClipMaker) -> None:
    """The assistant runs CTranslate2 itself (faster-whisper's imports cost 35 MB of memory);
    what it feeds the model and what comes out must be what faster-whisper gives."""
    import numpy as np
    from faster_whisper import WhisperModel
    from faster_whisper.feature_extractor import FeatureExtractor

    from assistant.hearing.audio import log_mel, mel_filters
    from assistant.hearing.whisper_engine import PAD_SECONDS, WhisperSettings

    reference = FeatureExtractor()
    assert np.allclose(mel_filters(), reference.mel_filters, atol=1e-7)
    folder = find_model("faster-whisper-tiny.en", Path("/nonexistent"))
    # faster-whisper's 30 s window, and the audio whole (not its loud part: hearing.whisper.trim)
    ours = WhisperTranscriber.load(folder, WhisperSettings(check_sha256=False, trim=0.0))
    theirs = WhisperModel(str(folder), device="cpu", compute_type="int8")
    prompt = "explore room one zero two, pass, attack the red commando, how much time is left."
    pad = np.zeros(int(PAD_SECONDS * 16000), dtype=np.int16)
    for text, voice in [("explore room two zero one", OTHER_VOICES[0]), ("attack the red commando", OTHER_VOICES[1]),
                        ("can you pass me the chips", OTHER_VOICES[2])]:
        clip = np.frombuffer(maker.say(text, voice), dtype=np.int16)
        samples = np.concatenate([pad, clip, pad]).astype(np.float32) / 32768.0
        expected = reference(samples)[:, :-1]
        got = log_mel(samples)
        assert np.allclose(got[:, :expected.shape[1]], expected, atol=1e-5)
        assert not got[:, expected.shape[1]:].any()  # then zeros to 30 s, as faster-whisper pads
        segments, _ = theirs.transcribe(samples, language="en", beam_size=5, initial_prompt=prompt,
                                        condition_on_previous_text=False, without_timestamps=True,
                                        temperature=0.0, vad_filter=False)
        written = ours.transcribe(clip.tobytes(), prompt)
        assert written == " ".join(s.text.strip() for s in segments).strip()
        hypotheses = ours.hypotheses(clip.tobytes(), prompt, 3)
        assert len(hypotheses) == 3 and hypotheses[0] == written
        # the same audio again without the prompt, on the kept encoding: as if heard anew unprompted
        plain = ours.again("", 2)
        assert plain == ours.hypotheses(clip.tobytes(), "", 2)
        segments, _ = theirs.transcribe(samples, language="en", beam_size=5, initial_prompt=None,
                                        condition_on_previous_text=False, without_timestamps=True,
                                        temperature=0.0, vad_filter=False)
        assert plain[0] == " ".join(s.text.strip() for s in segments).strip()


def test_whisper_hears_through_the_noise_suppressor_when_asked(maker: ClipMaker,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """hearing.whisper.noise_suppression: what Whisper hears is the suppressor's output (the same
    transcripts as of the suppressed audio given plainly); without its package, a clear error."""
    import importlib.util

    import numpy as np

    from assistant.hearing.audio import suppress_noise
    from assistant.hearing.whisper_engine import WhisperSettings
    from tests.support.spoken import add_noise

    folder = find_model("faster-whisper-tiny.en", Path("/nonexistent"))
    plain = WhisperTranscriber.load(folder, WhisperSettings(check_sha256=False))
    through = WhisperTranscriber.load(folder, WhisperSettings(check_sha256=False, noise_suppression=4))
    prompt = "explore room one zero two, pass, attack the red commando, how much time is left."
    noisy = add_noise(np.frombuffer(maker.say("attack the red commando", OTHER_VOICES[1]), dtype=np.int16),
                      "white", 10.0, None, seed=5)
    said = ["Attack the red commando."]
    assert through.hypotheses(noisy.tobytes(), prompt, 2) == plain.hypotheses(
        suppress_noise(noisy, 4).tobytes(), prompt, 2)
    assert through.score(said) == plain.score(said)  # the very same encoding
    plain.hypotheses(noisy.tobytes(), prompt, 2)
    assert through.score(said) != plain.score(said)  # not the noisy audio's
    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *rest: None if name == "webrtc_noise_gain" else found(name, *rest))
    with pytest.raises(ModelError, match="webrtc-noise-gain"):
        WhisperTranscriber.load(folder, WhisperSettings(check_sha256=False, noise_suppression=4))


def test_whisper_hears_the_player_not_the_room_around_the_words(maker: ClipMaker) -> None:
    """hearing.whisper.trim: eight seconds of a quiet room since the last utterance, then someone
    across the table 12 dB under the player, the command, and that person again. The grammar
    search encodes only the part within 12 dB of the loudest (under 3 s instead of 14), the free
    text that and half a second more each side (without the trim it writes the other person's
    sentence); and the hybrid, as shipped, takes the command."""
    import numpy as np

    from tests.support.spoken import speech_power

    folder = find_model("faster-whisper-tiny.en", Path("/nonexistent"))
    command = maker.say("attack the red commando", OTHER_VOICES[1])
    talk = maker.say("I think the pizza is getting cold over there", OTHER_VOICES[0], pad_s=0.1).astype(float)
    talk *= np.sqrt(speech_power(command) / speech_power(talk.astype(np.int16)) / 10 ** 1.2)
    audio = np.concatenate([np.zeros(8 * 16000), talk, command, talk[:len(talk) // 2]]).astype(np.int16)
    whole = WhisperTranscriber.load(folder, WhisperSettings(check_sha256=False, trim=0.0))
    assert whole.listen(audio.tobytes(), short=True)
    assert whole._frames * 160 > 14 * 16000
    trimmed = WhisperTranscriber.load(folder, WhisperSettings(check_sha256=False))
    assert trimmed.trim == 12.0
    assert trimmed.listen(audio.tobytes(), short=True)
    assert trimmed._frames * 160 < 3 * 16000
    prompt = "explore room one zero two, pass, teleport, attack."
    assert "pizza" in whole.transcribe(audio.tobytes(), prompt).lower()
    assert whole._frames * 160 > 14 * 16000  # the free text without the trim: all of it
    assert "pizza" not in trimmed.transcribe(audio.tobytes(), prompt).lower()
    assert 1 * 16000 < trimmed._frames * 160 < 4 * 16000  # the free text: the loud part, 0.5 s more each side
    ear = open_ear(HearingSettings(recognizer="hybrid"), OMEGA, MOVE, engine="hybrid", fallback=False)
    heard = ear.hear(audio)
    assert isinstance(heard, Transcript) and heard.command == Command("attack", {"target": "red", "unit": "commando"})


# --------------------------------------------------------------------------- hearing


@pytest.fixture(scope="module")
def whisper_ear():  # type: ignore[no-untyped-def]
    return open_ear(HearingSettings(recognizer="whisper"), OMEGA, MOVE, engine="whisper", fallback=False)


COMMANDS = [
    ("explore room one two zero", Command("explore", {"d1": "1", "d2": "2", "d3": "0"})),
    ("teleport", Command("teleport", {})),
    ("attack the blue probe", Command("attack", {"target": "blue", "unit": "probe"})),
    ("how much time is left", Command("time_left", {})),
    ("pass", Command("pass", {})),
]


def hear_commands(ear: Ear, maker: ClipMaker) -> tuple[int, list[tuple[str, str, object, Command | None]]]:
    """How many of COMMANDS said by OTHER_VOICES ``ear`` takes right, and the others: (voice,
    text, what was heard, the command taken or None)."""
    right, wrong = 0, []
    for voice in OTHER_VOICES:
        for text, command in COMMANDS:
            heard = ear.hear(maker.say(text, voice))
            got = heard.command if isinstance(heard, Transcript) else None
            if got == command:
                right += 1
            else:
                wrong.append((voice.label, text, heard, got))
    return right, wrong


def test_whisper_hears_commands_in_voices_nobody_tuned_on(whisper_ear, maker: ClipMaker) -> None:  # type: ignore[no-untyped-def]
    right, wrong = hear_commands(whisper_ear, maker)
    # Whisper alone, on the 10 held-out voices (80 clips: these 5 commands and 3 more of the
    # move moment): 79% right, 3.8% wrong commands taken ("pass" written "Pause." twice, "attack
    # the blue probe" without its unit), from
    # bench/results/bench_test_rates.md (`.venv/bin/python bench/bench_test_rates.py`).
    # On these 3 voices: 9 to 10 of 15 on two machines. Held to: at least half right (8 of 15:
    # 29 points below the measured rate), at most 2 wrong commands taken (13%, over three times
    # the measured rate). Both only get easier with a better model.
    assert right >= 0.5 * len(OTHER_VOICES) * len(COMMANDS), wrong
    assert sum(got is not None for *_, got in wrong) <= 2, wrong


@pytest.mark.parametrize("line", ["I would love another slice of pizza", "can you pass me the chips",
                                  "who took my red card", "shall we order some food"])
def test_whisper_takes_no_table_talk(whisper_ear, maker: ClipMaker, line: str) -> None:  # type: ignore[no-untyped-def]
    for voice in OTHER_VOICES[:2]:
        heard = whisper_ear.hear(maker.say(line, voice))
        assert isinstance(heard, NotRecognized), heard


def test_the_hybrid_listener_lets_whisper_decide_what_the_first_pass_missed(
        maker: ClipMaker, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hybrid takes at least 80% of these 15 commands, never fewer than its first pass
    alone, and at most two wrong. Measured on the 10 held-out voices (80 clips, from
    bench/results/bench_test_rates.md (`.venv/bin/python bench/bench_test_rates.py`)):
    the hybrid 91% right (the bound leaves 11 points), 2.5% wrong ("pass" written "Pause.",
    a probe's colour; the bound, 2 of 15, is five times that), its first pass alone 62%. On
    these 3 voices: 14 of 15, the first pass 8, one wrong. That Whisper decides what the first
    pass missed is built, not hoped for: with a first pass made to take nothing from any clip,
    the hybrid still takes at least half of those of two voices (Whisper alone: 79% on the
    held-out voices)."""
    settings = HearingSettings(recognizer="hybrid")
    hybrid = open_ear(settings, OMEGA, MOVE, engine="hybrid", fallback=False)
    alone = open_ear(settings, OMEGA, MOVE, engine="pocketsphinx", fallback=False)
    assert hybrid.second is not None and alone.second is None
    clips = [(maker.say(text, voice), voice.label, text, command) for voice in OTHER_VOICES
             for text, command in COMMANDS]
    results = [(label, text, alone.hear(clip), hybrid.hear(clip)) for clip, label, text, _ in clips]

    def right(final: object, text: str) -> bool:
        return isinstance(final, Transcript) and final.command == dict(COMMANDS)[text]

    by_hybrid = sum(right(both, text) for _, text, _, both in results)
    by_first = sum(right(first, text) for _, text, first, _ in results)
    wrong = [r for r in results if isinstance(r[3], Transcript) and r[3].command is not None and not right(r[3], r[1])]
    assert 5 * by_hybrid >= 4 * len(clips), results  # 80%, in whole numbers (0.8 * 15 > 12)
    assert by_hybrid >= by_first, results
    assert len(wrong) <= 2, wrong

    real_judge = hybrid.judge

    def took_nothing(transcript: Transcript) -> NotRecognized:
        real_judge(transcript)
        return NotRecognized(transcript.text, "the first pass took nothing (made so by the test)",
                             transcript.confidence)

    monkeypatch.setattr(hybrid, "judge", took_nothing)
    some = clips[:2 * len(COMMANDS)]  # two of the voices: Whisper's decodes are the slow part
    decided = [(label, text, hybrid.hear(clip)) for clip, label, text, _ in some]
    assert sum(right(final, text) for _, text, final in decided) >= 0.5 * len(some), decided
    # each utterance decided, what Whisper read of it is let go (its encoding kept), before the
    # answer is said: the grammar search's and the free text's readings hold about 10 MB
    whisper = hybrid.second.transcriber
    assert isinstance(whisper, WhisperTranscriber) and whisper._heard is not None
    assert whisper._reader is None and whisper._free is None


def test_setup_downloads_tiny_en_when_no_copy_is_installed(server: tuple[str, Path], tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """`assistant setup` with no packaged model: the official files (here served from the packaged
    copy by a local server) are fetched into models/, checked, and used from then on."""
    import argparse
    import io

    from assistant.config import Config
    from assistant.setup import setup_main

    source = packaged_model()
    assert source is not None
    url, root = server
    for name in WHISPER_FILES:
        (root / name).symlink_to(source / name)
    monkeypatch.setattr("assistant.hearing.whisper_engine.packaged_model", lambda: None)
    models = tmp_path / "models"
    config = Config.from_text(f"hearing:\n  models_dir: {models}\n  vosk_url: http://127.0.0.1:9/v.zip\n"
                              f"  whisper_url: {url}\n")
    out = io.StringIO()
    code = setup_main(argparse.Namespace(skip_voices=True), config, out)
    text = out.getvalue()
    assert code == 0, text  # only the Vosk model is missing, for want of network
    assert "Whisper: tiny.en is ready" in text, text
    assert find_model("faster-whisper-tiny.en", models) == models / "faster-whisper-tiny.en"
    again = io.StringIO()
    assert setup_main(argparse.Namespace(skip_voices=True), config, again) == 0
    assert "checksums verified" in again.getvalue() and "Whisper: downloading" not in again.getvalue()


def test_whisper_scores_a_text_it_would_not_end_with_as_impossible(maker: ClipMaker) -> None:
    folder = find_model("faster-whisper-tiny.en", Path("/nonexistent"))
    whisper = WhisperTranscriber.load(folder)
    clip = maker.say("keep going, you're nearly there", OTHER_VOICES[0])
    best = whisper.hypotheses(clip.tobytes(), "keep going, done, ready.", 1)[0]
    assert best.lower().startswith("keep going"), best
    whole, start, other = whisper.score([best, "Keep going.", "Roll the dice."])
    assert whole > -10.0 and start == float("-inf"), (best, whole, start)
    assert other < whole


@pytest.mark.parametrize("game, line", [("msx-cards", "that attack was unfair"),
                                        ("prologue", "keep going, you're nearly there")])
def test_the_last_try_takes_no_table_talk_said_clearly(maker: ClipMaker, game: str, line: str) -> None:
    # As push-to-talk has it (as_sentences on): Whisper writes the talk once more under the
    # sentence prompt, for real, and nothing is taken.
    ear = open_ear(HearingSettings(recognizer="hybrid", closed=False, as_sentences=True, budget_seconds=60.0),
                   game_module(game).sentences(), None, engine="hybrid", fallback=False)
    assert ear.second is not None
    transcriber = ear.second.transcriber
    asked: list[str] = []
    real_again = transcriber.again

    def again(prompt: str = "", count: int = 1) -> list[str]:
        asked.append(prompt)
        return real_again(prompt, count)

    transcriber.again = again  # type: ignore[method-assign]  # watched, not replaced
    for voice in OTHER_VOICES:
        heard = ear.hear(maker.say(line, voice))
        assert isinstance(heard, NotRecognized), (voice.label, heard)
    assert prompt_as_sentences(ear.sentences.help_for(ear.graph.intents)) in asked, asked  # the last try ran


def test_the_same_audio_is_encoded_once_until_it_is_forgotten(maker: ClipMaker) -> None:
    # what the stages share (the free text, the grammar search) is encoded once an utterance; a
    # benchmark timing the whole job (bench/bench_cost.py's reference job) forgets it each time
    whisper = WhisperTranscriber.load(find_model("faster-whisper-tiny.en", Path("/nonexistent")))
    encoded: list[object] = []
    model = whisper.model

    class Counting:
        def __getattr__(self, name: str) -> Any:
            return getattr(model, name)

        def encode(self, *args: Any, **kwargs: Any) -> Any:
            encoded.append(args)
            return model.encode(*args, **kwargs)

    whisper.model = Counting()
    audio = maker.say("pass", OTHER_VOICES[0]).tobytes()
    first = whisper.transcribe(audio)
    assert whisper.transcribe(audio) == first and len(encoded) == 1
    whisper.forget()
    assert whisper.transcribe(audio) == first and len(encoded) == 2


def test_a_command_is_written_over_a_short_window_and_an_entry_over_whispers_whole(maker: ClipMaker) -> None:
    """The free text of a command that is no button entry is encoded over FREE_TEXT_SECONDS (a
    third of the encoder's cost), an entry over Whisper's own 30 s (on a shorter window Whisper
    writes digits over and over); each window is encoded once, and the short one still hears."""
    whisper = WhisperTranscriber.load(find_model("faster-whisper-tiny.en", Path("/nonexistent")))
    audio = maker.say("pass", OTHER_VOICES[0]).tobytes()
    prompt = "Pass. Explore one zero zero. Attack."  # as the Ear prompts it with what may be said
    short = whisper.hypotheses(audio, prompt, 1, whole=False)
    positions = np.asarray(whisper._encoded).shape[1]
    assert positions == int(FREE_TEXT_SECONDS * 50)  # 20 ms an encoder position
    assert "pass" in short[0].lower()
    whole = whisper.hypotheses(audio, prompt, 1)
    assert np.asarray(whisper._encoded).shape[1] == int(MAX_SECONDS * 50)
    assert "pass" in whole[0].lower()
