"""MSX card battle rules, table by table, with the dice chosen by the test.

The engine draws every chance outcome from its injected ``random.Random``; ``Dice`` is one
whose rolls the test scripts (OpenSpiel style), so each rule is checked on exact numbers.
Commands are typed as a player would say them and matched by the game's own sentences.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from assistant.engine import Command, NotAllowed
from assistant.games import msx_cards
from assistant.games.msx_cards.combat import strike
from assistant.games.msx_cards.engine import BATTLE, BONUS, BOSS_FIGHT, EXTRA, LOST, WON, MsxCards, MsxSettings
from assistant.games.msx_cards.tables import Capsule, Tables, load_tables
from tests.harness import state_of

SENTENCES = msx_cards.sentences()
STRONG = "my fighter: attack 20, defense -8, vitality 99, pentagon 3, race blue"


class Dice(random.Random):
    """Chance outcomes scripted by the test: each die roll, float and pick is the next one given."""

    def __init__(self, rolls: Iterable[int] = (), floats: Iterable[float] = (), picks: Iterable[int] = ()):
        super().__init__(0)
        self.rolls = list(rolls)
        self.floats = list(floats)
        self.picks = list(picks)

    def randint(self, a: int, b: int) -> int:
        assert self.rolls, f"the engine rolled a d{b} that the test did not script"
        value = self.rolls.pop(0)
        assert a <= value <= b, f"scripted {value} on a d{b}"
        return value

    def random(self) -> float:
        return self.floats.pop(0) if self.floats else 0.99  # unscripted: no event, light quadrant

    def choices(self, population: Any, weights: Any = None, *, cum_weights: Any = None,
                k: int = 1) -> list[Any]:
        return [population[self.picks.pop(0) if self.picks else 0]]

    def choice(self, seq: Any) -> Any:
        return seq[self.picks.pop(0) if self.picks else 0]

    def add(self, *rolls: int) -> Dice:
        self.rolls.extend(rolls)
        return self


def dice(game: MsxCards) -> Dice:
    assert isinstance(game.rng, Dice)
    return game.rng


def data(change: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """The packaged tables, optionally changed by the test."""
    tables, problems = load_tables({})
    assert problems == []
    if change is not None:
        change(tables)
    return tables


def new_game(dice: Dice, event_chance: float = 0.0, change: Callable[[dict[str, Any]], None] | None = None,
             enemies: int = 3, deaths: int = 3) -> MsxCards:
    game = MsxCards(dice, MsxSettings(Tables.from_data(data(change)), event_chance, enemies, deaths))
    game.start()
    return game


def say(game: MsxCards, text: str) -> str:
    """Say ``text`` to the game (matched like speech); the answer as one string."""
    command = SENTENCES.match(text)
    assert command is not None, f"not understood: {text!r}"
    return "\n".join(o.line() for o in game.handle(command))


def fighter(attack: int = 6, defense: int = -2, vitality: int = 20, pentagon: int = 3, race: str = "blue",
            who: str = "my fighter") -> str:
    return f"{who}: attack {attack}, defense {defense}, vitality {vitality}, pentagon {pentagon}, race {race}"


def enemy(**kw: Any) -> str:
    return fighter(who="enemy", **kw)


def unchanged(game: MsxCards, command: Command) -> str:
    """Apply a command that must be refused; check that nothing changed; the spoken reason."""
    before = state_of(game)
    rolls = list(dice(game).rolls)
    with pytest.raises(NotAllowed) as refused:
        game.handle(command)
    assert state_of(game) == before
    assert dice(game).rolls == rolls
    return str(refused.value)


# --------------------------------------------------------------------------- one strike

GOTO = Capsule("GOTO", set_defense=-12)
MSX2 = Capsule("MSX2", damage_taken=-8)
SHIELD = Capsule("SHIELD", duration="two_turns", shield=True)
CONT = Capsule("CONT.", duration="battle", attack=2)
PLUS5 = Capsule("Plus Five", damage_dealt=5)
HALF = Capsule("Half", half_damage_taken=True)

STRIKES = [
    # roll, die, attack, defense, attacker's capsules, defender's capsules, damage, spoken
    (9, 12, 6, -3, [], [], 12, "9 on the d12, plus 6 attack, minus 3 defense: 12 damage"),
    (1, 8, 2, -5, [], [], 0, "1 on the d8, plus 2 attack, minus 5 defense: minus 2, no damage"),
    (3, 8, 0, -3, [], [], 0, "3 on the d8, minus 3 defense: 0, no damage"),
    (5, 8, 4, 0, [], [], 9, "5 on the d8, plus 4 attack: 9 damage"),
    (5, 8, 4, 2, [], [], 11, "5 on the d8, plus 4 attack, plus 2 defense: 11 damage"),
    (8, 8, 6, -2, [], [GOTO], 2, "8 on the d8, plus 6 attack, minus 12 defense with GOTO: 2 damage"),
    (9, 12, 6, -1, [], [MSX2], 6,
     "9 on the d12, plus 6 attack, minus 1 defense: 14; MSX2 takes off 8: 6 damage"),
    # the manual's example: Increased Damage +5 makes 14, MSX2's -8 leaves 6
    (4, 12, 6, -1, [PLUS5], [MSX2], 6,
     "4 on the d12, plus 6 attack, minus 1 defense: 9; Plus Five adds 5; MSX2 takes off 8: 6 damage"),
    (1, 8, 1, -3, [PLUS5], [], 0, "1 on the d8, plus 1 attack, minus 3 defense: minus 1, no damage"),
    (6, 8, 3, -2, [], [MSX2], 0,
     "6 on the d8, plus 3 attack, minus 2 defense: 7; MSX2 takes off 8: no damage"),
    (7, 20, 5, -3, [], [SHIELD], 0,
     "7 on the d20, plus 5 attack, minus 3 defense: 9; SHIELD blocks it: no damage"),
    (7, 20, 5, -3, [], [HALF], 4,
     "7 on the d20, plus 5 attack, minus 3 defense: 9; Half halves it: 4 damage"),
    (2, 8, 5, -3, [CONT], [], 6,
     "2 on the d8, plus 5 attack, plus 2 attack from CONT., minus 3 defense: 6 damage"),
]


@pytest.mark.parametrize("roll,die,attack,defense,mine,theirs,damage,spoken", STRIKES)
def test_strike_table(roll: int, die: int, attack: int, defense: int, mine: list[Capsule],
                      theirs: list[Capsule], damage: int, spoken: str) -> None:
    result = strike(roll, die, attack, defense, mine, theirs)
    assert result.damage == damage
    assert result.spoken() == spoken


def test_a_hit_is_announced_with_its_arithmetic_and_the_new_vitality() -> None:
    def d12(d: dict[str, Any]) -> None:
        d["worlds"]["missions"][0]["worlds"][0]["die"] = 12
    game = new_game(Dice([4, 1]), change=d12)  # initiative: you 4 (+1 pentagon) vs 1
    say(game, fighter(attack=6, pentagon=3))
    assert "You attack first" in say(game, enemy(attack=5, defense=-3, vitality=20, pentagon=2, race="red"))
    dice(game).add(9, 3)  # your attack die, then the enemy's
    text = say(game, "attack")
    assert "You roll 9 on the d12, plus 6 attack, minus 3 defense: 12 damage. Enemy vitality 8." in text
    assert "The enemy rolls 3 on the d12, plus 5 attack, minus 2 defense: 6 damage. Your vitality 14." in text
    assert text.endswith("Your turn: attack, or use a capsule.")


# --------------------------------------------------------------------------- initiative

INITIATIVE = [
    # your pentagon, enemy's pentagon, d6 rolls (you, enemy, ...), you first?, words
    (3, 2, [4, 5, 2, 1], True, [
        "you roll 4, plus 1 for the Pentagon: 5; the enemy rolls 5. A tie",
        "you roll 2, plus 1 for the Pentagon: 3; the enemy rolls 1. You attack first."]),
    (2, 2, [3, 3, 6, 1], True, ["you roll 3; the enemy rolls 3. A tie: rolling again.",
                                "you roll 6; the enemy rolls 1. You attack first."]),
    (1, 3, [5, 5], False, [
        "you roll 5; the enemy rolls 5, plus 1 for the Pentagon: 6. The enemy attacks first."]),
    (0, 0, [1, 2], False, ["you roll 1; the enemy rolls 2. The enemy attacks first."]),
    (5, 0, [5, 6, 4, 2], True, ["A tie", "you roll 4, plus 1 for the Pentagon: 5; the enemy rolls 2."]),
]


@pytest.mark.parametrize("mine,theirs,rolls,first,words", INITIATIVE)
def test_initiative_table(mine: int, theirs: int, rolls: list[int], first: bool, words: list[str]) -> None:
    game = new_game(Dice(rolls + ([] if first else [1])))  # the enemy's first attack if it goes first
    say(game, fighter(pentagon=mine))
    text = say(game, enemy(pentagon=theirs))
    for part in words:
        assert part in text
    assert game.next_actor == "player"  # the enemy, if first, has already attacked
    assert ("The enemy rolls 1 on the d8" in text) == (not first)
    assert dice(game).rolls == []


def test_initiative_is_rolled_again_for_every_new_enemy() -> None:
    game = new_game(Dice([6, 1]))
    say(game, fighter(attack=20))
    say(game, enemy(vitality=5))
    dice(game).add(1)  # you kill it
    assert "The enemy is defeated! Defeats in World 1: 1 of 3." in say(game, "attack")
    dice(game).add(1, 6, 2)  # new initiative: the new enemy wins and attacks
    text = say(game, enemy(vitality=5))
    assert "Initiative on the d6: you roll 1; the enemy rolls 6. The enemy attacks first." in text
    assert "The enemy rolls 2 on the d8" in text


# --------------------------------------------------------------------------- capsules


def row_of(capsules: list[str | None]) -> Callable[[dict[str, Any]], None]:
    def change(d: dict[str, Any]) -> None:
        for race in d["capsules"]["races"]:
            d["capsules"]["races"][race] = list(capsules)
    return change


def test_a_one_turn_capsule_covers_your_action_and_the_enemys_next() -> None:
    game = new_game(Dice([6, 1]), change=row_of(["GOTO", None, None, None, None, "Vitality Up"]))
    say(game, fighter(attack=1, defense=-2, vitality=30))
    say(game, enemy(attack=10, defense=-5, vitality=30, race="red"))
    # capsule 1: GOTO. You attack (roll 2); the enemy answers: its d6 shows 3, 2 (empty), 6 (Vitality Up)
    dice(game).add(2, 3, 2, 6, 8)
    text = say(game, "capsule 1")
    assert "You use capsule 1, GOTO: Defense stays at minus 12 for one turn." in text
    assert "The enemy's capsule d6 shows 3, then 2: empty slots, rolled again." in text
    assert "The enemy answers with capsule 6, Vitality Up: plus 6 Vitality." in text
    assert "Enemy vitality 36." in text
    assert ("The enemy rolls 8 on the d8, plus 10 attack, minus 12 defense with GOTO: 6 damage. "
            "Your vitality 24.") in text
    assert "Your GOTO wears off." in text
    assert game.effects == []
    dice(game).add(1, 8)
    text = say(game, "attack")
    assert "minus 2 defense: 16 damage" in text
    assert unchanged(game, Command("capsule", {"slot": "1"})).startswith("You have used your capsule")


@pytest.mark.parametrize("duration,actions", [("turn", 2), ("two_turns", 4), ("battle", None)])
def test_capsule_durations(duration: str, actions: int | None) -> None:
    def change(d: dict[str, Any]) -> None:
        d["capsules"]["capsules"]["TEST"] = {"damage_taken": -99, "duration": duration}
        d["capsules"]["capsules"]["NOTHING"] = {"say": "nothing", "duration": "instant"}
        d["capsules"]["races"] = {"blue": ["TEST"], "red": ["NOTHING"]}
    game = new_game(Dice([6, 1]), change=change)
    say(game, fighter(attack=0, defense=0, vitality=99, pentagon=0))
    say(game, enemy(attack=0, defense=-20, vitality=99, pentagon=0, race="red"))
    dice(game).add(1, 1, 5)  # your roll, the enemy's capsule d6, the enemy's roll
    say(game, "capsule 1")
    covered = 2  # your action and the enemy's, so far
    assert game.player is not None
    while covered < 12:
        active = any(e.capsule.name == "TEST" for e in game.effects)
        assert active == (actions is None or covered < actions), covered
        dice(game).add(1, 5)
        say(game, "attack")
        covered += 2
    assert game.player.vitality == 99 - (0 if actions is None else 5 * (12 - max(actions, 2)) // 2)


def test_a_vitality_capsule_is_permanent_and_the_battle_capsule_ends_with_the_battle() -> None:
    game = new_game(Dice([6, 1]), change=row_of(["Vitality Up", "CONT."]))
    say(game, fighter(attack=5, defense=-2, vitality=20))
    say(game, enemy(attack=1, defense=0, vitality=6, race="red"))
    dice(game).add(1, 1)  # your roll 1 +5 = 6: the enemy falls before answering
    text = say(game, "capsule 1")
    assert "You use capsule 1, Vitality Up: plus 6 Vitality.\nNARRATOR: Your vitality 26." in text
    assert "The enemy is defeated!" in text
    dice(game).add(6, 1)
    say(game, enemy(attack=1, defense=-20, vitality=30, race="red"))
    assert game.player is not None and game.player.vitality == 26 and not game.player.capsule_used
    dice(game).add(8, 2, 1)  # CONT.; the enemy answers with slot 2 (CONT.) too and attacks
    text = say(game, "capsule 2")
    assert "plus 2 attack from CONT." in text
    for _ in range(3):
        dice(game).add(8, 1)
        assert "plus 2 attack from CONT." in say(game, "attack")
    assert [e.capsule.name for e in game.effects] == ["CONT.", "CONT."]


def brake_battle(player: str, enemy_capsule: str) -> MsxCards:
    """A battle in which the player (blue) and the enemy (red) hold the given capsules, BRAKE
    among them (a brake stops the other side's capsule answer)."""
    def change(d: dict[str, Any]) -> None:
        d["capsules"]["capsules"]["BRAKE"] = {"brake": True, "duration": "instant"}
        d["capsules"]["races"] = {"blue": [player], "red": [enemy_capsule]}
    game = new_game(Dice([6, 1]), change=change)
    say(game, fighter(vitality=40))
    say(game, enemy(vitality=40, race="red"))
    return game


def test_capsule_brake_stops_the_enemys_answer() -> None:
    game = brake_battle("BRAKE", "GOTO")
    dice(game).add(3, 3)
    text = say(game, "capsule 1")
    assert "The enemy cannot answer with a capsule in this battle." in text
    assert "answers with" not in text


def test_an_enemy_capsule_that_makes_no_sense_loses_its_power() -> None:
    game = brake_battle("GOTO", "BRAKE")
    dice(game).add(3, 1, 3)  # your roll; the enemy's capsule d6 (BRAKE: you already used yours); its roll
    text = say(game, "capsule 1")
    assert "The enemy rolls capsule 1, BRAKE, which makes no sense now: its power is lost." in text
    assert "answers with" not in text and "cannot use a capsule" not in text
    assert game.enemy is not None and game.enemy.capsule_used
    assert "The enemy rolls 3 on the d8" in text


def test_an_event_before_the_enemys_answer_leaves_it_for_its_next_action() -> None:
    """The manual: "When the player (you) uses a Capsule, then the enemy automatically does (...
    if he has the Button of Capsule Use in green)"; an event cancels the capsules "of the fighter
    who was using it since he has the Button in red". The enemy's button is still green: it
    answers on its next action, after the event and the new initiative."""
    game = new_game(Dice([6, 1], floats=[0.99, 0.0, 0.99, 0.99]), event_chance=0.5,
                    change=row_of(["SHIELD", "GOTO"]))
    say(game, fighter(vitality=30))
    say(game, enemy(vitality=30, race="red"))
    dice(game).add(1)  # your roll; then the event strikes before the enemy acts
    dice(game).picks = [1]  # a positive event
    dice(game).add(1, 6)  # initiative again: the enemy acts first
    dice(game).add(2, 4)  # its answer: the capsule d6 shows 2 (GOTO); then it rolls 4
    text = say(game, "capsule 1")
    assert "The event cancels the capsules in play: SHIELD." in text
    after = text.split("Initiative again.")[1]
    assert "The enemy answers with capsule 2, GOTO: Defense stays at minus 12 for one turn." in after
    assert game.enemy is not None and game.enemy.capsule_used
    assert "The enemy rolls 4 on the d8" in after
    assert dice(game).rolls == []


@pytest.mark.parametrize("slot,reason", [(3, "Slot 3 of the blue capsule row is empty."),
                                         (5, "The blue capsule row has 4 slots.")])
def test_an_empty_or_missing_capsule_slot_is_refused(slot: int, reason: str) -> None:
    game = new_game(Dice([6, 1]), change=row_of(["GOTO", "MSX2", None, "SHIELD"]))
    say(game, fighter())
    say(game, enemy())
    assert unchanged(game, Command("capsule", {"slot": str(slot)})).startswith(reason)


def test_the_capsule_list_reads_the_row() -> None:
    game = new_game(Dice([6, 1]))
    say(game, fighter())
    text = say(game, "which capsules do I have")
    assert text.startswith("NARRATOR: Your blue capsules: 1, MSX2: 8 less damage taken for one turn. "
                           "2, GOTO: Defense stays at minus 12 for one turn. 3, empty. 4, SHIELD")


# --------------------------------------------------------------------------- events

EVENT_GOER = [
    # your vitality, enemy's, who goes into the Pentagon
    (10, 12, "You have less vitality, so your fighter goes into the Pentagon, depth 2."),
    (12, 10, "The enemy has less vitality, so it goes into the Pentagon, depth 3."),
    (11, 11, "Vitality is tied, so your fighter goes into the Pentagon, depth 2."),
]


@pytest.mark.parametrize("mine,theirs,words", EVENT_GOER)
def test_the_fighter_with_less_vitality_goes_into_the_pentagon(mine: int, theirs: int, words: str) -> None:
    game = new_game(Dice([6, 1], floats=[0.0, 0.99]), event_chance=0.5)  # event; light quadrant
    say(game, fighter(vitality=mine, pentagon=3, race="yellow"))
    say(game, enemy(vitality=theirs, pentagon=2, race="green"))
    dice(game).picks = [1]  # Medicines
    dice(game).add(6, 1)  # initiative again
    text = say(game, "attack")
    assert words in text
    assert "Medicines: a positive event, on a light quadrant." in text
    gainer = game.player if "your fighter goes" in words else game.enemy
    other = game.enemy if gainer is game.player else game.player
    assert gainer is not None and other is not None
    assert gainer.vitality == gainer.start_vitality + 7 and other.vitality == other.start_vitality
    assert "The fight resumes. Initiative again." in text
    assert "You roll" not in text.split("Initiative again.")[0]  # the event replaced your attack


RESIST = [
    # your pentagon, your d8 roll, enemy's pentagon, its roll, dark?, your damage, enemy's damage
    (0, 8, 5, 4, False, 4, 0),     # resistance 0 needs 9: a d8 cannot resist
    (2, 7, 1, 7, False, 0, 5),     # you need 7: resisted; brown enemy needs 8: 5 damage
    (3, 5, 3, 6, True, 8, 0),      # dark quadrant: double damage (4 x 2)
    (9, 4, 0, 8, True, 0, 10),     # resistance above the table uses its last value (4)
]


@pytest.mark.parametrize("mine,my_roll,theirs,their_roll,dark,my_damage,their_damage", RESIST)
def test_negative_events_hit_both_fighters_unless_resisted(
        mine: int, my_roll: int, theirs: int, their_roll: int, dark: bool, my_damage: int,
        their_damage: int) -> None:
    game = new_game(Dice([6, 1], floats=[0.0, 0.0 if dark else 0.99]), event_chance=0.5)
    say(game, fighter(vitality=30, pentagon=mine, race="red"))
    say(game, enemy(vitality=30, pentagon=theirs, race="brown"))
    dice(game).picks = [0]  # Scorching Sun
    dice(game).add(my_roll, their_roll, 6, 1)
    text = say(game, "attack")
    assert "Scorching Sun: a negative event" in text
    assert ("double damage" in text) == dark
    assert game.player is not None and game.enemy is not None
    assert game.player.vitality == 30 - my_damage
    assert game.enemy.vitality == 30 - their_damage
    assert f"You roll {my_roll} on the d8, you need" in text


def test_an_event_cancels_the_capsules_in_play_and_the_fight_resumes_without_another() -> None:
    game = new_game(Dice([6, 1], floats=[0.99, 0.99, 0.0]), event_chance=0.5,
                    change=row_of(["SHIELD", "GOTO"]))
    say(game, fighter(vitality=30))
    say(game, enemy(vitality=30, race="red"))
    dice(game).add(1, 2, 1)  # your roll; enemy's capsule d6 (GOTO); enemy roll
    say(game, "capsule 1")
    assert {e.capsule.name for e in game.effects} == {"SHIELD", "GOTO"}
    dice(game).picks = [1]
    dice(game).add(1, 6)  # initiative after the event: the enemy wins and acts at once, no second event
    dice(game).floats = [0.0, 0.99, 0.0]  # event now; light; (an event chance that must not be drawn)
    dice(game).add(4)
    text = say(game, "attack")
    assert "The event cancels the capsules in play: SHIELD and GOTO." in text
    assert game.effects == []
    assert game.player is not None and game.player.capsule_used and game.enemy is not None
    assert game.enemy.capsule_used
    assert "The enemy rolls 4 on the d8" in text
    assert text.count("Event!") == 1 and dice(game).floats == [0.0]


def test_a_capsule_said_when_an_event_strikes_is_not_used() -> None:
    game = new_game(Dice([6, 1], floats=[0.0]), event_chance=0.5)
    say(game, fighter(vitality=30))
    say(game, enemy(vitality=30, race="red"))
    dice(game).picks = [1]
    dice(game).add(6, 1)
    text = say(game, "capsule 2")
    assert "Your capsule was not used." in text
    assert game.player is not None and not game.player.capsule_used


def test_an_event_can_defeat_fighters() -> None:
    game = new_game(Dice([6, 1], floats=[0.0, 0.99]), event_chance=0.5)
    say(game, fighter(vitality=3, pentagon=0, race="red"))
    say(game, enemy(vitality=4, pentagon=0, race="brown"))
    dice(game).picks = [0]
    dice(game).add(1, 1)
    text = say(game, "attack")
    assert "Your fighter is defeated. Deaths in World 1: 1 of 3." in text
    assert "The enemy is defeated! Defeats in World 1: 1 of 3." in text
    assert game.player is None and game.enemy is None


# --------------------------------------------------------------------------- counters and Worlds


def test_three_deaths_in_a_world_end_the_game() -> None:
    game = new_game(Dice())
    say(game, enemy(attack=30, defense=-20, vitality=99))
    assert game.phase == "fighter"
    for n in (1, 2, 3):
        dice(game).add(1, 6, 8)  # the enemy wins initiative and hits for 30+8-2
        text = say(game, fighter(vitality=20, pentagon=0))
        assert f"Your fighter is defeated. Deaths in World 1: {n} of 3." in text
    assert "3 deaths in World 1. Game over." in text
    assert game.is_over() and game.stage == LOST
    assert game.allowed_intents() == {"status", "repeat"}
    assert unchanged(game, Command("attack")) == "The game is over. Say new game to play again."


def test_three_defeats_bring_the_boss_and_gray_values_when_you_win_initiative() -> None:
    game = new_game(Dice([6, 1]))
    say(game, STRONG)
    say(game, enemy(vitality=5))
    for n in (1, 2, 3):
        dice(game).add(1, *([6, 1] if n == 3 else []))  # the kill; at the last, the Boss's initiative
        text = say(game, "attack")
        assert f"Defeats in World 1: {n} of 3." in text
        if n < 3:
            dice(game).add(6, 1)
            say(game, enemy(vitality=5))
    assert "World 1 cleared!" in text and "Boss fight: Boss 1." in text
    assert "You won initiative: the Boss's gray values count, and you attack on T1." in text
    assert text.endswith("T1 is your turn: attack, or use a capsule.")
    # gray: T1 Boss defense -2, T2 Boss attack 4, T3 defense -3, ...
    dice(game).add(1, 8)
    text = say(game, "attack")
    assert "You roll 1 on the d8, plus 20 attack, minus 2 Boss defense on T1: 19 damage. T1 passed." in text
    assert ("The Boss rolls 8 on the d8, plus 4 Boss attack on T2, minus 8 defense: 4 damage. "
            "Your vitality 95.") in text
    for _ in range(3):
        dice(game).add(1, 1)
        text = say(game, "attack")
    assert "Boss 1 is destroyed!\nNARRATOR: Extra screen!\nNARRATOR: Say roll for the Extra: the d6 adds vitality " \
        "to your fighter." in text
    assert game.stage == EXTRA
    dice(game).add(4)
    text = say(game, "roll")
    assert "Extra: you roll 4 on the d6: plus 4 vitality. Your vitality 99." in text
    assert "World 2: the attack die is the d12." in text
    assert (game.world_index, game.defeats, game.deaths, game.stage) == (1, 0, 0, BATTLE)


def test_the_boss_with_white_values_attacks_first_and_no_damage_loses() -> None:
    game = new_game(Dice([6, 1]), enemies=1)
    say(game, fighter(attack=5, vitality=50, pentagon=0))
    say(game, enemy(vitality=1, pentagon=0))
    dice(game).add(1, 2, 5, 3)  # kill; boss initiative you 2 vs 5; boss T1 attack
    say(game, "attack")
    text = say(game, "status")
    assert "Boss fight against Boss 1: turn T2 of 8." in text
    assert game.stage == BOSS_FIGHT and game.boss_first
    # white: T1 attack 4 (already rolled: 3 + 4 - 2 = 5), T2 Boss defense -2
    assert game.player is not None and game.player.vitality == 45
    dice(game).add(1, 1)  # 1 + 5 - 2 = 4: passes T2; T3: Boss attack 5 + 1 - 2
    text = say(game, "attack")
    assert "T2 passed." in text and "plus 5 Boss attack on T3" in text
    dice(game).add(1)  # 1 + 5 - 3 = 3 on T4: passes; T5 boss
    dice(game).add(1)
    say(game, "attack")
    dice(game).add(1)  # T6 defense -3: 1 + 0 - 3 -> set attack to 0 first
    say(game, "my attack is 0")
    text = say(game, "attack")
    assert "minus 3 Boss defense on T6: minus 2, no damage." in text
    assert "No damage to the Boss on T6: the Boss wins. One defeat by a Boss ends the game. Game over." in text
    assert game.stage == LOST and game.outcome.startswith("No damage to the Boss on T6")
    assert game.player.vitality == 37 and not game.player.fell_to_boss


def test_the_boss_can_kill_and_a_bonus_screen_comes_first_where_the_world_says_so() -> None:
    def change(d: dict[str, Any]) -> None:
        d["worlds"]["missions"][0]["worlds"][0]["bonus"] = True
    game = new_game(Dice([6, 1]), enemies=1, change=change)
    say(game, fighter(attack=5, defense=0, vitality=10, pentagon=0))
    say(game, enemy(vitality=1, pentagon=0))
    dice(game).add(8)
    text = say(game, "attack")
    assert text.endswith("NARRATOR: Bonus screen before the Boss!\n"
                         "NARRATOR: Say roll for the Bonus: the d6 adds vitality to your fighter.")
    assert game.stage == BONUS
    assert unchanged(game, Command("attack")).startswith("Not now.")
    dice(game).add(2, 1, 6, 8)  # bonus 2; Boss initiative 1 vs 6; T1 attack 8 + 4 - 0 = 12
    text = say(game, "roll for the bonus")
    assert "Bonus: you roll 2 on the d6: plus 2 vitality. Your vitality 12." in text
    assert "12 damage. Your vitality 0." in text
    assert "Defeated by the Boss. One defeat by a Boss ends the game. Game over." in text
    assert game.stage == LOST


def test_a_boss_ends_the_game_at_once_whatever_the_deaths() -> None:
    """The manual: "If the enemy kills the player three times in any World, or a Boss eliminates
    him, the game is over": a Boss's win ends it at 2 of 3 deaths too, and says why."""
    game = new_game(Dice(), enemies=1)
    say(game, enemy(attack=30, defense=0, vitality=5, pentagon=0))
    for n in (1, 2):
        dice(game).add(1, 6, 8)  # the enemy wins initiative and kills each fighter
        assert f"Deaths in World 1: {n} of 3." in say(game, fighter(vitality=20, pentagon=0))
    dice(game).add(6, 1)  # you win initiative
    say(game, fighter(attack=5, vitality=9, pentagon=0))
    dice(game).add(8, 1, 6, 8)  # you kill the enemy; the Boss wins initiative; T1: 8 + 4 - 2 kills you
    text = say(game, "attack")
    assert "Boss fight: Boss 1." in text and game.deaths == 2
    assert text.endswith("Defeated by the Boss. One defeat by a Boss ends the game. Game over.")
    assert game.stage == LOST and game.is_over()


def test_the_last_boss_wins_the_mission() -> None:
    def change(d: dict[str, Any]) -> None:
        d["worlds"]["missions"][0]["worlds"] = d["worlds"]["missions"][0]["worlds"][:1]
    game = new_game(Dice([6, 1]), enemies=1, change=change)
    say(game, STRONG)
    say(game, enemy(vitality=1))
    dice(game).add(1, 6, 1)  # kill; you win Boss initiative
    say(game, "attack")
    for _ in range(4):
        dice(game).add(1, 1)
        text = say(game, "attack")
    assert "Boss 1 is destroyed!" in text
    assert text.endswith("Mission complete: Example Mission. You win!")
    assert game.stage == WON and game.is_over()
    assert "Mission complete" in say(game, "status")


# --------------------------------------------------------------------------- entering cards


def test_cards_from_the_card_file_and_drawn_enemies() -> None:
    game = new_game(Dice([6, 1], picks=[5]))  # the sixth card drawable: 1, 2, 4, 5, 6, 7 (3 is yours)
    text = say(game, "my fighter is card 3")
    assert ("Your fighter is card 3, Hardware Rookie: green, attack 4, defense minus 3, vitality 20, "
            "pentagon 2.") in text
    text = say(game, "draw an enemy")
    assert "The enemy drawn is card 7, Shooter Rookie: blue, attack 6, defense minus 1, vitality 17" in text
    assert game.enemy is not None and game.enemy.card == 7


def test_a_drawn_enemy_is_never_your_own_card_nor_a_card_met_before() -> None:
    """The draw leaves out the cards in play (your fighter's) and those met in this game, a
    defeated card is discarded ("the winning cards are not discarded until their Vitality
    reaches zero"); picks index the cards that can be drawn."""
    game = new_game(Dice([6, 1, 6, 1], picks=[2, 2]))
    say(game, "my fighter is card 3")
    say(game, "draw an enemy")
    first = game.enemy
    assert first is not None and first.card == 4  # the third card drawable: 1, 2, (not 3), 4
    say(game, "set enemy vitality to 0")
    say(game, "draw an enemy")
    assert game.enemy is not None and game.enemy.card == 5  # 1, 2, (not 3, not 4), 5


def test_a_drawn_enemy_is_not_your_fighter_read_out_by_its_numbers() -> None:
    game = new_game(Dice([6, 1], picks=[0]))
    say(game, fighter(attack=5, defense=-2, vitality=18, pentagon=2, race="yellow"))  # card 1's numbers
    say(game, "draw an enemy")
    assert game.enemy is not None and game.enemy.card == 2


def test_when_every_card_was_met_the_draw_takes_back_all_but_the_one_just_defeated() -> None:
    def three(d: dict[str, Any]) -> None:
        d["cards"]["cards"] = d["cards"]["cards"][:3]
    game = new_game(Dice([6, 1] * 3), change=three)
    say(game, "my fighter is card 1")
    for card in (2, 3):
        say(game, "draw an enemy")
        assert game.enemy is not None and game.enemy.card == card
        say(game, "set enemy vitality to 0")
    say(game, "draw an enemy")
    assert game.enemy is not None and game.enemy.card == 2  # not 1 (yours), not 3 (just defeated)


def test_no_card_left_to_draw_is_refused() -> None:
    def two(d: dict[str, Any]) -> None:
        d["cards"]["cards"] = d["cards"]["cards"][:2]
    game = new_game(Dice([6, 1]), change=two)
    say(game, "my fighter is card 1")
    say(game, "draw an enemy")
    say(game, "set enemy vitality to 0")
    assert unchanged(game, Command("draw_enemy")) == (
        "The card file has no other card to draw: not your fighter's, nor the one just defeated. "
        "Say the enemy's numbers instead.")


def test_refusals_change_nothing() -> None:
    game = new_game(Dice([6, 1]))
    assert unchanged(game, Command("attack")).startswith("You have no fighter in play.")
    assert unchanged(game, Command("fighter_card", {"card": "42"})) == (
        "There is no card 42 in the card file. The cards go from 1 to 10.")
    assert unchanged(game, Command("set_stat", {"who": "enemy", "stat": "attack", "value": "3"})).startswith(
        "You have no fighter in play.")
    say(game, fighter())
    assert unchanged(game, Command("fighter_card", {"card": "1"})).startswith("Your fighter is still in play")
    assert unchanged(game, Command("roll")).startswith("There is no enemy yet.")
    assert unchanged(game, Command("set_stat", {"who": "enemy", "stat": "attack", "value": "3"})) == (
        "There is no enemy card in play.")
    say(game, enemy())
    assert unchanged(game, Command("enemy_card", {"card": "1"})).startswith("The enemy still has vitality 20")
    assert unchanged(game, Command("set_stat", {"who": "player", "stat": "vitality", "value": "-1"})) == (
        "Vitality cannot be below zero.")


def test_corrections_for_skills() -> None:
    game = new_game(Dice([6, 1]))
    say(game, fighter(attack=6))
    say(game, enemy(defense=-2, vitality=20))
    assert "Enemy defense is now minus 4." in say(game, "enemy defense is minus four")
    dice(game).add(5, 1)
    assert "plus 6 attack, minus 4 defense: 7 damage. Enemy vitality 13." in say(game, "attack")
    text = say(game, "set enemy vitality to 0")
    assert "The enemy is defeated! Defeats in World 1: 1 of 3." in text
    assert game.defeats == 1 and game.enemy is None


def test_names_status_and_repeat() -> None:
    game = new_game(Dice([6, 1]))
    assert say(game, "call me Sam") == "NARRATOR: Hello Sam.\nNARRATOR: Sam, enter your fighter."
    say(game, fighter())
    last = say(game, enemy())
    assert last.endswith("Sam, your turn: attack, or use a capsule.")
    assert say(game, "repeat") == ("NARRATOR: Your vitality 20, the enemy's 20. "
                                   "Sam, your turn: attack, or use a capsule.")
    status = say(game, "status")
    assert status.startswith("NARRATOR: World 1 of 5, with the d8. Defeats 0 of 3, deaths 0 of 3. "
                             "Your fighter has vitality 20; attack 6, defense minus 2, pentagon 3, blue;")


def test_repeat_says_where_things_stand_and_reads_no_roll_again() -> None:
    """A roll read again sounds like a new one (after an undo above all, which says "Undone."
    and then repeat): repeat says where the fight stands and what to say."""
    game = new_game(Dice([6, 1]), change=row_of(["CONT."]))
    say(game, fighter(attack=5, vitality=30))
    say(game, enemy(attack=5, vitality=30, race="red"))
    dice(game).add(3, 1, 2)  # your roll; the enemy's capsule d6 (CONT.); its roll
    assert "You roll 3" in say(game, "capsule 1")
    before = state_of(game)
    again = say(game, "repeat")
    assert "roll" not in again.lower()
    assert again == ("NARRATOR: Your vitality 23, the enemy's 22. In play: your CONT.; the enemy's CONT. "
                     "Your turn: attack.")
    assert state_of(game) == before


def test_after_undo_the_table_hears_where_things_stand_not_the_last_roll_again(tmp_path: Path) -> None:
    from assistant.session import PrintAnnouncer, Session

    said: list[str] = []
    session = Session.new("msx-cards", 3, {"event_chance": 0.0}, PrintAnnouncer(said.append), tmp_path)
    session.start()
    for text in (STRONG, "enemy: attack 5, defense -1, vitality 90, pentagon 2, race red", "attack", "attack"):
        session.hear(text)
    at = len(said)
    session.hear("undo")
    after = said[at:]
    assert after[0] == "NARRATOR: Undone."
    assert not any("roll" in line.lower() for line in after[1:]), after
    assert after[-1].startswith("NARRATOR: Your vitality ")
    assert after[-1].endswith("Your turn: attack, or use a capsule.")
    session.close()


def test_status_says_a_capsule_name_with_its_own_full_stop_once() -> None:
    game = new_game(Dice([6, 1]), change=row_of(["CONT."]))
    say(game, fighter(attack=5, vitality=30))
    say(game, enemy(attack=5, vitality=30, race="red"))
    dice(game).add(3, 1, 2)
    say(game, "capsule 1")
    status = say(game, "status")
    assert "In play: CONT." in status and "CONT.." not in status
    dice(game).add(3, 2)
    assert ".." not in say(game, "attack") + say(game, "which capsules do I have")


def test_a_stalemate_is_announced() -> None:
    game = new_game(Dice([6, 1]))
    say(game, fighter(attack=0, defense=-15))
    text = say(game, enemy(attack=0, defense=-15))
    assert "Warning: with the d8, neither fighter can ever hurt the other." in text


def test_the_same_seed_and_commands_give_the_same_game() -> None:
    script = ["call me Ana", STRONG, "draw an enemy", "capsule 2", "attack", "attack", "draw an enemy",
              "attack", "attack", "attack", "draw an enemy", "attack", "attack", "attack", "attack", "attack"]

    def run(seed: int) -> list[str]:
        game = msx_cards.create(seed, {"event_chance": 0.3})
        lines = [o.line() for o in game.start()]
        for text in script:
            command = SENTENCES.match(text)
            assert command is not None
            try:
                lines += [o.line() for o in game.handle(command)]
            except NotAllowed as reason:
                lines.append(f"not allowed: {reason}")
        assert game.advance(2.0) == [] and game.next_event_in() is None and not game.clock_running()
        return lines

    assert run(11) == run(11)
    assert run(11) != run(12)
