"""The real p2p-spite with a ``--bot`` that takes moves back, run as its own process
(``python -m tests.adversary.taker MODE p2p-spite-args...``), for private-deck matches
between two processes (tests/adversary/test_private_takebacks.py).

After each move of its own that may be taken back and is not the match's first action
(taken back, it would leave no move standing, and a match with no move keeps no record
to check), up to ``TAKEBACKS`` times in the match, its side asks the other to take it
back (the other, a ``--bot``, allows), and plays on from the board the takeback gives
(the bot may play the card again).  Modes:

- ``honest``: nothing else;
- ``lying-undo``: its first ``undo`` carries a digest that is not the state's;
- ``other-slot``: after its first takeback, the intent of the card played again names
  another slot of its hand.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

from p2p_spite.commands.cli import main
from p2p_spite.contracts.errors import SessionClosed
from p2p_spite.core import private, protocol
from p2p_spite.core.machine import SeatMachine
from p2p_spite.core.messages import DeckIntent
from p2p_spite.engine import HAND, IllegalMoveError
from p2p_spite.net.session import NetSession

MODES = ("honest", "lying-undo", "other-slot")
TAKEBACKS = 6


def install(mode: str) -> None:
    left = [TAKEBACKS]
    undone: list[Any] = []  # the moves taken back
    honest_play = NetSession.play

    async def play(self: NetSession, move: Any) -> None:
        await honest_play(self, move)
        core = self.core
        # (other-slot lies about a hand slot: only a move from the hand is worth taking back,
        # or a private deal whose first moves come from the side stacks never lets it lie)
        wanted = mode != "other-slot" or move.source == HAND
        if wanted and left[0] > 0 and core.position >= 2 and core.takeback_refusal(core.seat) is None:
            left[0] -= 1
            undone.append(move)
            print(f"taker: asking to take back {list(move)}", file=sys.stderr, flush=True)
            self.takeback.peer_answers_at_once = True  # (the other side is a --bot: wait for its answer)
            with contextlib.suppress(IllegalMoveError, SessionClosed):
                await self.take_back()

    NetSession.play = play  # type: ignore[method-assign]
    honest_shown = SeatMachine._taken_back

    def shown(self: SeatMachine, seat: int, played: Any) -> Any:
        print(f"taker: took back {list(played.move)}", file=sys.stderr, flush=True)
        return honest_shown(self, seat, played)

    SeatMachine._taken_back = shown  # type: ignore[method-assign]
    if mode == "lying-undo":
        honest_undo = protocol.Endpoint.send_undo

        def send_undo(self: protocol.Endpoint, n: int) -> None:
            honest_undo(self, n)
            out = self._out
            # the undo is the last frame queued: its 32 digest bytes are its last ones
            self._out = out[:-32] + bytes(32)

        protocol.Endpoint.send_undo = send_undo  # type: ignore[method-assign]
    elif mode == "other-slot":
        honest_send = private.PrivateDeck._send

        def send(self: private.PrivateDeck, msg: Any) -> None:
            if isinstance(msg, DeckIntent) and msg.move.source == HAND and undone and msg.move in undone:
                fd = self.now.deck
                assert fd is not None
                other = next((s for s in fd.hands[self.seat] if s != msg.slot), None)
                if other is not None:
                    msg = DeckIntent(msg.game, msg.index, msg.move, other)
                    print(f"taker: naming slot {other} for {list(msg.move)}", file=sys.stderr, flush=True)
            honest_send(self, msg)

        private.PrivateDeck._send = send  # type: ignore[method-assign]


if __name__ == "__main__":
    chosen = sys.argv[1]
    if chosen not in MODES:
        raise SystemExit(f"mode must be one of {', '.join(MODES)}")
    install(chosen)
    sys.exit(main(sys.argv[2:]))
