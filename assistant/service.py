"""``assistant install-service``: start the game menu at boot, as a systemd service.

A **user** service by default, because the audio session decides: on Raspberry Pi OS the
sound server (PipeWire on the Desktop image, PulseAudio where ``./start.sh`` installed it)
runs in the user's own systemd session, and only a process of that session reaches it.
``loginctl enable-linger`` starts that session at boot, with no one logged in, so the
assistant, the sound server and the ALSA devices all come up together. ``--system`` writes
a system service instead (it runs as the installing user, after ``sound.target``): for a
machine with no sound server, where PortAudio opens the ALSA devices directly.

Either way the service runs ``assistant play`` with no game (the spoken menu) from the
project folder, restarts after a crash (with a growing delay where systemd has
``RestartSteps``, from version 254; a fixed one before), and logs to the journal.
``--root DIR`` writes the files under DIR and runs no systemctl (image building, tests).
"""

from __future__ import annotations

import argparse
import getpass
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from assistant.config import PROJECT_ROOT, Config

UNIT = "omega-assistant.service"
#: systemd's RestartSteps= and RestartMaxDelaySec= (a growing restart delay) came in 254;
#: Raspberry Pi OS Bookworm has 252, Trixie 257.
RESTART_STEPS_SINCE = 254


@dataclass(frozen=True)
class Plan:
    """Where the unit goes and what it says; paths are the target system's (before --root)."""

    system: bool
    user: str
    home: Path

    @property
    def unit_dir(self) -> Path:
        return Path("/etc/systemd/system") if self.system else self.home / ".config/systemd/user"

    @property
    def target(self) -> str:
        return "multi-user.target" if self.system else "default.target"

    @property
    def unit_path(self) -> Path:
        return self.unit_dir / UNIT

    @property
    def wants_link(self) -> Path:
        return self.unit_dir / f"{self.target}.wants" / UNIT

    @property
    def linger_file(self) -> Path | None:
        return None if self.system else Path("/var/lib/systemd/linger") / self.user

    def systemctl(self, *args: str) -> list[str]:
        return ["systemctl", *([] if self.system else ["--user"]), *args]

    @property
    def journal(self) -> str:
        return f"journalctl {'' if self.system else '--user '}-u {UNIT.removesuffix('.service')} -f"


def quote(word: str) -> str:
    """One word of an ExecStart= line, quoted the way systemd reads it."""
    escaped = word.replace("%", "%%").replace("$", "$$")
    if re.fullmatch(r"[A-Za-z0-9_@%+=:,./$-]+", escaped):
        return escaped
    return '"' + escaped.replace("\\", "\\\\").replace('"', '\\"') + '"'


def command_line(config: Config) -> list[str]:
    """``assistant play`` (no game: the menu) through this install's own entry point."""
    entry = Path(sys.executable).absolute().with_name("assistant")  # not resolved: stay inside the venv
    command = [str(entry)] if os.access(entry, os.X_OK) else [str(Path(sys.executable).absolute()), "-m", "assistant"]
    if config.path is not None and config.path.resolve() != (PROJECT_ROOT / "config.yaml").resolve():
        command += ["--config", str(config.path.resolve())]
    return [*command, "play"]


def systemd_version() -> int | None:
    try:
        first = subprocess.run(["systemctl", "--version"], capture_output=True, text=True,
                               timeout=10).stdout.split("\n", 1)[0]
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.match(r"systemd (\d+)", first)
    return int(match.group(1)) if match else None


def unit_text(plan: Plan, command: list[str], working_dir: Path, version: int | None,
              environment: dict[str, str] | None = None) -> str:
    """The unit file. ``version``: the target's systemd (None: unknown, written for 252)."""
    if plan.system:
        after = "sound.target"
        why = "# sound cards are there (udev starts sound.target when it finds one)"
    else:
        after = "pipewire.service pipewire-pulse.service wireplumber.service pulseaudio.service"
        why = "# the user's sound server first (PipeWire or PulseAudio: whichever is installed)"
    if version is not None and version >= RESTART_STEPS_SINCE:
        restart = ["RestartSec=2s", "RestartSteps=6", "RestartMaxDelaySec=2min"]
        restart_why = "# after a crash: again in 2 s, the delay growing to 2 minutes"
    else:
        restart = ["RestartSec=15s"]
        restart_why = "# after a crash: again in 15 s (systemd before 254 has no growing delay)"
    env = {"PYTHONUNBUFFERED": "1", **(environment or {})}
    lines = [
        "# Written by `assistant install-service`; `assistant install-service --uninstall` removes it.",
        "[Unit]",
        "Description=Omega Assistant: the voice game-master (spoken game menu)",
        f"Documentation={(PROJECT_ROOT / 'docs' / 'raspberry-pi.md').as_uri()}",
        why,
        f"After={after}",
        "# never give up restarting: a box with no screen has no one to restart it",
        "StartLimitIntervalSec=0",
        "",
        "[Service]",
        "Type=exec",
        *([f"User={plan.user}"] if plan.system else []),
        f"WorkingDirectory={str(working_dir).replace('%', '%%')}",  # taken whole: no quotes
        "ExecStart=" + " ".join(quote(word) for word in command),
        *(f"Environment={quote(f'{key}={value}')}" for key, value in env.items()),
        "Restart=on-failure",
        restart_why,
        *restart,
        "# its output goes to the journal: " + plan.journal,
        "StandardOutput=journal",
        "StandardError=journal",
        "SyslogIdentifier=omega-assistant",
        "TimeoutStopSec=15",
        "",
        "[Install]",
        f"WantedBy={plan.target}",
        "",
    ]
    return "\n".join(lines)


