#!/usr/bin/env bash
# Does the assistant install, play, hear and speak on a Raspberry Pi's software? Run, as root, on
# an x86 Debian machine, it tries that in an emulated arm64 Debian 12 (the base of Raspberry Pi
# OS Bookworm), and compares what it gets with the same steps run natively on x86.
#
#   scripts/check-arm64.sh                   the check (20-25 minutes under emulation here)
#   scripts/check-arm64.sh --x86-reference   write scripts/arm64/reference/* from this machine
#                                            (the checkout's .venv; seconds, no root needed)
#
# The check:
#  1. builds an arm64 Debian 12 root with debootstrap (qemu-user-static + binfmt), with
#     python3, python3-venv and sudo, and a user "pi", and caches it outside the checkout
#     ($OMEGA_ARM64_CACHE, default /var/cache/omega-assistant: arm64-root is reused when there);
#  2. copies that root into a fresh one for this run (arm64-run), gives it this machine's apt
#     sources, pip settings and certificates, so it reaches the same registries, and bind-mounts
#     /proc (with a Raspberry Pi 5's /proc/cpuinfo, and qemu emulating its Cortex-A76: below),
#     /sys (onnxruntime reads the CPUs there), /dev and the local package folders pip is set to
#     use; everything is unmounted on every way out;
#  3. copies the checkout in (git archive of HEAD as the check starts: commit what you want
#     checked) and, as the user pi, runs the README's first command, ./start.sh, with its
#     set-up, playing a text game;
#  4. runs scripts/arm64/steps.sh inside (a game, transcribing clips, say -o, doctor,
#     install-service --root, the GPIO keypad on mock pins, model checksums), then a slice of
#     the test suite that needs no audio devices (pytest installed into the venv separately);
#  5. compares with scripts/arm64/reference/ (the commit's) and prints one closing line: what
#     matched, what not.
# Outputs and the log of the last run: $OMEGA_ARM64_CACHE/last-run/. Exit status 0 when all matched.
# Timing under emulation says nothing about a Pi.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
reference="$repo/scripts/arm64/reference"
# Compared between arm64 and x86 (scripts/arm64/steps.sh says what each holds).
COMPARED=(game commands models say gpio doctor-lines service)
# The test files run inside: no audio devices, about 35 s together on x86 (the hearing and voice test
# files take minutes there, hours under emulation; the steps above hear and speak instead). They
# reach a Pi's own paths: the game's rules, the settings file, the keypads (evdev's included), the
# systemd unit (with systemd-analyze when there), the hybrid's decisions, the phone server (aiohttp).
TEST_SLICE=(tests/test_omega_rules.py tests/test_config.py tests/test_keypad.py tests/test_service.py
            tests/test_hearing_ear.py tests/test_phone_requests.py)
if [ "${1:-}" = "--x86-reference" ]; then
    cd "$repo"
    [ -x .venv/bin/assistant ] || { echo "No .venv here: run ./start.sh once first." >&2; exit 2; }
    out="$(mktemp -d)"
    trap 'rm -rf "$out"' EXIT
    # this checkout's code, also when .venv is shared with another checkout (an editable install of that one)
    PYTHONPATH="$repo${PYTHONPATH:+:$PYTHONPATH}" scripts/arm64/steps.sh "$out"
    mkdir -p "$reference"
    for name in "${COMPARED[@]}"; do cp "$out/$name.txt" "$reference/$name.txt"; done
    echo "Wrote ${COMPARED[*]} into scripts/arm64/reference/ ($(uname -m), commit $(git rev-parse --short HEAD))."
    exit 0
