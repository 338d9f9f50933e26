"""The phone server probed from outside as a stranger on the network would (issue 32, finding 9),
on 127.0.0.1 only: JSON nested 1,000 deep, a flood of leave requests with fresh 8 KB cookies,
malformed HTTP over a raw socket. Each gets a clean refusal; the memory held stays bounded; the
assistant's terminal shows at most one line per refusal and never a traceback."""

from __future__ import annotations

import http.client
import json
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant.phone import PhoneKeypad, PhoneSettings
from assistant.phone.server import OneLine, small_json
from assistant.phone.turns import GOODBYES

ROOT = Path(__file__).resolve().parent.parent
#: The assistant's phone server in a process of its own, as at the table: its terminal is stderr.
SERVE = ("import sys\n"
         "from assistant.phone import PhoneKeypad, PhoneSettings\n"
         "keypad = PhoneKeypad(PhoneSettings(bind='127.0.0.1', port=0), ('red', 'blue'))\n"
         "keypad.start(lambda button: None)\n"
         "print(keypad.port, keypad.pin, flush=True)\n"
         "sys.stdin.read()\n"
         "keypad.stop()\n")


class Served:
    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", SERVE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, cwd=ROOT)
        assert self.process.stdout is not None
        port, self.pin = self.process.stdout.readline().split()
        self.port = int(port)

    def post(self, path: str, body: bytes, cookie: str | None = None) -> tuple[int, dict[str, object]]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        headers = {"Content-Type": "application/json", **({"Cookie": cookie} if cookie else {})}
        try:
            connection.request("POST", path, body=body, headers=headers)
            response = connection.getresponse()
            body = response.read()
            return response.status, json.loads(body) if response.getheader("Content-Type", "").startswith(
                "application/json") else {"text": body.decode(errors="replace")}
        finally:
            connection.close()

    def raw(self, data: bytes) -> bytes:
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as sock:
            sock.sendall(data)
            received = b""
            while chunk := sock.recv(4096):
                received += chunk
            return received

    def terminal(self) -> str:
        """Stop it; what it printed."""
        _, err = self.process.communicate("", timeout=20)
        return err


@pytest.fixture
def served() -> Iterator[Served]:
    server = Served()
    try:
        yield server
    finally:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait()


def test_json_nested_1000_deep_is_a_clear_400_not_a_500(served: Served) -> None:
    body = ('{"pin": ' + "[" * 1000 + "]" * 1000 + ', "color": "red"}').encode()
    assert 2000 <= len(body) <= 2100
    status, answer = served.post("/api/join", body)
    assert status == 400
    assert answer == {"reason": "The request is nested too deeply (at most 4 levels)."}
    status, answer = served.post("/api/join", json.dumps({"pin": served.pin, "color": "red"}).encode())
    assert status == 200 and answer["color"] == "red"  # the server is unharmed
    assert served.post("/api/join", b"x" * 5000)[0] == 413  # a body over the limit is not read
    assert served.post("/api/join", b"\xff\xfe")[0] == 400
    terminal = served.terminal()
    assert "Traceback" not in terminal and "RecursionError" not in terminal, terminal


def test_json_depth_is_counted_outside_strings() -> None:
    assert small_json('{"pin": "[[[[[[[[", "color": "{{{{{"}') == {"pin": "[[[[[[[[", "color": "{{{{{"}
    assert small_json('{"a": "\\\\", "b": [[1]]}') == {"a": "\\", "b": [[1]]}
    with pytest.raises(ValueError, match="nested too deeply"):
        small_json('{"a": "\\"", "b": [[[[1]]]]}')


def resident_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_a_flood_of_leaves_with_fresh_cookies_holds_no_memory(served: Served) -> None:
    """No PIN, no Origin, fresh 8 KB cookies: the server's memory stays flat (it kept every one)."""

    def flood(times: int) -> None:
        for _ in range(times):
            cookie = "omega_phone=" + secrets.token_urlsafe(6000)[:8000]
            status, answer = served.post("/api/leave", b"{}", cookie)
            assert status == 200 and answer == {"left": True}

    flood(100)  # the server's own buffers and caches settle
    before = resident_kb(served.process.pid)
    flood(600)  # 4.8 MB of cookies
    grown = resident_kb(served.process.pid) - before
    assert grown < 1500, f"the server grew by {grown} kB"
    assert "Traceback" not in served.terminal()


