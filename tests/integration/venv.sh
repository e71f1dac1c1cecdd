# tests/integration/venv.sh: sourced by the integration runners. ensure_venv ROOT installs the
# PyPI packages of tests/integration/requirements.txt into ROOT/.venv when they are missing
# (pip cache ~/.cache/ocppgw/pip) and sets $venv; it returns non-zero when pip fails.
ensure_venv() {
  venv="$1/.venv"
  "$venv/bin/python" -c 'import ocpp, websockets, pytest' 2>/dev/null && return 0
  { [ -x "$venv/bin/python" ] || python3 -m venv "$venv"; } &&
    "$venv/bin/pip" install -q --cache-dir "$HOME/.cache/ocppgw/pip" \
      -r "$1/tests/integration/requirements.txt"
}
