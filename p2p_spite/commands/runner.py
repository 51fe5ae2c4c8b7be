"""Running a command's asyncio main so that the record survives the end.

Ctrl-C (SIGINT), a closed terminal (SIGHUP) and a polite kill (SIGTERM) all
cancel the main task instead of killing the process, so the ``finally``
blocks that close a session (and so save its record) run first.  A closed
terminal is no goodbye, though: a match in play is left as a lost connection
leaves it (:mod:`p2p_spite.contracts.hangups`), so that the other player waits and both can
resume.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import signal
from collections.abc import Coroutine
from typing import Any

from ..contracts.errors import UserError
from ..contracts.hangups import open_hangups, terminal_closed
from ..contracts.i18n import _

_STOPPERS = (signal.SIGHUP, signal.SIGTERM)


def _stopped(sig: signal.Signals) -> str:
    return _("stopped: the terminal closed") if sig is signal.SIGHUP else _("stopped: terminated")


def run_main(main: Coroutine[Any, Any, int]) -> int:
    """``asyncio.run(main)``; SIGHUP and SIGTERM end it like Ctrl-C does (the
    main task is cancelled: SIGHUP first calls what
    :func:`~p2p_spite.contracts.hangups.when_hung_up` registered),
    then a UserError says which signal it was."""
    caught: list[signal.Signals] = []

    async def guarded() -> int:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        open_hangups()

        def stop(sig: signal.Signals) -> None:
            caught.append(sig)
            if sig is signal.SIGHUP:
                terminal_closed()
            task.cancel()

        for sig in _STOPPERS:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, stop, sig)
        try:
            return await main
        finally:
            for sig in _STOPPERS:
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.remove_signal_handler(sig)

    try:
        return asyncio.run(guarded())
    except asyncio.CancelledError:
        if caught:
            sig = caught[0]
            raise UserError(_stopped(sig), exit_code=128 + int(sig)) from None
        raise
    except (OSError, EOFError) as e:
        # The terminal closed before (or without) its SIGHUP reaching us: the full screen
        # met the end of its input, then an I/O error writing to it.  (The session was
        # closed, and so its record saved, on the way out.)
        if caught or isinstance(e, EOFError) or e.errno == errno.EIO:
            raise UserError(_stopped(signal.SIGHUP), exit_code=EXIT_HANGUP) from None
        raise


EXIT_HANGUP = 128 + int(signal.SIGHUP)  # 129
