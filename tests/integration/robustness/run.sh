#!/usr/bin/env bash
# tests/integration/robustness/run.sh: the robustness suite (robustness.py): each case attacks a
# real `ocppgw` (env OCPPGW_BIN, default build/gateway/ocppgw) on loopback while well-behaved
# charge points run, and checks their latency, /health, the gateway's memory and disk, and that
# nothing acknowledged is lost. Uses the .venv that tests/integration/run.sh installs (installs it
# the same way when missing). Arguments: case numbers to run (default all). Prints one line per
# case and "N passed, M failed"; exits non-zero on any failure. Takes about 2 minutes.
# Case folders go to /dev/shm by default (ROBUSTNESS_TMPDIR); timing checks assume an otherwise
# quiet machine. Env: ROBUSTNESS_KEEP=1 keeps each case's folder;
# ROBUSTNESS_IGNORE_MISSING_OPTIONS=1 drops options the binary does not know (to watch an older
# binary under the same attacks); more in robustness.py.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
export OCPPGW_BIN="${OCPPGW_BIN:-$root/build/gateway/ocppgw}"
[ -x "$OCPPGW_BIN" ] || { echo "robustness: missing binary $OCPPGW_BIN"; echo "0 passed, 1 failed"; exit 1; }
source "$here/../common.sh"
ensure_venv "$root" || { echo "robustness: pip install failed"; echo "0 passed, 1 failed"; exit 1; }

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
(cd "$root" && "$venv/bin/python" "$here/robustness.py" "$@") 2>&1 | tee "$log"
count_runner "$log" "${PIPESTATUS[0]}"
echo "robustness: $p passed, $f failed"
[ "$f" -eq 0 ]