fi
[ $# -eq 0 ] || { sed -n '2,9p' "$0" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "check-arm64.sh needs root (debootstrap, chroot, mount): sudo $0" >&2; exit 2; }

cache="${OMEGA_ARM64_CACHE:-/var/cache/omega-assistant}"
base="$cache/arm64-root"
run="$cache/arm64-run"
results="$cache/last-run"
user=pi
home="/home/$user"
started=$(date +%s)
# HEAD when the check starts, the commit copied in and named in the closing line (a commit made
# while the root is built is not taken up half-way)
checked="$(git -C "$repo" rev-parse HEAD)"
commit="$(git -C "$repo" rev-parse --short "$checked")"
mkdir -p "$cache"
rm -rf "$results"
mkdir -p "$results"
log="$results/check.log"
say() { printf '[check-arm64 %s] %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$log" >&2; }

# ------------------------------------------------------------------ the host's tools
missing=()
command -v qemu-aarch64-static >/dev/null || missing+=(qemu-user-static)
command -v update-binfmts >/dev/null || missing+=(binfmt-support)
command -v debootstrap >/dev/null || missing+=(debootstrap)
if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >>"$log" 2>&1
fi
if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
    mount binfmt_misc -t binfmt_misc /proc/sys/fs/binfmt_misc
fi
update-binfmts --enable qemu-aarch64 >>"$log" 2>&1 || true
grep -qx enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null \
    || { say "arm64 programs cannot run here (binfmt qemu-aarch64 not enabled)"; exit 2; }

# ------------------------------------------------------------------ mounts, undone on every way out
mounted=()
bind() {  # bind SOURCE TARGET_INSIDE [ro]
    mkdir -p "$run$2"
    mount --bind "$1" "$run$2"
    mounted+=("$run$2")
    if [ "${3:-}" = ro ]; then mount -o remount,bind,ro "$run$2"; fi
}
cleanup() {
    local status=$? signal proc i
    # Whatever still runs inside the root (a sound server a client started, say) holds its mounts.
    for signal in TERM KILL; do
        for proc in /proc/[0-9]*; do
            if [ "$(readlink "$proc/root" 2>/dev/null)" = "$run" ]; then kill -s "$signal" "${proc#/proc/}" 2>/dev/null || true; fi
        done
        sleep 1
    done
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" || true
    done
    mounted=()
    if [ -e "$binfmt_entry" ]; then echo -1 >"$binfmt_entry" || true; fi
    exit "$status"
}
binfmt_entry=/proc/sys/fs/binfmt_misc/omega-arm64-check
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# sudo (start.sh asks for it to install system packages) is set-uid: under emulation it gets
# root only when the arm64 programs' binfmt entry has the C (credentials) flag. Debian's
# qemu-aarch64 entry has not; for this run, a copy of it with C is put first (newer entries are
# looked at first), and removed on the way out.
add_binfmt_with_credentials() {
    local entry=/proc/sys/fs/binfmt_misc/qemu-aarch64 field
    declare -A value
    for field in interpreter offset magic mask; do value[$field]="$(sed -n "s/^$field //p" "$entry")"; done
    [ ! -e "$binfmt_entry" ] || echo -1 >"$binfmt_entry"
    # shellcheck disable=SC2001  # each pair of hex digits becomes \xHH
    printf ':%s:M:%s:%s:%s:%s:POCF\n' "$(basename "$binfmt_entry")" "${value[offset]}" \
        "$(sed 's/../\\x&/g' <<<"${value[magic]}")" "$(sed 's/../\\x&/g' <<<"${value[mask]}")" \
        "${value[interpreter]}" >/proc/sys/fs/binfmt_misc/register
}

# The emulated CPU is a Raspberry Pi 5's (Cortex-A76; QEMU_CPU, which qemu-user reads from each
# program's environment). qemu 7.2 (Debian 12's) passes the host's /proc/cpuinfo through
# unchanged, an x86 one, where an arm64 program expects "CPU implementer" and "CPU part" lines:
# onnxruntime 1.28 and later (its cpuinfo library) crash with a segmentation fault on import when
# they read it, and import when it reads as a Pi 5's. So the root gets a Pi 5's /proc/cpuinfo,
# with as many cores as this machine's /sys says (a Pi's kernel writes the same fields).
export QEMU_CPU=cortex-a76
pi5_cpuinfo() {
    local cpu
    for ((cpu = 0; cpu < $(nproc --all); cpu++)); do
        printf 'processor\t: %d\nBogoMIPS\t: 108.00\n' "$cpu"
        printf 'Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp\n'
        printf 'CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x4\nCPU part\t: 0xd0b\nCPU revision\t: 1\n\n'
    done
    printf 'Revision\t: d04170\nSerial\t\t: 0000000000000000\nModel\t\t: Raspberry Pi 5 Model B Rev 1.0\n'
}

mount_system() {
    mkdir -p "$run/proc"
    mount -t proc proc "$run/proc"
    mounted+=("$run/proc")
    pi5_cpuinfo >"$cache/cpuinfo"
    mount --bind "$cache/cpuinfo" "$run/proc/cpuinfo"
    mounted+=("$run/proc/cpuinfo")
    bind /sys /sys ro
    bind /dev /dev
    bind /dev/pts /dev/pts
}
unmount_all() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[i]}" || umount -l "${mounted[i]}"; done
    mounted=()
    if [ -e "$binfmt_entry" ]; then echo -1 >"$binfmt_entry"; fi
}

