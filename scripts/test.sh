#!/usr/bin/env bash
# scripts/test.sh [--sanitize]: installs what is missing, builds, and runs every test:
#   1. unit tests (ctest), 2. integration tests against the real binary (independent OCPP
#   client libraries), 3. Kafka end-to-end tests with a real KRaft broker, 4. the simulator's
#   fault-injection run with ground-truth comparison, 5. the Delta Lake mirror read by pyarrow
#   and delta-rs, 6. the operator status page in real Chromium (tests/browser).
# --sanitize instead builds with ASan+UBSan in build-asan and runs the unit tests there, then
# the fuzz targets for 60 s each (scripts/fuzz.sh; clang, in build-fuzz; docs/fuzzing.md).
# Ends with one line "N passed, M failed" summing every runner's counts; exits non-zero if
# any step failed.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bash scripts/setup.sh || exit 1

passed=0
failed=0
failed_steps=()

# Adds the counts of a runner's output (ctest "N tests failed out of M", or a line
# "N passed, M failed") to the totals; a step that exits non-zero counts at least one failure.
tally() {
  local name="$1" log="$2" rc="$3" p=0 f=0 line
  if line=$(grep -E '[0-9]+ tests failed out of [0-9]+' "$log" | tail -1) && [ -n "$line" ]; then
    f=$(sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\1/' <<<"$line")
    p=$(( $(sed -E 's/.* tests failed out of ([0-9]+).*/\1/' <<<"$line") - f ))
  elif line=$(grep -E '^([A-Za-z0-9 _()+.-]*: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -1) && [ -n "$line" ]; then
    p=$(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '[0-9]+')
    f=$(grep -oE '[0-9]+ failed' <<<"$line" | grep -oE '[0-9]+')
  fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  passed=$((passed + p))
  failed=$((failed + f))
  [ "$rc" -eq 0 ] || failed_steps+=("$name")
  echo "== $name: $p passed, $f failed (exit $rc)"
}

# run_step NAME COMMAND...: runs with output to the terminal and a log, then tallies.
run_step() {
  local name="$1"; shift
  local log; log="$(mktemp)"
  echo "== $name"
  "$@" 2>&1 | tee "$log"
  tally "$name" "$log" "${PIPESTATUS[0]}"
  rm -f "$log"
}

if [ "${1:-}" = "--sanitize" ]; then
  if ! bash scripts/build.sh "$root/build-asan" -DOCPPGW_SANITIZE=ON -DOCPPGW_BUILD_BENCH=OFF; then
    echo "0 passed, 1 failed"; exit 1
  fi
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  run_step "unit tests (ASan+UBSan)" ctest --test-dir build-asan -L unit --output-on-failure -j 2 --timeout 300
  run_step "fuzz targets (60 s each)" bash scripts/fuzz.sh 60
else
  if ! bash scripts/build.sh "$root/build"; then
    echo "0 passed, 1 failed"; exit 1
  fi
  export OCPPGW_BIN="$root/build/gateway/ocppgw" OCPPSIM_BIN="$root/build/sim/ocppsim"
  run_step "clang-format" bash scripts/check-format.sh
  run_step "dependency order" python3 scripts/check-deps.py
  run_step "unit tests" ctest --test-dir build -L unit --output-on-failure -j 2 --timeout 300
  for suite in tests/integration/run.sh tests/integration/kafka/run.sh tests/integration/sim/run.sh \
    tests/integration/attack/run.sh tests/delta/run.sh tests/spark/run.sh tests/browser/run.sh; do
    [ -f "$suite" ] && run_step "$suite" bash "$suite"
  done
fi

if ((${#failed_steps[@]})); then echo "failed steps: ${failed_steps[*]}"; fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
