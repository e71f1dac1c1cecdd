# tests/integration/common.sh: sourced by the integration runners.
# ensure_venv ROOT [REQUIREMENTS] installs the PyPI packages of REQUIREMENTS (default
# tests/integration/requirements.txt, relative to ROOT) into ROOT/.venv (pip cache
# ~/.cache/ocppgw/pip) unless that exact file was installed there before (a stamp per file holds
# its hash, so a changed pin reinstalls) and sets $venv; it returns non-zero when pip fails.
ensure_venv() {
  venv="$1/.venv"
  local file="${2:-tests/integration/requirements.txt}"
  local requirements="$1/$file" stamp="$1/.venv/.${file//\//_}.sha256"
  local want
  want="$(sha256sum "$requirements" | cut -d' ' -f1)"
  [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && return 0
  { [ -x "$venv/bin/python" ] || python3 -m venv "$venv"; } &&
    "$venv/bin/pip" install -q --cache-dir "$HOME/.cache/ocppgw/pip" -r "$requirements" &&
    echo "$want" >"$stamp"
}

# count_pytest LOG RC: sets p and f from a `pytest -q` summary in LOG; a non-zero RC with no
# counted failure counts as one failure.
count_pytest() {
  p=$(grep -oE '[0-9]+ passed' "$1" | tail -1 | grep -oE '[0-9]+')
  f=$(grep -oE '[0-9]+ (failed|error)' "$1" | awk '{s+=$1} END {print s+0}')
  p=${p:-0}
  if [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
}

# count_runner LOG RC: the same from the last "N passed, M failed" line of a sub-runner.
count_runner() {
  local line
  line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$1" | tail -1)
  p=$(sed -nE 's/^[^0-9]*([0-9]+) passed.*/\1/p' <<<"$line")
  f=$(sed -nE 's/.* ([0-9]+) failed.*/\1/p' <<<"$line")
  p=${p:-0}
  f=${f:-0}
  if [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
}

# run_pytest NAME DIR SECONDS: runs `pytest -q` on DIR with $venv's Python for at most SECONDS,
# shows its output, prints "NAME: N passed, M failed" and returns non-zero on any failure.
run_pytest() {
  local log rc
  log="$(mktemp)"
  (cd "$2" && timeout "$3" "$venv/bin/python" -m pytest -q -p no:cacheprovider . 2>&1) | tee "$log"
  rc=${PIPESTATUS[0]}
  count_pytest "$log" "$rc"
  rm -f "$log"
  echo "$1: $p passed, $f failed"
  [ "$f" -eq 0 ]
}
