"""Where the phones find the box: its address on the home network, a QR code of it for the
terminal, and optionally the mDNS name ``omega.local``."""

from __future__ import annotations

import socket
import sys
import threading
from typing import Any, TextIO

import segno

#: The mDNS host name announced with ``phone.mdns: true``.
MDNS_NAME = "omega.local"


def lan_address() -> str | None:
    """This machine's address on the network its default route leads to, or None with no
    network. (Connecting a UDP socket only picks the route; nothing is sent.)"""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: any routable address picks the default route
        address = str(probe.getsockname()[0])
    except OSError:
        return None
    finally:
        probe.close()
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def print_qr(url: str, out: TextIO | None = None) -> None:
    """The page's address as a QR code drawn in the terminal, for a phone's camera."""
    segno.make(url, error="m").terminal(out=out or sys.stderr, compact=True)


class Mdns:
    """``omega.local`` (and an _http._tcp service) on the local network, with zeroconf; best
    effort: a network that blocks multicast leaves the name unknown, nothing else."""

    def __init__(self, address: str, port: int, name: str = MDNS_NAME) -> None:
        self.address, self.port, self.name = address, port, name
        self._zeroconf: Any = None
        self._info: Any = None
        self._thread: threading.Thread | None = None
        self.problem = ""

    def start(self) -> None:
        # Registering probes the network for a second or two: not in the way of the game.
        self._thread = threading.Thread(target=self._register, name="phone-mdns", daemon=True)
        self._thread.start()

    def _register(self) -> None:
        from zeroconf import ServiceInfo, Zeroconf

        try:
            self._info = ServiceInfo("_http._tcp.local.", "Omega Virus keypad._http._tcp.local.",
                                     addresses=[socket.inet_aton(self.address)], port=self.port,
                                     server=self.name + ".")
            self._zeroconf = Zeroconf(interfaces=[self.address])
            self._zeroconf.register_service(self._info, allow_name_change=True)
        except Exception as error:  # zeroconf raises many kinds; the keypad works by address anyway
            self.problem = f"mDNS name {self.name} not announced: {error}"

    def stop(self) -> None:
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._zeroconf is not None:
            try:
                if self._info is not None:
                    self._zeroconf.unregister_service(self._info)
            finally:
                self._zeroconf.close()
            self._zeroconf = None
