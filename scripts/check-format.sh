#!/usr/bin/env bash
# scripts/check-format.sh: every tracked C++ file must match .clang-format (fix: clang-format -i).
set -uo pipefail
cd "$(dirname "$0")/.."
bad=0
good=0
while IFS= read -r f; do
  if clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
    good=$((good + 1))
  else
    echo "not clang-formatted: $f"
    bad=$((bad + 1))
  fi
done < <(git ls-files '*.cpp' '*.hpp')
echo "clang-format: $good files formatted, $bad not"
# One check for the tally in scripts/test.sh, however many files it looked at.
if [ "$bad" -eq 0 ]; then echo "clang-format: 1 passed, 0 failed"; else echo "clang-format: 0 passed, 1 failed"; exit 1; fi