# ------------------------------------------------------------------ the cached arm64 Debian 12 root
if [ ! -f "$base/.omega-base-ready" ]; then
    partial="$base.partial"
    if [ ! -x "$partial/usr/bin/python3" ] || [ ! -f "$partial/etc/debian_version" ]; then
        rm -rf "$partial"
        mirror="$(sed -n 's/^URIs: *\(http[^ ]*debian\) *$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)"
        mirror="${mirror:-http://deb.debian.org/debian}"
        say "building the arm64 Debian 12 root from $mirror (about 15 minutes, once)"
        debootstrap --arch=arm64 --variant=minbase --include=python3,python3-venv,sudo,ca-certificates \
            bookworm "$partial" "$mirror" >>"$log" 2>&1
    fi
    # A Raspberry Pi OS user: a home, and sudo without a password (the Imager's user has sudo).
    chroot "$partial" /bin/sh -c "id $user >/dev/null 2>&1 || useradd -m -s /bin/bash -G sudo $user"
    echo "$user ALL=(ALL) NOPASSWD: ALL" >"$partial/etc/sudoers.d/010_$user-nopasswd"
    chmod 440 "$partial/etc/sudoers.d/010_$user-nopasswd"
    # No daemons started by packages' install scripts: a chroot has no init to own them.
    printf '#!/bin/sh\nexit 101\n' >"$partial/usr/sbin/policy-rc.d"
    chmod 755 "$partial/usr/sbin/policy-rc.d"
    touch "$partial/.omega-base-ready"
    mv "$partial" "$base"
else
    say "using the cached arm64 root $base"
fi

# ------------------------------------------------------------------ this run's root
say "a fresh copy of it for this run: $run"
rm -rf "$run"
cp -a --reflink=auto "$base" "$run"
# sudo keeps the emulated CPU (apt, under start.sh's sudo, runs as a Pi 5 too)
echo 'Defaults env_keep += "QEMU_CPU"' >"$run/etc/sudoers.d/020_qemu-cpu"
chmod 440 "$run/etc/sudoers.d/020_qemu-cpu"

