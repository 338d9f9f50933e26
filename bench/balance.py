"""Balance simulation: seeded bots play the Command Center with realistic turn times.

    python -m bench.balance [--games 200] [--seed 1]

Prints, per skill level and number of players, how often the players beat the Virus and
how long games last (minutes of countdown used). The bots play as competent humans do:
they explore rooms whose color can give what they lack, keep a log of what each room
gave, remember the room where they heard their own code, teleport between sectors, take
15-35 s to move a Commando and 8-20 s for a Probe, and a few seconds to energize shields.
They see only what a player sees: the announcements and their own items.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from assistant.engine import Command, NotAllowed, Output, Say
from assistant.games.omega_virus.engine import AVDS, ROOM_ITEMS, CommandCenter, Phase, Settings

SEATS = ("red", "blue", "green", "yellow")
BUTTONS = ("0", "1", "2", "R")


@dataclass
class Bot:
    color: str
    code: str
    sector: str
    probe_sector: str
    log: dict[str, str] = field(default_factory=dict)   # room -> wanted / hazard / nothing
    virus_room: str | None = None
    tried: set[str] = field(default_factory=set)
    explored: set[str] = field(default_factory=set)


class Table:
    """One simulated game: the engine, the bots, and the time their hands take."""

    def __init__(self, seed: int, skill: int, n_players: int, settings: Settings | None = None) -> None:
        self.rng = random.Random(seed * 7919 + 17)
        self.cc = CommandCenter(random.Random(seed), settings or Settings(attack_shot="random"))
        self.players = SEATS[:n_players]
        self.bots: dict[str, Bot] = {}
        self.shut: set[str] = set()
        self.last: list[Output] = self.cc.start()
        self.do(Command("skill", {"level": str(skill)}))
        for color in self.cc.board.seat_order:
            if color in self.players:
                code = self.rng.choice("012") + self.rng.choice("012")
                self.bots[color] = Bot(color, code, color, color)
                self.do(Command("code", {"d1": code[0], "d2": code[1]}))
            else:
                self.do(Command("skip"))

    def do(self, command: Command, seconds: float = 0.0) -> None:
        out = self.cc.advance(seconds) if seconds else []
        self.listen(out)
        if self.cc.is_over():
            return
        try:
            out = self.cc.handle(command)
        except NotAllowed:
            out = []
        self.listen(out)

    def listen(self, outputs: Sequence[Output]) -> None:
        for output in outputs:
            if not isinstance(output, Say):
                continue
            m = re.fullmatch(r"(\w+) Sector shut down!", output.text)
            if m:
                sector = m.group(1).lower()
                self.shut.add(sector)
                for bot in self.bots.values():
                    open_sectors = [s for s in self.cc.board.sectors if s not in self.shut]
                    if bot.sector == sector:
                        bot.sector = self.rng.choice(open_sectors)
                    if bot.probe_sector == sector:
                        bot.probe_sector = self.rng.choice(open_sectors)
            m = re.fullmatch(r"(\w+)( Probe)? teleported to (\w+) Docking Bay\.", output.text)
            if m and m.group(1).lower() in self.bots:
                bot = self.bots[m.group(1).lower()]
                if m.group(2):
                    bot.probe_sector = m.group(3).lower()
                else:
                    bot.sector = m.group(3).lower()
        self.last = list(outputs)

    def run(self) -> tuple[bool, float]:
        cc = self.cc
        for _ in range(5000):
            if cc.is_over():
                break
            self.step()
        return cc.winner is not None, cc.used_ms / 60_000

    def step(self) -> None:
        cc = self.cc
        rng = self.rng
        if cc.phase is Phase.SHIELDS:
            assert cc.defense is not None
            self.do(Command("press", {"buttons": " ".join(rng.sample(BUTTONS, cc.defense.n))}),
                    rng.uniform(2, 5))
            return
        if cc.phase is Phase.TERMINATE:
            assert cc.mover is not None
            bot = self.bots[cc.mover[0]]
            choice = rng.choice([b for b in BUTTONS if b not in bot.tried] or list(BUTTONS))
            bot.tried.add(choice)
            self.do(Command("press", {"buttons": choice}), rng.uniform(2, 4))
            return
        if cc.phase is Phase.SHOT:
            self.do(Command("press", {"buttons": rng.choice(BUTTONS)}), rng.uniform(2, 4))
            return
        if cc.phase is not Phase.MOVE or cc.mover is None:
            self.do(Command("press", {"buttons": "0"}), 1.0)
            return
        color, unit = cc.mover
        bot = self.bots[color]
        hand_time = rng.uniform(15, 35) if unit == "commando" else rng.uniform(8, 20)
        command = self.decide(bot, unit)
        room = "".join(command.slots[k] for k in ("d1", "d2", "d3")) if command.intent == "explore" else None
        self.do(command, hand_time)
        if room is not None:
            self.learn(bot, room)
            bot.explored.add(room)

    def learn(self, bot: Bot, room: str) -> None:
        texts = [o.text for o in self.last if isinstance(o, Say)]
        if f"Code {bot.code[0]} {bot.code[1]}." in texts or "You found me! Try and stop me!" in texts:
            bot.virus_room = room
        if any(t.endswith("found!") for t in texts):
            bot.log[room] = "wanted"
        elif any("Security breach" in t or "teleported" in t for t in texts):
            bot.log[room] = "hazard"
        elif "Nothing here!" in texts:
            bot.log.setdefault(room, "nothing")

    def decide(self, bot: Bot, unit: str) -> Command:
        cc = self.cc
        player = cc.players[bot.color]
        where = bot.sector if unit == "commando" else bot.probe_sector
        virus = cc.board.room(bot.virus_room) if bot.virus_room else None
        if (unit == "commando" and virus is not None and player.avds == set(AVDS)
                and f"{virus.color} card" in player.cards):
            return self.go(bot, unit, virus.code, virus.sector, where)
        best: list[tuple[float, str, str]] = []
        for room in cc.board.rooms:
            if room.sector in self.shut or f"{room.color} card" not in player.cards:
                continue
            if room.code == player.last_room:
                continue
            needs = [i for i in ROOM_ITEMS[room.color] if not player.holds(i)]
            score = 2.0 * len([i for i in needs if i in AVDS]) + len(needs)
            seen = bot.log.get(room.code)
            score += {"wanted": 2.0, "hazard": -3.0, "nothing": -1.0}.get(seen or "", 0.0)
            if bot.virus_room is None:
                hunting = player.avds == set(AVDS)  # all set: now only the Virus matters
                if room.code in bot.explored:
                    score -= 4.0 if hunting else 0.0
                else:
                    score += 4.0 if hunting else 1.0
            if room.sector == where:
                score += 2.5
            best.append((score + self.rng.random(), room.code, room.sector))
        if not best:
            return Command("pass")
        _, code, sector = max(best)
        return self.go(bot, unit, code, sector, where)

    def go(self, bot: Bot, unit: str, code: str, sector: str, where: str) -> Command:
        """Explore if the room can be reached this move; otherwise head there (teleport = pass)."""
        reach = 0.85 if unit == "probe" else 0.7
        if sector == where and self.rng.random() < reach:
            return Command("explore", {"d1": code[0], "d2": code[1], "d3": code[2]})
        if sector != where:
            if unit == "commando":
                bot.sector = sector
            else:
                bot.probe_sector = sector
        return Command("pass")


def simulate(games: int, seed: int, settings: Settings | None = None) -> list[tuple[int, int, float, float, float]]:
    rows = []
    for skill in (0, 1, 2):
        for n in (1, 2, 3, 4):
            wins, lengths, win_lengths = 0, [], []
            for g in range(games):
                won, minutes = Table(seed * 100_000 + skill * 10_000 + n * 1000 + g, skill, n, settings).run()
                wins += won
                lengths.append(minutes)
                if won:
                    win_lengths.append(minutes)
            rows.append((skill, n, wins / games, statistics.mean(lengths),
                         statistics.mean(win_lengths) if win_lengths else float("nan")))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per skill and player count")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    started = time.monotonic()
    rows = simulate(args.games, args.seed)
    print(f"Balance: {args.games} seeded games per cell (seed {args.seed}), bots with realistic turn times")
    print("skill  players  time limit  players win  mean minutes used  mean minutes to win")
    chart = Settings().time_chart
    for skill, n, rate, mean_len, win_len in rows:
        print(f"{skill:>5}  {n:>7}  {chart[str(skill)][n - 1]:>7} min  {rate:>10.0%}  {mean_len:>17.1f}"
              f"  {win_len:>19.1f}")
    for skill in (0, 1, 2):
        rates = [r[2] for r in rows if r[0] == skill]
        print(f"skill {skill}: players win {statistics.mean(rates):.0%} of games overall")
    print(f"({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
