"""The Command Center's rules, one by one (rulebook sections named in each test)."""

from __future__ import annotations

import random

import pytest

from assistant.engine import NotAllowed, Say, Sound
from assistant.games.omega_virus.board import Board
from assistant.games.omega_virus.engine import AVDS, CARDS, SUPPLY, CommandCenter, Phase, Settings
from tests.ov_helpers import CODES, SEATS, explore, give, lines, press, say, signed_on, to_turn

# ---------------------------------------------------------------- sign-on and the time chart

TIME_CHART = [  # skill, players, minutes (Skill Level Time Chart)
    (0, 1, 20), (0, 2, 25), (0, 3, 30), (0, 4, 35),
    (1, 1, 15), (1, 2, 15), (1, 3, 20), (1, 4, 25),
    (2, 1, 10), (2, 2, 10), (2, 3, 15), (2, 4, 15),
]


@pytest.mark.parametrize("skill,n,minutes", TIME_CHART)
def test_time_chart_every_cell(skill: int, n: int, minutes: int) -> None:
    cc, out = signed_on(players=SEATS[:n], skill=skill)
    assert f"VIRUS: {minutes} minutes until I take over!" in out
    assert cc.limit_ms == minutes * 60_000
    assert len(cc.playing()) == n


def test_signon_asks_each_color_in_seat_order() -> None:
    cc = CommandCenter(random.Random(5))
    assert lines(cc.start()) == ["BSAT1: Enter skill."]
    asked = lines(press(cc, "0"))
    assert asked == ["BSAT1: Red, enter secret code."]
    assert lines(press(cc, "12")) == ["BSAT1: Blue, enter secret code."]
    assert lines(press(cc, "R")) == ["BSAT1: Green, enter secret code."]
    press(cc, "R")
    out = lines(press(cc, "R"))
    assert out[0] == "VIRUS: 20 minutes until I take over!"  # solo, skill 0
    assert cc.playing() == ["red"] and cc.players["red"].code == "12"
    assert out[1].startswith("BSAT1: Red, ")


def test_missed_code_is_asked_again_after_the_others_and_twice_is_out() -> None:
    cc = CommandCenter(random.Random(5), Settings(secret_code_seconds=10))
    cc.start()
    press(cc, "0")                       # skill 0; Red is asked
    assert lines(cc.advance(10)) == ["BSAT1: Blue, enter secret code."]  # Red missed
    press(cc, "01")                      # Blue signs on
    press(cc, "R")                       # Green not playing
    assert lines(press(cc, "R")) == ["BSAT1: Red, enter secret code."]  # Yellow out; Red again
    out = lines(cc.advance(10))          # Red misses a second time: out of the game
    assert out[0] == "VIRUS: 20 minutes until I take over!"
    assert cc.playing() == ["blue"]


def test_code_entered_late_on_the_second_ask_counts() -> None:
    cc = CommandCenter(random.Random(5))
    cc.start()
    press(cc, "1")
    cc.advance(10)
    press(cc, "R")
    press(cc, "R")
    press(cc, "R")
    press(cc, "21")                      # Red, asked again
    assert cc.playing() == ["red"] and cc.players["red"].code == "21"


def test_no_one_signed_on_asks_for_skill_again() -> None:
    cc = CommandCenter(random.Random(5))
    cc.start()
    press(cc, "0")
    out = lines(press(cc, "RRRR"))
    assert out[-1] == "BSAT1: No one signed on. Enter skill."
    assert cc.phase is Phase.SKILL


def test_countdown_does_not_run_before_the_mission_starts() -> None:
    cc = CommandCenter(random.Random(5))
    cc.start()
    cc.advance(600)
    press(cc, "0")
    assert cc.used_ms == 0


def test_first_player_is_random_then_clockwise() -> None:
    firsts = set()
    for seed in range(40):
        cc, _ = signed_on(seed, players=SEATS)
        assert cc.mover is not None
        firsts.add(cc.mover[0])
    assert firsts == set(SEATS)
    cc, _ = signed_on(3, players=("red", "green", "yellow"))
    order = []
    for _ in range(6):
        assert cc.mover is not None
        order.append(cc.mover[0])
        press(cc, "0")
    i = ["red", "green", "yellow"].index(order[0])
    expected = [["red", "green", "yellow"][(i + k) % 3] for k in range(6)]
    assert order == expected


