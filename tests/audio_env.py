"""Real audio devices without hardware: PulseAudio with a null sink and a pipe-source microphone.

    ensure_audio()            start PulseAudio if needed; sink "speaker", source "mic" (idempotent);
                              one this process started is stopped when the process exits; in one
                              it did not start, the defaults it changed and the modules it loaded
                              are put back when the process exits or is stopped (``release``)
    private_sink()            a fresh null sink of one's own, made the process's output while in use
    private_mic()             a fresh pipe-source microphone of one's own, the process's input meanwhile
    Recorder(monitor)         record what a sink plays (parec), as 16 kHz mono int16
    feed_mic(env, samples)    speak into the virtual microphone

Safe to call from several test modules and several processes at once (a file lock guards
the start). From a shell or .ci/run: ``python tests/audio_env.py`` starts it and prints the
devices and leaves it running; it exits non-zero with the reason when PulseAudio cannot be
started.

Nothing in the user's home: a PulseAudio the tests start keeps its socket, pid file, cookie
and state in a folder of its own (``private_folder()``, under $XDG_RUNTIME_DIR or /tmp), not in
~/.config/pulse, and while it runs this process's environment (so the test process, pactl,
parec and every subprocess given ``os.environ``, the assistant too) reaches it there:
$PULSE_SERVER, $PULSE_RUNTIME_PATH, $PULSE_COOKIE, $PULSE_CLIENTCONFIG (``PRIVATE_ENV``); they
are put back as they were when it stops. A sound server that was already running is looked
for without asking pactl (which would write the cookie and a ``<machine-id>-runtime`` link
into ~/.config/pulse): by its socket, and used as clients reach it, the environment unchanged.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import itertools
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

SINK = "speaker"
MIC = "mic"
RATE = 16000
START_COMMAND = [
    "pulseaudio", "--daemonize=yes", "--exit-idle-time=-1", "-n",
    "--load=module-native-protocol-unix", f"--load=module-null-sink sink_name={SINK}",
    "--load=module-always-sink",
]


class AudioEnvError(RuntimeError):
    """PulseAudio (or its tools) cannot be started; the message says what is missing."""


@dataclass(frozen=True)
class AudioEnv:
    sink: str
    monitor: str
    mic: str
    mic_fifo: Path


def runtime_dir() -> Path:
    base = os.environ.get("XDG_RUNTIME_DIR")
    path = Path(base) if base else Path(f"/tmp/omega-audio-{os.getuid()}")
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


#: The variables that point PulseAudio clients at the server the tests start.
PRIVATE_ENV = ("PULSE_SERVER", "PULSE_RUNTIME_PATH", "PULSE_COOKIE", "PULSE_CLIENTCONFIG")


def private_folder() -> Path:
    """Where a PulseAudio the tests start keeps everything (socket ``native``, ``pid``, cookie, state)."""
    return runtime_dir() / "omega-pulse"


def private_env(folder: Path) -> dict[str, str]:
    """The client side of a server in ``folder``: its socket, and its runtime folder, cookie and
    (absent) client.conf there, so that libpulse writes nothing into ~/.config/pulse."""
    return {"PULSE_SERVER": f"unix:{folder / 'native'}", "PULSE_RUNTIME_PATH": str(folder),
            "PULSE_COOKIE": str(folder / "cookie"), "PULSE_CLIENTCONFIG": str(folder / "client.conf")}


def server_info(server: str) -> str | None:
    """What ``pactl info`` says of the PulseAudio at ``server``, or None when none answers there;
    asked with the cookie and runtime folder of the tests' own (``private_folder()``), so that
    asking writes nothing into ~/.config/pulse."""
    try:
        done = subprocess.run(["pactl", "info"], capture_output=True, text=True, timeout=5,
                              env={**os.environ, **private_env(private_folder()), "PULSE_SERVER": server})
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def default_devices_in(info: str) -> tuple[str, str]:
    """The default sink and source named in ``pactl info``'s output ("" for one not named)."""
    sink = re.search(r"^Default Sink: (.*)$", info, re.MULTILINE)
    source = re.search(r"^Default Source: (.*)$", info, re.MULTILINE)
    return (sink.group(1).strip() if sink else "", source.group(1).strip() if source else "")