def test_what_turns_keeps_stays_bounded_under_leaves_and_rejoins() -> None:
    """Measured in the server's own Turns: strangers' cookies leave nothing; a phone let in that
    leaves and joins again, over and over, leaves at most ``GOODBYES`` short goodbyes."""
    keypad = PhoneKeypad(PhoneSettings(bind="127.0.0.1", port=0), ("red", "blue"))
    keypad.start(lambda button: None)
    try:
        connection = http.client.HTTPConnection("127.0.0.1", keypad.port, timeout=10)
        headers = {"Content-Type": "application/json"}

        def post(path: str, body: dict[str, str], cookie: str = "") -> http.client.HTTPResponse:
            connection.request("POST", path, body=json.dumps(body), headers={**headers, "Cookie": cookie})
            response = connection.getresponse()
            response.read()
            return response

        for _ in range(150):
            assert post("/api/leave", {}, "omega_phone=" + "x" * 8000).status == 200
        assert keypad.turns.goodbye == {}
        for _ in range(3 * GOODBYES):
            joined = post("/api/join", {"pin": keypad.pin, "color": "red"})
            token = joined.headers["Set-Cookie"].split("omega_phone=")[1].split(";")[0]
            assert post("/api/leave", {}, f"omega_phone={token}").status == 200
        assert len(keypad.turns.goodbye) == GOODBYES
        assert sum(len(k) + len(v) for k, v in keypad.turns.goodbye.items()) < GOODBYES * 100
        connection.close()
    finally:
        keypad.stop()


MALFORMED = [
    b"NOT HTTP AT ALL\r\n\r\n",                                        # not HTTP
    b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: many\r\n\r\n",     # a bad header value
    b"GET /\x00\x01 HTTP/1.1\r\nHost: x\r\n\r\n",                     # control bytes in the path
    b"POST /api/join HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",  # a broken chunk
    b"GET / HTTP/9.9\r\nHost: x\r\n\r\n",                               # no such version
    b"GET / HTTP/1.1\r\n" + b"X-Long: " + b"a" * 9000 + b"\r\n\r\n",   # a header too long
]


def test_malformed_http_is_refused_with_one_line_and_no_traceback(served: Served) -> None:
    for request in MALFORMED:
        answer = served.raw(request)
        assert b" 400 " in answer or b" 431 " in answer or b" 505 " in answer, (request, answer[:200])
    terminal = served.terminal()
    assert "Traceback" not in terminal and "File \"" not in terminal, terminal
    lines = terminal.splitlines()
    assert 1 <= len(lines) <= len(MALFORMED), terminal
    assert all(line.startswith("phone keypad: ") for line in lines), terminal


def test_a_flood_of_malformed_requests_prints_a_bounded_number_of_lines() -> None:
    printed: list[str] = []
    now = [0.0]
    handler = OneLine(printed.append, clock=lambda: now[0])
    import logging

    log = logging.getLogger("tests.phone.flood")
    log.addHandler(handler)
    log.propagate = False
    try:
        for _ in range(500):
            try:
                raise ValueError("Bad status line 'NOT HTTP'")
            except ValueError as error:
                log.exception("Error handling request from %s", "127.0.0.1", exc_info=error)
        assert len(printed) == 10
        assert printed[0] == ("phone keypad: Error handling request from 127.0.0.1: ValueError: "
                              "Bad status line 'NOT HTTP'")
        now[0] = 61.0
        log.error("Error handling request from %s", "127.0.0.1")
        assert printed[-1].endswith("(490 more not shown)")
    finally:
        log.removeHandler(handler)
    time.sleep(0)  # nothing waits: the clock is the test's
