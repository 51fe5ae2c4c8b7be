"""The review's marks in the replay viewer (``m``): the person's turns judged in the background.

The review (:func:`p2p_spite.bots.turns.run_review`, as ``p2p-spite review`` does it) is
CPU-bound: it runs in a thread of the loop's executor while the viewer keeps its keys,
reporting its progress to the loop after each turn.  ``m`` again stops it (the thread
ends after the turn it is judging).  A finished review is kept while the viewer is open.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

from ..bots.review import REVIEW, ReviewConfig, TurnReview
from ..bots.turns import Judged, run_review, turns_in
from ..contracts.errors import SpiteError
from ..engine import Match, Move, PlayerView

Judge = Callable[[PlayerView, tuple[Move, ...]], TurnReview]


class _Stopped(SpiteError):
    """The review was stopped (never leaves this module)."""


class Marks:
    """The review of ``seat``'s turns in ``match``: not started, running (``progress``) or done
    (``judged``).  ``changed`` is called on the loop whenever any of that changes."""

    def __init__(
        self,
        match: Match,
        seat: int,
        *,
        config: ReviewConfig = REVIEW,
        judge: Judge | None = None,
        changed: Callable[[], None] = lambda: None,
    ) -> None:
        self.match, self.seat = match, seat
        self.config, self.judge = config, judge
        self.changed = changed
        self.judged: list[Judged] | None = None
        self.progress: tuple[int, int] | None = None  # (turns done, turns) while running
        self.done = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stop = threading.Event()

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def toggle(self) -> None:
        """``m``: start the review, or stop it while it runs (a finished one is kept)."""
        if self.running:
            self.stop()
        elif self.judged is None:
            self._stop = threading.Event()
            self.progress = (0, 0)
            self._task = asyncio.get_running_loop().create_task(self._run(self._stop))
            self.changed()

    def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            self._task.cancel()
        self.progress = None
        self.changed()

    async def _run(self, stop: threading.Event) -> None:
        loop = asyncio.get_running_loop()

        def report(done: int, total: int) -> None:
            if stop.is_set():
                raise _Stopped("review stopped")
            loop.call_soon_threadsafe(self._report, stop, done, total)

        def work() -> list[Judged]:
            turns = turns_in(self.match, self.seat)
            report(0, len(turns))
            return run_review(turns, self.config, report, self.judge)

        try:
            judged = await loop.run_in_executor(None, work)
        except (_Stopped, asyncio.CancelledError):
            stop.set()
            return
        self.judged = judged
        self.progress = None
        self.done.set()
        self.changed()

    def _report(self, stop: threading.Event, done: int, total: int) -> None:
        if not stop.is_set():
            self.progress = (done, total)
            self.changed()

    # -- the marks --------------------------------------------------------------------

    def marked(self) -> list[Judged]:
        """The marked turns (inaccuracy or worse), in the order of the match."""
        return [j for j in self.judged or () if j.review.mark is not None]

    def at(self, game: int, pos: int) -> Judged | None:
        """The marked turn shown at ``pos`` of ``game``: from its start to its last move."""
        for j in self.marked():
            t = j.turn
            if t.game == game and t.start <= pos <= t.start + len(t.moves):
                return j
        return None

    def next(self, game: int, pos: int, d: int) -> Judged | None:
        """The next (``d`` > 0) or previous marked turn's start from ``pos`` of ``game``."""
        here = (game, pos)
        if d > 0:
            return next((j for j in self.marked() if (j.turn.game, j.turn.start) > here), None)
        return next((j for j in reversed(self.marked()) if (j.turn.game, j.turn.start) < here), None)


__all__ = ["Judge", "Marks"]
