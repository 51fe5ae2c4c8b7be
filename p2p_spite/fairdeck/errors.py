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
    """Proof that someone cheated, found while playing (a card that is not a card,
    a card shown twice) or by the end-of-game check (a shuffle its revealed
    secret does not reproduce, a key its secret does not open).

    ``kind`` is one of ``"key"``, ``"shuffle"``, ``"not-a-card"``,
    ``"duplicate"``, ``"share"``; ``seat`` the seat it convicts (None when the
    evidence shows a bad deck but the guilty shuffler is known only once the
    secrets are revealed); ``evidence`` a JSON-ready dict to keep in the record.
    """

    def __init__(self, kind: str, seat: int | None, reason: str, evidence: dict[str, Any]) -> None:
        self.kind = kind
        self.seat = seat
        self.reason = reason
        self.evidence = {"kind": kind, "seat": seat, "reason": reason, **evidence}
        who = f"seat {seat}" if seat is not None else "a shuffler"
        super().__init__(f"{who} cheated ({kind}): {reason}")
