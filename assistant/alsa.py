"""ALSA's configuration for the assistant's own sound: the system's, less the optional plugins'
devices that PortAudio would open for nothing.

When PortAudio starts (sounddevice imports it, in the assistant for the speaker and in the
microphone's own process) it lists every device ALSA's configuration names, and opens each to
read what it can do. Debian's and Raspberry Pi OS's ``libasound2-plugins`` (installed with
PulseAudio and PipeWire desktops) name an AC3 encoder, JACK, OSS, Speex, up- and down-mixers,
USB streams and three rate converters in ``/etc/alsa/conf.d``; opening the AC3 encoder loads
libavcodec, which loads video codecs, librsvg, cairo... About 14 MB of every process's resident
memory (measured on this machine: the microphone's process 37 MB with them, 23 MB without),
for devices the assistant never uses.

So before PortAudio loads, ``lean_alsa()`` points ``ALSA_CONFIG_PATH`` at a copy of the system's
top-level ``alsa.conf`` whose load hook names the files of its ``conf.d`` folders one by one,
without those plugins' files (by their names, ``PLUGIN_FILES``). Everything else is kept: the
sound server's routing (PulseAudio, PipeWire), ``/etc/asound.conf``, ``~/.asoundrc``, cards'
own files. The copy lives in memory (a ``memfd``; the processes the assistant starts read it
through /proc while it runs): nothing is written to disk. Where the system's configuration is
not in the shape expected, the copy cannot be made (a memfd counts against the file-size limit a
full disk is played with in tests/test_live_storage.py), or ``ALSA_CONFIG_PATH`` is already set
(by the player: to keep every plugin, set it to the system's own, ``/usr/share/alsa/alsa.conf``),
nothing changes.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

ENV = "ALSA_CONFIG_PATH"
#: The top-level configuration ALSA reads when ENV is unset (its data folder is ALSA_CONFIG_DIR).
SYSTEM_CONFIG = Path(os.environ.get("ALSA_CONFIG_DIR") or "/usr/share/alsa") / "alsa.conf"
#: alsa-plugins' configuration files (as Debian installs them) that only name optional devices:
#: the rate converters (libavcodec's, libsamplerate's, Speex's), an Arcam amplifier's control,
#: JACK, OSS, the AC3 encoder (libavcodec), Speex's filters, the up- and down-mixers, USB streams.
PLUGIN_FILES = frozenset({
    "10-rate-lav.conf", "10-samplerate.conf", "10-speexrate.conf", "50-arcam-av-ctl.conf",
    "50-jack.conf", "50-oss.conf", "60-a52-encoder.conf", "60-speex.conf", "60-upmix.conf",
    "60-vdownmix.conf", "98-usb-stream.conf"})

#: The first load hook's list of files: ``func load`` then ``files [ ... ]`` (alsa.conf's first
#: hook, which reads conf.d, /etc/asound.conf and ~/.asoundrc).
_LOAD_FILES = re.compile(r"(func\s+load\s+files\s*\[)(.*?)(\]\s*errors)", re.S)
_QUOTED = re.compile(r'"([^"\n]*)"')


def conf_files(folder: Path) -> list[Path]:
    """The files ALSA's load hook reads from ``folder``: those whose names end in ``.conf``, in
    the order of their names."""
    try:
        return sorted((p for p in folder.iterdir() if p.name.endswith(".conf") and p.is_file()),
                      key=lambda p: p.name)
    except OSError:
        return []


def lean_config(system: Path = SYSTEM_CONFIG, leave_out: frozenset[str] = PLUGIN_FILES) -> str | None:
    """The text of ``system`` with each folder its load hook reads replaced by the folder's files,
    less those named in ``leave_out``; None when nothing would be left out, or the configuration
    cannot be read or is not in the shape expected."""
    try:
        text = system.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    hook = _LOAD_FILES.search(text)
    if hook is None:
        return None
    left_out = False

    def expand(entry: re.Match[str]) -> str:
        nonlocal left_out
        folder = Path(entry.group(1))
        if not folder.is_absolute() or not folder.is_dir():
            return entry.group(0)  # a file, alternatives (a|||b), ~/...: as they were
        files = conf_files(folder)
        kept = [p for p in files if p.name not in leave_out]
        left_out = left_out or len(kept) < len(files)
        return "\n\t\t\t".join(f'"{p}"' for p in kept)

    entries = _QUOTED.sub(expand, hook.group(2))
    if not left_out:
        return None
    return text[:hook.start(2)] + entries + text[hook.end(2):]


def lean_alsa() -> bool:
    """Point this process (and those it starts) at the lean configuration, unless
    ``ALSA_CONFIG_PATH`` is set already (the player's, or the assistant's from its parent). Call
    it before PortAudio loads. True when the lean configuration is in use from now on."""
    if os.environ.get(ENV) or not hasattr(os, "memfd_create"):
        return False
    text = lean_config()
    if text is None:
        return False
    data = text.encode("utf-8")
    try:
        fd = os.memfd_create("assistant-alsa.conf")  # close-on-exec: children read it through /proc
    except OSError:
        return False
    try:
        written = 0
        while written < len(data):
            written += os.write(fd, data[written:])
    except OSError:  # a memfd counts against the file-size limit (a full disk's rlimit): the system's
        os.close(fd)
        return False
    os.environ[ENV] = f"/proc/{os.getpid()}/fd/{fd}"
    return True
