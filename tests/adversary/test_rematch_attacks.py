"""A hand-written hostile joiner against a real ``host --bot easy --matches 2``: the
rematch message early, twice, lying, late and from the wrong seat is refused with its
code (docs/protocol.md, *Playing again*), the host ends cleanly, and the record of the
match played checks (no second record: no second match began)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from p2p_spite.core.game import Action
from tests.adversary.hostile import Hostile
from tests.adversary.test_integrity_attacks import SEED, TIMEOUT, _check, _host, _on_our_turn
from tests.support.net import finish

pytestmark = pytest.mark.slow  # (real processes)


def _over(port: int) -> Hostile:
    """Join honestly and resign our seat on our turn: the one-game match is over."""
    p, c = _on_our_turn(port)
    a = Action(1, 1)
    p.send({"t": "resign", "n": c.position, "g": 1, "s": 1, "d": c.digest_after(a), "a": b"\3" * 32})
    c.apply(a)
    return p


def _told(p: Hostile, *frames: dict[str, Any]) -> dict[str, Any] | None:
    """Send ``frames``, then read the honest side's refusal."""
    try:
        for f in frames:
            p.send(f)
        return p.refusal()
    finally:
        p.close()


def _early(port: int) -> dict[str, Any] | None:
    p, c = _on_our_turn(port)
    return _told(p, {"t": "rematch", "match": c.match_id, "yes": True})  # in the middle of the match


def _rematch(p: Hostile, yes: bool, match: bytes | None = None) -> dict[str, Any]:
    assert p.core is not None
    return {"t": "rematch", "match": p.core.match_id if match is None else match, "yes": yes}


def _lying(port: int) -> dict[str, Any] | None:
    p = _over(port)
    return _told(p, _rematch(p, True, match=b"\x07" * 16))  # not the match just over


def _twice(port: int) -> dict[str, Any] | None:
    p = _over(port)
    return _told(p, _rematch(p, False), _rematch(p, False))


def _offered(port: int) -> Hostile:
    """The match is over and the host's bot said yes to another."""
    p = _over(port)
    while (m := p.recv())["t"] != "rematch":
        pass
    assert m["yes"] is True and p.core is not None and m["match"] == p.core.match_id, m
    return p


def _late(port: int) -> dict[str, Any] | None:
    p = _offered(port)  # after both yes the next frame must be a hello
    return _told(p, _rematch(p, True), _rematch(p, True))


def _wrong_seat(port: int) -> dict[str, Any] | None:
    p = _offered(port)  # the next match's hello claims the host's seat
    hello = {"t": "hello", "proto": 2, "app": "p2p-spite", "role": "host", "name": "mallory",
             "nonce": b"\0" * 16, "code": False, "match": None}  # fmt: skip
    return _told(p, _rematch(p, True), hello)


ATTACKS: dict[str, tuple[Callable[[int], dict[str, Any] | None], str]] = {
    "early": (_early, "sequence"),
    "lying": (_lying, "other-match"),
    "twice": (_twice, "sequence"),
    "late": (_late, "unexpected"),
    "wrong seat": (_wrong_seat, "role"),
}


@pytest.mark.parametrize("what", list(ATTACKS))
def test_a_hostile_rematch_is_refused_at_a_real_host(tmp_path: Path, what: str) -> None:
    attack, code = ATTACKS[what]
    host, port = _host(tmp_path, "--seed", SEED, "--games", "1", "--matches", "2")
    try:
        told = attack(port)
        rc, out, err = finish(host, TIMEOUT)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
    assert told is not None and told["code"] == code, (told, err)
    assert "Traceback" not in err, err
    assert rc == (1 if what == "early" else 0), (rc, out, err)  # mid-match: the match stopped
    rec = _check(tmp_path / "h.json")
    assert rec["games"], rec
    assert not (tmp_path / "h-2.json").exists()
    assert "final scores" in out, out
