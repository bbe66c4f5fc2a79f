#!/usr/bin/env bash
# The whole test suite from a fresh clone: a venv in .venv, the package with its dev extras,
# then pytest. Usage: ./test.sh [pytest args...]
# IHMT_EXTRAS selects the extras to install (default "dev"; CI uses "dev,semantic" after
# installing a CPU build of torch). Tests of an extra that is not installed skip and say why.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
VENV=${IHMT_VENV:-.venv}
EXTRAS=${IHMT_EXTRAS:-dev}
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
"$VENV/bin/python" -m pip install --quiet -e ".[$EXTRAS]"
set +e
"$VENV/bin/python" -m pytest -ra "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests" >&2
  exit 1
fi
exit "$status"