def test_turn_prompts_are_the_rulebooks() -> None:
    prompts = set()
    for seed in range(30):
        cc, out = signed_on(seed, players=("red",))
        for _ in range(5):
            prompts.update(line for line in lines(press(cc, "0")) if line.startswith("BSAT1: Red, "))
    assert prompts <= {"BSAT1: Red, help me!", "BSAT1: Red, do something!", "BSAT1: Red, hurry!",
                       "BSAT1: Red, we are running out of time!"}
    assert len(prompts) >= 3


# ---------------------------------------------------------------- exploring

def test_explore_prompts_which_room() -> None:
    cc, _ = signed_on(2, players=("red",))
    out = lines(press(cc, "2"))
    assert out[0] in ("BSAT1: Which room?", "BSAT1: Enter room code.")
    assert cc.phase is Phase.ROOM_CODE


@pytest.mark.parametrize("code", ["220", "221", "222"])
def test_invalid_room_code_buzzes_wrong_and_prompts_again(code: str) -> None:
    cc, _ = signed_on(2, players=("red", "blue"))
    mover = cc.mover
    out = press(cc, "2" + code)[1:]  # after "Which room?"
    assert out[0] == Sound("buzz")
    assert out[1] == Say("VIRUS", "Wrong!")
    assert out[2].line().startswith(f"BSAT1: {mover[0].title()}, ")  # type: ignore[index]
    assert cc.mover == mover and cc.phase is Phase.MOVE


def test_r_during_the_room_code_starts_it_again() -> None:
    cc, _ = signed_on(2, players=("red",))
    press(cc, "21")
    out = lines(press(cc, "R"))
    assert out == ["BSAT1: Which room?"]
    assert cc.phase is Phase.ROOM_CODE and cc.entry == []


def room_of(cc: CommandCenter, color: str, not_virus: bool = True) -> str:
    return next(r.code for r in cc.board.rooms if r.color == color
                and (not not_virus or r.code != cc.virus_room))


def test_access_denied_without_the_matching_card_ends_the_move() -> None:
    cc, _ = signed_on(2, players=("red", "blue"))
    mover = cc.mover
    out = lines(say(cc, "explore", **dict(zip(("d1", "d2", "d3"), room_of(cc, "red"), strict=True))))
    assert out[0] == "BSAT1: Access denied."
    assert not any(line.startswith("VIRUS: Code") for line in out)
    assert cc.mover != mover


def test_green_rooms_open_from_the_start_and_every_explore_ends_with_a_code() -> None:
    for seed in range(30):
        cc, _ = signed_on(seed, players=("red",), wanted_chance=0.0, hazard_chance=0.0)
        out = lines(explore(cc, room_of(cc, "green")))
        assert out[0] == "BSAT1: Nothing here!"
        assert out[1].startswith("VIRUS: Code ")


def test_the_code_is_the_explorers_own_exactly_in_the_virus_room() -> None:
    for seed in range(40):
        cc, _ = signed_on(seed, players=("red",), wanted_chance=0.0, hazard_chance=0.0)
        give(cc, "red", "red card", "blue card", "yellow card")
        heard = {}
        for room in cc.board.rooms:
            out = lines(explore(cc, room.code))
            if cc.phase is not Phase.MOVE:
                break
            heard[room.code] = next(line for line in out if line.startswith("VIRUS: Code"))
        mine = "VIRUS: Code 1 2."
        assert heard[cc.virus_room] == mine
        assert all(v != mine for k, v in heard.items() if k != cc.virus_room)
        assert cc.players["red"].knows_virus


def test_same_room_twice_in_a_row_finds_nothing() -> None:
    cc, _ = signed_on(4, players=("red",), wanted_chance=1.0, hazard_chance=0.0, persistence=1.0)
    room = room_of(cc, "green")
    first = lines(explore(cc, room))
    assert first[0].endswith("found!")
    second = lines(explore(cc, room))
    assert second[0] == "BSAT1: Nothing here!"
    assert second[1] == first[1]  # the same room gives the same code to the same player


def test_found_items_fit_the_room_color_and_what_the_explorer_lacks() -> None:
    allowed = {
        "green": {"Probe found!", "Red Access Card found!", "Blue Access Card found!",
                  "Yellow Access Card found!"},
        "blue": {"Disruptor found!", "Probe found!", "Red Access Card found!", "Yellow Access Card found!"},
        "red": {"Negatron found!", "Probe found!", "Blue Access Card found!", "Yellow Access Card found!"},
        "yellow": {"Decoder found!", "Probe found!", "Red Access Card found!", "Blue Access Card found!"},
    }
    for seed in range(60):
        cc, _ = signed_on(seed, players=("red",), wanted_chance=1.0, hazard_chance=0.0, persistence=1.0)
        give(cc, "red", "red card", "blue card", "yellow card")
        for color in allowed:
            room = room_of(cc, color)
            before = set(cc.players["red"].cards | cc.players["red"].avds) | (
                {"probe"} if cc.players["red"].probe else set())
            to_turn(cc, "red")
            out = lines(explore(cc, room))
            text = out[0].removeprefix("BSAT1: ")
            if text == "Nothing here!":
                continue
            assert text in allowed[color]
            item = text.removesuffix(" found!").lower().replace(" access card", " card")
            assert item not in before


