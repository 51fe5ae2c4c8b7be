"""A closed terminal is not a goodbye: how the interfaces and the command's runner
(:func:`p2p_spite.commands.runner.run_main`) tell each other the terminal is gone.

A match in play is then left as a lost connection leaves it, so that the other player
waits and both can resume.  The runner opens the register (:func:`open_hangups`) around
a command's main; a command registers what a closed terminal does (:func:`when_hung_up`);
SIGHUP, or the full screen losing its terminal, calls it (:func:`terminal_closed`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar

# What run_main calls when the terminal closes, before the main task is cancelled
_HANGUPS: ContextVar[list[Callable[[], None]] | None] = ContextVar("hangups", default=None)


def open_hangups() -> None:
    """From here on (in this context), :func:`when_hung_up` registers: the runner's start."""
    _HANGUPS.set([])


@contextlib.contextmanager
def when_hung_up(fn: Callable[[], None]) -> Iterator[None]:
    """Within :func:`~p2p_spite.commands.runner.run_main`: call ``fn`` (at once, before
    any ``finally`` runs) if the terminal closes meanwhile (SIGHUP, or the full screen
    losing its terminal: :func:`terminal_closed`).  A closed terminal is not a goodbye: a
    match in play is left as a lost connection would leave it (NetSession.hang_up)."""
    hooks = _HANGUPS.get()
    if hooks is None:
        yield
        return
    hooks.append(fn)
    try:
        yield
    finally:
        if fn in hooks:  # (not called)
            hooks.remove(fn)


def terminal_closed() -> None:
    """The terminal is gone (its input ended, writing to it failed): what
    :func:`when_hung_up` registered runs now, once."""
    hooks = _HANGUPS.get()
    while hooks:
        with contextlib.suppress(Exception):
            hooks.pop()()
