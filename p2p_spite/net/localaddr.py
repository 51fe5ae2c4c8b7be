"""This machine's addresses as another machine on the LAN would dial them.

Found without sending anything and without waiting: the address the system
would use as the source of a datagram towards a documentation address, for
IPv4 and IPv6 (``connect()`` on a UDP socket only looks up the route; no packet
leaves).  That is the address of the interface the default route uses; a
machine on two networks at once shows only that one (resolving the host name
could find more, but may ask a DNS or mDNS server and take seconds).
Loopback, wildcard and link-local addresses are left out: nobody else can dial
them (a link-local IPv6 address would need its interface named).
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket

# Documentation ranges (RFC 5737, RFC 3849): routed by the default route, never answered.
_PROBES = ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1"))


def _usable(text: str) -> bool:
    try:
        ip = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_unspecified or ip.is_link_local or ip.is_multicast)


def _route_sources() -> list[str]:
    found = []
    for family, probe in _PROBES:
        with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as s:
            s.connect((probe, 9))  # a route lookup only: UDP connect sends nothing
            found.append(str(s.getsockname()[0]))
    return found


def lan_addresses(bind: str = "") -> list[str]:
    """The addresses a peer can dial to reach a host listening on ``bind``
    (``""``, ``0.0.0.0`` or ``::``: all of this machine's; otherwise ``bind``
    itself, whatever it is).  IPv4 first; may be empty (no network)."""
    b = bind.strip("[]")
    if b and b not in ("0.0.0.0", "::"):
        return [b]
    seen: dict[str, None] = {}
    for a in _route_sources():
        if _usable(a):
            seen.setdefault(a.split("%", 1)[0])
    v4 = [a for a in seen if ":" not in a]
    v6 = [a for a in seen if ":" in a]
    if b == "0.0.0.0":
        v6 = []  # an IPv4-only listener
    return v4 + v6


def dial_form(address: str, port: int, default_port: int) -> str:
    """``192.168.1.20``, ``192.168.1.20:5000``, ``[2001:db8::5]``, ``[2001:db8::5]:5000``:
    what ``join`` takes (the port only when it is not the default)."""
    host = f"[{address}]" if ":" in address else address
    return host if port == default_port else f"{host}:{port}"


__all__ = ["dial_form", "lan_addresses"]