def test_wanted_room_gives_nothing_when_the_explorer_needs_nothing_it_holds() -> None:
    cc, _ = signed_on(4, players=("red",), wanted_chance=1.0, hazard_chance=0.0, persistence=1.0)
    give(cc, "red", "red card", "blue card", "yellow card", "probe")
    out = lines(explore(cc, room_of(cc, "green")))
    assert out[0] == "BSAT1: Nothing here!"


def test_supply_is_finite() -> None:
    cc, _ = signed_on(4, players=("red", "blue"), wanted_chance=1.0, hazard_chance=0.0, persistence=1.0)
    cc.supply["decoder"] = 0
    give(cc, "red", "yellow card")
    to_turn(cc, "red")
    room = room_of(cc, "yellow")
    for _ in range(5):
        to_turn(cc, "red")
        out = lines(explore(cc, room))
        assert "BSAT1: Decoder found!" not in out
        cc.players["red"].last_room = None


def test_shut_down_sector_cannot_be_explored() -> None:
    cc, _ = signed_on(4, players=("red",))
    sector = next(s for s in cc.board.sectors if s != cc.board.room(cc.virus_room).sector)  # type: ignore
    cc.shut.append(sector)
    room = next(r.code for r in cc.board.rooms if r.sector == sector and r.color == "green")
    out = lines(explore(cc, room))
    assert out[0] == "BSAT1: Access denied."


def test_rooms_mostly_keep_their_nature() -> None:
    cc, _ = signed_on(8, players=("red",), persistence=0.75)
    kept = changed = 0
    for _ in range(400):
        room = room_of(cc, "green")
        before = cc.nature[("red", room)]
        cc.players["red"].last_room = None
        explore(cc, room)
        if cc.phase is Phase.SHIELDS:
            press(cc, "012")
        after = cc.nature[("red", room)]
        kept += before == after
        changed += before != after
    assert kept > 2 * changed > 0


# ---------------------------------------------------------------- hazards

def breach_game(seed: int, **kw: object) -> CommandCenter:
    cc, _ = signed_on(seed, players=("red",), wanted_chance=0.0, hazard_chance=1.0,
                      teleport_trap_share=0.0, **kw)
    return cc


def test_security_breach_asks_for_shields() -> None:
    cc = breach_game(3)
    room = room_of(cc, "green")
    out = lines(explore(cc, room))
    assert out[0] == f"BSAT1: Security breach! Security breach at {' '.join(room)}!"
    assert out[1] in {f"BSAT1: Red, energize {n} shield{'s' if n > 1 else ''}." for n in (1, 2, 3)}
    assert cc.phase is Phase.SHIELDS


def test_shields_on_the_hidden_button_block_the_virus() -> None:
    for seed in range(20):
        cc = breach_game(seed)
        explore(cc, room_of(cc, "green"))
        assert cc.defense is not None
        others = [b for b in "012R" if b != cc.defense.hidden]
        buttons = [cc.defense.hidden, *others][: cc.defense.n]
        out = lines(press(cc, "".join(buttons)))
        assert out[0] == "VIRUS: I missed!"
        assert out[1].startswith("VIRUS: Code ")


def test_missed_shields_lose_an_item_or_a_teleport_never_the_green_card() -> None:
    outcomes = set()
    for seed in range(80):
        cc = breach_game(seed)
        give(cc, "red", "yellow card", "decoder", "probe")
        explore(cc, room_of(cc, "green"))
        assert cc.defense is not None
        wrong = [b for b in "012R" if b != cc.defense.hidden][: cc.defense.n]
        out = lines(press(cc, "".join(wrong)))
        outcomes.add(out[0])
        assert "green card" in cc.players["red"].cards
    bays = {f"VIRUS: Red teleported to {c} Docking Bay." for c in ("Red", "Blue", "Green", "Yellow")}
    assert outcomes <= {"VIRUS: Red, Yellow Access Card destroyed!", "VIRUS: Red, Decoder destroyed!",
                        "VIRUS: Red Probe destroyed!", *bays}
    assert {"VIRUS: Red, Yellow Access Card destroyed!", "VIRUS: Red, Decoder destroyed!",
            "VIRUS: Red Probe destroyed!"} <= outcomes