# This machine's registries: apt's sources (the files apt reads), their keys, its network
# settings, and its certificates (an egress proxy's CA among them).
rm -f "$run/etc/apt/sources.list" "$run"/etc/apt/sources.list.d/*
for source in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$source" ] || continue
    # a source that is for this machine's architecture only would fail for arm64
    if grep -qiE '^\s*Architectures:' "$source" && ! grep -qiE '^\s*Architectures:.*arm64' "$source"; then continue; fi
    if grep -qE '\[[^]]*arch=' "$source" && ! grep -qE '\[[^]]*arch=[^]]*arm64' "$source"; then continue; fi
    cp "$source" "$run$source"
    while read -r key; do
        if [ -f "$key" ] && [ ! -f "$run$key" ]; then mkdir -p "$(dirname "$run$key")"; cp "$key" "$run$key"; fi
    done < <(grep -ohE '(signed-by=|Signed-By: *)/[^] ]+' "$source" | sed -E 's/^(signed-by=|Signed-By: *)//')
done
for conf in /etc/apt/apt.conf /etc/apt/apt.conf.d/*; do  # only network settings, not host hooks
    [ -f "$conf" ] && grep -qiE '^\s*Acquire' "$conf" && cp "$conf" "$run$conf"
done
cp /etc/resolv.conf "$run/etc/resolv.conf"
cp /etc/hosts "$run/etc/hosts"
cp /etc/hostname "$run/etc/hostname"
if [ -d /usr/local/share/ca-certificates ]; then
    cp -r /usr/local/share/ca-certificates/. "$run/usr/local/share/ca-certificates/"
fi
cp /etc/ssl/certs/ca-certificates.crt "$run/etc/ssl/certs/ca-certificates.crt"

# pip's settings: its configuration files (global, the user's) and PIP_* variables; local
# folders they name (find-links, file:// indexes) are bind-mounted read-only at the same path.
[ -f /etc/pip.conf ] && cp /etc/pip.conf "$run/etc/pip.conf"
[ -d /etc/xdg/pip ] && mkdir -p "$run/etc/xdg" && cp -r /etc/xdg/pip "$run/etc/xdg/"
user_pip="$run$home/.config/pip"
mkdir -p "$user_pip"
for conf in "${XDG_CONFIG_HOME:-$HOME/.config}/pip/pip.conf" "$HOME/.pip/pip.conf"; do
    [ -f "$conf" ] && cat "$conf" >>"$user_pip/pip.conf"
done
pip_env=()
while IFS='=' read -r name value; do
    case "$name" in PIP_*|http_proxy|https_proxy|no_proxy|HTTP_PROXY|HTTPS_PROXY|NO_PROXY) pip_env+=("$name=$value");; esac
done < <(env)
pip_folders=()
for word in $(cat /etc/pip.conf /etc/xdg/pip/*.conf "$user_pip/pip.conf" 2>/dev/null | sed 's/^[^=]*=//') \
            $(printf '%s\n' "${pip_env[@]}" | sed 's/^[^=]*=//'); do
    path="${word#file://}"
    path="${path%/}"
    case "$path" in */simple) path="${path%/simple}";; esac  # a file index links to ../../files
    case "$path" in /?*) if [ -d "$path" ]; then pip_folders+=("$path"); fi;; esac
done

# The pip and apt downloads are kept between runs (what is installed is not: each run starts fresh).
mkdir -p "$cache/pip-cache" "$cache/apt-archives/partial"
chroot "$run" /bin/sh -c "mkdir -p $home/.cache && chown -R $user:$user $home"
uid="$(chroot "$run" id -u "$user")"
chown -R "$uid:$uid" "$cache/pip-cache"

# The checkout, as a clone would have it (HEAD at the start; no .venv, state, models or voice cache).
if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]; then
    say "note: uncommitted changes are not checked (this checks commit $commit)"
fi
mkdir -p "$run$home/omega-assistant"
git -C "$repo" archive "$checked" | tar -x -C "$run$home/omega-assistant"
# compared with that commit's references too, not with the working tree's (written meanwhile, maybe)
cp -r "$run$home/omega-assistant/scripts/arm64/reference" "$results/reference"
reference="$results/reference"
chroot "$run" chown -R "$user:$user" "$home/omega-assistant"

