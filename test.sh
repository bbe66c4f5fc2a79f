#!/usr/bin/env bash
# The whole test suite from a fresh clone: a venv in .venv, the package with its dev extras,
# then pytest. Usage: ./test.sh [pytest args...]
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
VENV=${IHMT_VENV:-.venv}
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
"$VENV/bin/python" -m pip install --quiet -e ".[dev]"
set +e
"$VENV/bin/python" -m pytest "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests" >&2
  exit 1
fi
exit "$status"
