#!/usr/bin/env bash
# The steps scripts/check-arm64.sh runs inside the arm64 root, and on x86 for its reference
# outputs (--x86-reference): the same commands, with the same inputs, in a checkout with its
# .venv installed. Usage: scripts/arm64/steps.sh OUT_DIR [STEP ...]
# STEP: game commands models say gpio doctor service (default: all). $STEPS_CLIPS (a glob under
# scripts/arm64/clips/, default *.wav) picks the clips `commands` transcribes.
#
# Writes into OUT_DIR the outputs that are compared between arm64 and x86:
#   game.txt          a Command Center game in text (seed 7, virtual clock, scripts/arm64/moves.txt)
#   commands.txt      the command `assistant transcribe` (the default hybrid) takes from each clip
#   models.txt        SHA-256 of every model file the default set-up uses
#   say.txt           `assistant say -o` in both characters, heard back by `assistant transcribe`
#   gpio.txt          the GPIO keypad and status light on gpiozero's mock pins
#   doctor-lines.txt  `assistant doctor`'s hearing and voice lines (paths left out)
#   service.txt       what `assistant install-service --root` writes (paths left out)
# and, not compared (they differ by machine): heard.txt, doctor.txt, say-lengths.txt.
# Settings, state and scratch files go into a temporary folder, removed at the end; each step
# starts from its own, fresh (what a step gives does not depend on the steps run before it in
# the same call: check-arm64.sh runs them one a call, --x86-reference all in one).
set -euo pipefail
out="${1:?usage: scripts/arm64/steps.sh OUT_DIR [STEP ...]}"
shift
wanted=" ${*:-game commands models say gpio doctor service} "
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$(dirname "$0")/../.."
checkout="$PWD"
here="scripts/arm64"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# The defaults, except where things are kept: the models folder and the voice cache start empty,
# as on a fresh install (no Vosk model: the default recognizer hears without one).
# And Whisper's CPU budget a command is the largest allowed: the budget is a rule about time, which
# emulation (many times slower, unevenly) cannot judge, and the hybrid learns each stage's cost from
# the utterances before, so under emulation every clip after the first was "over the budget". The
# check compares what is heard; on x86 these clips are heard the same with it as with the default
# (the references, made with the default, did not change).
# A step's settings, state and files ($work), fresh for each step: doctor's "voice memory" line,
# say, is not the same after `say` has cut the voice in its cache as before.
fresh() {
    work="$(mktemp -d -p "$scratch")"
    printf 'hearing:\n  models_dir: %s/models\n  budget_seconds: 120\nvoice:\n  cache_dir: %s/cache\n' \
        "$work" "$work" >"$work/config.yaml"
    export ASSISTANT_CONFIG="$work/config.yaml" ASSISTANT_STATE_DIR="$work/state"
}
assistant=(.venv/bin/assistant)
py=.venv/bin/python

step() { printf '[steps %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
# wants STEP: whether STEP was asked for; if so, it gets its fresh settings
wants() { [[ "$wanted" == *" $1 "* ]] && fresh; }

# The fields of `assistant transcribe --json` that must agree, a line a clip: the clip, its command
# and its buttons.
commands_of() {
    "$py" -c 'import json, os, sys
for line in sys.stdin:
    r = json.loads(line)
    c = r.get("command")
    if c is None:
        heard = "no command"
    else:
        slots = " ".join(f"{k}={v}" for k, v in c["slots"].items())
        heard = " ".join(filter(None, [c["intent"], slots, "-> buttons", r.get("buttons", "none")]))
    print(os.path.basename(r["file"]) + ": " + heard)'
}
# `assistant transcribe --json` of each clip given, in one process (scripts/arm64/transcribe.py says why)
transcribe_each() {
    PYTHONPATH="$checkout${PYTHONPATH:+:$PYTHONPATH}" "$py" "$here/transcribe.py" "$@"
}

if wants game; then
    step "game: omega-virus --text --clock virtual --seed 7"
    "${assistant[@]}" play omega-virus --text --clock virtual --seed 7 --new <"$here/moves.txt" >"$out/game.txt"
fi

if wants commands; then
    # shellcheck disable=SC2206  # the glob is meant
    clips=("$here"/clips/${STEPS_CLIPS:-*.wav})
    step "transcribe: ${#clips[@]} clips with the default recognizer"
    transcribe_each "${clips[@]}" >"$out/heard.txt"
    commands_of <"$out/heard.txt" >"$out/commands.txt"
    [ "$(wc -l <"$out/commands.txt")" = "${#clips[@]}" ] || { step "transcribe: not every clip was heard"; exit 1; }
fi

if wants models; then
    step "models: SHA-256 of the model files"
    PYTHONPATH="$checkout${PYTHONPATH:+:$PYTHONPATH}" "$py" "$here/models.py" >"$out/models.txt"
fi

if wants say; then
    step "say -o in both characters, heard back"
    : >"$out/say-lengths.txt"
    for voice in virus bsat1; do
        "${assistant[@]}" say -o "$work/$voice.wav" --voice "$voice" "Explore one zero zero." >>"$out/say-lengths.txt"
    done
    transcribe_each "$work/virus.wav" "$work/bsat1.wav" | commands_of \
        | sed -E 's/^(virus|bsat1)\.wav: /\1 says "Explore one zero zero.", heard as: /' >"$out/say.txt"
    sed -i "s#$work/##" "$out/say-lengths.txt"
fi

if wants gpio; then
    step "gpio: the keypad on mock pins"
    PYTHONPATH="$checkout${PYTHONPATH:+:$PYTHONPATH}" "$py" "$here/gpio_mock.py" >"$out/gpio.txt"
fi

if wants doctor; then
    step "doctor"
    doctor_status=0
    "${assistant[@]}" doctor >"$out/doctor.txt" 2>&1 || doctor_status=$?
    echo "(exit status $doctor_status)" >>"$out/doctor.txt"
    # Its hearing and voice lines are the same on any machine with the same install; the audio
    # devices, the keypad and the tools are not (a chroot has no sound server). Absolute paths
    # (this run's temporary folder) become <path>; a path in the checkout, as bench/..., stays.
    # shellcheck disable=SC2016  # a path may stand in backquotes: literal ones
    awk '/^[A-Z]/ { keep = ($0 == "Hearing" || $0 == "Voices") } keep' "$out/doctor.txt" \
        | sed -E 's#(^|[[:space:](=:`"])/[^ ;,)`"]+#\1<path>#g' >"$out/doctor-lines.txt"
fi

if wants service; then
    step "install-service --root"
    "${assistant[@]}" install-service --root "$work/image" >/dev/null
    {
        user="$(id -un)"
        (cd "$work/image" && find . \( -type f -o -type l \)) \
            | sed -e "s#^\./root/#./<home>/#" -e "s#^\./home/$user/#./<home>/#" -e "s#/linger/$user\$#/linger/<user>#" | sort
        find "$work/image" -name omega-assistant.service -type f -exec cat {} \; | sed -E 's#(/[^ ]+)#<path>#g'
    } >"$out/service.txt"
fi
step "done"
