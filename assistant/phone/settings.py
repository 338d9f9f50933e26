"""The phone keypad's settings (``phone.*``), declared once."""

from __future__ import annotations

from assistant.schema import Setting

SETTINGS: tuple[Setting, ...] = (
    Setting("phone.bind", "", "Where the page listens: \"\" = this box's home-network address, all = every "
            "interface, or one address.", player=True),
    Setting("phone.port", 8470, "The port phones open (0: any free port).", minimum=0, maximum=65535, player=True),
    Setting("phone.mdns", False, "Also announce the name omega.local on the network (mDNS)."),
)
