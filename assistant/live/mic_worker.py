"""The microphone's own process: opens the input device with PortAudio and streams what it
captures to its parent.

Why a process: when the sound server dies under an open stream, PortAudio's ALSA thread can
spin on the dead device for ever, printing an error line per turn (hundreds of MB a second),
and neither stopping nor aborting the stream returns, since both wait for that thread. A
process can always be killed, and takes its threads with it. So this process never closes
its stream: it exits (``os._exit``), or its parent kills it.

Protocol, on stdout: one JSON line, ``{"name": device, "rate": Hz}`` once the stream runs or
``{"error": what to do}``; then frames, each a header (``FRAME``: the ``time.monotonic()`` the
block was captured at, which is the same clock in every process on Linux, and the byte
count) and that many bytes of mono int16 at ``rate``. It ends by itself when no audio came
for ``--stall-seconds`` (a device that stopped; the parent opens a new one) or when its
stdin closes (the parent is gone).

Only the standard library, assistant.alsa and sounddevice are imported here, so it starts in about 0.1 s.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import signal
import struct
import sys
import threading
import time
from typing import Any

from assistant.alsa import lean_alsa

RATE = 16000
TRY_RATES = (16000, 48000, 44100, 32000, 22050)
#: A frame's header: capture time (monotonic seconds), then the number of audio bytes after it.
FRAME = struct.Struct("<dI")
#: Exit codes, for whoever reads a process listing or the parent's report ("it ended with code N").
EXIT_STALLED = 3
EXIT_NOT_OPENED = 4


class MicrophoneError(RuntimeError):
    """The microphone cannot be used; the message says what to do."""


def import_sounddevice() -> Any:
    lean_alsa()  # before PortAudio lists the devices (assistant.alsa; set already when the assistant started us)
    try:
        import sounddevice
    except OSError as error:  # PortAudio missing
        raise MicrophoneError("Sound needs the PortAudio library: sudo apt-get install libportaudio2") from error
    return sounddevice


def input_devices() -> list[tuple[int, str, int]]:
    """(index, name, default rate) of every device with input channels."""
    sd = import_sounddevice()
    found = []
    for index, device in enumerate(sd.query_devices()):
        if device["max_input_channels"] > 0:
            found.append((index, str(device["name"]), int(device["default_samplerate"])))
    return found


def find_input(query: str) -> tuple[int | None, str]:
    """The device whose name contains ``query`` (empty: the default input)."""
    devices = input_devices()
    if not devices:
        raise MicrophoneError("No microphone found. Plug one in (a USB microphone works) and try again.")
    if not query:
        sd = import_sounddevice()
        default = sd.default.device[0]
        for index, name, _ in devices:
            if index == default:
                return index, name
        return None, devices[0][1]
    for index, name, _ in devices:
        if query.lower() in name.lower():
            return index, name
    names = ", ".join(name for _, name, _ in devices)
    raise MicrophoneError(f"No microphone named like {query!r}. Found: {names}. "
                          "Set live.input_device in config.yaml to part of one of these names.")


def open_stream(query: str, block_seconds: float,
                callback: Any) -> tuple[Any, str, int]:
    """A running input stream on the device named like ``query``: (stream, device name, rate),
    at 16 kHz when the device takes it, else the first rate of TRY_RATES it takes."""
    sd = import_sounddevice()
    index, name = find_input(query)
    last_error: Exception | None = None
    for rate in TRY_RATES:
        try:
            sd.check_input_settings(device=index, samplerate=rate, channels=1, dtype="int16")
            stream = sd.RawInputStream(device=index, samplerate=rate, channels=1, dtype="int16",
                                       blocksize=int(rate * block_seconds), callback=callback)
            stream.start()
        except Exception as error:  # PortAudioError has no stable type across versions
            last_error = error
            continue
        return stream, name, rate
    raise MicrophoneError(f"The microphone {name!r} would not open ({last_error}). It may be unplugged, "
                          "or in use by another program; plug it in, close that program, or choose another "
                          "device.")


def _write(data: bytes) -> None:
    """All of ``data`` to stdout (a write to a pipe may take only part of it)."""
    view = memoryview(data)
    while view:
        try:
            written = os.write(1, view)
        except InterruptedError:
            continue
        except OSError:  # the parent is gone
            os._exit(0)
        view = view[written:]


def main(argv: list[str] | None = None) -> None:
    # Ctrl-C in the assistant's terminal reaches this process too: the assistant decides.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        _run(argv)
    except BaseException as error:  # noqa: BLE001 - never a normal exit: it would close the stream
        print(f"microphone process: {error!r}", file=sys.stderr, flush=True)
    os._exit(1)


def _run(argv: list[str] | None) -> None:
    parser = argparse.ArgumentParser(prog="python -m assistant.live.mic_worker")
    parser.add_argument("--device", default="")
    parser.add_argument("--block-seconds", type=float, default=0.1)
    parser.add_argument("--stall-seconds", type=float, default=2.0)
    args = parser.parse_args(argv)
    captured: queue.Queue[tuple[float, bytes]] = queue.Queue()

    def callback(data: Any, frames: int, time_info: Any, status: Any) -> None:
        captured.put((time.monotonic(), bytes(data)))

    def watch_parent() -> None:
        sys.stdin.buffer.read()  # returns when the parent closes our stdin, or dies
        os._exit(0)

    threading.Thread(target=watch_parent, daemon=True).start()
    try:
        _, name, rate = open_stream(args.device, args.block_seconds, callback)
    except MicrophoneError as error:
        _write((json.dumps({"error": str(error)}) + "\n").encode())
        os._exit(EXIT_NOT_OPENED)
    _write((json.dumps({"name": name, "rate": rate}) + "\n").encode())
    while True:
        try:
            at, data = captured.get(timeout=args.stall_seconds)
        except queue.Empty:
            print(f"the microphone {name!r} gave no sound for {args.stall_seconds:g} s", file=sys.stderr,
                  flush=True)
            os._exit(EXIT_STALLED)  # never closing the stream: closing can hang on a dead device
        _write(FRAME.pack(at, len(data)) + data)


if __name__ == "__main__":
    main()
