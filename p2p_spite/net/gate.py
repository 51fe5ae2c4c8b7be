"""The host's door: which connections may hold a handshake slot, and what the console
is told about the strangers it drops.  No I/O: the asyncio side (``peer.host_session``)
asks, and acts.

A host has a few handshake slots (``MAX_PENDING``), and a stranger can open
sockets far faster than a person types a join code.  So:

* one address (an IPv4 address, or an IPv6 /64) holds at most ``MAX_PER_ADDRESS``
  slots: a crowd from one machine cannot fill the door;
* when the door (or an address's share) is full, the newcomer is let in and the
  *oldest connection that has not authenticated yet* is dropped instead (when
  the whole door is full: from the address that holds the most such slots): an
  idle socket cannot keep its slot against a connection that is making progress,
  a crowd from a few addresses makes room among itself, and a real joiner
  authenticates within a round trip or two (the newcomer is turned away only
  when every slot holds an authenticated connection);
* a connection must send a valid ``hello`` within ``HELLO_TIMEOUT`` seconds (the
  whole handshake keeps its longer limit);
* a wrong join code slows its address down (:class:`Guesses`): an address has
  ``GUESS_FREE`` proofs of the code that may fail, and one more every
  ``GUESS_EVERY`` seconds; beyond that, a proof (a joiner's or a watcher's
  confirmation in the opening, net/opening.py) waits for its turn before it is
  checked at all, right or wrong, so a guesser learns nothing sooner by hanging
  up.  A person who mistypes the code a few times, and every other address, is
  not slowed;
* the drops are reported in a few merged lines (:class:`StrangerLog`), not one line each.
"""

from __future__ import annotations

import ipaddress
from collections import Counter
from collections.abc import Callable
from typing import Any, Final, Generic, TypeVar

from ..contracts.errors import UserError
from ..contracts.news import ConnectionDropped, DropKind, DropsSummary, News

MAX_PENDING: Final = 32  # connections a host handshakes with at once
MAX_PER_ADDRESS: Final = 4  # ... of which from one address (an IPv6 /64 counts as one)
HELLO_TIMEOUT: Final = 3.0  # seconds a new connection has to send a valid hello
REPORT_FIRST: Final = 5.0  # seconds: the first window in which drops are counted, not printed
REPORT_MOST: Final = 60.0  # the window doubles while the drops go on, up to this
MAX_ADDRESSES_TOLD: Final = 1000  # addresses counted one by one in a window; the others together
GUESS_FREE: Final = 5  # wrong join codes an address may try before its proofs wait their turn
GUESS_EVERY: Final = 2.0  # seconds: one more try for an address (at most GUESS_FREE saved up)
MAX_GUESSERS: Final = 4096  # addresses whose wrong codes are counted one by one; the others share one count

# the stage a connection has reached (higher: more progress)
CONNECTED: Final = 0  # no valid hello yet
GREETED: Final = 1  # a valid hello (or opening's element), not authenticated yet (code, resume proof)
AUTHENTICATED: Final = 2  # past the join code and the resume proof: never dropped to make room

C = TypeVar("C")


class CodeRefused(UserError):
    """The host wants a join code this side did not give (``wrong`` False) or refused the
    one given (``wrong`` True): a person can be asked for it and dial again."""

    def __init__(self, news: News, wrong: bool) -> None:
        super().__init__(news)
        self.wrong = wrong


def address_key(peer: Any) -> str:
    """The address a connection counts against: its IP address (an IPv4-mapped IPv6
    address as IPv4), or for IPv6 its /64 (one machine or LAN usually has a whole /64;
    not for a link-local address: every machine on the LAN shares fe80::/64)."""
    host = peer[0] if isinstance(peer, tuple) and peer else peer
    try:
        ip = ipaddress.ip_address(str(host).split("%", 1)[0])
    except ValueError:
        return str(host)
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        if not ip.is_loopback and not ip.is_link_local:
            return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def shown_address(peer: Any) -> str:
    """A connection's address as a person reads it: the IP address alone (no port), an
    IPv4-mapped IPv6 address as IPv4 (``127.0.0.1``, not ``[::ffff:127.0.0.1]:36668``)."""
    host = peer[0] if isinstance(peer, tuple) and peer else peer
    try:
        ip = ipaddress.ip_address(str(host).split("%", 1)[0])
    except ValueError:
        return str(host)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)


class Door(Generic[C]):
    """The handshakes in progress at a host, by address, oldest first."""

    def __init__(
        self,
        stage_of: Callable[[C], int],
        *,
        most: int = MAX_PENDING,
        most_per_address: int = MAX_PER_ADDRESS,
    ) -> None:
        self._stage_of = stage_of
        self.most = most
        self.most_per_address = most_per_address
        self._pending: dict[C, str] = {}  # insertion order: oldest first
        self._per_address: Counter[str] = Counter()

    def __len__(self) -> int:
        return len(self._pending)

    def admit(self, conn: C, address: str) -> tuple[bool, C | None]:
        """Make room for ``conn`` from ``address``: (admitted, the connection to drop for it).
        Not admitted: every slot it could take holds an authenticated connection."""
        victim = None
        if self._per_address[address] >= self.most_per_address:
            victim = self._victim(address)
        elif len(self._pending) >= self.most:
            victim = self._victim(None)
        else:
            self._add(conn, address)
            return True, None
        if victim is None:
            return False, None
        self.leave(victim)
        self._add(conn, address)
        return True, victim

    def _add(self, conn: C, address: str) -> None:
        self._pending[conn] = address
        self._per_address[address] += 1

    def _victim(self, address: str | None) -> C | None:
        """The oldest connection from ``address`` that has not authenticated; ``address``
        None: from the address holding the most such connections (a crowd from a few
        addresses makes room among itself, not at a lone joiner's expense)."""
        if address is None:
            counts = Counter(
                where for conn, where in self._pending.items() if self._stage_of(conn) < AUTHENTICATED
            )
            if not counts:
                return None
            most = max(counts.values())
            crowded = {a for a, k in counts.items() if k == most}
        else:
            crowded = {address}
        for conn, where in self._pending.items():  # oldest first
            if where in crowded and self._stage_of(conn) < AUTHENTICATED:
                return conn
        return None

    def leave(self, conn: C) -> None:
        """``conn`` finished its handshake, or was dropped."""
        address = self._pending.pop(conn, None)
        if address is not None:
            self._per_address[address] -= 1
            if not self._per_address[address]:
                del self._per_address[address]


