# Sourced by scripts/play and scripts/test: create or reuse .venv, install the project.
# Usage: bootstrap [EXTRAS]   (EXTRAS e.g. "test"; empty for a plain install)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${P2P_SPITE_VENV:-$ROOT/.venv}"

bootstrap() {
    local extras="${1:-}"
    local py="${PYTHON:-python3}"
    if ! command -v "$py" >/dev/null 2>&1; then
        echo "p2p-spite: needs Python 3.11+ ($py not found)" >&2
        exit 1
    fi
    if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
        echo "p2p-spite: needs Python 3.11+, found $("$py" --version 2>&1)" >&2
        exit 1
    fi
    if [ ! -x "$VENV/bin/python" ]; then
        "$py" -m venv "$VENV"
    fi
    local spec="$ROOT"
    [ -n "$extras" ] && spec="$ROOT[$extras]"
    # Reinstall only when pyproject.toml changed or the extras differ from last time.
    local stamp="$VENV/.p2p-spite-installed"
    local want
    want="$(cksum <"$ROOT/pyproject.toml") $extras"
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
        "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >&2 || true
        "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e "$spec" >&2
        echo "$want" >"$stamp"
    fi
}
