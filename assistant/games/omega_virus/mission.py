"""The mission: skill and sign-on, then the countdown and what it brings by itself (the time
called, sectors shut down, probes lost, the Virus's win when time runs out)."""

from __future__ import annotations

from assistant.engine import Output, Say
from assistant.games.omega_virus import phrases as P
from assistant.games.omega_virus.state import BUTTONS, SUPPLY, Phase
from assistant.games.omega_virus.station import Station


class Mission(Station):
    """Sign-on and the countdown."""

    # ------------------------------------------------------------------ skill and sign-on

    def _prompt_skill(self) -> None:
        self.speech.prompt([P.ENTER_SKILL])

    def _press_skill(self, button: str) -> None:
        if button == "R":
            self.speech.repeat_prompt()
            return
        self.signon.skill = int(button)
        for player in self.players.values():
            player.playing, player.missed, player.code = False, 0, ""
            player.cards, player.avds, player.probe = set(), set(), False
        self.supply = dict(SUPPLY)
        self.signon.queue = list(self.board.seat_order)
        self.phase = Phase.SIGNON
        self._ask_next_code()

    def _ask_next_code(self) -> None:
        self.entry = []
        if not self.signon.queue:
            self._begin_mission()
            return
        self.signon.asking = self.signon.queue.pop(0)
        self._enter(Phase.SIGNON)
        self.speech.prompt([P.enter_code(self.signon.asking)])

    def _press_signon(self, button: str) -> None:
        assert self.signon.asking is not None
        if button == "R":
            self.deadline_ms = None
            self._ask_next_code()
            return
        self.entry.append(button)
        if len(self.entry) == 2:
            player = self.players[self.signon.asking]
            player.code, player.playing = "".join(self.entry), True
            player.cards = {"green card"}  # each player's own, from the start
            self.deadline_ms = None
            self._ask_next_code()

    def _signon_timeout(self) -> None:
        assert self.signon.asking is not None
        player = self.players[self.signon.asking]
        player.missed += 1
        if player.missed < 2:
            self.signon.queue.append(self.signon.asking)
        self._ask_next_code()

    def _begin_mission(self) -> None:
        colors = self.playing()
        if not colors:
            self.phase = Phase.SKILL
            self.speech.prompt([P.NO_ONE_SIGNED_ON])
            return
        assert self.signon.skill is not None
        minutes = self.settings.time_chart[str(self.signon.skill)][len(colors) - 1]
        self.limit_ms = int(minutes * 60_000)
        self.used_ms = 0
        rooms = self.board.rooms
        self.virus_room = self.rng.choice(rooms).code
        virus_sector = self.board.room(self.virus_room).sector  # type: ignore[union-attr]
        self.termination_button = self.rng.choice(BUTTONS)
        others = [s for s in self.board.sectors if s != virus_sector]
        self.rng.shuffle(others)
        self.shutdown_order = others
        for room in rooms:
            trap = self.rng.random() < self.settings.teleport_trap_share
            self.hazard_kind[room.code] = "teleport" if trap else "breach"
        self._draw_natures([r.code for r in rooms])
        self._schedule_marks()
        self.speech.say(Say(P.VIRUS, P.time_left(self.limit_ms // 1000)))
        self.phase = Phase.MOVE
        self._start_turn(self.rng.choice(colors))

    def _schedule_marks(self) -> None:
        marks: list[tuple[int, str]] = []
        limit = self.limit_ms
        for minutes in self.settings.announce_minutes:
            ms = int(minutes * 60_000)
            if 0 < ms < limit:
                marks.append((ms, "time"))
        if self.signon.skill != 2:
            for minutes in self.settings.shutdown_minutes[:3]:
                ms = int(minutes * 60_000)
                if 0 < ms < limit:
                    marks.append((ms, "shutdown"))
        for minutes in self.settings.probe_loss_minutes:
            ms = int(minutes * 60_000)
            if 0 < ms < limit:
                marks.append((ms, "probes"))
        order = {"shutdown": 0, "time": 1, "probes": 2}
        self.marks = sorted(marks, key=lambda m: (m[0], -order[m[1]]))

    def _draw_natures(self, codes: list[str]) -> None:
        for color in self.playing():
            for code in codes:
                self.nature[(color, code)] = self._draw_nature()

    def _draw_nature(self) -> str:
        r = self.rng.random()
        if r < self.settings.wanted_chance:
            return "wanted"
        if r < self.settings.wanted_chance + self.settings.hazard_chance:
            return "hazard"
        return "nothing"

    # ------------------------------------------------------------------ the countdown

    def next_event_in(self) -> float | None:
        times: list[int] = []
        if self.deadline_ms is not None and self.phase is not Phase.OVER:
            times.append(self.deadline_ms - self.clock_ms)
        if self.countdown_running():
            next_mark = self.marks[-1][0] if self.marks else 0
            times.append(self.remaining_ms - next_mark)
        if not times:
            return None
        return max(min(times), 0) / 1000

    def advance(self, seconds: float) -> list[Output]:
        left = round(seconds * 1000)
        while left > 0 and self.phase is not Phase.OVER:
            step = left
            if self.deadline_ms is not None:
                step = min(step, max(self.deadline_ms - self.clock_ms, 0))
            if self.countdown_running():
                next_mark = self.marks[-1][0] if self.marks else 0
                step = min(step, max(self.remaining_ms - next_mark, 0))
            self.clock_ms += step
            if self.countdown_running():
                self.used_ms += step
            left -= step
            self._fire_due()
        return self.speech.flush()

    def _fire_due(self) -> None:
        if self.deadline_ms is not None and self.clock_ms >= self.deadline_ms:
            self.deadline_ms = None
            self._timeout()
        if not self.countdown_running():
            return
        if self.remaining_ms <= 0:
            self._time_up()
            return
        fired = False
        while self.marks and self.remaining_ms <= self.marks[-1][0]:
            _, kind = self.marks.pop()
            self.queued.append(kind)
            fired = True
        if fired and self.phase is Phase.MOVE:
            said = len(self.speech.out)
            self._run_queued()
            if self.phase is Phase.MOVE and self.mover is not None:
                color, unit = self.mover
                if unit == "probe" and not self.players[color].probe:
                    self._next_player()  # the probe whose move it was is gone
                elif len(self.speech.out) > said:
                    self._say_prompt()  # something was said: whose move it is, again

    def _run_queued(self) -> None:
        while self.queued and self.phase is not Phase.OVER:
            kind = self.queued.pop(0)
            if kind == "time":
                self._announce_time()
            elif kind == "shutdown":
                self._shutdown()
            elif kind == "probes":
                self._destroy_probes()

    def _announce_time(self) -> None:
        seconds = round(self.remaining_ms / 1000)
        if seconds >= 60:
            seconds = round(seconds / 60) * 60
        self.speech.special(Say(P.VIRUS, P.time_left(seconds)))
        knowing = [c for c in self.playing() if self.players[c].knows_virus]
        if knowing and self.rng.random() < self.settings.must_be_terminated_chance:
            self.speech.special(P.must_be_terminated(self.rng.choice(knowing)))

    def _shutdown(self) -> None:
        if not self.shutdown_order:
            return
        sector = self.shutdown_order.pop(0)
        self.shut.append(sector)
        self.speech.special(P.sector_shut_down(sector))
        open_rooms = [r.code for r in self.board.rooms if r.sector not in self.shut]
        self._draw_natures(open_rooms)  # items shift; the Virus stays where it is

    def _destroy_probes(self) -> None:
        for color in self.playing():
            player = self.players[color]
            if player.probe and self.rng.random() < self.settings.probe_loss_chance:
                player.probe = False
                self.speech.special(P.destroyed(color, "probe", P.VIRUS))

    def _time_up(self) -> None:
        lines: list[Output] = [P.TOO_LATE]
        lines.extend(P.terminated(c) for c in self.playing())
        self.speech.announce(lines)
        self._game_over()

    def _game_over(self) -> None:
        self.phase = Phase.OVER
        self.deadline_ms = None
        self.marks = []
        self.queued = []
