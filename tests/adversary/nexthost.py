"""The real p2p-spite with one edit: the host's configuration of the next match on the
connection (play again), run as its own process (``python -m tests.adversary.nexthost
MODE p2p-spite-args...``) for tests/adversary/test_next_match.py.  It plays the first
match honestly; its later matches' ``setup`` carries the change of ``MODE``:

- ``seed``: a seed of its own choosing instead of one drawn by both;
- ``public``: a seeded deck after a private first match (the private deck dropped);
- ``rules``: target 1 and no game limit instead of the match both agreed to;
- ``name``: another name for itself;
- ``honest``: no change.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any

from p2p_spite.commands.cli import main
from p2p_spite.core.protocol import Endpoint
from p2p_spite.net import connect

CHOSEN_SEED = bytes.fromhex("d5d4e201" * 8)
CHANGES: dict[str, dict[str, Any]] = {
    "seed": {"seed": CHOSEN_SEED},
    "public": {"private": False},
    "rules": {"target": 1, "max_games": None},
    "name": {"name": "Mallory"},
    "honest": {},
}


def install(mode: str) -> None:
    honest = connect._NextMatch.endpoint

    def endpoint(self: connect._NextMatch) -> Endpoint:
        ep = honest(self)
        if self.kind != "host":
            return ep
        return Endpoint(replace(ep.hs.config, **CHANGES[mode]))

    connect._NextMatch.endpoint = endpoint  # type: ignore[method-assign]


if __name__ == "__main__":
    chosen = sys.argv[1]
    if chosen not in CHANGES:
        raise SystemExit(f"mode must be one of {', '.join(CHANGES)}")
    install(chosen)
    sys.exit(main(sys.argv[2:]))
