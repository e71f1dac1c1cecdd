#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS] [TARGET...]: builds the libFuzzer targets of fuzz/ with clang++-14
# (ASan+UBSan, in build-fuzz), replays every saved regression input (fuzz/regressions/<target>/,
# inputs that once crashed a target: each must now pass), then fuzzes each target for SECONDS
# (default 60) starting from its seed corpus (fuzz/corpus/<target>/, read-only; new inputs go
# to build-fuzz/corpus/<target>/). One line per target with executions per second and the
# coverage reached (libFuzzer's cov: edges, ft: features); a crash leaves its input in
# build-fuzz/artifacts/<target>/ and fails the target. Ends with "N passed, M failed".
# docs/fuzzing.md says how to turn a crash into a regression input.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-60}"
shift || true
targets=("$@")
((${#targets[@]})) || targets=(frame_fuzz schema_fuzz dispatch16_fuzz dispatch201_fuzz http_fuzz ws_frame_fuzz)
build="$root/build-fuzz"

bash "$root/scripts/setup.sh" >/dev/null || { echo "fuzz: setup failed"; echo "0 passed, 1 failed"; exit 1; }
if ! BUILD_TARGETS="${targets[*]}" bash "$root/scripts/build.sh" "$build" \
  -DCMAKE_CXX_COMPILER=clang++-14 -DOCPPGW_FUZZ=ON -DOCPPGW_BUILD_TESTS=OFF -DOCPPGW_BUILD_BENCH=OFF; then
  echo "fuzz: build failed"; echo "0 passed, 1 failed"; exit 1
fi

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# fuzz_one TARGET: regressions, then SECONDS of fuzzing; writes its lines to $build/TARGET.summary
# and "ok" or "failed" as the last one.
fuzz_one() {
  local t="$1" bin="$build/fuzz/$1" log="$build/$1.log" ok=1 rc runs rate cov corpus
  mkdir -p "$build/corpus/$t" "$build/artifacts/$t"
  {
    local regressions="$root/fuzz/regressions/$t"
    if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions")" ]; then
      if ! "$bin" "$regressions"/* >"$log.regressions" 2>&1; then
        echo "fuzz $t: a regression input fails again (log: ${log#"$root"/}.regressions)"
        ok=0
      fi
    fi
    # -timeout: one input taking over 10 s is a finding too (a hang); -rss_limit_mb bounds memory.
    "$bin" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$build/artifacts/$t/" "$build/corpus/$t" "$root/fuzz/corpus/$t" >"$log" 2>&1
    rc=$?
    runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$')
    rate=$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$')
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
    corpus=$(find "$build/corpus/$t" -type f | wc -l)
    if [ "$rc" -ne 0 ]; then
      ok=0
      echo "fuzz $t: FAILED (exit $rc); input in ${build#"$root"/}/artifacts/$t/, log ${log#"$root"/}:"
      grep -E 'ERROR|SUMMARY|^    #[0-9]' "$log" | head -20
    fi
    echo "fuzz $t: ${seconds} s, ${runs:-0} runs, ${rate:-0} exec/s, ${cov:-cov: ?}, corpus +$corpus inputs"
    if [ "$ok" -eq 1 ]; then echo ok; else echo failed; fi
  } >"$build/$t.summary"
}

# One fuzzer per core at a time: each is single-threaded, and SECONDS is per target.
running=0
for t in "${targets[@]}"; do
  fuzz_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$(nproc)" ]; then wait -n; running=$((running - 1)); fi
done
wait

passed=0
failed=0
for t in "${targets[@]}"; do
  sed '$d' "$build/$t.summary"
  if [ "$(tail -1 "$build/$t.summary")" = ok ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
