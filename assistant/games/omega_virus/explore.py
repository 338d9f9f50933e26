"""Exploring a Room: the Room code entered, what is found there (an item, a hazard, nothing,
or the Virus itself), and the Room's code said to the explorer at the end of every explore."""

from __future__ import annotations

from assistant.games.omega_virus import phrases as P
from assistant.games.omega_virus.battle import Battle
from assistant.games.omega_virus.mission import Mission
from assistant.games.omega_virus.state import AVDS, BUTTONS, Defense, Phase
from assistant.games.omega_virus.station import Moves, Station


class Exploration:
    """The explore under way (the Room being explored) and the Room codes each player has
    been told, so the same Room tells a player the same code again."""

    def __init__(self, station: Station, moves: Moves, mission: Mission, battle: Battle) -> None:
        self.station = station
        self.moves = moves
        self.mission = mission
        self.battle = battle
        self.room: str | None = None
        self.codes: dict[tuple[str, str], str] = {}

    def press_room_code(self, button: str) -> None:
        if button == "R":
            self.station.entry = []
            self.station.speech.prompt([P.WHICH_ROOM])
            return
        self.station.entry.append(button)
        if len(self.station.entry) == 3:
            code = "".join(self.station.entry)
            self.station.entry = []
            if self.station.board.room(code) is None:
                self.moves.wrong()
            else:
                self.explore(code)

    def explore(self, code: str) -> None:
        assert self.station.mover is not None
        color, unit = self.station.mover
        player = self.station.players[color]
        room = self.station.board.room(code)
        assert room is not None
        if room.sector in self.station.shut or f"{room.color} card" not in player.cards:
            self.station.speech.announce([P.ACCESS_DENIED])
            self.moves.end_move()
            return
        if code == self.station.virus_room and unit == "commando" and player.avds >= set(AVDS):
            player.last_room = code
            self.moves.enter(Phase.TERMINATE)
            self.station.speech.announce([P.FOUND_ME])
            self.station.speech.prompt_is_announcement()
            return
        self.room = code
        if player.last_room == code:
            self.station.speech.announce([P.NOTHING_HERE])
            self.finish()
            return
        player.last_room = code
        nature = self.station.nature[(color, code)]
        if self.station.rng.random() >= self.station.settings.persistence:
            nature = self.mission.draw_nature()
            self.station.nature[(color, code)] = nature
        if nature == "wanted":
            item = self.station.choose_item(player, room.color)
            if item is None:
                self.station.speech.announce([P.NOTHING_HERE])
            else:
                self.station.give(player, item)
                self.station.speech.announce([P.found(item)])
            self.finish()
        elif nature == "hazard" and self.station.hazard_kind[code] == "teleport":
            self.station.speech.announce([P.teleported(color, unit, self.station.random_bay(), P.BSAT1)])
            self.finish()
        elif nature == "hazard":
            n = self.station.rng.randint(1, 3)
            self.battle.defense = Defense(color, unit, n, self.station.rng.choice(BUTTONS), None, code)
            self.moves.enter(Phase.SHIELDS)
            self.station.speech.announce([P.breach(code), P.energize(color, n)])
            self.station.speech.last_prompt = [P.energize(color, n)]
        else:
            self.station.speech.announce([P.NOTHING_HERE])
            self.finish()

    def finish(self) -> None:
        """Every explore ends with the Room's code for the explorer."""
        assert self.station.mover is not None and self.room is not None
        color = self.station.mover[0]
        player = self.station.players[color]
        code = self.room
        if code == self.station.virus_room:
            digits = player.code
            player.knows_virus = True
        else:
            key = (color, code)
            if key not in self.codes:
                others = [a + b for a in "012" for b in "012" if a + b != player.code]
                self.codes[key] = self.station.rng.choice(others)
            digits = self.codes[key]
        self.station.speech.add_to_announcement(P.code(digits))
        self.room = None
        self.moves.end_move()
