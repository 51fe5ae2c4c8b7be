"""The real p2p-spite with a longer deadline on the private deck's messages the peer owes
(``python -m tests.support.patient SECONDS ARGS...``): for a test whose peer makes its
passes and proofs on the plain, unhurried P-256 of ``tests/support/p256.py``, so slow on a
loaded machine that the 30 s ``DECK_DEADLINE`` would measure the machine, not the peer.
Nothing else changes: every message is checked as the real program checks it."""

from __future__ import annotations

import sys

from p2p_spite.commands.cli import main
from p2p_spite.core import deckside

if __name__ == "__main__":
    deckside.DECK_DEADLINE = float(sys.argv[1])
    sys.exit(main(sys.argv[2:]))
