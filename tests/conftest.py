"""The suite never hangs: a watchdog per test and one for the whole run.

* Each test has ``P2P_SPITE_TEST_TIMEOUT`` seconds (default 240), or more if it is
  marked ``@pytest.mark.watchdog(SECONDS)`` (a test whose CPU-bound work is bounded
  by its own deadline, so that a loaded machine slows it down without failing it).
  When they run out, every thread's stack is written to stderr and the test fails
  (a SIGALRM in the main thread interrupts even a blocking read), and the run goes on.
* The whole run has ``P2P_SPITE_SUITE_TIMEOUT`` seconds (default 1500): past
  that, the stacks are dumped and the process exits (faulthandler), for a hang
  that the per-test alarm could not break.

Also: the LAN discovery port of this run is a free one (see pytest_configure).

Standard library only.  Where there is no SIGALRM (Windows), only the second
watchdog runs.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from types import FrameType

import pytest

from p2p_spite.contracts.errors import set_wording
from p2p_spite.ui.networds import news_words

set_wording(news_words)  # as the program does when it starts (cli.main)

TEST_TIMEOUT = float(os.environ.get("P2P_SPITE_TEST_TIMEOUT", "240"))
SUITE_TIMEOUT = float(os.environ.get("P2P_SPITE_SUITE_TIMEOUT", "1500"))


class TestTimeout(BaseException):
    """Raised in a test that ran past its time (BaseException: no ``except Exception`` swallows it)."""


def pytest_configure(config: pytest.Config) -> None:
    # Hosts started by tests announce on loopback only (they bind 127.0.0.1); a port of
    # this run's own keeps them from being heard by a `p2p-spite hosts` or another suite.
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        os.environ["P2P_SPITE_DISCOVERY_PORT"] = str(s.getsockname()[1])
    if SUITE_TIMEOUT > 0:
        faulthandler.dump_traceback_later(SUITE_TIMEOUT, exit=True)


def pytest_unconfigure(config: pytest.Config) -> None:
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(autouse=True)
def _english() -> Iterator[None]:
    """Every test starts in English (the source language) whatever the machine's locale, and
    a test that speaks another language (or runs ``main(["--lang", ...])``) leaves none behind."""
    from p2p_spite.contracts import i18n

    i18n.setup("en")
    yield
    i18n.setup("en")


@pytest.fixture(autouse=True)
def _watchdog(request: pytest.FixtureRequest) -> Iterator[None]:
    if (
        TEST_TIMEOUT <= 0
        or not hasattr(signal, "SIGALRM")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return
    name = request.node.nodeid
    marker = request.node.get_closest_marker("watchdog")
    seconds = max(TEST_TIMEOUT, float(marker.args[0])) if marker is not None else TEST_TIMEOUT

    def expired(signum: int, frame: FrameType | None) -> None:
        sys.stderr.write(f"\n=== {name}: still running after {seconds:g} s; every thread's stack:\n")
        faulthandler.dump_traceback(all_threads=True)
        raise TestTimeout(f"{name} ran for more than {seconds:g} s (P2P_SPITE_TEST_TIMEOUT)")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
