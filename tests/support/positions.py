"""Hand-built positions for rules tests (cards written as in SPEC: 7S, TC, KH)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from p2p_spite.engine import CENTER, HAND, GameState, Match, Move, Stream
from p2p_spite.engine.cards import parse_card

SEED = bytes(range(32))


def cards(text: str) -> list[int]:
    """Card ids for names; a second copy of a name takes the second deck."""
    seen: Counter[str] = Counter()
    out = []
    for name in text.split():
        key = name.upper()
        out.append(parse_card(key, deck=seen[key]))
        seen[key] += 1
    return out


def make_state(
    payoff: Sequence[str] = ("5C 9D", "4H 8S"),
    hands: Sequence[str] = ("AC 2C 3C 4D KS", "6D 7D 8D 9H TH"),
    sides: Sequence[Sequence[str]] = (("", "", "", ""), ("", "", "", "")),
    center: Sequence[str] = ("", "", ""),
    stock: str | None = None,
    turn: int = 0,
) -> GameState:
    """A game in the given position.  The stock (top last) defaults to every
    card not placed elsewhere, so 104 cards are in play."""
    # Parse all named cards together so duplicates take deck 1.
    groups = [*payoff, *hands, *(x for sd in sides for x in sd), *center]
    all_ids = cards(" ".join(groups))
    it = iter(all_ids)
    piles = [[next(it) for _ in g.split()] for g in groups]
    if stock is None:
        used = set(all_ids)
        rest = [c for c in range(104) if c not in used]
    else:
        rest = [c for c in cards(stock) if c not in set(all_ids)] if stock else []
    return GameState.from_position(
        payoff=piles[0:2],
        hands=piles[2:4],
        sides=[piles[4:8], piles[8:12]],
        center=piles[12:15],
        stock=rest,
        turn=turn,
        stream=Stream(SEED, 1),
    )


def quiet_moves(match: Match) -> list[Move]:
    """Moves the seat on turn can play one after the other and take back: from the hand
    (never its last card) to a center they do not complete, as many as come in a row."""
    g = match.game.copy()
    seat, made = g.turn, []
    while len(g.hands[seat]) > 2:
        moves = [m for m in g.legal_moves() if m.source == HAND and m.target == CENTER]
        moves = [m for m in moves if len(g.center[m.slot]) < 11]
        if not moves:
            break
        g.apply(moves[0])
        made.append(moves[0])
    return made
