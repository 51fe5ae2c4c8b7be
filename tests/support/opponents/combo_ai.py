"""A third independent computer player, for benchmarks only: not a product level.

``combo`` is a port of a rule-based Skip-Bo bot from another public project,
run through our engine so that our levels meet a third style of play: no
search of the position's value at all, only a fixed order of rules (race the
pay-off card by the shortest chain, else empty the hand, else play high cards,
else discard onto a shallow or matching stack).  It is kept out of
``p2p_spite.bots.LEVELS``: only ``scripts/bench_bots`` (level name ``combo``)
and the tests use it.

Source of the algorithm
-----------------------
Repository ``meesvandongen/skipbot`` (a Skip-Bo engine with a family of
heuristic bots and a win-rate harness), commit
``006b22079ff2a2d0bdb93894a633480fe1bf2117``, file
``src/bots/heuristic_13.rs`` (``Heuristic13Bot``, "combo architect", the
strongest of its heuristic bots in the project's own table,
``research/heuristic_research.md``: 95.7% against its baseline), with the
order of legal actions from ``src/game.rs`` (``legal_actions``).  The
repository states no licence, so no code was copied: this module is a
re-implementation written here from a reading of it, rule by rule in the
source's order, with its constants.

The algorithm (kept)
--------------------
It chooses one action per call, from the position as it is (nothing is kept
between calls):

1. *Stock first* (``can_play_stock``): the stock top (our pay-off top) is
   played at once if it fits a build pile (a wild one on the pile with the
   highest next value, then the most cards; a number on the fullest pile that
   takes it; ties to the last pile, as Rust's ``max_by_key``).  Else, for each
   build pile, the values it needs before it takes the stock top are taken one
   by one from an unused discard-pile top of that value, else an unused hand
   card of that value, else an unused wild discard top, else an unused wild
   hand card (only the discard piles' current tops count); the pile needing
   the fewest plays wins (ties: the first), and its first play is made.
2. *Whole hand* (``can_play_all_hand``): a depth-first search for an order
   that plays every hand card, with discard-pile tops (each once) as helpers,
   hand cards tried first; if one exists its first play is made.
3. *High cards*: among the legal plays (in the engine's order: hand, stock,
   discard piles), the highest numbered card of value 6 or more and above the
   stock top's value (1 for a wild top), ties to the fuller pile, then the
   first; never a wild card, and never onto a pile whose next value is shared
   by exactly one other pile ("breaks a duplicated pair").
4. *Discard*: the hand card and discard pile with the best
   ``1000 + 600 (same card on top) - 20 x cards in the pile - 10 x hand slot``;
   ties to the first in the engine's order (pile by pile, slot by slot).

(The source's fifth rule, for a turn with an empty hand, never applies here:
our engine refills the hand when it empties and ends the game in a draw when
it cannot.)

What was adapted (rules only)
-----------------------------
- Cards: our Ace..Queen are the Skip-Bo values 1..12, a King is the Skip-Bo
  card (wild); 3 centers for its 4 build piles (a center of n cards has next
  value n + 1; a complete pile is cleared, as ours goes to the stock), 4 side
  stacks for its 4 discard piles, the pay-off pile for its stock.  Hand slots
  are the view's hand in order (ours, like the source's, keeps the order and
  appends drawn cards).
- Moves are the engine's (a hand card by its id, a side stack by its index);
  the source's legal-action order is rebuilt from the view (``_legal``).
- It is deterministic (the source draws no random number).
"""

from __future__ import annotations

from p2p_spite.engine import CENTER, HAND, PAYOFF, SIDE, Move, Pile, PlayerView
from p2p_spite.engine.cards import Card

NAME = "combo"
WILD = 12  # our rank index of the wild card (a King)
MAX_VALUE = 12


def _value(card: Card) -> int | None:
    """The source's ``Card::Number(v)``: 1..12; None for the wild card."""
    r = card % 13
    return None if r == WILD else r + 1


def _fits(card: Card, next_value: int) -> bool:
    """``Card::matches_value``: a wild card takes any value."""
    v = _value(card)
    return v is None or v == next_value


def _inc(v: int) -> int:
    return 1 if v == MAX_VALUE else v + 1