def make_plan(system: bool) -> Plan:
    """A system service runs as the user who asked for it (through sudo); a user service is
    the current user's."""
    user = (os.environ.get("SUDO_USER") if system else None) or getpass.getuser()
    return Plan(system, user, Path.home())


def under(root: Path | None, path: Path) -> Path:
    return path if root is None else root / path.relative_to("/")


def run_step(command: list[str], fix: str) -> bool:
    """Run one systemctl/loginctl step; on failure say which, what it said, and ``fix``."""
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as error:
        print(f"`{' '.join(command)}` could not run ({error}). {fix}", file=sys.stderr)
        return False
    if result.returncode != 0:
        said = (result.stderr or result.stdout).strip() or f"exit status {result.returncode}"
        print(f"`{' '.join(command)}` failed: {said}\n{fix}", file=sys.stderr)
        return False
    return True


def install(plan: Plan, root: Path | None, config: Config) -> int:
    version = None if root is not None else systemd_version()
    environment = {}
    if os.environ.get("ASSISTANT_STATE_DIR"):
        environment["ASSISTANT_STATE_DIR"] = os.environ["ASSISTANT_STATE_DIR"]
    text = unit_text(plan, command_line(config), PROJECT_ROOT, version, environment)
    unit = under(root, plan.unit_path)
    try:
        unit.parent.mkdir(parents=True, exist_ok=True)
        unit.write_text(text, encoding="utf-8")
    except OSError as error:
        print(f"Cannot write {unit}: {error.strerror or error}.", file=sys.stderr)
        return 1
    kind = "system service" if plan.system else f"user service of {plan.user}"
    print(f"Wrote {unit} ({kind}: `assistant play`, the game menu, from {PROJECT_ROOT}).")
    if root is not None:
        link = under(root, plan.wants_link)
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(plan.unit_path)
        print(f"Enabled: {link} -> {plan.unit_path}.")
        if plan.linger_file is not None:
            linger = under(root, plan.linger_file)
            linger.parent.mkdir(parents=True, exist_ok=True)
            linger.touch()
            print(f"Lingering on for {plan.user} ({linger}): the user's session starts at boot.")
        print(f"Nothing started (--root {root}): it starts at the next boot of that system.")
        return 0
    if shutil.which("systemctl") is None:
        enable = " ".join(plan.systemctl("enable", "--now", UNIT))
        print(f"systemctl is not here: this system does not run systemd, so nothing starts {UNIT} at boot. "
              f"The unit file is written; on a system with systemd: {enable}", file=sys.stderr)
        return 1
    how = "sudo " if plan.system else ""
    steps = []
    if plan.linger_file is not None:  # first: it also starts the user's systemd now, if it was not running
        steps.append((["loginctl", "enable-linger", plan.user],
                      f"Without lingering it starts only when {plan.user} logs in. Fix: "
                      f"sudo loginctl enable-linger {plan.user}"))
    steps += [(plan.systemctl("daemon-reload"), "Is systemd running this machine (and, for a user service, your "
               "login session)? Try again from a normal login (ssh, or the console), or add --system."),
              (plan.systemctl("enable", UNIT), f"Enable it by hand: {how}{' '.join(plan.systemctl('enable', UNIT))}"),
              (plan.systemctl("restart", UNIT), f"Its log says why: {plan.journal}")]
    for command, fix in steps:
        if not run_step(command, fix):
            return 1
    print(f"Started, and it will start at every boot. Its log: {plan.journal}\n"
          f"Stop it: {how}{' '.join(plan.systemctl('stop', UNIT))}; remove it: assistant install-service --uninstall"
          f"{' --system' if plan.system else ''}")
    return 0


def uninstall(plan: Plan, root: Path | None) -> int:
    unit = under(root, plan.unit_path)
    link = under(root, plan.wants_link)
    if not unit.exists() and not link.is_symlink():
        print(f"No {'system' if plan.system else 'user'} service is installed ({unit} is not there); nothing to do.")
        return 0
    status = 0
    if root is None:
        if shutil.which("systemctl") is None:
            print("systemctl is not here: a running assistant could not be stopped; removing the files only.",
                  file=sys.stderr)
            status = 1
        elif not run_step(plan.systemctl("disable", "--now", UNIT),
                          "Removing the files anyway; it stops at the next reboot."):
            status = 1
    for path in (link, unit):
        if path.is_symlink() or path.exists():
            try:
                path.unlink()
            except OSError as error:
                print(f"Cannot remove {path}: {error.strerror or error}.", file=sys.stderr)
                return 1
            print(f"Removed {path}.")
    if root is None and shutil.which("systemctl") is not None:
        run_step(plan.systemctl("daemon-reload"), "")
    if plan.linger_file is not None:
        print(f"Lingering for {plan.user} is left as it is (other services may need it): "
              f"sudo loginctl disable-linger {plan.user} turns it off.")
    return status


def service_main(args: argparse.Namespace, config: Config) -> int:
    root = Path(args.root).absolute() if getattr(args, "root", None) else None
    system = bool(getattr(args, "system", False))
    if root is None and system and os.geteuid() != 0:
        print("A system service is installed by root: sudo .venv/bin/assistant install-service --system "
              "(or leave out --system for your own user service).", file=sys.stderr)
        return 2
    if root is None and not system and os.geteuid() == 0 and os.environ.get("SUDO_USER"):
        print(f"A user service belongs to the player's account: run this without sudo, as "
              f"{os.environ['SUDO_USER']} (or add --system for a system service).", file=sys.stderr)
        return 2
    plan = make_plan(system)
    if args.uninstall:
        return uninstall(plan, root)
    return install(plan, root, config)
