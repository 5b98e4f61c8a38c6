# Sourced by scripts/setup*: each set-up step prints one line on standard error,
#   set-up: NAME ... ok (WHAT)
# while the output of its commands (apt-get, pip, pg_ctlcluster, ...) goes to a log file,
# .cache/setup/NAME.log (SCHOTTEN_SETUP_LOG_DIR names another folder). When the step fails, the
# line says FAILED and the log's last lines follow it.
#   step_start NAME   begin the step (empties its log; sets STEP_LOG)
#   say TEXT...       a note for the log (on failure it shows in the tail)
#   quietly CMD...    run CMD with its standard output and error appended to the log
#   step_ok WHAT      end the step: "ok (WHAT)"; step_skip WHY: "skipped (WHY)"
#   step_fail WHY     end the step: "FAILED (WHY)", the log's tail, and exit 1
# A step the script leaves with a non-zero status (set -e) without step_fail is reported as failed too.

STEP_LOG_DIR="${SCHOTTEN_SETUP_LOG_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.cache/setup}"
STEP_NAME=""
STEP_LOG=/dev/null
STEP_OVER=1
STEP_STARTED=$SECONDS

step_start() {
  STEP_NAME="$1"
  if ! mkdir -p "$STEP_LOG_DIR" 2>/dev/null || [ ! -w "$STEP_LOG_DIR" ]; then
    STEP_LOG_DIR="${TMPDIR:-/tmp}/schotten-setup-$(id -u)"
    mkdir -p "$STEP_LOG_DIR"
  fi
  STEP_LOG="$STEP_LOG_DIR/$1.log"
  : > "$STEP_LOG"
  STEP_OVER=""
  STEP_STARTED=$SECONDS
  trap '_step_exit $?' EXIT
}

say() { echo "$*" >> "$STEP_LOG"; }

quietly() {
  echo "\$ $*" >> "$STEP_LOG"
  "$@" >> "$STEP_LOG" 2>&1
}

# " in N s" for a step that took a second or more, else nothing.
_step_took() {
  local took=$((SECONDS - STEP_STARTED))
  [ "$took" -ge 1 ] && echo ", $took s"
  return 0
}

step_ok() {
  echo "set-up: $STEP_NAME ... ok ($1$(_step_took))" >&2
  STEP_OVER=1
}

step_skip() {
  echo "set-up: $STEP_NAME ... skipped ($1)" >&2
  STEP_OVER=1
}

step_fail() {
  echo "set-up: $STEP_NAME ... FAILED ($1; log: $STEP_LOG); its last lines:" >&2
  tail -n 20 "$STEP_LOG" | sed 's/^/  | /' >&2
  STEP_OVER=1
  exit 1
}

_step_exit() {
  if [ -z "$STEP_OVER" ]; then
    STEP_OVER=1
    if [ "$1" = 0 ]; then
      echo "set-up: $STEP_NAME ... ok" >&2
    else
      echo "set-up: $STEP_NAME ... FAILED (exit status $1; log: $STEP_LOG); its last lines:" >&2
      tail -n 20 "$STEP_LOG" | sed 's/^/  | /' >&2
    fi
  fi
}