add_binfmt_with_credentials
mount_system
bind "$cache/pip-cache" "$home/.cache/pip"
bind "$cache/apt-archives" /var/cache/apt/archives
if [ ${#pip_folders[@]} -gt 0 ]; then
    for folder in $(printf '%s\n' "${pip_folders[@]}" | sort -u); do bind "$folder" "$folder" ro; done
fi

# A command as the user pi, in the checkout, with a login's environment and this machine's pip settings.
as_pi() {  # as_pi SECONDS COMMAND
    timeout --kill-after=30 "$1" chroot --userspec="$user:$user" "$run" \
        env -i HOME="$home" USER="$user" LOGNAME="$user" SHELL=/bin/bash LANG=C.UTF-8 TERM=dumb QEMU_CPU="$QEMU_CPU" \
        PATH=/usr/local/bin:/usr/bin:/bin "${pip_env[@]}" \
        /bin/bash -c "cd ~/omega-assistant && $2"
}

matched=()
failed=()

# ------------------------------------------------------------------ ./start.sh, as a new user
say "inside: ./start.sh omega-virus --text --clock virtual --seed 7 (set-up first: system packages, .venv)"
start_status=0
as_pi 2400 "./start.sh omega-virus --text --clock virtual --seed 7 < scripts/arm64/moves.txt" \
    >"$results/start.txt" 2>"$results/start-errors.txt" || start_status=$?
# the game is what it writes on its output, as steps.sh's game.txt (its messages, as "End of
# input", go to start-errors.txt with apt's and pip's)
sed -n '/^BSAT1: Enter skill\.$/,$p' "$results/start.txt" >"$results/start-game.txt"
if [ "$start_status" = 0 ] && cmp -s "$results/start-game.txt" "$reference/game.txt"; then
    matched+=("start.sh set up and played the reference game")
else
    failed+=("start.sh (exit $start_status; see last-run/start.txt, start-errors.txt)")
fi
tail -n 5 "$results/start.txt" "$results/start-errors.txt" | sed 's/^/    /' >&2
say "arm64 Python packages: $(as_pi 300 '.venv/bin/python -m pip list --format=freeze 2>/dev/null | wc -l') installed"

if [ -x "$run$home/omega-assistant/.venv/bin/assistant" ]; then
    # ------------------------------------------------------------------ the steps, compared with x86
    say "inside: scripts/arm64/steps.sh"
    # one step at a time: a step that crashes (exit 139: a segmentation fault) does not hide the rest
    for name in game commands models say gpio doctor service; do
        step_status=0
        as_pi 1200 "scripts/arm64/steps.sh ~/steps-out $name" >>"$results/steps.log" 2>&1 || step_status=$?
        [ "$step_status" = 0 ] || failed+=("step $name (exit $step_status; see last-run/steps.log)")
    done
    cp -r "$run$home/steps-out/." "$results/" 2>/dev/null || true
    for name in "${COMPARED[@]}"; do
        if [ ! -f "$results/$name.txt" ]; then
            failed+=("$name: not made")
        elif cmp -s "$results/$name.txt" "$reference/$name.txt"; then
            case "$name" in
                commands|models) matched+=("$name $(wc -l <"$reference/$name.txt")/$(wc -l <"$reference/$name.txt")");;
                *) matched+=("$name");;
            esac
        else
            diff -u "$reference/$name.txt" "$results/$name.txt" >"$results/$name.diff" || true
            case "$name" in
                commands|models) same=$(comm -12 <(sort "$reference/$name.txt") <(sort "$results/$name.txt") | wc -l)
                                 failed+=("$name $same/$(wc -l <"$reference/$name.txt") (last-run/$name.diff)");;
                *) failed+=("$name differs (last-run/$name.diff)");;
            esac
        fi
    done

    # ------------------------------------------------------------------ a slice of the tests
    say "inside: pytest ${TEST_SLICE[*]}"
    tests_status=0
    as_pi 900 ".venv/bin/python -m pip install -q pytest && .venv/bin/python -m pytest -q -p no:cacheprovider ${TEST_SLICE[*]}" \
        >"$results/pytest.txt" 2>&1 || tests_status=$?
    summary="$(grep -E '^[=]* ?[0-9]+ (passed|failed)|[0-9]+ (passed|failed|error)' "$results/pytest.txt" | tail -1 | tr -d '=' | sed 's/^ *//; s/ *$//')"
    if [ "$tests_status" = 0 ]; then matched+=("tests ${summary:-passed}"); else failed+=("tests: ${summary:-exit $tests_status} (last-run/pytest.txt)"); fi
    tail -n 3 "$results/pytest.txt" | sed 's/^/    /' >&2
fi

unmount_all
minutes=$(( ($(date +%s) - started + 59) / 60 ))
line="arm64 check $(date -u +%Y-%m-%d) commit $commit ($minutes min under emulation):"
joined() { local first="$1"; shift; printf '%s' "$first"; [ $# -eq 0 ] || printf ', %s' "$@"; }
[ ${#matched[@]} -eq 0 ] || line="$line matched: $(joined "${matched[@]}")."
if [ ${#failed[@]} -gt 0 ]; then
    line="$line NOT matched: $(joined "${failed[@]}")."
else
    line="$line Nothing differed."
fi
echo "$line" | tee -a "$log"
[ ${#failed[@]} -eq 0 ]