def find_server() -> str | None:
    """The address ("unix:/path") of a PulseAudio (or PipeWire) that is running, or None; found
    by its socket (the tests' own in ``private_folder()``, $PULSE_SERVER, $XDG_RUNTIME_DIR/pulse,
    the ~/.config/pulse/*-runtime link a server made), so that looking writes nothing into the
    home folder, as a bare ``pactl info`` would."""
    if shutil.which("pactl") is None:
        return None
    folder = private_folder()
    candidates = [f"unix:{folder / 'native'}"]
    if os.environ.get("PULSE_SERVER"):
        candidates.append(os.environ["PULSE_SERVER"])
    if os.environ.get("XDG_RUNTIME_DIR"):
        candidates.append(f"unix:{Path(os.environ['XDG_RUNTIME_DIR']) / 'pulse' / 'native'}")
    config = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "pulse"
    candidates += [f"unix:{link / 'native'}" for link in sorted(config.glob("*-runtime"))]
    for server in dict.fromkeys(candidates):
        if server.startswith("unix:") and not Path(server[5:]).is_socket():
            continue
        if server_info(server) is not None:
            return server
    return None


def _pactl(*args: str, check: bool = True) -> str:
    done = subprocess.run(["pactl", *args], capture_output=True, text=True, timeout=10)
    if check and done.returncode != 0:
        raise AudioEnvError(f"pactl {' '.join(args)} failed: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


def server_running() -> bool:
    if shutil.which("pactl") is None:
        return False
    try:
        return subprocess.run(["pactl", "info"], capture_output=True, timeout=5).returncode == 0
    except subprocess.TimeoutExpired:
        return False


def _names(kind: str) -> list[str]:
    return [line.split("\t")[1] for line in _pactl("list", "short", kind).splitlines() if "\t" in line]


@contextlib.contextmanager
def _lock() -> Iterator[None]:
    with open(f"/tmp/omega-audio-{os.getuid()}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


_started_pid: int | None = None  # the PulseAudio this process started, stopped when it exits
#: The variables this process set to reach the tests' own server, with their former values.
_saved_env: dict[str, str | None] | None = None
_started_folder: Path | None = None  # the folder of the PulseAudio this process started
#: What this process changed in a sound server it did not start, put back by ``release``:
#: the defaults it found (sink, source), and the modules it loaded, by index.
_found_defaults: tuple[str, str] | None = None
_loaded: set[str] = set()
_cleanup_armed = False
#: Said once, when the tests use a sound server they did not start (a desktop's, a Pi's).
NOTICE: str | None = None


def _server_pid() -> int | None:
    """The pid of the PulseAudio that pactl talks to (its pid file sits beside its socket)."""
    found = re.search(r"^Server String: (?:unix:)?(.+)$", _pactl("info", check=False), re.MULTILINE)
    if found is None:
        return None
    try:
        return int((Path(found.group(1).strip()).parent / "pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _defaults() -> tuple[str, str]:
    return default_devices_in(_pactl("info", check=False))


def _use_private(folder: Path) -> None:
    """Point this process (and the subprocesses it starts) at the tests' server in ``folder``."""
    global _saved_env
    wanted = private_env(folder)
    if all(os.environ.get(name) == value for name, value in wanted.items()):
        return
    if _saved_env is None:
        _saved_env = {name: os.environ.get(name) for name in PRIVATE_ENV}
    os.environ.update(wanted)


def prepare() -> str | None:
    """At the start of a test run, before anything plays or records: the address of the sound
    server that is running, else None, and then this process's clients (PortAudio when it starts,
    pactl, subprocesses) are pointed at the folder where ``ensure_audio`` will start the tests'
    own, so that none of them looks for a server the plain way, which writes a link into
    ~/.config/pulse. Put back by ``stop_started_audio``."""
    found = find_server()
    if found is None or found == private_env(private_folder())["PULSE_SERVER"]:
        _use_private(private_folder())  # (the tests' own, left running by another run: reached the same way)
    return found


def _restore_env() -> None:
    global _saved_env
    saved, _saved_env = _saved_env, None
    for name, value in (saved or {}).items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def _start_private(folder: Path) -> subprocess.CompletedProcess[str]:
    """Start PulseAudio with everything of its own in ``folder``: its socket, pid file, state,
    and config home (its cookie), so not ~/.config/pulse. The socket is in a folder only this
    user may enter, so clients need no cookie."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    (folder / "native").unlink(missing_ok=True)
    command = [f"--load=module-native-protocol-unix socket={folder / 'native'} auth-anonymous=1"
               if part == "--load=module-native-protocol-unix" else part for part in START_COMMAND]
    return subprocess.run(command, capture_output=True, text=True, timeout=20, env=server_env(folder))


def server_env(folder: Path) -> dict[str, str]:
    """The environment of a PulseAudio that keeps its runtime files, its state and its cookie (in
    a config home of its own) in ``folder``, so nothing in ~/.config/pulse."""
    env = {**os.environ, "PULSE_RUNTIME_PATH": str(folder), "PULSE_STATE_PATH": str(folder / "state"),
           "XDG_CONFIG_HOME": str(folder / "config")}
    env.pop("PULSE_SERVER", None)
    return env


def stop_started_audio() -> None:
    """Stop the PulseAudio this process started, and no other (one found running is left alone);
    remove its folder and put this process's environment back."""
    global _started_pid, _started_folder
    pid, _started_pid = _started_pid, None
    folder, _started_folder = _started_folder, None
    _restore_env()
    if pid is None:
        return
    try:
        if b"pulseaudio" not in Path(f"/proc/{pid}/cmdline").read_bytes():
            return  # gone already, and the pid is someone else's now
        os.kill(pid, signal.SIGTERM)
    except (OSError, ProcessLookupError):
        return
    deadline = time.monotonic() + 10
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    if folder is not None and not Path(f"/proc/{pid}").exists():
        shutil.rmtree(folder, ignore_errors=True)


def release() -> None:
    """Put the sound server back as this process found it: its default sink and source (unless
    someone chose others meanwhile) and without the modules this process loaded. Runs at exit,
    on SIGTERM and SIGHUP, and at the end of a pytest run; safe to call again."""
    global _found_defaults
    found, _found_defaults = _found_defaults, None
    loaded = sorted(_loaded)
    _loaded.clear()
    if (found is None and not loaded) or not server_running():
        return
    sink, source = _defaults()
    if found is not None and sink == SINK and found[0] and found[0] != SINK:
        _pactl("set-default-sink", found[0], check=False)
    if found is not None and source == MIC and found[1] and found[1] != MIC:
        _pactl("set-default-source", found[1], check=False)
    for module in loaded:
        _pactl("unload-module", module, check=False)


def _cleanup() -> None:
    release()
    stop_started_audio()


def _on_signal(number: int, frame: object) -> None:
    """SIGTERM or SIGHUP: clean up, then die of the signal as the process would have."""
    _cleanup()
    signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)


def _arm_cleanup() -> None:
    """Clean up when this process ends: at exit (a failed test, Ctrl-C), and on SIGTERM or
    SIGHUP when nobody else handles them (a killed run). SIGKILL cannot be caught: the next
    run unloads what a killed process left (``_unload_orphans``)."""
    global _cleanup_armed
    if _cleanup_armed:
        return
    _cleanup_armed = True
    atexit.register(_cleanup)
    if threading.current_thread() is threading.main_thread():
        for number in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(number) == signal.SIG_DFL:
                signal.signal(number, _on_signal)


def _load(*args: str) -> str:
    """Load a module; it is unloaded by ``release`` unless the caller unloads it first."""
    module = _pactl("load-module", *args).strip()
    _loaded.add(module)
    return module


def _unload(module: str) -> None:
    _loaded.discard(module)
    _pactl("unload-module", module, check=False)


def ensure_audio(keep: bool = False) -> AudioEnv:
    """PulseAudio running with the "speaker" null sink and the "mic" pipe source as defaults.

    If this call starts it, it is stopped when this process exits, unless ``keep``. A server
    that was running is used, and said so once (on stderr and in the test summary); what this
    process changes in it (the defaults, the devices it adds) is undone when it exits."""
    global _started_pid, _started_folder, _found_defaults, NOTICE
    for tool in ("pulseaudio", "pactl", "parec"):
        if shutil.which(tool) is None:
            raise AudioEnvError(f"{tool} is not installed. Install the Debian packages pulseaudio "
                                "pulseaudio-utils libasound2-plugins libportaudio2.")
    fifo = runtime_dir() / f"{MIC}.fifo"
    folder = private_folder()
    with _lock():
        found = find_server()
        if found is None:
            started = _start_private(folder)
            _use_private(folder)
            deadline = time.monotonic() + 10
            while not server_running():
                if time.monotonic() > deadline:
                    _restore_env()
                    raise AudioEnvError("PulseAudio did not start: "
                                        f"{started.stderr.strip() or started.stdout.strip() or 'no output'}")
                time.sleep(0.1)
            if not keep and _started_pid is None:
                _started_pid, _started_folder = _server_pid(), folder
        elif found == private_env(folder)["PULSE_SERVER"]:
            _use_private(folder)  # the tests' own, started by another process or from a shell
        elif _started_pid is None and NOTICE is None and not keep:
            NOTICE = ("tests/audio_env: the tests use the sound server that was already running (they did not "
                      "start it); they add a speaker and a microphone to it and make them the defaults while "
                      "they run, and put its default sink and source back and remove them when they end.")
            print(NOTICE, file=sys.stderr)
        if not keep:
            _arm_cleanup()
            if _found_defaults is None:
                _found_defaults = _defaults()

        def add(*module: str) -> None:  # kept (from a shell), else unloaded by ``release``
            if keep:
                _pactl("load-module", *module)
            else:
                _load(*module)

        if SINK not in _names("sinks"):
            add("module-null-sink", f"sink_name={SINK}")
        if MIC not in _names("sources"):
            # A FIFO left by a PulseAudio that died makes module-pipe-source refuse to load.
            fifo.unlink(missing_ok=True)
            add("module-pipe-source", f"source_name={MIC}", f"file={fifo}", "format=s16le", f"rate={RATE}",
                "channels=1")
        _pactl("set-default-sink", SINK)
        _pactl("set-default-source", MIC)
        _unload_orphans()
    return AudioEnv(SINK, f"{SINK}.monitor", MIC, fifo)


_PRIVATE = re.compile(r"(?:sink|source)_name=([a-z0-9]+_(\d+)_\d+_[0-9a-f]{6})\b")


def _unload_orphans() -> None:
    """Unload private sinks and microphones left behind by test processes that were killed."""
    for line in _pactl("list", "short", "modules").splitlines():
        found = _PRIVATE.search(line)
        if found is None:
            continue
        try:
            os.kill(int(found.group(2)), 0)
        except ProcessLookupError:
            _pactl("unload-module", line.split("\t")[0], check=False)
            (runtime_dir() / f"{found.group(1)}.fifo").unlink(missing_ok=True)
        except PermissionError:
            pass  # someone else's live process


_counter = itertools.count()


@contextlib.contextmanager
def _env(**values: str) -> Iterator[None]:
    """These environment variables set while in use, then as they were."""
    previous = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextlib.contextmanager
def private_sink(prefix: str = "test") -> Iterator[str]:
    """A null sink of our own (no other test's sound in it), the output of new streams meanwhile.

    PortAudio reaches PulseAudio through ALSA's pulse plugin, which honours $PULSE_SINK when
    a stream opens; so streams opened inside the block play into this sink.
    """
    ensure_audio()
    name = f"{prefix}_{os.getpid()}_{next(_counter)}_{uuid.uuid4().hex[:6]}"
    module = _load("module-null-sink", f"sink_name={name}")
    try:
        with _env(PULSE_SINK=name):
            yield name
    finally:
        _unload(module)


@contextlib.contextmanager
def private_mic(prefix: str = "mic") -> Iterator[Path]:
    """A virtual microphone of our own; yields the FIFO to write 16 kHz mono s16le audio into.

    Input streams opened inside the block (and subprocesses given the same environment)
    record from it: the ALSA pulse plugin honours $PULSE_SOURCE. No other test's audio
    gets into it.
    """
    ensure_audio()
    name = f"{prefix}_{os.getpid()}_{next(_counter)}_{uuid.uuid4().hex[:6]}"
    fifo = runtime_dir() / f"{name}.fifo"
    module = _load("module-pipe-source", f"source_name={name}", f"file={fifo}", "format=s16le",
                   f"rate={RATE}", "channels=1")
    try:
        with _env(PULSE_SOURCE=name):
            yield fifo
    finally:
        _unload(module)
        fifo.unlink(missing_ok=True)


class SecondServer:
    """A PulseAudio server of its own (socket in ``folder``) with a null sink and a pipe-source
    microphone, which a test may kill and start again: a speaker and a microphone that are
    unplugged and plugged back in.

    Processes reach it through ``env()`` ($PULSE_SERVER, and its microphone as $PULSE_SOURCE);
    ``use()`` points this process's pactl/parec calls at it meanwhile. Write 16 kHz mono
    s16le audio into ``mic_fifo`` to speak.
    """

    SINK = "spare"
    MIC = "spare_mic"

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.socket = folder / "native"
        self.mic_fifo = folder / "mic.fifo"
        self.process: subprocess.Popen[bytes] | None = None

    def env(self) -> dict[str, str]:
        return {**os.environ, **private_env(self.folder), "PULSE_SINK": self.SINK, "PULSE_SOURCE": self.MIC}

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.socket.unlink(missing_ok=True)
        self.mic_fifo.unlink(missing_ok=True)  # module-pipe-source will not take an old one
        self.process = subprocess.Popen(
            ["pulseaudio", "-n", "--daemonize=no", "--use-pid-file=no", "--exit-idle-time=-1",
             f"--load=module-native-protocol-unix socket={self.socket}",
             f"--load=module-null-sink sink_name={self.SINK}",
             f"--load=module-pipe-source source_name={self.MIC} file={self.mic_fifo} format=s16le "
             f"rate={RATE} channels=1"],
            env=server_env(self.folder), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while subprocess.run(["pactl", "info"], env=self.env(), capture_output=True, timeout=5).returncode:
            if self.process.poll() is not None or time.monotonic() > deadline:
                error = self.process.stderr.read().decode() if self.process.stderr else ""
                raise AudioEnvError(f"a second PulseAudio did not start: {error.strip() or 'timeout'}")
            time.sleep(0.05)

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None

    def use(self) -> contextlib.AbstractContextManager[None]:
        return _env(**private_env(self.folder))


class Recorder:
    """Records a PulseAudio source (a sink's ``.monitor``) at 16 kHz mono while running."""

    def __init__(self, source: str, rate: int = RATE) -> None:
        self.source = source
        self.rate = rate
        self._chunks: list[bytes] = []
        self._process: subprocess.Popen[bytes] | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Recorder:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        before = _source_outputs()
        self._process = subprocess.Popen(
            ["parec", "-d", self.source, f"--rate={self.rate}", "--channels=1", "--format=s16le",
             "--latency-msec=20"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 5
        while len(_source_outputs()) <= len(before):
            if self._process.poll() is not None or time.monotonic() > deadline:
                error = self._process.stderr.read().decode() if self._process.stderr else ""
                raise AudioEnvError(f"parec could not record {self.source}: {error.strip() or 'timeout'}")
            time.sleep(0.02)

    def _read(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        while True:
            data = self._process.stdout.read1(4096)  # type: ignore[attr-defined]
            if not data:
                return
            self._chunks.append(data)

    def stop(self) -> npt.NDArray[np.int16]:
        if self._process is not None:
            time.sleep(0.2)  # the last buffer still on its way
            self._process.terminate()
            self._process.wait(timeout=5)
            if self._thread is not None:
                self._thread.join(timeout=5)
            self._process = None
        return self.samples()

    def samples(self) -> npt.NDArray[np.int16]:
        data = b"".join(self._chunks)
        return np.frombuffer(data[: len(data) // 2 * 2], dtype="<i2").astype(np.int16)


def _source_outputs() -> list[str]:
    return [line for line in _pactl("list", "short", "source-outputs").splitlines() if line.strip()]


def feed_mic(env: AudioEnv, samples: npt.NDArray[np.int16]) -> None:
    """Write 16 kHz mono int16 audio into the virtual microphone (blocks until written)."""
    with open(env.mic_fifo, "wb") as fifo:
        fifo.write(np.ascontiguousarray(samples, dtype="<i2").tobytes())


def main() -> int:
    try:
        env = ensure_audio(keep=True)  # for a shell: it stays running
    except (AudioEnvError, OSError, subprocess.SubprocessError) as error:
        print(f"audio_env: {error}", file=sys.stderr)
        return 1
    print(f"PulseAudio ready: sink {env.sink} (record {env.monitor}), microphone {env.mic} "
          f"(write 16 kHz mono s16le into {env.mic_fifo}); server {os.environ.get('PULSE_SERVER', '(default)')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
