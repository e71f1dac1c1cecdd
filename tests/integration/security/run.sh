#!/usr/bin/env bash
# tests/integration/security/run.sh: OCPP security profiles 1-3 (TLS listener, HTTP Basic,
# client certificates) against the real `ocppgw` binary with the PyPI `ocpp` client and
# `ocppsim` over wss (security_test.py). Env: OCPPGW_BIN (default build/gateway/ocppgw),
# OCPPSIM_BIN (default build/sim/ocppsim). Uses the .venv that tests/integration/run.sh installs
# (installs it the same way when missing). Prints "N passed, M failed"; exits non-zero on any
# failure.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
export OCPPGW_BIN="${OCPPGW_BIN:-$root/build/gateway/ocppgw}"
export OCPPSIM_BIN="${OCPPSIM_BIN:-$root/build/sim/ocppsim}"
for b in "$OCPPGW_BIN" "$OCPPSIM_BIN"; do
  [ -x "$b" ] || { echo "security: missing binary $b"; echo "0 passed, 1 failed"; exit 1; }
done
command -v openssl >/dev/null || { echo "security: openssl CLI missing"; echo "0 passed, 1 failed"; exit 1; }
source "$here/../common.sh"
ensure_venv "$root" || { echo "security: pip install failed"; echo "0 passed, 1 failed"; exit 1; }

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
(cd "$root" && "$venv/bin/python" -m pytest -q -p no:cacheprovider "$here/security_test.py" "$here/tls_test.py" "$here/certificate_test.py" "$here/ocsp_test.py") 2>&1 | tee "$log"
count_pytest "$log" "${PIPESTATUS[0]}"
echo "security: $p passed, $f failed"
[ "$f" -eq 0 ]
