"""The phone keypad's web server: one page, joined with the game's PIN, that shows each player
what the game asks of them and sends their presses, over a WebSocket.

It runs in its own thread with its own asyncio loop, so the live loop stays synchronous: the
server reads what the game asks (``request``, a callable) and hands each press it takes to
``on_press``, exactly as any other keypad does. A press is taken only from the phone whose
color the game is asking for a private entry, only as many as the entry needs, and not while
the assistant speaks (the rulebook: buttons pressed while the computer talks do nothing).
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web

from assistant.games import PrivateRequest
from assistant.live.keypad import KeypadError
from assistant.phone.access import Door, Refused
from assistant.phone.network import MDNS_NAME, Mdns, lan_address, print_qr
from assistant.phone.turns import Turns, title, waiting_text

if TYPE_CHECKING:
    from assistant.config import Config
    from assistant.session import Session

COOKIE = "omega_phone"
#: How long a phone keeps its token (a browser closed and opened again is still joined).
COOKIE_S = 12 * 3600
DEFAULT_PORT = 8470
#: How often the server looks at what the game asks (and tells the phones what changed).
POLL_S = 0.1
FILES = {"/": ("index.html", "text/html"), "/app.js": ("app.js", "text/javascript"),
         "/style.css": ("style.css", "text/css")}
HEADERS = {"Cache-Control": "no-store", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer",
           "X-Content-Type-Options": "nosniff",
           "Content-Security-Policy": "default-src 'self'; connect-src 'self'; frame-ancestors 'none'"}


#: The largest request body taken (a join is about 40 bytes), and the deepest nesting in any JSON
#: sent (a join or a press is one level): more is refused before it is parsed.
MAX_BODY = 4096
MAX_DEPTH = 4
#: Lines about refused requests (malformed HTTP) printed per minute at most: a flood fills no log.
LOG_LINES_PER_MINUTE = 10


class PhoneError(KeypadError):
    """The server cannot start; the message says what to do (a KeypadError, as any keypad's)."""


class NotJson(ValueError):
    """A body or message that is not the small JSON object the page sends; says why."""


def small_json(text: str | bytes) -> dict[str, Any]:
    """``text`` as a JSON object, refused (NotJson) when it nests deeper than ``MAX_DEPTH``: the
    depth is counted before parsing, so no input can make the parser recurse without bound."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise NotJson("Send JSON text.") from error
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise NotJson(f"The request is nested too deeply (at most {MAX_DEPTH} levels).")
        elif char in "]}":
            depth -= 1
    try:
        data = json.loads(text)
    except ValueError as error:
        raise NotJson("Send JSON.") from error
    if not isinstance(data, dict):
        raise NotJson("Send a JSON object.")
    return data


class OneLine(logging.Handler):
    """aiohttp's own reports (a malformed request, refused with a 400) as one line each, without a
    traceback, and at most ``LOG_LINES_PER_MINUTE`` a minute."""

    def __init__(self, out: Callable[[str], None], clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(logging.INFO)
        self.out = out
        self.clock = clock
        self._shown: list[float] = []
        self._held = 0

    def emit(self, record: logging.LogRecord) -> None:
        now = self.clock()
        self._shown = [t for t in self._shown if now - t < 60.0]
        if len(self._shown) >= LOG_LINES_PER_MINUTE:
            self._held += 1
            return
        self._shown.append(now)
        line = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            why = " ".join(str(error).split())[:200]  # aiohttp's message spans lines
            line = f"{line}: {type(error).__name__}" + (f": {why}" if why else "")
        if self._held:
            line += f" ({self._held} more not shown)"
            self._held = 0
        self.out(f"phone keypad: {line}")


def _http_log() -> logging.Logger:
    """The logger handed to aiohttp: its own, so nothing reaches the root logger's tracebacks."""
    log = logging.getLogger("assistant.phone.http")
    if not log.handlers:
        log.addHandler(OneLine(lambda line: print(line, file=sys.stderr, flush=True)))
        log.propagate = False
        log.setLevel(logging.INFO)
    return log


@dataclass(frozen=True)
class PhoneSettings:
    """``phone:`` in config.yaml."""

    #: "" (the default): the address of this machine on the home network; "all": every
    #: network interface; or one address to listen on ("127.0.0.1": this machine only).
    bind: str = ""
    port: int = DEFAULT_PORT
    #: Also announce the name omega.local (mDNS, with zeroconf).
    mdns: bool = False

    @classmethod
    def from_config(cls, config: Config) -> PhoneSettings:
        return cls(bind=config.value("phone.bind").strip(), port=config.value("phone.port"),
                   mdns=config.value("phone.mdns"))


class PhoneKeypad:
    """Every player's phone as a private keypad: the Keypad protocol (``start(on_press)``,
    ``stop()``), plus what BSat1 says about it and what the table may decide about it.

    ``colors``: the colors a phone may join as; ``request``: what the game asks which color to
    enter in private now; ``busy``: whether the assistant is speaking. ``follow(session)`` sets
    all three from a session. The PIN is new for every game; the phones let in stay in.
    """

    def __init__(self, settings: PhoneSettings | None = None, colors: Sequence[str] = (),
                 request: Callable[[], PrivateRequest | None] = lambda: None,
                 busy: Callable[[], bool] = lambda: False, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings or PhoneSettings()
        self.door = Door(colors, clock)
        self.turns = Turns(self.door, clock, request, busy)
        self._current: Callable[[], Session | None] = lambda: None
        self.host: str | None = None   # the address phones are told
        self.port: int | None = None   # the port bound (settings.port 0: any free one)
        self._on_press: Callable[[str], None] = lambda button: None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._sockets: dict[web.WebSocketResponse, str] = {}   # socket -> its phone's token
        self._sent: dict[web.WebSocketResponse, dict[str, Any]] = {}
        self._game_seen: object = None
        self._game_lock = threading.Lock()
        self._mdns: Mdns | None = None
        self._told: set[str] = set()   # tokens of the waiting phones the table was told of
        self._told_lock = threading.Lock()

    @classmethod
    def from_config(cls, config: Config) -> PhoneKeypad:
        return cls(PhoneSettings.from_config(config))

    def follow(self, session: Session | Callable[[], Session | None], busy: Callable[[], bool] | None = None
               ) -> None:
        """Ask the session what its game wants: ``session`` itself, or a function giving the one
        playing now (the box's: None in its menu). A new game (another session, or "new game"
        in one) gets a new PIN and its colors. ``busy``: whether the assistant is speaking."""
        current: Callable[[], Session | None] = session if callable(session) else (lambda: session)

        def request() -> PrivateRequest | None:
            playing = current()
            if playing is None or playing.paused or playing.confirming_new_game:
                return None  # the session would take no press now
            return playing.spec.private_request(playing.game)

        self._current = current
        self.turns.request = request
        if busy is not None:
            self.turns.busy = busy
        with self._game_lock:
            self._game_seen = None
        self._check_game(renew=False)

    def _check_game(self, renew: bool = True) -> None:
        """Take up the game now played, if it changed: its colors, and a new PIN."""
        playing = self._current()
        if playing is None:
            return  # between games (the box's menu): phones and PIN stay as they are
        # The session itself, not its id(): a session let go of can leave its id to the next one
        # (the same seed then hid a new game); held here, its id cannot be reused meanwhile.
        game = (playing, playing.seed)
        with self._game_lock:
            seen = self._game_seen
            if isinstance(seen, tuple) and seen[0] is playing and seen[1] == playing.seed:
                return
            self._game_seen = game
            self.door.colors = playing.spec.private_colors
            if renew:
                self.door.renew_pin()

    # ------------------------------------------------------------------ what BSat1 says

    @property
    def pin(self) -> str:
        """The PIN of the game played now: a game just started gets its own first (read before the
        server's next look at the game, the PIN would otherwise change under the reader)."""
        self._check_game()
        return self.door.pin

    @property
    def serving(self) -> bool:
        """Started and not stopped: phones can reach it at ``url``."""
        return self._thread is not None

    @property
    def url(self) -> str:
        host = self.host or self._announced_host()
        port = self.port if self.port is not None else self.settings.port
        return f"http://{host or '127.0.0.1'}:{port}"

    def announcement(self) -> str:
        """What BSat1 says at the start and on "phone keypad": the address and the PIN (a PIN
        retired after too many wrong tries is replaced first)."""
        self._check_game()  # a game just started: its PIN, not the last game's
        if self.door.retired:
            self.door.renew_pin()
        if (self.host or self._announced_host()) is None:
            return ("Phone keypad: this box is not on a network. Connect it to the home network, "
                    "then say phone keypad.")
        return f"Phone keypad: open {self.url} and enter PIN {' '.join(self.pin)}."

    def spoken_announcement(self) -> str:
        """The announcement as the voice reads it right: the address digit by digit with "dot"
        and "port" (a phone's browser takes "192.168.1.20:8470" typed without http://)."""
        text = self.announcement()
        host = self.host or self._announced_host()
        if host is None:
            return text
        port = self.port if self.port is not None else self.settings.port

        def spelled(part: str) -> str:
            return " ".join(part)

        address = " dot ".join(spelled(part) for part in host.split("."))
        return (f"Phone keypad: on your phone, open {address}, port {spelled(str(port))}, "
                f"and enter PIN {spelled(self.pin)}.")

    def show(self, out: TextIO | None = None) -> None:
        """The address, the PIN and a QR code of the address, for the terminal."""
        out = out or sys.stderr
        print(f"phone keypad: {self.url}  PIN {self.pin}", file=out)
        if self._mdns is not None:
            print(f"phone keypad: also http://{MDNS_NAME}:{self.port} on phones that know mDNS names", file=out)
        print_qr(self.url, out)
        out.flush()

    def new_game(self) -> str:
        """A new PIN for a new game (the phones already in keep their colors); returns it."""
        return self.door.renew_pin()

    # ------------------------------------------------------------------ what the table decides

    def waiting_colors(self) -> tuple[str, ...]:
        """Colors a second phone asks for: the table may give it with ``hand_over``."""
        return self.door.waiting_colors()

    def newly_waiting(self) -> tuple[str, ...]:
        """Colors a new phone waits for that the table has not been told of yet; each waiting
        phone is news once. A phone that stopped waiting (it left, or it got the color when the
        other phone left or the table gave it) is no news. Safe from any thread."""
        with self._told_lock:
            waiting = self.door.waiting_phones()
            news = tuple(color for color, token in waiting.items() if token not in self._told)
            self._told = set(waiting.values())
            return news

    def hand_over(self, color: str) -> bool:
        """The table agreed (by voice): the phone waiting for ``color`` takes it from the phone
        that has it, which is told so. False if no phone is waiting for it."""
        moved = self.door.hand_over(color)
        if moved is None:
            return False
        self.turns.say_goodbye(moved[0].token, f"Another phone took {title(color)}, as the table agreed.")
        return True

    # ------------------------------------------------------------------ the Keypad protocol

    def start(self, on_press: Callable[[str], None]) -> None:
        """Serve the page (in a thread of its own) and hand every press taken to ``on_press``."""
        self._on_press = on_press
        if self._thread is not None:
            return
        ready = threading.Event()
        failed: list[BaseException] = []
        self._thread = threading.Thread(target=self._serve, args=(ready, failed), name="phone-keypad", daemon=True)
        self._thread.start()
        ready.wait()
        if failed:
            self._thread.join()
            self._thread = None
            error = failed[0]
            where = f"{self._bind_host()}:{self.settings.port}"
            raise PhoneError(f"The phone keypad cannot listen on {where} ({getattr(error, 'strerror', None) or error})."
                             " Set phone.port (or phone.bind) in config.yaml.") from error
        if self.settings.mdns and self.host is not None and self.port is not None:
            self._mdns = Mdns(self.host, self.port)
            self._mdns.start()

    def stop(self) -> None:
        if self._mdns is not None:
            self._mdns.stop()
            self._mdns = None
        loop, stopping, thread = self._loop, self._stopping, self._thread
        if loop is not None and stopping is not None:
            try:
                loop.call_soon_threadsafe(stopping.set)
            except RuntimeError:
                pass  # the loop ended already
        if thread is not None:
            thread.join(timeout=10)
        self._thread = None
        self.port = None  # not bound any more: a start again may be given another (phone.port 0)

    def _bind_host(self) -> str:
        bind = self.settings.bind
        if bind in ("all", "0.0.0.0", "*"):
            return "0.0.0.0"
        if bind:
            return bind
        return lan_address() or "127.0.0.1"

    def _announced_host(self) -> str | None:
        bind = self.settings.bind
        if bind in ("all", "0.0.0.0", "*", ""):
            return lan_address()
        return bind

    def _serve(self, ready: threading.Event, failed: list[BaseException]) -> None:
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(self._main(ready, failed))
        finally:
            loop.close()
            self._loop = None

    async def _main(self, ready: threading.Event, failed: list[BaseException]) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        runner = web.AppRunner(self._app(), access_log=None, handle_signals=False, logger=_http_log())
        await runner.setup()
        try:
            host = self._bind_host()
            site = web.TCPSite(runner, host, self.settings.port)
            await site.start()
            self.port = int(runner.addresses[0][1])
            self.host = self._announced_host() if host == "0.0.0.0" else host
        except (OSError, ValueError) as error:
            failed.append(error)
            await runner.cleanup()
            ready.set()
            return
        ready.set()
        poller = asyncio.create_task(self._poll())
        try:
            await self._stopping.wait()
        finally:
            poller.cancel()
            for socket in list(self._sockets):
                await socket.close(code=1001, message=b"The game is over.")
            await runner.cleanup()

    def _app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY)
        for path in FILES:
            app.router.add_get(path, self._file)
        app.router.add_get("/api/hello", self._hello)
        app.router.add_post("/api/join", self._join)
        app.router.add_post("/api/leave", self._leave)
        app.router.add_get("/ws", self._socket)
        return app

    # ------------------------------------------------------------------ pages and the API

    async def _file(self, request: web.Request) -> web.Response:
        name, kind = FILES[request.path]
        body = resources.files("assistant.phone").joinpath("static", name).read_bytes()
        return web.Response(body=body, content_type=kind, charset="utf-8", headers=HEADERS)

    def _json(self, data: dict[str, Any], status: int = 200) -> web.Response:
        return web.json_response(data, status=status, headers={"Cache-Control": "no-store"})

    async def _hello(self, request: web.Request) -> web.Response:
        phone = self.door.phone(request.cookies.get(COOKIE))
        joined = None if phone is None else {"color": phone.color, "waiting": phone.waiting}
        return self._json({"colors": list(self.door.colors), "phone": joined})

    async def _join(self, request: web.Request) -> web.Response:
        refused = self._cross_site(request)
        if refused is not None:
            return refused
        try:
            data = small_json(await request.read())
            pin, color = str(data["pin"])[:16], str(data["color"]).lower()[:32]
        except NotJson as error:
            return self._json({"reason": str(error)}, 400)
        except (KeyError, TypeError):
            return self._json({"reason": "Send the PIN and a color."}, 400)
        try:
            phone = self.door.join(request.remote or "unknown", pin, color, request.cookies.get(COOKIE))
        except Refused as reason:
            return self._json({"reason": str(reason)}, reason.status)
        response = self._json({"color": phone.color, "waiting": phone.waiting,
                               "text": waiting_text(phone) if phone.waiting else ""})
        response.set_cookie(COOKIE, phone.token, httponly=True, samesite="Strict", path="/", max_age=COOKIE_S)
        return response

    async def _leave(self, request: web.Request) -> web.Response:
        refused = self._cross_site(request)
        if refused is not None:
            return refused
        token = request.cookies.get(COOKIE)
        if token and self.door.phone(token) is not None:  # only a phone let in is told goodbye
            self.door.leave(token)
            self.turns.say_goodbye(token, "You left. Join again with the PIN.")
        response = self._json({"left": True})
        response.del_cookie(COOKIE, path="/")
        return response

    def _cross_site(self, request: web.Request) -> web.Response | None:
        """Only this page may join, leave or press (another site open on the phone may not)."""
        origin = request.headers.get("Origin")
        if origin is not None and urlsplit(origin).netloc != request.host:
            return self._json({"reason": "Open the keypad page itself."}, 403)
        if request.method == "POST" and request.content_type != "application/json":
            return self._json({"reason": "Send JSON."}, 415)
        return None

    # ------------------------------------------------------------------ the live page

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        refused = self._cross_site(request)
        if refused is not None:
            return refused
        socket = web.WebSocketResponse(heartbeat=15, max_msg_size=1024)
        await socket.prepare(request)
        token = request.cookies.get(COOKIE, "")
        if self.door.phone(token) is None:
            await socket.send_json({"type": "signed_out", "reason": "Join with the PIN BSat1 says."})
            await socket.close()
            return socket
        self._sockets[socket] = token
        try:
            await self._update(socket, self.turns.look())
            async for message in socket:
                if message.type == WSMsgType.TEXT:
                    await self._message(socket, token, message.data)
        finally:
            self._sockets.pop(socket, None)
            self._sent.pop(socket, None)
        return socket

    async def _message(self, socket: web.WebSocketResponse, token: str, text: str) -> None:
        try:
            data = small_json(text)
            kind = data["type"]
        except (NotJson, KeyError, TypeError):
            await socket.send_json({"type": "refused", "reason": "Not understood."})
            return
        if kind == "press":
            reason = self.press(token, str(data.get("button", "")))
            if reason is not None:
                await socket.send_json({"type": "refused", "reason": reason})
            else:
                await socket.send_json({"type": "taken"})
        else:
            await socket.send_json({"type": "refused", "reason": "Not understood."})
        await self._update_all()

    def press(self, token: str, button: str) -> str | None:
        """A press from the phone holding ``token``: None if taken (handed to ``on_press``),
        or the reason it is refused."""
        return self.turns.press(token, button, self._on_press)

    async def _update(self, socket: web.WebSocketResponse, request: PrivateRequest | None) -> None:
        """Send the phone on ``socket`` what it is shown now, if that changed."""
        token = self._sockets.get(socket)
        if token is None:
            return
        shown = self.turns.view(token, request)
        if self._sent.get(socket) == shown:
            return
        self._sent[socket] = shown
        try:
            await socket.send_json(shown)
            if shown["type"] == "signed_out":
                await socket.close()
        except (ConnectionError, RuntimeError):
            pass  # gone; its handler ends

    async def _update_all(self) -> None:
        self._check_game()
        request = self.turns.look()
        for socket in list(self._sockets):
            await self._update(socket, request)

    async def _poll(self) -> None:
        problem = ""
        while True:
            try:
                await self._update_all()
                problem = ""
            except Exception as error:  # keep serving: one bad look at the game must not end it
                if str(error) != problem:
                    problem = str(error)
                    print(f"phone keypad: {problem}", file=sys.stderr)
            await asyncio.sleep(POLL_S)
