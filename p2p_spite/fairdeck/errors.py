"""The typed errors of the private deck: one root, :class:`FairDeckError`."""

from __future__ import annotations

from typing import Any


class FairDeckError(Exception):
    """Base of everything the private deck raises."""


class WireError(FairDeckError, ValueError):
    """Bytes that are not a well-formed private-deck message (refuse the peer)."""


class OrderError(FairDeckError):
    """A well-formed message at the wrong moment: early, late, twice, wrong seat,
    or a local call the deal's state does not allow (refuse the peer, like an
    illegal move)."""


class ProofError(FairDeckError):
    """A key share or decryption share whose proof does not verify: the peer lied
    (refused at once, like an illegal move).  ``seat`` is the liar; ``slot`` the
    card position (None for a key share)."""

    def __init__(self, reason: str, seat: int, slot: int | None = None) -> None:
        self.reason = reason
        self.seat = seat
        self.slot = slot
        where = f" (slot {slot})" if slot is not None else ""
        super().__init__(f"seat {seat}: {reason}{where}")


class CheatError(FairDeckError):
    """Proof that someone cheated: a pass whose proof of shuffle does not verify
    (found on receipt), a card that is not a card or a card shown twice (found
    when it is shown), a revealed secret that does not give the key or the
    passes that were sent (found at the end).

    ``kind`` is one of ``"shuffle-proof"``, ``"key"``, ``"reveal"``,
    ``"not-a-card"``, ``"duplicate"``, ``"share"``; ``seat`` the seat it convicts
    (the one whose message made it); ``evidence`` a JSON-ready dict to keep in
    the record.
    """

    def __init__(self, kind: str, seat: int | None, reason: str, evidence: dict[str, Any]) -> None:
        self.kind = kind
        self.seat = seat
        self.reason = reason
        self.evidence = {"kind": kind, "seat": seat, "reason": reason, **evidence}
        who = f"seat {seat}" if seat is not None else "a seat"
        super().__init__(f"{who} cheated ({kind}): {reason}")
