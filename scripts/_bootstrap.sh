# Sourced by scripts/play and scripts/test: create or reuse .venv, install the project.
# Usage: bootstrap [EXTRAS]   (EXTRAS e.g. "test"; empty for a plain install)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${P2P_SPITE_VENV:-$ROOT/.venv}"

bootstrap() {
    local extras="${1:-}"
    local py="${PYTHON:-python3}"
    if ! command -v "$py" >/dev/null 2>&1; then
        echo "p2p-spite: needs Python 3.11+ ($py not found; set PYTHON=/path/to/python3)" >&2
        exit 1
    fi
    if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
        echo "p2p-spite: needs Python 3.11+, found $("$py" --version 2>&1)" >&2
        exit 1
    fi
    if [ ! -x "$VENV/bin/python" ]; then
        echo "p2p-spite: creating $VENV" >&2
        "$py" -m venv "$VENV"
    fi
    # Install again only when pyproject.toml changed or these extras are missing.
    # The stamp holds the checksum of pyproject.toml and the extras installed.
    local stamp="$VENV/.p2p-spite-installed"
    local sum have_sum="" have_extras=""
    sum="$(cksum <"$ROOT/pyproject.toml" | cut -d' ' -f1)"
    if [ -f "$stamp" ]; then
        read -r have_sum have_extras <"$stamp" || true
    fi
    if [ "$have_sum" = "$sum" ] && { [ -z "$extras" ] || [ "$have_extras" = "$extras" ]; }; then
        return 0
    fi
    # Keep extras installed before (scripts/play after scripts/test keeps the test tools).
    [ -z "$extras" ] && extras="$have_extras"
    local spec="$ROOT"
    [ -n "$extras" ] && spec="$ROOT[$extras]"
    echo "p2p-spite: installing into $VENV${extras:+ (with $extras extras)}..." >&2
    local log="$VENV/install.log"
    # A newer pip is welcome but not required: its failure is not fatal.
    "$VENV/bin/python" -m pip install --disable-pip-version-check --upgrade pip >"$log" 2>&1 || true
    if ! "$VENV/bin/python" -m pip install --disable-pip-version-check -e "$spec" >>"$log" 2>&1; then
        tail -n 30 "$log" >&2
        echo "p2p-spite: installation failed; the full log is $log" >&2
        exit 1
    fi
    echo "$sum $extras" >"$stamp"
}
