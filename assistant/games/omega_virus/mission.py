"""The mission: skill and sign-on, then the countdown and what it brings by itself (the time
called, sectors shut down, probes lost, the Virus's win when time runs out)."""

from __future__ import annotations

from assistant.engine import Output, Say
from assistant.games.omega_virus import phrases as P
from assistant.games.omega_virus.state import BUTTONS, SUPPLY, Phase, SignOn
from assistant.games.omega_virus.station import Moves, Station


class Mission:
    """Sign-on and the countdown: the skill and the codes asked, the moments the countdown
    marks (the time called, a sector shut down, probes lost) and what waits for a quiet moment."""

    def __init__(self, station: Station, moves: Moves) -> None:
        self.station = station
        self.moves = moves
        self.signon = SignOn()
        self.marks: list[tuple[int, str]] = []   # (remaining ms, kind), soonest last
        self.queued: list[str] = []              # events waiting for a quiet moment
        self.shutdown_order: list[str] = []

    # ------------------------------------------------------------------ skill and sign-on

    def prompt_skill(self) -> None:
        self.station.speech.prompt([P.ENTER_SKILL])

    def press_skill(self, button: str) -> None:
        if button == "R":
            self.station.speech.repeat_prompt()
            return
        self.signon.skill = int(button)
        for player in self.station.players.values():
            player.playing, player.missed, player.code = False, 0, ""
            player.cards, player.avds, player.probe = set(), set(), False
        self.station.supply = dict(SUPPLY)
        self.signon.queue = list(self.station.board.seat_order)
        self.station.phase = Phase.SIGNON
        self._ask_next_code()

    def _ask_next_code(self) -> None:
        self.station.entry = []
        if not self.signon.queue:
            self._begin_mission()
            return
        self.signon.asking = self.signon.queue.pop(0)
        self.moves.enter(Phase.SIGNON)
        self.station.speech.prompt([P.enter_code(self.signon.asking)])

    def press_signon(self, button: str) -> None:
        assert self.signon.asking is not None
        if button == "R":
            self.station.deadline_ms = None
            self._ask_next_code()
            return
        self.station.entry.append(button)
        if len(self.station.entry) == 2:
            player = self.station.players[self.signon.asking]
            player.code, player.playing = "".join(self.station.entry), True
            player.cards = {"green card"}  # each player's own, from the start
            self.station.deadline_ms = None
            self._ask_next_code()

    def signon_timeout(self) -> None:
        assert self.signon.asking is not None
        player = self.station.players[self.signon.asking]
        player.missed += 1
        if player.missed < 2:
            self.signon.queue.append(self.signon.asking)
        self._ask_next_code()

    def _begin_mission(self) -> None:
        colors = self.station.playing()
        if not colors:
            self.station.phase = Phase.SKILL
            self.station.speech.prompt([P.NO_ONE_SIGNED_ON])
            return
        assert self.signon.skill is not None
        minutes = self.station.settings.time_chart[str(self.signon.skill)][len(colors) - 1]
        self.station.limit_ms = int(minutes * 60_000)
        self.station.used_ms = 0
        rooms = self.station.board.rooms
        self.station.virus_room = self.station.rng.choice(rooms).code
        virus_sector = self.station.board.room(self.station.virus_room).sector  # type: ignore[union-attr]
        self.station.termination_button = self.station.rng.choice(BUTTONS)
        others = [s for s in self.station.board.sectors if s != virus_sector]
        self.station.rng.shuffle(others)
        self.shutdown_order = others
        for room in rooms:
            trap = self.station.rng.random() < self.station.settings.teleport_trap_share
            self.station.hazard_kind[room.code] = "teleport" if trap else "breach"
        self._draw_natures([r.code for r in rooms])
        self._schedule_marks()
        self.station.speech.say(Say(P.VIRUS, P.time_left(self.station.limit_ms // 1000)))
        self.station.phase = Phase.MOVE
        self.moves.start_turn(self.station.rng.choice(colors))

    def _schedule_marks(self) -> None:
        marks: list[tuple[int, str]] = []
        limit = self.station.limit_ms
        for minutes in self.station.settings.announce_minutes:
            ms = int(minutes * 60_000)
            if 0 < ms < limit:
                marks.append((ms, "time"))
        if self.signon.skill != 2:
            for minutes in self.station.settings.shutdown_minutes[:3]:
                ms = int(minutes * 60_000)
                if 0 < ms < limit:
                    marks.append((ms, "shutdown"))
        for minutes in self.station.settings.probe_loss_minutes:
            ms = int(minutes * 60_000)
            if 0 < ms < limit:
                marks.append((ms, "probes"))
        order = {"shutdown": 0, "time": 1, "probes": 2}
        self.marks = sorted(marks, key=lambda m: (m[0], -order[m[1]]))

    def _draw_natures(self, codes: list[str]) -> None:
        for color in self.station.playing():
            for code in codes:
                self.station.nature[(color, code)] = self.draw_nature()

    def draw_nature(self) -> str:
        r = self.station.rng.random()
        if r < self.station.settings.wanted_chance:
            return "wanted"
        if r < self.station.settings.wanted_chance + self.station.settings.hazard_chance:
            return "hazard"
        return "nothing"

    # ------------------------------------------------------------------ the countdown

    def next_event_in(self) -> float | None:
        times: list[int] = []
        if self.station.deadline_ms is not None and self.station.phase is not Phase.OVER:
            times.append(self.station.deadline_ms - self.station.clock_ms)
        if self.station.countdown_running():
            next_mark = self.marks[-1][0] if self.marks else 0
            times.append(self.station.remaining_ms - next_mark)
        if not times:
            return None
        return max(min(times), 0) / 1000

    def advance(self, seconds: float) -> list[Output]:
        left = round(seconds * 1000)
        while left > 0 and self.station.phase is not Phase.OVER:
            step = left
            if self.station.deadline_ms is not None:
                step = min(step, max(self.station.deadline_ms - self.station.clock_ms, 0))
            if self.station.countdown_running():
                next_mark = self.marks[-1][0] if self.marks else 0
                step = min(step, max(self.station.remaining_ms - next_mark, 0))
            self.station.clock_ms += step
            if self.station.countdown_running():
                self.station.used_ms += step
            left -= step
            self._fire_due()
        return self.station.speech.flush()

    def _fire_due(self) -> None:
        if self.station.deadline_ms is not None and self.station.clock_ms >= self.station.deadline_ms:
            self.station.deadline_ms = None
            self.moves.timeout()
        if not self.station.countdown_running():
            return
        if self.station.remaining_ms <= 0:
            self._time_up()
            return
        fired = False
        while self.marks and self.station.remaining_ms <= self.marks[-1][0]:
            _, kind = self.marks.pop()
            self.queued.append(kind)
            fired = True
        if fired and self.station.phase is Phase.MOVE:
            said = len(self.station.speech.out)
            self.run_queued()
            if self.station.phase is Phase.MOVE and self.station.mover is not None:
                color, unit = self.station.mover
                if unit == "probe" and not self.station.players[color].probe:
                    self.moves.next_player()  # the probe whose move it was is gone
                elif len(self.station.speech.out) > said:
                    self.moves.say_prompt()  # something was said: whose move it is, again

    def run_queued(self) -> None:
        while self.queued and self.station.phase is not Phase.OVER:
            kind = self.queued.pop(0)
            if kind == "time":
                self._announce_time()
            elif kind == "shutdown":
                self._shutdown()
            elif kind == "probes":
                self._destroy_probes()

    def _announce_time(self) -> None:
        seconds = round(self.station.remaining_ms / 1000)
        if seconds >= 60:
            seconds = round(seconds / 60) * 60
        self.station.speech.special(Say(P.VIRUS, P.time_left(seconds)))
        knowing = [c for c in self.station.playing() if self.station.players[c].knows_virus]
        if knowing and self.station.rng.random() < self.station.settings.must_be_terminated_chance:
            self.station.speech.special(P.must_be_terminated(self.station.rng.choice(knowing)))

    def _shutdown(self) -> None:
        if not self.shutdown_order:
            return
        sector = self.shutdown_order.pop(0)
        self.station.shut.append(sector)
        self.station.speech.special(P.sector_shut_down(sector))
        open_rooms = [r.code for r in self.station.board.rooms if r.sector not in self.station.shut]
        self._draw_natures(open_rooms)  # items shift; the Virus stays where it is

    def _destroy_probes(self) -> None:
        for color in self.station.playing():
            player = self.station.players[color]
            if player.probe and self.station.rng.random() < self.station.settings.probe_loss_chance:
                player.probe = False
                self.station.speech.special(P.destroyed(color, "probe", P.VIRUS))

    def _time_up(self) -> None:
        lines: list[Output] = [P.TOO_LATE]
        lines.extend(P.terminated(c) for c in self.station.playing())
        self.station.speech.announce(lines)
        self.game_over()

    def game_over(self) -> None:
        self.station.phase = Phase.OVER
        self.station.deadline_ms = None
        self.marks = []
        self.queued = []
