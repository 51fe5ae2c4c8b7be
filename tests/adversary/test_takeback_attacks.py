"""Takebacks against a real ``p2p-spite host --bot easy`` on 127.0.0.1 (the computer
allows every takeback it may): a hand-written joiner (tests/adversary/hostile.py) asks to
take back the host's move, a discard that ended its turn, a move that does not exist,
floods requests, answers a request nobody made, and takes back a move it was not allowed
to (never asked, a second one after the one allowed, or one crossed by its own next
move).  Each time the host refuses with the right code in one line, exits 1, and its
record holds exactly the moves that stand and passes ``replay --check``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from p2p_spite.core.game import GameCore
from p2p_spite.core.protocol import MAX_TAKEBACKS
from p2p_spite.engine import SIDE, Move, takeback
from tests.adversary.hostile import Hostile
from tests.adversary.realhost import check_record, on_our_turn, one_line, run_host
from tests.support.positions import quiet_moves

pytestmark = pytest.mark.slow
# the joiner starts game 1, with two moves it can take back (tests/engine/test_takeback.py's kind)
SEED = "00" * 31 + "01"


def _quiet(c: GameCore) -> Move:
    """A move of ours that shows no card (it can be taken back)."""
    return quiet_moves(c.match)[0]


def _answer(p: Hostile) -> dict[str, Any]:
    while True:
        m = p.recv()
        if m["t"] == "takeback-answer":
            return m


def _the_hosts_move(p: Hostile, c: GameCore) -> None:
    p.play_own(next(m for m in c.match.game.legal_moves() if m.target == SIDE))
    while c.match.game.turn != 1:
        p.receive_action()
    p.send({"t": "takeback", "n": c.position - 1})  # the host's discard that gave us the turn


def _after_our_discard(p: Hostile, c: GameCore) -> None:
    p.play_own(next(m for m in c.match.game.legal_moves() if m.target == SIDE))
    p.send({"t": "takeback", "n": c.position - 1})  # late: our turn is over


def _a_move_that_does_not_exist(p: Hostile, c: GameCore) -> None:
    p.play_own(_quiet(c))
    p.send({"t": "takeback", "n": c.position + 2})


def _undo_twice(p: Hostile, c: GameCore) -> None:
    """One undo allowed, taken (the host goes back too), then a second one never asked for."""
    p.play_own(_quiet(c))
    p.play_own(_quiet(c))
    n = c.position - 1
    p.send({"t": "takeback", "n": n})
    assert _answer(p)["ok"] is True
    c.take_back(1)
    p.send({"t": "undo", "n": n, "d": c.match.game.digest()})
    last = c.match.last_played()
    assert last is not None
    g = c.match.game.copy()
    takeback.take_back(g, last)
    p.send({"t": "undo", "n": n - 1, "d": g.digest()})


def _flood(p: Hostile, c: GameCore) -> None:
    p.play_own(_quiet(c))
    for _ in range(MAX_TAKEBACKS):
        p.send({"t": "takeback", "n": c.position - 1})
        assert _answer(p)["ok"] is True  # the computer allows; we never take it back
    p.send({"t": "takeback", "n": c.position - 1})


def _an_answer_with_no_request(p: Hostile, c: GameCore) -> None:
    p.send({"t": "takeback-answer", "n": 0, "ok": True})


def _an_undo_never_allowed(p: Hostile, c: GameCore) -> None:
    p.play_own(_quiet(c))
    g = c.match.game.copy()
    last = c.match.last_played()
    assert last is not None
    takeback.take_back(g, last)
    p.send({"t": "undo", "n": c.position - 1, "d": g.digest()})


def _an_undo_crossed_by_our_move(p: Hostile, c: GameCore) -> None:
    """Allowed, then our next move crossed the answer: the allowance is gone with it."""
    p.play_own(_quiet(c))
    p.send({"t": "takeback", "n": c.position - 1})
    assert _answer(p)["ok"] is True
    p.play_own(_quiet(c))
    p.send({"t": "undo", "n": c.position - 2, "d": bytes(32)})


ATTACKS: dict[str, tuple[Callable[[Hostile, GameCore], None], str]] = {
    "a takeback of the host's move": (_the_hosts_move, "takeback"),
    "a takeback after the discard ended our turn": (_after_our_discard, "unexpected"),
    "a takeback of a move that does not exist": (_a_move_that_does_not_exist, "takeback"),
    "an undo allowed once, sent twice": (_undo_twice, "forged"),
    "a flood of takebacks": (_flood, "flood"),
    "an answer to no request": (_an_answer_with_no_request, "unexpected"),
    "an undo never allowed": (_an_undo_never_allowed, "forged"),
    "an undo crossed by our own move": (_an_undo_crossed_by_our_move, "forged"),
}


@pytest.mark.parametrize("what", list(ATTACKS))
def test_a_hostile_joiners_takebacks_are_refused_by_a_real_host(tmp_path: Path, what: str) -> None:
    body, code = ATTACKS[what]
    played: list[list[Any]] = []

    def attack(port: int) -> dict[str, Any] | None:
        p, c = on_our_turn(port)
        try:
            body(p, c)
            played.extend(list(m) for m in c.match.moves[-1])
            return p.refusal()
        finally:
            p.close()

    rc, err, told = run_host(tmp_path, attack, "--seed", SEED)
    assert told is not None and told["code"] == code, told
    line = one_line(err)
    assert line.startswith("p2p-spite: ") and "mallory" in line and rc == 1, (rc, err)
    rec = check_record(tmp_path / "h.json")
    kept = rec["games"][-1]["moves"] if rec["games"] else []  # (no move: no record is kept)
    assert kept == played  # every move the host took, none taken back
