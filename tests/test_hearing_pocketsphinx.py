"""Real audio through the real PocketSphinx recognizer: commands said by the Piper voice and by
espeak-ng voices reach the right command, table talk reaches none.

Clips are made on the spot (Piper's joe voice, espeak-ng) and cached for the test session.
The accuracy bars below are the measured behaviour of the default settings (see
bench/bench_accuracy.py for the full figures), so a regression fails here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from assistant.engine import Command
from assistant.games import game_module
from assistant.hearing import HearingSettings, open_ear
from assistant.hearing.audio import blocks
from assistant.hearing.events import Deferred, NotRecognized, Partial, Transcript
from assistant.hearing.grammar import WordGraph
from assistant.hearing.moments import find_moment
from assistant.hearing.pocketsphinx_engine import PocketSphinxRecognizer, common_words, gate, phone_distance
from assistant.hearing.recognizer import Ear
from assistant.live.loop import LiveLoop, LiveSettings
from assistant.live.microphone import Block, Microphone
from assistant.sentences import SentenceSet
from assistant.session import PrintAnnouncer, Session
from assistant.voice.announcer import SpeakingSignal
from tests.support.first_pass import reading
from tests.support.spoken import SPEAKERS, ClipMaker, add_noise

pytestmark = pytest.mark.model

OMEGA = game_module("omega-virus").sentences()
PIPER, PIPER_FAST, PIPER_SLOW, ESPEAK_US, ESPEAK_F, ESPEAK_GB = SPEAKERS

COMMANDS = [
    "explore one zero zero",
    "explore room two oh one",
    "attack the red commando",
    "attack yellow probe",
    "shields zero and two",
    "terminate r",
    "enter skill level one",
    "code two one",
    "pass",
    "teleport",
    "repeat that",
    "how much time is left",
    "what do i have",
    "what can i say",
]
CHATTER = [
    "could somebody pass the crisps",
    "my brother always wins this game",
    "I think it was three or four turns ago",
    "put the kettle on, would you",
    "the green one is mine, not yours",
    "we should play this more often",
]


@pytest.fixture(scope="module")
def maker(tmp_path_factory: pytest.TempPathFactory) -> ClipMaker:
    return ClipMaker(tmp_path_factory.getbasetemp() / "hearing-clips")


@pytest.fixture(scope="module")
def ear() -> Ear:
    return open_ear(HearingSettings(recognizer="pocketsphinx"), OMEGA)


def moving_session() -> Session:
    """A game waiting for a player's move (two players signed on)."""
    session = Session.new("omega-virus", 1, {}, PrintAnnouncer(lambda line: None), None)
    session.start()
    for said in ("skill zero", "press 1 2", "press 0 1", "skip", "skip"):
        session.press(said.split()[1:]) if said.startswith("press") else session.hear(said)
    return session


def move_intents() -> frozenset[str]:
    """What the assistant listens for while a player moves."""
    return moving_session().allowed_intents()


@pytest.fixture(scope="module")
def move_ear() -> Ear:
    """Table talk happens while the game waits for a move: heard with that moment's grammar."""
    return open_ear(HearingSettings(recognizer="pocketsphinx"), OMEGA, move_intents())


def heard(ear: Ear, clip: np.ndarray) -> Command | None:
    result = ear.hear(clip)
    return result.command if isinstance(result, Transcript) else None


@pytest.mark.parametrize("text", COMMANDS)
def test_piper_commands(ear: Ear, maker: ClipMaker, text: str) -> None:
    assert heard(ear, maker.say(text, PIPER)) == OMEGA.match(text)


def test_other_voices(ear: Ear, maker: ClipMaker) -> None:
    """Measured with the default settings and every sentence of the game listened for: 56 of 70
    right, 6 taken as another command (the slow, low Piper voice gets the digits of both explores
    wrong; "terminate r" three times as other buttons; "shields zero and two" with one two too
    many); the other misses are heard as chatter or doubted, i.e. no command. PocketSphinx's
    bundled model is weakest on the espeak voices. Held to: at least 53 (76%, 4 points below),
    at most 7 wrong (10%).

    These five voices are tuning voices (its thresholds were chosen on them): this test holds
    that tuning, it is no rate for other voices. On the 10 held-out voices, the same 14 commands
    (140 clips): 62% right and 20% taken as another command, mostly button presses (from
    bench/results/bench_test_rates.md (`.venv/bin/python bench/bench_test_rates.py`));
    the hybrid listener is what plays."""
    right = wrong = 0
    for speaker in (PIPER_FAST, PIPER_SLOW, ESPEAK_US, ESPEAK_F, ESPEAK_GB):
        for text in COMMANDS:
            got = heard(ear, maker.say(text, speaker))
            right += got == OMEGA.match(text)
            wrong += got is not None and got != OMEGA.match(text)
    assert right >= 53
    assert wrong <= 7


