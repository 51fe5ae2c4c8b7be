"""What a watcher may see of a game: the cards face up for both players, never a hand,
the stock's order, the pay-off cards under the tops or the seed."""

from __future__ import annotations

import dataclasses
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_spite.engine import GameState, Match, PublicView, public_view, view


def _walk(value: object) -> list[object]:
    """Every leaf value inside ``value`` (tuples, lists and dataclasses opened)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [leaf for f in dataclasses.fields(value) for leaf in _walk(getattr(value, f.name))]
    if isinstance(value, tuple | list):
        return [leaf for item in value for leaf in _walk(item)]
    return [value]


def _face_up(g: GameState) -> set[int]:
    tops = {p[-1] for p in g.payoff if p}
    return tops | {c for sd in g.sides for s in sd for c in s} | {c for s in g.center for c in s}


def _hidden(g: GameState) -> set[int]:
    return {c for h in g.hands for c in h} | set(g.stock) | {c for p in g.payoff for c in p[:-1]}


def _check(g: GameState, seed: bytes) -> PublicView:
    pv = public_view(view(g, 0))
    assert pv == public_view(view(g, 1))  # the same table, whichever seat it is told from
    shown = pv.cards()
    assert len(shown) == len(set(shown))
    assert set(shown) == _face_up(g)
    assert not set(shown) & _hidden(g)
    leaves = _walk(pv)
    assert not any(isinstance(v, bytes | bytearray) for v in leaves)  # no seed, no digest
    assert seed.hex() not in repr(pv)
    assert (
        sum(pv.hand_counts)
        + sum(pv.payoff_counts)
        + pv.stock_count
        + len(shown)
        - sum(1 for t in pv.payoff_tops if t is not None)
        == 104
    )
    seen = pv.seen_from(g.turn)
    assert seen.hand == () and seen.hand_counts == pv.hand_counts
    return pv


@settings(max_examples=25, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.integers(0, 2**32))
def test_a_public_view_holds_only_the_cards_face_up(seed: bytes, pick: int) -> None:
    m = Match(seed)
    g = m.game
    rng = random.Random(pick)
    for _ in range(300):
        _check(g, seed)
        moves = g.legal_moves()
        if not moves:
            break
        g.apply(rng.choice(moves))


def test_a_public_view_does_not_depend_on_any_hidden_card() -> None:
    """Two games that differ in every hidden place (both hands, the stock's order, the
    pay-off cards under the tops) look the same to a watcher."""
    g = Match(bytes(range(32))).game
    h = g.copy()
    h.hands[0], h.hands[1] = h.hands[1], h.hands[0]
    h.hands[1], h.stock[:5] = h.stock[:5], h.hands[1]
    h.stock.reverse()
    h.payoff[0][:-1], h.payoff[1][:-1] = h.payoff[1][:-1], h.payoff[0][:-1]
    assert view(h, 0) != view(g, 0) and view(h, 1) != view(g, 1)
    assert public_view(view(h, 0)) == public_view(view(g, 1))
