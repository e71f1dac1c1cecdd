#!/usr/bin/env bash
# tests/integration/attack/run.sh: the attack suite (README.md beside it) against the real
# `ocppgw` binary on loopback: every security profile's negative matrix, URL and id tricks,
# header floods, slowloris, 1-byte writes, ping floods, compression, a frame flood with the
# others' p99 measured, 10,000 connections from one address. Env: OCPPGW_BIN (default
# build/gateway/ocppgw). Uses the .venv of tests/integration (installs it the same way when
# missing). Arguments go to pytest (e.g. -k flood). Prints one line per case and
# "attack: N passed, M failed"; exits non-zero on any failure. About 30-40 s on 2 cores.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
export OCPPGW_BIN="${OCPPGW_BIN:-$root/build/gateway/ocppgw}"
[ -x "$OCPPGW_BIN" ] || { echo "attack: missing binary $OCPPGW_BIN"; echo "attack: 0 passed, 1 failed"; exit 1; }
command -v openssl >/dev/null || { echo "attack: openssl CLI missing"; echo "attack: 0 passed, 1 failed"; exit 1; }
source "$here/../common.sh"
ensure_venv "$root" || { echo "attack: pip install failed"; echo "attack: 0 passed, 1 failed"; exit 1; }
# 10,000 client sockets and the gateway's own: raise the soft descriptor limit to the hard one
# (test_floods.py checks that it is enough and says so when not).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

log="$(mktemp)"
scratch="$(mktemp -d /tmp/ocppgw-attack-XXXXXX)"
trap 'rm -rf "$log" "$scratch"' EXIT
t0=$(date +%s)
(cd "$here" && "$venv/bin/python" -m pytest -q -p no:cacheprovider --basetemp "$scratch" \
  -o console_output_style=classic "$@" .) 2>&1 | tee "$log"
count_pytest "$log" "${PIPESTATUS[0]}"
echo "attack: $(( $(date +%s) - t0 )) s"
echo "attack: $p passed, $f failed"
[ "$f" -eq 0 ]