def test_move_moment_listens_for_moves_not_bare_buttons() -> None:
    assert {"explore", "pass", "teleport", "attack", "help"} <= move_intents()
    assert "buttons" not in move_intents() and "skill" not in move_intents()


def test_chatter_gives_no_command(move_ear: Ear, maker: ClipMaker) -> None:
    """Measured: one of these 18 chatter clips is taken as a command while a move is awaited
    ("put the kettle on, would you" by Piper as "attack yellow probe"; one more is allowed for
    small differences in Piper's output between machines: 2 of 18 is 11%). On the 10 held-out
    voices: 1 of 60 (1.7%), the same line by the low Piper voice, from
    bench/results/bench_test_rates.md (`.venv/bin/python bench/bench_test_rates.py`)."""
    taken = [(speaker.label, text, got) for speaker in (PIPER, ESPEAK_US, ESPEAK_F) for text in CHATTER
             if (got := heard(move_ear, maker.say(text, speaker))) is not None]
    assert len(taken) <= 2, taken


def test_chatter_full_of_numbers_and_game_words_gives_no_command(move_ear: Ear, maker: ClipMaker) -> None:
    """Measured: none gives a command while a move is awaited (with bare buttons listened for,
    as when a secret code is asked, "who wants another drink" was heard as "one two and oh and
    are"); one is allowed for differences between machines."""
    lines = ("I rolled a five and a six", "where is the red card", "who wants another drink")
    taken = [text for text in lines if heard(move_ear, maker.say(text, PIPER)) is not None]
    assert len(taken) <= 1, taken


def test_white_noise_at_20_db(ear: Ear, maker: ClipMaker) -> None:
    right = sum(heard(ear, add_noise(maker.say(text, PIPER), "white", 20.0, seed=i)) == OMEGA.match(text)
                for i, text in enumerate(COMMANDS))
    assert right >= len(COMMANDS) - 2  # measured: 14 of 14


def test_stream_with_two_commands_gives_two_finals_and_partials(maker: ClipMaker) -> None:
    ear = open_ear(HearingSettings(recognizer="pocketsphinx"), OMEGA)
    pause = np.zeros(16000, dtype=np.int16)
    stream = np.concatenate([maker.say("explore one zero two", PIPER), pause, maker.say("pass", PIPER), pause])
    events = [e for b in blocks(stream, 0.1) if (e := ear.feed(b)) is not None]
    finals = [e for e in events if isinstance(e, Transcript | NotRecognized)]
    assert [f.command for f in finals if isinstance(f, Transcript)] == [
        Command("explore", {"d1": "1", "d2": "0", "d3": "2"}), Command("pass")]
    assert len(finals) == 2
    partials = [e for e in events if isinstance(e, Partial)]
    assert partials, "the live pass gave no partial results"
    # the first words of the command come as it is said; nothing before it looks like a whole command
    first = [p for p in partials if p.text.startswith("explore")]
    assert first and not any(p.complete for p in partials[:partials.index(first[0])]), partials


def test_a_reading_put_off_is_the_same_reading(maker: ClipMaker) -> None:
    """With ``defer_reading`` (the hybrid's: ``open_ear`` sets it) the end of an utterance gives a
    ``Deferred`` transcript at once; settled, it is what the recognizer would have given, doubt
    and all: a command in noise, and table talk the phone check doubts."""
    eager, later = (open_ear(HearingSettings(recognizer="pocketsphinx"), OMEGA, move_intents()) for _ in range(2))
    assert isinstance(eager.recognizer, PocketSphinxRecognizer) and isinstance(later.recognizer, PocketSphinxRecognizer)
    later.recognizer.defer_reading = True
    clips = [add_noise(maker.say("explore one zero two", PIPER), "white", 20.0, seed=3),
             maker.say(SHALL_WE, PIPER)]
    for clip in clips:
        now = reading(eager.recognizer, clip)
        put_off = reading(later.recognizer, clip)
        assert isinstance(put_off, Deferred) and not isinstance(now, Deferred)
        assert put_off.settle() == now, (put_off, now)
    # through the Ear, with no second opinion, it is read at once
    assert heard(later, clips[0]) == heard(eager, clips[0]) == Command("explore", {"d1": "1", "d2": "0", "d3": "2"})