def test_shields_time_out_counts_what_was_pressed() -> None:
    cc = breach_game(5, shields_seconds=8.0)
    explore(cc, room_of(cc, "green"))
    out = lines(cc.advance(8))
    assert out[0].startswith("VIRUS: ")
    assert cc.phase is Phase.MOVE or cc.is_over() is False


def test_spoken_shields_must_be_different_and_as_many_as_asked() -> None:
    cc = breach_game(3)
    explore(cc, room_of(cc, "green"))
    assert cc.defense is not None
    n = cc.defense.n
    with pytest.raises(NotAllowed, match="different"):
        say(cc, "shields", b1="0", b2="0")
    wrong_count = {"b1": "0", "b2": "1", "b3": "2", "b4": "R"}
    with pytest.raises(NotAllowed, match=f"Energize {n} shield"):
        say(cc, "shields", **wrong_count)
    assert cc.phase is Phase.SHIELDS and cc.defense.pressed == []
    out = say(cc, "shields", **dict(list(wrong_count.items())[:n]))
    assert cc.phase is Phase.MOVE and out


def test_shields_asked_again_say_more_only_once_one_is_on() -> None:
    """A command not taken while shields are asked: before any shield is on it is the first
    energizing ("energize 2 shields"), not "2 more"; after one, the rest are "more"."""
    for seed in range(40):
        cc = breach_game(seed)
        explore(cc, room_of(cc, "green"))
        assert cc.defense is not None
        if cc.defense.n >= 2:
            break
    n = cc.defense.n
    with pytest.raises(NotAllowed) as first:
        say(cc, "pass")
    assert str(first.value) == f"Red, energize {n} shields: say shields and different buttons."
    press(cc, "0")
    left = n - 1
    with pytest.raises(NotAllowed) as then:
        say(cc, "pass")
    more = "1 more shield" if left == 1 else f"{left} more shields"
    assert str(then.value) == f"Red, energize {more}: say shields and different buttons."


def test_a_probes_breach_asks_the_player_by_color_as_the_original_does() -> None:
    """The rulebook and the notes give one shield call for a breach, whoever explored: "Red (Blue,
    Green or Yellow) energize 1 (2 or 3) shields." (the Probe is the player's: its color is the
    player's). Left as the original says it."""
    cc = breach_game(3)
    give(cc, "red", "probe")
    press(cc, "0")
    assert cc.mover == ("red", "probe")
    room = room_of(cc, "green")
    out = lines(explore(cc, room))
    assert out[0] == f"BSAT1: Security breach! Security breach at {' '.join(room)}!"
    assert cc.defense is not None and cc.defense.unit == "probe"
    assert out[1] == f"BSAT1: Red, energize {cc.defense.n} shield{'s' if cc.defense.n > 1 else ''}."


def test_teleport_trap() -> None:
    cc, _ = signed_on(3, players=("red",), wanted_chance=0.0, hazard_chance=1.0, teleport_trap_share=1.0)
    out = lines(explore(cc, room_of(cc, "green")))
    bays = {f"BSAT1: Red teleported to {c} Docking Bay." for c in ("Red", "Blue", "Green", "Yellow")}
    assert out[0] in bays
    assert out[1].startswith("VIRUS: Code ")


# ---------------------------------------------------------------- probes

def test_found_probe_moves_after_the_commando_and_explores_for_the_player() -> None:
    cc, _ = signed_on(6, players=("red", "blue"), wanted_chance=1.0, hazard_chance=0.0, persistence=1.0)
    give(cc, "red", "red card", "blue card", "yellow card")
    to_turn(cc, "red")
    out: list[str] = []
    for room in (r.code for r in cc.board.rooms if r.color == "green"):
        out = lines(explore(cc, room))
        if "BSAT1: Probe found!" in out:
            break
        to_turn(cc, "red")
    assert "BSAT1: Probe found!" in out
    assert out[-1] in ("BSAT1: Red Probe, hurry!", "BSAT1: Red Probe, help me!")
    assert cc.mover == ("red", "probe")
    before = set(cc.players["red"].avds)
    cc.players["red"].last_room = None
    explore(cc, room_of(cc, "yellow"))
    assert cc.players["red"].avds - before <= {"decoder"}
    assert cc.mover is not None and cc.mover[0] == "blue"