class ComboBot:
    """The ported rule-based bot (see the module docstring); it decides from its
    ``PlayerView`` alone and draws no random number (``seed`` is accepted and unused,
    like every benchmark opponent's)."""

    name = NAME

    def __init__(self, seed: int | None = None) -> None:
        del seed

    def choose(self, view: PlayerView) -> Move:
        if not view.my_turn:
            raise ValueError("combo: it is not this view's seat's turn")
        legal = _legal(view)
        move = _play_stock(view, legal)
        if move is None:
            move = _play_all_hand(view, legal)
        if move is None:
            move = _high_card(view, legal)
        if move is None:
            move = _discard(view, legal)
        return move


def _nexts(view: PlayerView) -> list[int]:
    """Each build pile's next value (1 for an empty pile)."""
    return [len(c) + 1 for c in view.center]


def _legal(view: PlayerView) -> list[Move]:
    """The source's ``legal_actions`` order: hand plays (slot by slot, pile by
    pile), stock plays, discard-pile plays, then the discards (pile by pile, slot
    by slot)."""
    me = view.seat
    nexts = _nexts(view)
    out: list[Move] = []
    for card in view.hand:
        out.extend(Move(me, HAND, card, CENTER, i) for i, n in enumerate(nexts) if _fits(card, n))
    top = view.payoff_tops[me]
    if top is not None:
        out.extend(Move(me, PAYOFF, None, CENTER, i) for i, n in enumerate(nexts) if _fits(top, n))
    for d, st in enumerate(view.sides[me]):
        if st:
            out.extend(Move(me, SIDE, d, CENTER, i) for i, n in enumerate(nexts) if _fits(st[-1], n))
    for d in range(len(view.sides[me])):
        out.extend(Move(me, HAND, card, SIDE, d) for card in view.hand)
    return out


def _last_max(keys: list[tuple[int, ...]]) -> int:
    """Rust's ``max_by_key``: the index of the last maximum."""
    best = 0
    for i, k in enumerate(keys):
        if k >= keys[best]:
            best = i
    return best


def _required(next_value: int, stock: int) -> list[int]:
    """``required_values_for_pile``: the values a pile needs before it takes ``stock``."""
    if next_value == stock:
        return []
    if next_value < stock:
        return list(range(next_value, stock))
    return [*range(next_value, MAX_VALUE + 1), *range(1, stock)]


def _play_stock(view: PlayerView, legal: list[Move]) -> Move | None:
    """Rule 1, ``can_play_stock``."""
    me = view.seat
    stock = view.payoff_tops[me]
    if stock is None:
        return None
    nexts = _nexts(view)
    s = _value(stock)
    if s is None:
        i = _last_max([(n, len(c)) for n, c in zip(nexts, view.center, strict=True)])
        move = Move(me, PAYOFF, None, CENTER, i)
        return move if move in legal else None  # (always legal)
    takers = [i for i, n in enumerate(nexts) if n == s]
    if takers:
        i = takers[_last_max([(len(view.center[i]),) for i in takers])]
        move = Move(me, PAYOFF, None, CENTER, i)
        if move in legal:
            return move
    # Sources by value: hand slots first, then the discard-pile tops.
    hand = view.hand
    sides = view.sides[me]
    by_value: list[list[tuple[Pile, int]]] = [[] for _ in range(MAX_VALUE + 1)]
    wild_discards: list[int] = []
    wild_hands: list[int] = []
    for h, card in enumerate(hand):
        v = _value(card)
        if v is None:
            wild_hands.append(h)
        else:
            by_value[v].append((HAND, h))
    for d, st in enumerate(sides):
        if st:
            v = _value(st[-1])
            if v is None:
                wild_discards.append(d)
            else:
                by_value[v].append((SIDE, d))
    best: tuple[int, list[tuple[Pile, int]]] | None = None
    for i, n in enumerate(nexts):
        used_hand = [False] * len(hand)
        used_discard = [False] * len(sides)
        actions: list[tuple[Pile, int]] = []
        possible = True
        for need in _required(n, s):
            picked: tuple[Pile, int] | None = next(
                ((p, k) for p, k in by_value[need] if p == SIDE and not used_discard[k]), None
            )
            if picked is None:
                picked = next(((p, k) for p, k in by_value[need] if p == HAND and not used_hand[k]), None)
            if picked is None:
                wild: list[tuple[Pile, int]] = [(SIDE, d) for d in wild_discards if not used_discard[d]]
                wild += [(HAND, h) for h in wild_hands if not used_hand[h]]
                picked = wild[0] if wild else None
            if picked is None:
                possible = False
                break
            if picked[0] == SIDE:
                used_discard[picked[1]] = True
            else:
                used_hand[picked[1]] = True
            actions.append(picked)
        if not possible:
            continue
        if best is None or len(actions) < len(best[1]):
            best = (i, actions)
    if best is None:
        return None
    i, actions = best
    if not actions:
        move = Move(me, PAYOFF, None, CENTER, i)
    else:
        p, k = actions[0]
        move = Move(me, HAND, hand[k], CENTER, i) if p == HAND else Move(me, SIDE, k, CENTER, i)
    return move if move in legal else None