def test_the_end_of_speech_reads_with_the_moment_s_grammar_as_its_smallest_automaton(
        maker: ClipMaker, monkeypatch: pytest.MonkeyPatch) -> None:
    """The one-piece decode at the end of speech searches ``WordGraph.minimal`` of the moment's
    grammar, the live pass the graph itself, which is active again after.
    A reading put off keeps the grammar of its moment though the next moment's is set before it
    is read; and the smallest automaton hears what the graph hears (a recognizer made to read on
    the live pass's graph instead): a command in noise and table talk the phone check doubts."""
    graph_read, minimal = (PocketSphinxRecognizer() for _ in range(2))
    moves = open_ear(HearingSettings(recognizer="pocketsphinx"), OMEGA, move_intents()).graph
    with monkeypatch.context() as patch:
        patch.setattr(WordGraph, "minimal", WordGraph.shared_ends)
        graph_read.set_grammar(moves)
    minimal.set_grammar(moves)
    assert minimal.decoder.current_search() == graph_read.decoder.current_search() == "g0"
    clips = [add_noise(maker.say("explore one zero two", PIPER), "white", 20.0, seed=3),
             maker.say("attack the red commando", ESPEAK_US), maker.say(SHALL_WE, PIPER)]
    for clip in clips:
        want = reading(graph_read, clip)
        assert reading(minimal, clip) == want
        assert minimal.decoder.current_search() == "g0"  # the live pass's search, active again
    minimal.defer_reading = True
    put_off = reading(minimal, clips[0])
    assert isinstance(put_off, Deferred)
    minimal.set_grammar(open_ear(HearingSettings(recognizer="pocketsphinx"), OMEGA, ["skill", "repeat"]).graph)
    settled = put_off.settle()
    assert OMEGA.match(settled.text) == Command("explore", {"d1": "1", "d2": "0", "d3": "2"}), settled
    assert minimal.decoder.current_search() == "g1"


def partial_words(recognizer: PocketSphinxRecognizer, clip: np.ndarray) -> list[str]:
    """The live pass's words so far, block by block, over ``clip`` and a second of silence."""
    recognizer.reset()
    said = []
    for block in blocks(np.concatenate([clip, np.zeros(16000, dtype=np.int16)]), 0.1):
        event = recognizer.accept(block)
        if isinstance(event, Partial):
            said.append(event.text)
    return said


def test_the_live_pass_on_the_shared_ends_says_what_the_graph_says_half_way(
        maker: ClipMaker, monkeypatch: pytest.MonkeyPatch) -> None:
    """The live pass searches the graph with its shared ends made one (``WordGraph.shared_ends``):
    the same words half-way as on the graph itself (a recognizer made to search that instead),
    block by block (the early answers rest on them), for a move, a card game stat line in the
    moment of 11,313 transitions, and table talk."""
    cards = game_module("msx-cards").sentences()
    cases = [(OMEGA, move_intents(), [maker.say("explore one zero zero", PIPER),
                                      add_noise(maker.say("attack the red commando", ESPEAK_GB), "white", 20.0, seed=2),
                                      maker.say(SHALL_WE, ESPEAK_F)]),
             (cards, find_moment("msx-cards", "fighter").intents,
              [maker.say("set enemy attack to twenty one", ESPEAK_US)])]
    for sentences, intents, clips in cases:
        graph = open_ear(HearingSettings(recognizer="pocketsphinx"), sentences, intents).graph
        plain, shared = (PocketSphinxRecognizer() for _ in range(2))
        with monkeypatch.context() as patch:
            patch.setattr(WordGraph, "shared_ends", lambda g: (g.start, g.final, list(g.transitions())))
            plain.set_grammar(graph)
        shared.set_grammar(graph)
        for clip in clips:
            said = partial_words(plain, clip)
            assert said, "no partial words"
            assert partial_words(shared, clip) == said


def test_grammar_limits_what_can_be_heard(maker: ClipMaker) -> None:
    ear = open_ear(HearingSettings(recognizer="pocketsphinx"), OMEGA, ["skill", "repeat"])
    got = ear.hear(maker.say("explore one zero zero", PIPER))
    assert not (isinstance(got, Transcript) and got.command is not None and got.command.intent == "explore")
    ear.set_intents(["explore", "pass"])
    assert heard(ear, maker.say("explore one zero zero", PIPER)) == Command("explore", {"d1": "1", "d2": "0",
                                                                                          "d3": "0"})