def test_probe_cannot_battle_the_virus() -> None:
    cc, _ = signed_on(6, players=("red",))
    give(cc, "red", "red card", "blue card", "yellow card", *AVDS, "probe")
    press(cc, "0")
    assert cc.mover == ("red", "probe")
    explore(cc, cc.virus_room)
    assert cc.phase is not Phase.TERMINATE


# ---------------------------------------------------------------- attacks

def attack_game(seed: int = 4, **kw: object) -> CommandCenter:
    cc, _ = signed_on(seed, players=("red", "blue"), **kw)
    to_turn(cc, "blue")
    return cc


def test_attack_announcement_shot_and_shields() -> None:
    cc = attack_game()
    out = lines(press(cc, "100"))  # the rulebook: Blue attacking Red Commando enters 1.0.0
    assert out == ["VIRUS: Blue is attacking Red. Take your best shot!"]
    assert cc.phase is Phase.SHOT
    out = lines(press(cc, "R"))
    assert out[0] in {f"BSAT1: Red, energize {n} shield{'s' if n > 1 else ''}." for n in (1, 2, 3)}


def test_defender_pressing_the_attackers_button_makes_it_miss() -> None:
    cc = attack_game()
    press(cc, "100")
    press(cc, "R")
    assert cc.defense is not None
    buttons = ["R", *[b for b in "012"]][: cc.defense.n]
    out = lines(press(cc, "".join(buttons)))
    assert out == ["BSAT1: Blue missed!", *out[1:]]
    assert cc.mover is not None and cc.mover[0] == "red"


def test_successful_attacks_steal_destroy_or_teleport() -> None:
    seen = set()
    for seed in range(60):
        cc = attack_game(seed)
        give(cc, "red", "yellow card", "decoder")
        counts = {i: cc.item_count(i) for i in (*AVDS, *CARDS)}
        press(cc, "100")
        press(cc, "R")
        assert cc.defense is not None
        out = lines(press(cc, "012"[: cc.defense.n]))
        seen.add(out[0].split(":")[1].split()[1] if "steals" in out[0] else out[0])
        assert {i: cc.item_count(i) for i in (*AVDS, *CARDS)} == counts
        assert "green card" in cc.players["red"].cards
    assert "steals" in seen or any("steals" in s for s in seen) or len(seen) >= 3


def test_attacking_a_probe_can_destroy_it() -> None:
    destroyed = False
    for seed in range(40):
        cc = attack_game(seed)
        give(cc, "red", "probe")
        code = cc.board.command_code("red", "probe")
        out = lines(press(cc, "1" + code))
        assert out == ["VIRUS: Blue is attacking Red Probe. Take your best shot!"]
        press(cc, "R")
        assert cc.defense is not None
        out = lines(press(cc, "012"[: cc.defense.n]))
        destroyed |= out[0] == "BSAT1: Red Probe destroyed!"
    assert destroyed


@pytest.mark.parametrize("weakness,against_probe,probe_attacking", [(1, {1, 2}, {2, 3}), (0, {1, 2, 3}, {1, 2, 3})])
def test_a_probe_is_weaker_in_battle(weakness: int, against_probe: set[int], probe_attacking: set[int]) -> None:
    """Shields asked of the defender: fewer for a Probe attacked, more against a Probe's attack."""
    attacked: set[int] = set()
    attacking: set[int] = set()
    for seed in range(60):
        cc = attack_game(seed, probe_weakness=weakness)
        give(cc, "red", "probe")
        press(cc, "1" + cc.board.command_code("red", "probe") + "R")  # Blue's commando shoots R
        assert cc.defense is not None and cc.defense.unit == "probe"
        attacked.add(cc.defense.n)
        cc = attack_game(seed, probe_weakness=weakness)
        give(cc, "blue", "probe")
        press(cc, "0")  # Blue's commando passes: the probe's move
        assert cc.mover == ("blue", "probe")
        press(cc, "1" + cc.board.command_code("red", "commando") + "R")
        assert cc.defense is not None and cc.defense.attacker == ("blue", "probe")
        attacking.add(cc.defense.n)
    assert attacked == against_probe and attacking == probe_attacking


@pytest.mark.parametrize("target,unit,reason", [
    ("blue", "commando", "You cannot attack yourself."),
    ("green", "commando", "Green is not playing."),
    ("red", "probe", "Red has no probe."),
])
def test_attacks_not_allowed_say_why(target: str, unit: str, reason: str) -> None:
    cc = attack_game()
    with pytest.raises(NotAllowed, match=reason):
        say(cc, "attack", target=target, unit=unit)
    assert cc.phase is Phase.MOVE