def _play_all_hand(view: PlayerView, legal: list[Move]) -> Move | None:
    """Rule 2, ``can_play_all_hand``: the first play of an order that plays every hand
    card, discard-pile tops (each once) as helpers."""
    me = view.seat
    hand = view.hand
    if not hand:
        return None
    nexts = _nexts(view)
    tops: list[Card | None] = [st[-1] if st else None for st in view.sides[me]]
    playable = any(_fits(c, n) for c in hand for n in nexts) or any(
        t is not None and _fits(t, n) for t in tops for n in nexts
    )
    if not playable:
        return None
    piles = nexts[:]
    used_hand = [False] * len(hand)
    used_discard = [False] * len(tops)
    path: list[Move] = []

    def attempt(move: Move, used: list[bool], k: int, played: int) -> bool:
        """Play ``move`` (source ``k`` of ``used``), search on, undo it unless that succeeds."""
        if not path and move not in legal:  # the first play must be legal now
            return False
        pi = move.slot
        old = piles[pi]
        piles[pi] = _inc(old)
        used[k] = True
        path.append(move)
        if dfs(played):
            return True
        path.pop()
        used[k] = False
        piles[pi] = old
        return False

    def dfs(played: int) -> bool:
        if played == len(hand):
            return True
        for h, card in enumerate(hand):  # a hand card next
            if not used_hand[h]:
                for pi in range(len(piles)):
                    if _fits(card, piles[pi]) and attempt(
                        Move(me, HAND, card, CENTER, pi), used_hand, h, played + 1
                    ):
                        return True
        for d, top in enumerate(tops):  # a discard-pile top as a helper
            if not used_discard[d] and top is not None:
                for pi in range(len(piles)):
                    if _fits(top, piles[pi]) and attempt(
                        Move(me, SIDE, d, CENTER, pi), used_discard, d, played
                    ):
                        return True
        return False

    if dfs(0) and path and path[0] in legal:
        return path[0]
    return None


def _played_value(view: PlayerView, move: Move) -> int | None:
    """The numbered value a play puts down (None for a wild card)."""
    if move.source == HAND:
        assert move.arg is not None
        return _value(move.arg)
    if move.source == PAYOFF:
        top = view.payoff_tops[view.seat]
        return None if top is None else _value(top)
    return _value(view.sides[view.seat][move.arg or 0][-1])


def _breaks_pair(nexts: list[int], pile: int) -> bool:
    """``breaks_pair_duplication``: the pile's next value is on exactly two piles."""
    return sum(1 for n in nexts if n == nexts[pile]) == 2


def _high_card(view: PlayerView, legal: list[Move]) -> Move | None:
    """Rule 3: the highest numbered play of 6 or more above the stock top's value."""
    top = view.payoff_tops[view.seat]
    stock_value = (None if top is None else _value(top)) or 1
    nexts = _nexts(view)
    best: tuple[int, int, Move] | None = None
    for move in legal:
        if move.target != CENTER or _breaks_pair(nexts, move.slot):
            continue
        v = _played_value(view, move)
        if v is not None and v >= 6 and v > stock_value:
            n = len(view.center[move.slot])
            if best is None or v > best[0] or (v == best[0] and n > best[1]):
                best = (v, n, move)
    return None if best is None else best[2]


def _discard(view: PlayerView, legal: list[Move]) -> Move:
    """Rule 4: the best-scored discard, the first of equals."""
    sides = view.sides[view.seat]
    slot = {card: h for h, card in enumerate(view.hand)}
    best: tuple[int, Move] | None = None
    for move in legal:
        if move.target != SIDE:
            continue
        assert move.arg is not None
        card, st = move.arg, sides[move.slot]
        same = 600 if st and _value(st[-1]) == _value(card) else 0
        score = 1000 + same - 20 * len(st) - 10 * slot[card]
        if best is None or score > best[0]:
            best = (score, move)
    assert best is not None  # the hand is never empty at a decision
    return best[1]


def make(seed: int | None = None) -> ComboBot:
    return ComboBot(seed)