def test_words_missing_from_the_dictionary_are_reported(maker: ClipMaker) -> None:
    sentences = SentenceSet({"intents": {"zap": ["zorblaxian ray"], "pass": ["pass"]}})
    warnings: list[str] = []
    ear = open_ear(HearingSettings(recognizer="pocketsphinx"), sentences, warn=warnings.append)
    assert ear.unknown_words() == ["zorblaxian"]
    assert warnings == ["The pocketsphinx model does not know these command words, so sentences with them "
                        "cannot be heard: zorblaxian."]
    assert heard(ear, maker.say("pass", PIPER)) == Command("pass")


def test_file_starting_straight_with_speech(ear: Ear, maker: ClipMaker) -> None:
    assert heard(ear, maker.say("attack the blue probe", PIPER, pad_s=0.0)) == Command(
        "attack", {"target": "blue", "unit": "probe"})


def test_chatter_words_are_no_command_words() -> None:
    words = common_words()
    assert len(words) == 300 and words[:3] == ["the", "to", "i"]
    recognizer = PocketSphinxRecognizer()
    Ear(recognizer, OMEGA)
    chosen = recognizer.chatter_words
    assert {"you", "hundred", "dice", "rolled"} <= chosen  # common words and table talk
    assert not chosen & OMEGA.vocabulary()
    assert not chosen & {"too", "won", "know", "read", "our", "hour", "oh", "are"}  # sound like commands


def test_the_words_of_commands_refused_now_are_chatter() -> None:
    # while a move is awaited, "resume" and "shields" can only be said by commands the rules
    # refuse now: they are in the chatter loop, so the first pass can take nothing rather than
    # force them onto an allowed command; words that sound like an allowed one's stay out
    recognizer = PocketSphinxRecognizer()
    Ear(recognizer, OMEGA, move_intents())
    chosen = recognizer.chatter_words
    assert {"resume", "shields", "quieter", "terminate"} <= chosen
    assert not chosen & WordGraph(OMEGA, move_intents()).vocabulary()
    # with every command allowed, nothing is refused: only common words and table talk
    everything = PocketSphinxRecognizer()
    Ear(everything, OMEGA)
    assert not everything.chatter_words & OMEGA.vocabulary()


def test_a_command_refused_now_is_not_forced_onto_an_allowed_one(move_ear: Ear, maker: ClipMaker) -> None:
    """Measured: "resume the game" said by Piper while a move is awaited was taken as "repeat"
    before the refused commands' words were chatter; now the first pass takes nothing (Whisper's
    stages name it in the hybrid)."""
    assert heard(move_ear, maker.say("resume the game", PIPER)) is None


def test_gate_quiets_only_what_is_far_below_the_loudest() -> None:
    rng = np.random.default_rng(0)
    quiet = rng.normal(0, 30, 16000)
    loud = rng.normal(0, 3000, 8000)
    audio = np.concatenate([quiet, loud, quiet]).astype(np.int16)
    out = np.frombuffer(gate(audio.tobytes(), 20.0, 5.0), dtype=np.int16).astype(np.float64)
    assert np.std(out[:14000]) == pytest.approx(5.0, rel=0.2)
    assert np.array_equal(out[16500:23500], audio[16500:23500])


