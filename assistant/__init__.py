"""Offline voice game-master for the tabletop."""

import os

# An offline box: onnxruntime (under Piper) 1.29 and later send telemetry on Linux and keep a
# device id in ~/.cache/Microsoft unless told not to before it loads. A player who wants it
# can set ORT_DISABLE_TELEMETRY=0.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

__version__ = "0.1.0"
