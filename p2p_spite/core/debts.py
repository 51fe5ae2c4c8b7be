"""What the peer owes this side on the connection of the moment, each debt with a
deadline that only paying meets (docs/protocol.md: pings, chat and the rest of the
peer's traffic do not put it off).  No I/O and no clock: the time comes with each
input, and a debt not paid by its deadline comes out of :meth:`Debts.due`."""

from __future__ import annotations

from ..contracts.news import Stalled
from .wire import Refusal


class Debts:
    """The debts of the connection of the moment, by key (the actions its sync claimed,
    a private deck's next message, the ack of an undo).  A lost connection forgives
    them all (the next one owes afresh)."""

    def __init__(self) -> None:
        self._due: dict[str, tuple[float, Stalled, Refusal]] = {}

    def owe(self, key: str, what: Stalled, code: Refusal, now: float) -> float | None:
        """The peer owes ``key`` within ``what.seconds`` (``what``: the user's news if it
        does not come, ``code``: the refusal sent).  A debt owed already keeps its
        deadline.  Returns the new debt's deadline (None: it was owed already)."""
        if key in self._due:
            return None
        deadline = now + what.seconds
        self._due[key] = (deadline, what, code)
        return deadline

    def paid(self, key: str) -> None:
        self._due.pop(key, None)

    def owes(self, key: str) -> bool:
        return key in self._due

    def forgive(self) -> None:
        self._due.clear()

    def due(self, now: float) -> list[tuple[Stalled, Refusal]]:
        """The debts whose deadline has come, taken off (each once)."""
        gone = [k for k, (deadline, _, _) in self._due.items() if deadline <= now]
        return [self._due.pop(k)[1:] for k in gone]

    @property
    def next_deadline(self) -> float | None:
        """The earliest deadline still to come (None: nothing is owed)."""
        return min((d for d, _, _ in self._due.values()), default=None)


__all__ = ["Debts"]