def test_a_clip_made_once_is_taken_from_the_cache_after(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The test clips' cache (tests/support/spoken.py): a second maker on the same folder gives
    the very same clip without making it again."""
    clip = ClipMaker(tmp_path).say("pass", PIPER)
    kept = sorted(tmp_path.glob("*.npy"))
    assert len(kept) == 1
    again = ClipMaker(tmp_path)

    def make_again(*args: object) -> None:
        raise AssertionError("made again, not taken from the cache")

    monkeypatch.setattr(again, "_piper_say", make_again)
    assert np.array_equal(again.say("pass", PIPER), clip)
    assert sorted(tmp_path.glob("*.npy")) == kept


def test_phone_distance_counts_edits_per_phone_of_the_command() -> None:
    teleport = "T EH L AH P AO R T".split()
    assert phone_distance(teleport, teleport) == 0.0
    assert phone_distance("T EH L AH B AO R T".split(), teleport) == 1 / 8  # one changed
    assert phone_distance("T EH L P AO R T".split(), teleport) == 1 / 8  # one left out
    assert phone_distance("AH T EH L AH P AO R T".split(), teleport) == 1 / 8  # one added
    assert phone_distance([], teleport) == 1.0
    heard = "JH OW W UW AO R SH AH M TH UW D".split()  # "shall we order some food", as decoded
    assert phone_distance(heard, teleport) > 1.3
    assert phone_distance(teleport, []) == float("inf")


SHALL_WE = "shall we order some food"  # heard as "teleport" by the grammar decode once (measured)


def test_phone_check_doubts_table_talk_taken_for_a_short_command(move_ear: Ear, maker: ClipMaker) -> None:
    """Table talk taken for "teleport" (as the grammar decode once heard this line while a move
    was awaited): the mishearing is given to the check, whatever this model now hears; the
    phones in the audio are too far from teleport's, so it is doubted, with the reason, and the
    command said is not. Through the ear, the line gives no command, whatever it is heard as."""
    recognizer = move_ear.recognizer
    assert isinstance(recognizer, PocketSphinxRecognizer)
    teleport = (recognizer.pronunciation("teleport") or "").split()
    limit = recognizer.tuning.phone_check
    talk = maker.say(SHALL_WE, PIPER)
    doubt = recognizer._doubt(talk.tobytes(), "teleport", teleport, limit)
    assert "did not sound like 'teleport'" in doubt
    assert recognizer._doubt(maker.say("teleport", PIPER).tobytes(), "teleport", teleport, limit) == ""
    assert heard(move_ear, talk) is None


def test_phone_check_passes_commands_said(move_ear: Ear, maker: ClipMaker) -> None:
    recognizer = move_ear.recognizer
    assert isinstance(recognizer, PocketSphinxRecognizer)
    phones = recognizer.heard_phones(maker.say("teleport", PIPER).tobytes())  # a raw clip: rough phones
    assert phone_distance(phones, "T EH L AH P AO R T".split()) < recognizer.tuning.phone_check, phones
    for text in ("teleport", "explore one zero zero", "attack the red commando", "pass"):
        assert heard(move_ear, maker.say(text, PIPER)) == OMEGA.match(text), text


def live_loop_hearing(clip: np.ndarray, settings: HearingSettings) -> tuple[list[tuple[Command, bool]], list[str]]:
    """A clip through the live loop block by block (real PocketSphinx), answering early allowed:
    the actions taken (command, early) and what the loop logged."""
    session = moving_session()
    ear = open_ear(settings, OMEGA, session.allowed_intents())
    actions: list[tuple[Command, bool]] = []
    logged: list[str] = []
    loop = LiveLoop(session, ear, Microphone(""), SpeakingSignal(ended_at=-100.0), None,
                    LiveSettings(answer_early=True), log=logged.append,
                    on_action=lambda command, early: actions.append((command, early)))
    audio = np.concatenate([clip, np.zeros(16000, dtype=np.int16)])
    for n, block in enumerate(blocks(audio, 0.1)):
        loop._handle_block(Block(block, 1.0 + 0.1 * n))
    return actions, logged


def test_live_loop_answers_a_command_early(maker: ClipMaker) -> None:
    clip = maker.say("explore one zero zero", PIPER)
    actions, _ = live_loop_hearing(clip, HearingSettings(recognizer="pocketsphinx"))
    assert actions == [(Command("explore", {"d1": "1", "d2": "0", "d3": "0"}), True)]


def test_live_loop_does_not_act_early_on_a_command_heard_on_the_way_to_another(maker: ClipMaker) -> None:
    """Half-way through "teleport" the partial words were once "help", a whole command, steady
    for two blocks (measured): that mishearing is given to the early check here, with the audio
    of the first half; it is doubted, so nothing is acted on early. Through the live loop,
    "teleport" is acted on, and nothing else."""
    clip = maker.say("teleport", PIPER)
    ear = open_ear(HearingSettings(recognizer="pocketsphinx"), OMEGA, move_intents())
    recognizer = ear.recognizer
    assert isinstance(recognizer, PocketSphinxRecognizer)
    speech = np.nonzero(np.abs(clip) > 500)[0]
    half = clip[: (speech[0] + speech[-1]) // 2]
    help_phones = (recognizer.pronunciation("help") or "").split()
    assert "did not sound like 'help'" in recognizer._doubt(half.tobytes(), "help", help_phones,
                                                            recognizer.tuning.early_phone_check)
    actions, _ = live_loop_hearing(clip, HearingSettings(recognizer="pocketsphinx"))
    assert [command for command, _ in actions] == [Command("teleport")]


def test_live_loop_does_not_act_on_doubted_table_talk(maker: ClipMaker) -> None:
    """Neither early (on a steady partial) nor at the end of the utterance: whatever the line is
    heard as (it was once "teleport"; the check of that is above), nothing is acted on."""
    clip = maker.say(SHALL_WE, PIPER)
    actions, _ = live_loop_hearing(clip, HearingSettings(recognizer="pocketsphinx"))
    assert actions == []