def test_no_attacks_in_solo_play() -> None:
    cc, _ = signed_on(4, players=("red",))
    assert "attack" not in cc.allowed_intents()
    with pytest.raises(NotAllowed, match="solo"):
        say(cc, "attack", target="blue", unit="commando")
    out = lines(press(cc, "1"))
    assert out[:2] == ["SOUND: buzz", "VIRUS: Wrong!"]


def test_random_shot_when_no_keypad() -> None:
    cc = attack_game(attack_shot="random")
    out = lines(press(cc, "100"))
    assert out[0] == "VIRUS: Blue is attacking Red. Take your best shot!"
    assert out[1].startswith("BSAT1: Red, energize")
    shots = set()
    for seed in range(60):
        cc = attack_game(seed, attack_shot="random")
        press(cc, "100")
        assert cc.defense is not None
        shots.add(cc.defense.hidden)
    assert shots == {"0", "1", "2", "R"}


def test_slow_attacker_gets_a_fair_random_shot() -> None:
    cc = attack_game(shot_seconds=5.0)
    press(cc, "100")
    out = lines(cc.advance(5))
    assert out[0].startswith("BSAT1: Red, energize")


# ---------------------------------------------------------------- the Virus

def virus_game(seed: int) -> CommandCenter:
    cc, _ = signed_on(seed, players=("red",))
    give(cc, "red", "red card", "blue card", "yellow card", *AVDS)
    return cc


def test_found_me_then_the_right_termination_wins() -> None:
    cc = virus_game(9)
    out = lines(explore(cc, cc.virus_room))
    assert out == ["VIRUS: You found me! Try and stop me!"]
    out = lines(say(cc, "terminate", b1=cc.termination_button))
    assert out == ["VIRUS: You win! I am terminated!"]
    assert cc.is_over() and cc.winner == "red"


def test_wrong_termination_buzzes_and_the_turn_passes() -> None:
    cc = virus_game(9)
    explore(cc, cc.virus_room)
    wrong = next(b for b in "012R" if b != cc.termination_button)
    out = lines(press(cc, wrong))
    assert out[:2] == ["SOUND: buzz", "VIRUS: Wrong!"]
    assert not cc.is_over()
    out = lines(explore(cc, cc.virus_room))  # next turn, same room: challenged again
    assert out == ["VIRUS: You found me! Try and stop me!"]


def test_termination_too_slow_is_a_miss() -> None:
    cc = virus_game(9)
    explore(cc, cc.virus_room)
    out = lines(cc.advance(cc.settings.terminate_seconds))
    assert out[:2] == ["SOUND: buzz", "VIRUS: Wrong!"]


def test_without_all_three_avds_the_virus_room_is_an_ordinary_room() -> None:
    cc, _ = signed_on(9, players=("red",))
    give(cc, "red", "red card", "blue card", "yellow card", "decoder", "negatron")
    out = lines(explore(cc, cc.virus_room))
    assert "VIRUS: You found me! Try and stop me!" not in out


# ---------------------------------------------------------------- the countdown

def test_time_runs_out() -> None:
    cc, _ = signed_on(2, players=("red", "yellow"), skill=2)
    out = lines(cc.advance(10 * 60))
    assert out[-3:] == ["VIRUS: Too late! This station is mine! I win!", "VIRUS: Red terminated!",
                        "VIRUS: Yellow terminated!"]
    assert cc.is_over() and cc.winner is None


def test_after_a_win_what_you_had_and_the_time_left_are_still_told() -> None:
    cc = virus_game(9)
    cc.advance(100)  # 18 minutes 20 seconds left
    explore(cc, cc.virus_room)
    say(cc, "terminate", b1=cc.termination_button)
    assert cc.is_over()
    assert {"inventory", "time_left"} <= cc.allowed_intents()
    assert lines(say(cc, "inventory")) == [
        "BSAT1: Red has the Green, Red, Blue, Yellow Access Cards; a Negatron; a Disruptor; a Decoder."]
    assert lines(say(cc, "time_left")) == ["BSAT1: The Virus was terminated with 18 minutes left."]
    with pytest.raises(NotAllowed, match="The game is over"):
        say(cc, "pass")


