"""A hand-written hostile joiner against a real ``host --bot easy --matches 2``: the
rematch message early, twice, lying, late and from the wrong seat, and a next match under
another name, one that names the match just over, or that the joiner sets up itself (or a
setup in the middle of match 1), are refused with their code (docs/protocol.md, *Playing
again*), the host ends cleanly with its exit code, and the record of the match played
checks (no second record: no second match began)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from p2p_spite.core.game import Action
from tests.adversary.hostile import Hostile
from tests.adversary.realhost import SEED, TIMEOUT, check_record, on_our_turn, one_line, start_host
from tests.support.net import finish

pytestmark = pytest.mark.slow  # (real processes)


def _over(port: int) -> Hostile:
    """Join honestly and resign our seat on our turn: the one-game match is over."""
    p, c = on_our_turn(port)
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
    p, c = on_our_turn(port)
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


def _next_hello(p: Hostile, name: str = "mallory", match: bytes | None = None) -> dict[str, Any]:
    """After both said yes: our yes, then the next match's hello (``name``, ``match``)."""
    p.send(_rematch(p, True))
    p.name = name
    return p.hello(match=match)


def _renamed(port: int) -> dict[str, Any] | None:
    p = _offered(port)  # the next match under another name than the one agreed
    try:
        _next_hello(p, name="eve")
        return p.refusal()
    finally:
        p.close()


def _returning(port: int) -> dict[str, Any] | None:
    p = _offered(port)  # the next match's hello names the match just over, to be resumed
    assert p.core is not None
    try:
        _next_hello(p, match=p.core.match_id)
        return p.refusal()
    finally:
        p.close()


def _setup_from_the_joiner(port: int) -> dict[str, Any] | None:
    p = _offered(port)  # the joiner tries to set the next match up itself, with its own seed
    assert p.core is not None
    try:
        _next_hello(p)
        setup = {"t": "setup", "match": b"\x09" * 16, "seed": b"\x09" * 32, "target": 1, "games": None,
                 "players": ["Ann", "mallory"], "resume": False}  # fmt: skip
        return _told(p, setup)
    finally:
        p.close()


def _setup_mid_match(port: int) -> dict[str, Any] | None:
    p, c = on_our_turn(port)  # a setup in the middle of match 1
    setup = {"t": "setup", "match": c.match_id, "seed": b"\x09" * 32, "target": 1, "games": None,
             "players": ["Ann", "mallory"], "resume": False}  # fmt: skip
    return _told(p, setup)


# each attack: the code the host refuses it with, and the host's exit code (0: match 1
# over and no other; 1: it stopped match 1, or refused match 2 before its deal: after
# both said yes)
ATTACKS: dict[str, tuple[Callable[[int], dict[str, Any] | None], str, int]] = {
    "early": (_early, "sequence", 1),
    "lying": (_lying, "other-match", 0),
    "twice": (_twice, "sequence", 0),
    "late": (_late, "unexpected", 1),
    "wrong seat": (_wrong_seat, "role", 1),
    "renamed": (_renamed, "not-agreed", 1),
    "returning": (_returning, "no-match", 1),
    "setup from the joiner": (_setup_from_the_joiner, "unexpected", 1),
    "setup mid-match": (_setup_mid_match, "unexpected", 1),
}


@pytest.mark.parametrize("what", list(ATTACKS))
def test_a_hostile_rematch_is_refused_at_a_real_host(tmp_path: Path, what: str) -> None:
    attack, code, exit_code = ATTACKS[what]
    host, port = start_host(tmp_path, "--seed", SEED, "--games", "1", "--matches", "2")
    try:
        told = attack(port)
        rc, out, err = finish(host, TIMEOUT)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
    assert told is not None and told["code"] == code, (told, err)
    assert "Traceback" not in err, err
    assert rc == exit_code, (rc, out, err)
    if exit_code and what not in ("early", "setup mid-match"):  # match 2 refused: one line says so
        line = one_line(err)
        assert line.startswith(
            "p2p-spite: refused the next match with mallory before any card was dealt: "
        ), err
    rec = check_record(tmp_path / "h.json")
    assert rec["games"], rec
    assert not (tmp_path / "h-2.json").exists()
    assert "final scores" in out, out
