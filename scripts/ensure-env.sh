# Sourced by start.sh and test.sh: installs what the assistant needs, once.
#  - Debian packages: PortAudio (sounddevice), PulseAudio (audio tests), espeak-ng and sox,
#    and whatever the caller adds in EXTRA_APT_PACKAGES (test.sh: the browser for the phone test)
#  - a virtual environment in .venv with the assistant and its Python packages
# Re-running is cheap: each step is skipped when already done.

APT_PACKAGES="libportaudio2 pulseaudio pulseaudio-utils libasound2-plugins espeak-ng sox ${EXTRA_APT_PACKAGES:-}"

_as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        echo "Please install as root: $*" >&2; return 1; fi
}

_missing=""
for pkg in $APT_PACKAGES; do
    dpkg -s "$pkg" >/dev/null 2>&1 || _missing="$_missing $pkg"
done
if [ -n "$_missing" ]; then
    echo "Installing system packages:$_missing"
    _as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    # shellcheck disable=SC2086
    _as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $_missing >/dev/null
fi

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    echo "Creating .venv"
    "$PYTHON" -m venv .venv || { echo "python3 -m venv failed: install python3-venv" >&2; return 1; }
fi
_stamp=".venv/.installed-$(sha1sum pyproject.toml | cut -c1-12)"
if [ ! -f "$_stamp" ]; then
    echo "Installing Python packages into .venv (first run takes a few minutes)"
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e '.[test,whisper-base]'
    touch "$_stamp"
fi