def test_after_time_runs_out_what_you_had_and_the_time_are_still_told() -> None:
    cc, _ = signed_on(2, players=("red", "yellow"), skill=2)
    give(cc, "red", "decoder")
    cc.advance(10 * 60)
    assert cc.is_over() and cc.mover is not None
    mover = cc.mover[0]
    assert lines(say(cc, "inventory")) == [f"BSAT1: {cc.inventory_sentence(mover)}"]
    assert lines(say(cc, "time_left")) == ["BSAT1: Time ran out: the Virus took over."]


@pytest.mark.parametrize("skill,n,shutdowns", [(0, 1, 3), (1, 2, 3), (2, 4, 0)])
def test_sector_shutdowns_at_9_6_3_minutes_never_the_virus_sector(skill: int, n: int, shutdowns: int) -> None:
    for seed in range(10):
        cc, _ = signed_on(seed, players=SEATS[:n], skill=skill)
        virus_sector = cc.board.room(cc.virus_room).sector  # type: ignore[union-attr]
        heard: list[tuple[int, str]] = []
        while not cc.is_over():
            for line in lines(cc.advance(1)):
                if line.endswith("Sector shut down!"):
                    heard.append((cc.remaining_ms // 1000, line))
        assert [t for t, _ in heard] == [540, 360, 180][:shutdowns]
        assert all(virus_sector.title() not in line for _, line in heard)
        if shutdowns:
            open_sectors = [s for s in cc.board.sectors if s not in cc.shut]
            assert open_sectors == [virus_sector]


def test_time_is_announced_and_asked() -> None:
    cc, _ = signed_on(2, players=("red",), skill=1)  # 15 minutes
    out = lines(cc.advance(5 * 60))
    assert "VIRUS: 10 minutes until I take over!" in out
    assert lines(say(cc, "time_left")) == ["VIRUS: 10 minutes until I take over!"]
    cc.advance(5)
    assert lines(say(cc, "time_left")) == ["VIRUS: 10 minutes until I take over!"]  # to the nearest minute
    cc.advance(26)
    assert lines(say(cc, "time_left")) == ["VIRUS: 9 minutes until I take over!"]


def test_announcements_wait_for_a_quiet_moment() -> None:
    cc, _ = signed_on(2, players=("red",), skill=2)  # 10 minutes: 5-minute mark
    cc.advance(299)
    press(cc, "2")                # typing a room code
    assert lines(cc.advance(2)) == []
    out = lines(press(cc, room_of(cc, "green")))
    assert "VIRUS: 5 minutes until I take over!" in out


def test_must_be_terminated_names_who_found_the_virus() -> None:
    named = False
    for seed in range(20):
        cc, _ = signed_on(seed, players=("red", "blue"), skill=0, must_be_terminated_chance=1.0)
        cc.players["blue"].knows_virus = True
        out = lines(cc.advance(10 * 60 + 1))
        named |= "VIRUS: Blue must be terminated!" in out
        assert "VIRUS: Red must be terminated!" not in out
    assert named


def test_probes_are_destroyed_at_random_in_the_final_minutes() -> None:
    lost = 0
    for seed in range(20):
        cc, _ = signed_on(seed, players=("red",), skill=2, probe_loss_chance=0.5)
        give(cc, "red", "probe")
        out = lines(cc.advance(7 * 60))
        assert "VIRUS: Red Probe destroyed!" not in out  # not before the final minutes
        out = lines(cc.advance(3 * 60 - 1))
        lost += "VIRUS: Red Probe destroyed!" in out
    assert 0 < lost < 20


def test_advance_gives_the_same_game_however_time_is_chopped() -> None:
    a, _ = signed_on(11, players=("red", "blue"), skill=1)
    b, _ = signed_on(11, players=("red", "blue"), skill=1)
    out_a = lines(a.advance(20 * 60))
    out_b: list[str] = []
    for _ in range(20 * 60 * 4):
        out_b += lines(b.advance(0.25))
    assert out_a == out_b


# ---------------------------------------------------------------- repeat

def test_r_repeats_the_last_announcement() -> None:
    cc, _ = signed_on(4, players=("red", "blue"), wanted_chance=0.0, hazard_chance=0.0)
    out = lines(explore(cc, room_of(cc, "green")))
    found = out[:2]
    again = lines(press(cc, "R"))
    assert again[:2] == found
    assert cc.mover is not None
    assert again[2].startswith(f"BSAT1: {cc.mover[0].title()}, ")


def test_r_repeats_a_sector_shutdown_and_the_same_prompt() -> None:
    cc, _ = signed_on(5, players=("red",), skill=0)
    out: list[str] = []
    while not any(line.endswith("Sector shut down!") for line in out):
        out = lines(cc.advance(1))
    shutdown = [line for line in out if line.endswith("Sector shut down!")]
    assert len(shutdown) == 1 and out[-1].startswith("BSAT1: Red")  # then whose move it is, again
    again = lines(press(cc, "R"))
    assert again == [shutdown[0], out[-1]]  # the special announcement, and the very same prompt
    state = cc.rng.getstate()
    assert lines(say(cc, "repeat")) == again and cc.rng.getstate() == state


def test_a_time_mark_with_nothing_to_say_does_not_prompt_again() -> None:
    for seed in range(10):
        cc, _ = signed_on(seed, players=("red",), skill=2)  # solo, no probe: the probe marks say nothing
        cc.advance(6 * 60)
        for _ in range(4 * 60 - 2):
            out = lines(cc.advance(1))
            prompts = [line for line in out if line.startswith("BSAT1: Red")]
            assert not prompts or any(line.startswith("VIRUS:") for line in out), (seed, out)


def test_bare_buttons_are_not_a_move() -> None:
    cc, _ = signed_on(4, players=("red", "blue"))
    assert "buttons" not in cc.allowed_intents()
    with pytest.raises(NotAllowed, match="explore a room, attack, or pass"):
        say(cc, "buttons", b1="2", b2="1", b3="0", b4="0")
    press(cc, "2")  # "Which room?": now the code is bare buttons
    assert "buttons" in cc.allowed_intents()


def test_what_can_i_say_at_the_skill_question_lists_every_skill() -> None:
    from assistant.games.omega_virus import SPEC

    cc = CommandCenter(random.Random(5))
    cc.start()
    examples = [SPEC.help_example(cc, text) for text in SPEC.sentences().help_for(cc.allowed_intents())]
    assert "skill zero, skill one, skill two" in examples
    assert "skill zero" not in examples
    press(cc, "0")  # sign-on: no skill any more
    examples = [SPEC.help_example(cc, text) for text in SPEC.sentences().help_for(cc.allowed_intents())]
    assert not any("skill" in e for e in examples)


def test_spoken_repeat_repeats_the_question_mid_entry() -> None:
    cc = breach_game(3)
    out = lines(explore(cc, room_of(cc, "green")))
    assert lines(say(cc, "repeat")) == [out[1]]


# ---------------------------------------------------------------- board data

def test_default_board_fits_every_known_fact() -> None:
    board = Board.from_data(Board.default_data())
    codes = {r.code for r in board.rooms}
    assert codes == {a + b + c for a in "012" for b in "012" for c in "012"} - {"220", "221", "222"}
    assert board.room("100").color == "green" and board.room("120").color == "green"  # type: ignore
    for color in SEATS:
        assert sum(r.color == color for r in board.rooms) == 6
        assert sum(r.sector == color for r in board.rooms) == 6
        assert {r.color for r in board.rooms if r.sector == color} == set(SEATS)
    assert board.command_code("red", "commando") == "00"
    assert len(set(board.command_codes.values())) == 8


@pytest.mark.parametrize("change,message", [
    (lambda d: d["rooms"].append({"code": "000", "color": "red", "sector": "red"}), "appears twice"),
    (lambda d: d["rooms"][0].update(code="3 0 0"), "3 digits"),
    (lambda d: d["rooms"][0].update(color="purple"), "color and sector"),
    (lambda d: d["command_codes"].update({"blue probe": "00"}), "two targets"),
    (lambda d: d.update(seat_order=["red", "red", "blue", "green"]), "seat_order"),
])
def test_broken_board_files_are_reported(change: object, message: str) -> None:
    import copy

    from assistant.games.omega_virus.board import BoardError
    data = copy.deepcopy(Board.default_data())
    change(data)  # type: ignore[operator]
    with pytest.raises(BoardError, match=message):
        Board.from_data(data)


def test_supply_starts_full() -> None:
    cc, _ = signed_on(1, players=SEATS)
    assert cc.supply == SUPPLY
    assert all(cc.players[c].cards == {"green card"} for c in SEATS)
    assert CODES["red"] == cc.players["red"].code


def test_a_games_time_chart_is_its_own() -> None:
    """Changing one game's chart (as config.yaml does) leaves the rulebook's and other games' alone."""
    from assistant.games.omega_virus.engine import DEFAULT_TIME_CHART

    mine = Settings()
    mine.time_chart["0"][0] = 99
    assert DEFAULT_TIME_CHART["0"][0] == 20 and Settings().time_chart["0"][0] == 20