class Guesses:
    """Wrong join codes by address: a token bucket each (``free`` tries, one more every
    ``every`` seconds), taken by a proof that fails.  While an address has no try left,
    its proofs wait (:meth:`wait`) before they are checked.  Several proofs checked at
    once can leave it in debt (of ``free`` tries at most): it waits until it is paid.

    Bounded: at most ``most`` addresses are counted one by one (one whose tries are
    all back is forgotten); beyond that, the others share one bucket, so a crowd of
    addresses cannot guess faster than one address either."""

    SHARED: Final = "*"  # the bucket of the addresses beyond ``most``

    def __init__(
        self,
        clock: Callable[[], float],
        *,
        free: int | None = None,
        every: float | None = None,
        most: int = MAX_GUESSERS,
    ) -> None:
        self._clock = clock
        self.free = GUESS_FREE if free is None else free
        self.every = GUESS_EVERY if every is None else every
        self.most = most
        self._tries: dict[str, tuple[float, float]] = {}  # address -> (tries left, as of when)

    def __len__(self) -> int:
        return len(self._tries)

    def _left(self, address: str, now: float) -> float:
        tries, at = self._tries.get(address, (float(self.free), now))
        return min(float(self.free), tries + (now - at) / self.every)

    def _key(self, address: str) -> str:
        return address if address in self._tries or len(self._tries) < self.most else self.SHARED

    def wait(self, address: str) -> float:
        """Seconds before a proof from ``address`` may be checked (0: now)."""
        key = self._key(address)
        left = self._left(key, self._clock())
        return 0.0 if left >= 1 else (1 - left) * self.every

    def failed(self, address: str) -> None:
        """A proof from ``address`` was wrong: one try less."""
        now = self._clock()
        if len(self._tries) >= self.most and address not in self._tries:
            self._forget(now)
        key = self._key(address)
        self._tries[key] = (max(self._left(key, now) - 1, -float(self.free)), now)

    def _forget(self, now: float) -> None:
        """The addresses whose tries are all back are as if never seen."""
        for address in [a for a in self._tries if self._left(a, now) >= self.free]:
            del self._tries[address]


class StrangerLog:
    """Merges the lines about dropped connections.

    The first drop is told at once, in full.  The ones after it are counted for a
    window (``first`` seconds) and told in one line when it ends; while drops go
    on, each window is twice as long as the last (up to ``most``), so an attack of
    a minute makes about five lines.  A window with no drop closes the series."""

    def __init__(self, clock: Callable[[], float], first: float = REPORT_FIRST, most: float = REPORT_MOST):
        self._clock = clock
        self.first = first
        self.most = most
        self._window = first
        self._until: float | None = None  # the end of the window now open
        self._started = 0.0
        self._kinds: Counter[DropKind] = Counter()
        self._addresses: Counter[str] = Counter()
        self._unlisted = 0  # drops from addresses beyond the MAX_ADDRESSES_TOLD counted
        self.total = 0  # every drop so far

    def drop(self, address: str, kind: DropKind, line: ConnectionDropped) -> ConnectionDropped | None:
        """A connection from ``address`` was dropped (``kind``: why, to count it by; ``line``:
        the whole story).  Returns the news to tell now, or None (counted for later)."""
        self.total += 1
        now = self._clock()
        if self._until is None or (now >= self._until and not self._kinds):
            self._window = self.first
            self._started = now
            self._until = now + self._window
            return line
        self._kinds[kind] += 1
        if address in self._addresses or len(self._addresses) < MAX_ADDRESSES_TOLD:
            self._addresses[address] += 1
        else:  # a crowd from countless addresses (IPv6) must not grow this without bound
            self._unlisted += 1
        return None

    @property
    def due(self) -> float | None:
        """When :meth:`summary` has something to tell (clock time), or None."""
        return self._until if self._kinds else None

    def summary(self, *, now: bool = False) -> DropsSummary | None:
        """At the end of a window (or ``now``: before it ends): the news of the drops
        counted in it (None if none); the next window opens."""
        at = self._clock()
        if self._until is None or (at < self._until and not now):
            return None
        n = sum(self._kinds.values())
        if not n:
            self._until = None
            return None
        span = at - self._started
        top = tuple(self._addresses.most_common(3))
        others = len(self._addresses) - len(top)
        news = DropsSummary(
            n=n,
            seconds=span,
            top=top,
            rest=n - sum(k for _, k in top),
            others=others,
            at_least=bool(self._unlisted),
            kinds=tuple(self._kinds.most_common()),
        )
        self._kinds.clear()
        self._addresses.clear()
        self._unlisted = 0
        self._window = min(self._window * 2, self.most)
        self._started = at
        self._until = at + self._window
        return news
