"""Every sentence the MSX card battle's narrator says, built in one place.

Numbers are written as digits and negative ones as "minus 3", so the voice reads them the
same way a player says them. ``fixed_phrases`` lists every sentence with no live content
(no die roll, no Vitality) for the voice cache.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from assistant.engine import Say
from assistant.games.msx_cards.combat import BOSS, ENEMY, PLAYER, Fighter, Strike
from assistant.games.msx_cards.tables import Capsule, Tables, World, signed
from assistant.games.words import plural

NARRATOR = "NARRATOR"

FIRST_FIGHTER = "Enter your fighter."
NEXT_FIGHTER = "Enter your next fighter."
FIRST_FIGHTER_HELP = ("Enter your fighter, for example: my fighter, attack 6, defense minus 2, vitality 20, "
                      "pentagon 3, race blue. Or: my fighter is card 3.")
NEXT_ENEMY = "Enter the enemy's card, or say draw an enemy."
YOUR_TURN = "Your turn: attack."
YOUR_TURN_CAPSULE = "Your turn: attack, or use a capsule."
STALEMATE = ("Warning: with the d{die}, neither fighter can ever hurt the other. Correct a card's numbers, "
             "or say undo.")
CAPSULE_NOT_USED = "Your capsule was not used."
NO_EFFECT_ON_BOSS = "That has no effect on a Boss."
LOST_TO_BOSS = "Defeated by the Boss."
#: The manual: "If the enemy kills the player three times in any World, or a Boss eliminates him,
#: the game is over": said with a loss to a Boss, which comes whatever the deaths count.
BOSS_ENDS_IT = "One defeat by a Boss ends the game."
NO_CARD_TO_DRAW = ("The card file has no other card to draw: not your fighter's, nor the one just defeated. "
                   "Say the enemy's numbers instead.")
ENEMY_HAS_NO_CAPSULES = "The enemy's race has no capsules to answer with."
INITIATIVE_AGAIN = "The fight resumes. Initiative again."
BOSS_WHITE = "The Boss won initiative: its white values count, and it attacks on T1."
BOSS_GRAY = "You won initiative: the Boss's gray values count, and you attack on T1."

FIXED: tuple[str, ...] = (
    FIRST_FIGHTER, NEXT_FIGHTER, FIRST_FIGHTER_HELP, NEXT_ENEMY, YOUR_TURN, YOUR_TURN_CAPSULE,
    CAPSULE_NOT_USED, NO_EFFECT_ON_BOSS, ENEMY_HAS_NO_CAPSULES, INITIATIVE_AGAIN,
    BOSS_WHITE, BOSS_GRAY, f"{LOST_TO_BOSS} {BOSS_ENDS_IT} Game over.",
)

#: A sentence's own full stop after a name that ends with one ("In play: CONT.."), or after "!" or "?".
_DOUBLE_STOP = re.compile(r"(?<!\.)([.!?])\.(?=\s|$)")


def say(text: str) -> Say:
    """Said by the narrator, one stop at the end of each sentence (names and card text may
    bring their own: the capsule "CONT.", a skill written with its full stop)."""
    return Say(NARRATOR, _DOUBLE_STOP.sub(r"\1", text))


def _whose(side: str) -> str:
    return "Your" if side == PLAYER else "Enemy"


def welcome(mission: str, worlds: int) -> str:
    return (f"MSX card battle. {mission}: {plural(worlds, 'World')}. "
            "You tell me the cards; I roll the dice and keep the counters.")


def example_note(kinds: Sequence[str]) -> str:
    names = ", ".join(kinds[:-1]) + (" and " if len(kinds) > 1 else "") + kinds[-1]
    return (f"Note: the {names} tables are examples, not the real game's. "
            "Edit them to match your cards and board.")


def world_label(index: int, world: World) -> str:
    number = f"World {index + 1}"
    return number if world.name == number else f"{number}, {world.name}"


def world_intro(index: int, world: World, enemies: int) -> str:
    return (f"{world_label(index, world)}: the attack die is the d{world.die}. "
            f"Defeat {enemies} enem{'ies' if enemies != 1 else 'y'}, then the Boss, {world.boss.name}.")


def where(index: int, count: int, world: World) -> str:
    number = f"World {index + 1} of {count}"
    name = "" if world.name == f"World {index + 1}" else f", {world.name}"
    return f"{number}{name}, with the d{world.die}."


def entered(fighter: Fighter, drawn: bool) -> str:
    who = "Your fighter" if fighter.side == PLAYER else ("The enemy drawn" if drawn else "The enemy")
    card = f" is card {fighter.card}, {fighter.name}" if fighter.card is not None else ""
    text = f"{who}{card}: {fighter.numbers()}."
    return text + (f" Skill: {fighter.skill}" if fighter.skill else "")


def initiative(a: int, mine: int, b: int, theirs: int, them: str) -> str:
    you = f"you roll {a}" + (f", plus 1 for the Pentagon: {a + 1}" if mine else "")
    other = f"{them} rolls {b}" + (f", plus 1 for the Pentagon: {b + 1}" if theirs else "")
    return f"Initiative on the d6: {you}; {other}."


def strike(side: str, result: Strike, defender: Fighter) -> str:
    subject = {PLAYER: "You roll", ENEMY: "The enemy rolls", BOSS: "The Boss rolls"}[side]
    return f"{subject} {result.spoken()}. {_whose(defender.side)} vitality {defender.vitality}."


def boss_hit(result: Strike, turn: int) -> str:
    passed = f" T{turn} passed." if result.damage > 0 else ""
    return f"You roll {result.spoken()}.{passed}"


def no_damage_to_boss(turn: int) -> str:
    return f"No damage to the Boss on T{turn}: the Boss wins. {BOSS_ENDS_IT}"


def capsule_ends(owner: str, name: str) -> str:
    return f"{'Your' if owner == PLAYER else 'The enemy' + chr(39) + 's'} {name} wears off."


def player_falls(deaths: int, limit: int, world_index: int) -> str:
    return f"Your fighter is defeated. Deaths in World {world_index + 1}: {deaths} of {limit}."


def enemy_falls(defeats: int, limit: int, world_index: int) -> str:
    return f"The enemy is defeated! Defeats in World {world_index + 1}: {defeats} of {limit}."


def three_deaths(limit: int, world_index: int) -> str:
    return f"{limit} deaths in World {world_index + 1}."


def capsule_used(side: str, slot: int, capsule: Capsule) -> str:
    who = "You use" if side == PLAYER else "The enemy answers with"
    return f"{who} capsule {slot}, {capsule.name}: {capsule.describe()}."


def vitality_now(side: str, vitality: int) -> str:
    return f"{_whose(side)} vitality {vitality}."


def pointless(slot: int, capsule: Capsule) -> str:
    return f"The enemy rolls capsule {slot}, {capsule.name}, which makes no sense now: its power is lost."


def braked(side: str) -> str:
    if side == ENEMY:
        return "The enemy cannot answer with a capsule in this battle."
    return "You cannot use a capsule in this battle."


def empty_slots(misses: Sequence[int]) -> str:
    shown = ", then ".join(str(m) for m in misses)
    plural = "empty slots" if len(misses) > 1 else "an empty slot"
    return f"The enemy's capsule d6 shows {shown}: {plural}, rolled again."


def event_starts(goer: str, tie: bool, depth: int) -> str:
    if tie:
        why = "Vitality is tied, so your fighter"
    elif goer == PLAYER:
        why = "You have less vitality, so your fighter"
    else:
        why = "The enemy has less vitality, so it"
    return f"Event! The fight stops. {why} goes into the Pentagon, depth {depth}."


def event_name(name: str, negative: bool, dark: bool) -> str:
    if negative:
        where = "on a dark quadrant: double damage" if dark else "on a light quadrant"
        return f"{name}: a negative event, {where}. Both fighters roll to resist."
    where = "on a dark quadrant: double" if dark else "on a light quadrant"
    return f"{name}: a positive event, {where}."


def resistance(side: str, roll: int, die: int, needed: int, damage: int, vitality: int) -> str:
    head = (f"You roll {roll} on the d{die}, you need {needed}" if side == PLAYER
            else f"The enemy rolls {roll} on the d{die}, needs {needed}")
    if not damage:
        return f"{head}: resisted."
    return f"{head}: {damage} damage. {_whose(side)} vitality {vitality}."


def event_gain(side: str, gain: int, vitality: int) -> str:
    who = "Your fighter gains" if side == PLAYER else "The enemy gains"
    return f"{who} {gain} vitality. {_whose(side)} vitality {vitality}."


def cancelled(names: Sequence[str]) -> str:
    listed = ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1]
    return f"The event cancels the capsules in play: {listed}."


def world_cleared(index: int) -> str:
    return f"World {index + 1} cleared!"


BONUS_SCREEN = "Bonus screen before the Boss!"
EXTRA_SCREEN = "Extra screen!"


def roll_prompt(kind: str, die: int) -> str:
    return f"Say roll for the {kind}: the d{die} adds vitality to your fighter."


def boss_intro(name: str, turns: int) -> str:
    return (f"Boss fight: {name}. No events in its dark region. {turns} turns: hurt the Boss on each "
            "of your turns, and survive its attacks.")


def boss_turn_prompt(turn: int, capsule: bool) -> str:
    return f"T{turn} is your turn: attack" + (", or use a capsule." if capsule else ".")


def boss_destroyed(name: str) -> str:
    return f"{name} is destroyed!"


def mission_complete(mission: str) -> str:
    return f"Mission complete: {mission}. You win!"


def screen_roll(kind: str, roll: int, die: int, plus: int, gain: int, vitality: int) -> str:
    extra = f", {'plus' if plus > 0 else 'minus'} {abs(plus)}" if plus else ""
    return f"{kind}: you roll {roll} on the d{die}{extra}: plus {gain} vitality. Your vitality {vitality}."


def stat_set(who: str, stat: str, value: int) -> str:
    return f"{_whose(who)} {stat} is now {signed(value)}."


def capsule_list(race: str, capsules: Sequence[Capsule | None], used: bool) -> str:
    slots = [f"{i}, {'empty' if c is None else c.name + ': ' + c.describe()}"
             for i, c in enumerate(capsules, start=1)]
    tail = ("You have used your capsule in this battle." if used
            else "Say capsule and its number when you attack.")
    if not slots:
        return f"The {race} race has no capsules."
    return f"Your {race} capsules: " + ". ".join(slots) + ". " + tail


def standing(player: int | None, enemy: int | None, mine: Sequence[Capsule], theirs: Sequence[Capsule]) -> str:
    """Where the fight stands in one breath: both Vitalities and the capsules in play."""
    parts = []
    if player is not None and enemy is not None:
        parts.append(f"Your vitality {player}, the enemy's {enemy}.")
    elif player is not None:
        parts.append(f"Your vitality {player}.")
    elif enemy is not None:
        parts.append(f"The enemy's vitality {enemy}.")
    in_play = [f"{whose} {', '.join(c.name for c in capsules)}"
               for whose, capsules in (("your", mine), ("the enemy's", theirs)) if capsules]
    if in_play:
        parts.append("In play: " + "; ".join(in_play) + ".")
    return " ".join(parts)


def fighter_status(fighter: Fighter, capsules: Sequence[Capsule]) -> str:
    who = "Your fighter" if fighter.side == PLAYER else "The enemy"
    name = f", {fighter.name}," if fighter.name else ""
    text = (f"{who}{name} has vitality {fighter.vitality}; attack {signed(fighter.attack)}, "
            f"defense {signed(fighter.defense)}, pentagon {fighter.pentagon}, {fighter.race}; "
            f"capsule {'used' if fighter.capsule_used else 'ready'}.")
    if capsules:
        text += " In play: " + ", ".join(c.name for c in capsules) + "."
    return text


def fixed_phrases(tables: Tables, enemies: int = 3, deaths: int = 3) -> Iterator[Say]:
    """Every sentence without live numbers that this data can make the narrator say."""
    texts: list[str] = list(FIXED)
    texts.append(welcome(tables.mission, len(tables.worlds)))
    if tables.examples:
        texts.append(example_note(tables.examples))
    for index, world in enumerate(tables.worlds):
        texts += [world_intro(index, world, enemies), world_cleared(index),
                  where(index, len(tables.worlds), world), boss_intro(world.boss.name, world.boss.turns),
                  boss_destroyed(world.boss.name),
                  STALEMATE.format(die=world.die), three_deaths(deaths, index) + " Game over."]
        texts += [player_falls(n, deaths, index) for n in range(1, deaths + 1)]
        texts += [enemy_falls(n, enemies, index) for n in range(1, enemies + 1)]
        for turn in range(1, world.boss.turns + 1):
            texts += [boss_turn_prompt(turn, True), boss_turn_prompt(turn, False),
                      no_damage_to_boss(turn) + " Game over."]
    texts += [BONUS_SCREEN, EXTRA_SCREEN, roll_prompt("Bonus", tables.bonus.die),
              roll_prompt("Extra", tables.extra.die), mission_complete(tables.mission)]
    for race, row in tables.rows.items():
        capsules = [None if s is None else tables.capsules[s] for s in row]
        texts += [capsule_list(race, capsules, True), capsule_list(race, capsules, False)]
        for slot, capsule in enumerate(capsules, start=1):
            if capsule is not None:
                texts += [capsule_used(PLAYER, slot, capsule), capsule_used(ENEMY, slot, capsule)]
    for name in tables.capsules:
        texts += [capsule_ends(PLAYER, name), capsule_ends(ENEMY, name), cancelled([name])]
        texts += [cancelled([name, other]) for other in tables.capsules]
    for side in (PLAYER, ENEMY):
        texts.append(braked(side))
        texts += [event_starts(side, False, depth) for depth in range(10)]
    texts += [event_starts(PLAYER, True, depth) for depth in range(10)]
    for card in tables.cards:
        for side, drawn in ((PLAYER, False), (ENEMY, False), (ENEMY, True)):
            fighter = Fighter(side, card.race, card.attack, card.defense, card.vitality, card.pentagon,
                              card.name, card.skill, card.number)
            texts.append(entered(fighter, drawn))
    for event in tables.events:
        texts += [event_name(event.name, event.negative, dark) for dark in (False, True)]
    seen: set[str] = set()
    for text in texts:
        if text not in seen:
            seen.add(text)
            yield say(text)
