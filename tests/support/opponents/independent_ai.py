"""An independent computer player, for benchmarks only: not a product level.

``indep`` is a port of the search-based AI of a public Skip-Bo game, run
through our engine so that our own levels can be measured against an AI we did
not design (issue 13 asks that ``expert`` beat "an independent AI" in at least
80% of decided games).  It is deliberately kept out of
``p2p_spite.bots.LEVELS``: only ``scripts/bench_bots`` (level name ``indep``)
and the tests use it.

Source of the algorithm
-----------------------
Repository ``klbsjpolp/skip-bo`` (a web Skip-Bo game, version 2.16.1), commit
``8499096f70297d2049f43a1bd16f6e8312bd76b9`` (2026-08-21), files
``apps/web/src/ai/lookAheadStrategy.ts`` (the search and its evaluation),
``apps/web/src/ai/discardUtils.ts`` (the discard scores),
``apps/web/src/ai/strategyUtils.ts`` (helpers, the randomised choice among
near-best options), ``apps/web/src/ai/aiConfig.ts`` (the weights, the search
depth 4, the randomness windows) and ``apps/web/src/ai/computeBestMove.ts``
(one search per action).  Its licence is GPL-3.0-only; this project is MIT, so
no code was copied: this module is a re-implementation, written here from a
reading of the algorithm, with the source's structure, weights and constants.

The algorithm (kept)
--------------------
Before every single action the AI runs a depth-limited search of its own turn
(depth 4).  At each node the candidates are every play onto a build (center)
pile -- from the stock (our pay-off pile), from the hand, from a discard (our
side) pile top -- and the 6 best discards (hand card onto a discard pile)
ranked by the discard score.  A play is scored ``move score + the value of the
best continuation`` (searched one level deeper); a discard ends the line and is
scored ``discard score + the state's value``; at depth 0 the state's value is
taken.  The state value counts the stock cards left, wild cards at hand,
whether the stock top fits and how far it is from fitting, useful and
well-ordered discard tops, and the opponent's threat (its stock top fitting or
nearly fitting, its playable discard tops, what its stock play would open up).
The move score rewards stock plays, discard-pile plays (more if they reveal a
playable card or one that bridges to the stock), completing a pile, bringing
the stock closer and reducing the opponent's threat, and charges the use of a
wild card (more when a natural card would do).  At every node the choice is a
uniformly random one among the options within 3 points of the best (the
source's ``pickRandomNearBestOption``); here that randomness comes from the
bot's own ``random.Random(seed)``, so a game is reproducible given the seed.

What was adapted (rules and fairness only)
------------------------------------------
- Cards: our ranks Ace..Queen are the Skip-Bo values 1..12; a King is the
  Skip-Bo wild card (value 0 in the source's scores).  3 center stacks for
  Skip-Bo's 4 build piles, completed at 12 cards as there; our pay-off pile is
  the Skip-Bo stock pile, our side stacks its discard piles.
- Hidden cards.  The source's search simulates with its game's full state, so
  it sees the card under a stock card it plays (its own and, in the opponent
  threat, the opponent's) and the cards a refill of an emptied hand would draw.
  A bot here sees only its ``PlayerView``: such a card is unknown and is
  treated as no card (the source's own handling of a missing stock top), and
  an emptied hand stays empty in the simulation.  The one helper that counted
  every card of every pile (``countVisibleNaturalCards``, used only by the
  fallback discard choice) counts the cards the view shows, against 8 copies of
  a rank instead of Skip-Bo's 12.
- Ending the turn.  The source never discards a wild card; when it has no
  candidate it ends its turn without discarding, which Skip-Bo allows and ours
  does not.  Here, in that case only (in our game a King always fits some
  center stack, so it cannot arise while the hand holds a card), it discards
  by the source's fallback choice (``selectCardToDiscard``,
  ``findBestDiscardPile``), a King allowed.
- Weights tied to Skip-Bo's sizes (the opponent-pressure term ``6 - stock
  left``, the stock penalty per card) are kept as they are, though our pay-off
  pile holds 20 cards, not 30.  (The pressure term is the same for every
  candidate of one decision, so it changes no choice.)

Strength: ``scripts/bench_bots hard indep -n 1000 --jobs 1 --seed-base 1301``
gives ``hard`` 76.2% [95% CI 73.5, 78.8] of the decided games (2026-12-01);
it beats ``easy`` in every game of a short run.  docs/bots.md has the figures.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from p2p_spite.engine import CENTER, HAND, PAYOFF, SIDE, Move, PlayerView
from p2p_spite.engine.cards import Card

NAME = "indep"
T = TypeVar("T")

# --- the source's configuration (aiConfig.ts), unchanged -------------------------------------------
W_STOCK_STATE = 30
W_STOCK_GAP = 5
W_WILD_RETENTION = 7
W_OPP_PRESSURE = 14
W_OPP_STOCK_PLAYABLE = 26
W_OPP_NEAR_STOCK = 6
W_OPP_PLAYABLE_DISCARD = 8
W_OPP_STOCK_FOLLOW_UP = 12
W_PLAYABLE_TOP_DISCARD = 4
W_DISCARD_ORGANIZATION = 2
W_DUPLICATE_DISCARD = 6
W_NEEDED_SOON = 16
W_STOCK_BRIDGE = 10
W_HIGH_VALUE_DISCARD = 4
W_EMPTY_PILE = 5
W_NEW_PILE = 2
W_SAME_VALUE_PILE = 7
W_SEQUENTIAL_PILE = 3
W_SAME_BAND_PILE = 2
W_MISMATCHED_PILE = 3
W_BURY_USEFUL = 8
W_CLEAR_DISCARD_PILE = 5
W_REVEAL_PLAYABLE = 10
W_REVEAL_STOCK_BRIDGE = 8
W_COMPLETE_PILE = 16
W_PLAY_FROM_STOCK = 26
W_PLAY_FROM_DISCARD = 8
W_USE_WILD = 10
W_REDUNDANT_WILD = 18
SEARCH_DEPTH = 4
WINDOW_SEARCH = 3.0
WINDOW_DISCARD_PILE = 2.0
WINDOW_DISCARD_CARD = 1.5
STOCK_WIN_BONUS = 5000
RANKED_DISCARDS = 6  # discards kept as candidates at each search node
MAX_VALUE = 12  # a build pile is complete at 12 cards
# adapted: copies of each natural value (Skip-Bo has 12; two 52-card decks have 8)
NATURAL_COPIES = 8

WILD = 0  # a King: the source's Skip-Bo card (value 0)
UNKNOWN: None = None  # a card the view does not show (treated as "no card")

# --- the searched position -------------------------------------------------------------------------
# A card is its Skip-Bo value: 1..12, or 0 for the wild card.  The hand keeps
# its slots (None once played), as the source's hand does.


@dataclass(frozen=True, slots=True)
class Pos:
    """The searching player's side of a position, and the build piles.  The
    opponent's side does not change during a search (it is in ``Opp``)."""

    center: tuple[int, ...]  # build pile lengths
    hand: tuple[int | None, ...]
    discards: tuple[tuple[int, ...], ...]
    stock_top: int | None  # None: empty or unknown
    stock_count: int
    over: bool = False  # the searching player has won


@dataclass(frozen=True, slots=True)
class Opp:
    stock_top: int | None
    stock_count: int
    discard_tops: tuple[int | None, ...]


# A candidate: (kind, source, index, target).  kind "play": source "stock" |
# "hand" | "discard", index the hand slot or discard pile, target the build
# pile.  kind "discard": source "hand", index the hand slot, target the discard
# pile.  kind "end": no candidate (the source's END_TURN).
Cand = tuple[str, str, int, int]


def value(card: Card) -> int:
    """Our card as the source's card value (a King is the wild card, 0)."""
    r = card % 13 + 1
    return WILD if r == 13 else r


def can_play(v: int, pile_len: int) -> bool:
    if pile_len == 0:
        return v == WILD or v == 1
    expected = pile_len + 1
    if expected > MAX_VALUE:
        return False
    return v in (WILD, expected)


def playable_piles(v: int, center: Sequence[int]) -> list[int]:
    return [i for i, n in enumerate(center) if can_play(v, n)]


def any_playable(v: int, center: Sequence[int]) -> bool:
    return any(can_play(v, n) for n in center)


def closest_gap(stock_top: int | None, center: Sequence[int]) -> int | None:
    """getClosestGapToStock: 0 for a wild or missing stock top; else the fewest
    cards any pile still needs before the stock top fits (None: no pile can)."""
    if stock_top is None or stock_top == WILD:
        return 0
    best: int | None = None
    for n in center:
        nxt = n + 1
        if nxt <= stock_top:
            gap = stock_top - nxt
            if best is None or gap < best:
                best = gap
    return best


def pick_near_best(
    options: list[tuple[T, float]], window: float, rng: random.Random
) -> tuple[T, float] | None:
    """pickRandomNearBestOption: uniform among the options within ``window`` of the best."""
    if not options:
        return None
    best = max(s for _, s in options)
    near = [o for o in options if best - o[1] <= window]
    return near[int(rng.random() * len(near))]


class _Search:
    """One decision: the source's lookAheadEvaluation on the view's position."""

    def __init__(self, opp: Opp, rng: random.Random, visible: list[int]) -> None:
        self.opp = opp
        self.rng = rng
        self.visible = visible  # natural cards of each value that the view shows (fallback only)
        self._threat: dict[tuple[int, ...], float] = {}

    # -- opponent ---------------------------------------------------------------------------------
    def opp_playable_discards(self, center: Sequence[int]) -> int:
        return sum(1 for t in self.opp.discard_tops if t is not None and any_playable(t, center))

    def opp_follow_up(self, center: tuple[int, ...]) -> float:
        top = self.opp.stock_top
        if top is None:
            return 0
        best = 0.0
        for i in playable_piles(top, center):
            sim = list(center)
            sim[i] += 1
            if sim[i] == MAX_VALUE:
                sim[i] = 0
            threat = self.opp_playable_discards(sim) * W_OPP_PLAYABLE_DISCARD
            # the opponent's next stock card is hidden from us: unknown, so no follow-up term
            best = max(best, threat)
        return best

    def opp_threat(self, center: tuple[int, ...]) -> float:
        """getOpponentThreatPenalty (it depends only on the build piles here)."""
        got = self._threat.get(center)
        if got is not None:
            return got
        penalty = float(self.opp_playable_discards(center) * W_OPP_PLAYABLE_DISCARD)
        if self.opp.stock_count == 0:
            penalty = float(STOCK_WIN_BONUS)
        else:
            gap = closest_gap(self.opp.stock_top, center)
            if gap == 0:
                penalty += W_OPP_STOCK_PLAYABLE + self.opp_follow_up(center)
            elif gap is not None and gap <= 2:
                penalty += (3 - gap) * W_OPP_NEAR_STOCK
        self._threat[center] = penalty
        return penalty

    # -- evaluation -------------------------------------------------------------------------------
    def evaluate_state(self, p: Pos) -> float:
        if p.stock_count == 0:
            return STOCK_WIN_BONUS
        score = float(-p.stock_count * W_STOCK_STATE)
        wilds = sum(1 for c in p.hand if c == WILD)
        wilds += sum(1 for d in p.discards if d and d[-1] == WILD)
        if p.stock_top == WILD:
            wilds += 1
        score += wilds * W_WILD_RETENTION
        if p.stock_top is not None:
            if any_playable(p.stock_top, p.center):
                score += W_PLAY_FROM_STOCK
            gap = closest_gap(p.stock_top, p.center)
            if gap is not None:
                score -= gap * W_STOCK_GAP
        for d in p.discards:
            if not d:
                continue
            top = d[-1]
            if any_playable(top, p.center):
                score += W_PLAYABLE_TOP_DISCARD
            if len(d) >= 2:
                nxt = d[-2]
                if nxt == top or abs(nxt - top) == 1:
                    score += W_DISCARD_ORGANIZATION
        score -= max(0, 6 - self.opp.stock_count) * W_OPP_PRESSURE
        score -= self.opp_threat(p.center)
        return score

    @staticmethod
    def bridge_urgency(v: int, stock_top: int | None) -> int:
        """getStockBridgeUrgency."""
        if v == WILD or stock_top is None or stock_top == WILD or v >= stock_top:
            return 0
        gap = stock_top - v
        return 3 if gap == 1 else 2 if gap == 2 else 1 if gap == 3 else 0

    def useful_top(self, v: int, p: Pos) -> bool:
        return any_playable(v, p.center) or self.bridge_urgency(v, p.stock_top) > 0

    def discard_placement(self, v: int, pile: tuple[int, ...], p: Pos) -> float:
        """scoreDiscardPlacement."""
        if not pile:
            return W_EMPTY_PILE - W_NEW_PILE
        top = pile[-1]
        band_dist = abs(_band(top) - _band(v))
        score = 0.0
        strong = False
        if top == v:
            score += W_SAME_VALUE_PILE
            strong = True
        elif abs(top - v) == 1:
            score += W_SEQUENTIAL_PILE
            strong = True
        if not strong:
            if band_dist == 0:
                score += W_SAME_BAND_PILE
            else:
                score -= W_MISMATCHED_PILE * band_dist
        if self.useful_top(top, p):
            if top == v:
                pass
            elif strong:
                score -= W_BURY_USEFUL / 2
            else:
                score -= W_BURY_USEFUL
        if len(pile) > 8:
            score -= 2
        return score

    def discard_score(self, v: int, pile_index: int, p: Pos) -> float:
        """evaluateDiscardMove."""
        score = self.discard_placement(v, p.discards[pile_index], p)
        score += (v / 12) * W_HIGH_VALUE_DISCARD
        if v in _needed_soon(p.center):
            score -= W_NEEDED_SOON
        urgency = self.bridge_urgency(v, p.stock_top)
        if urgency > 0:
            score -= W_STOCK_BRIDGE * urgency
        if self.opp.stock_count <= 3 and v <= 4:
            score -= 4
        return score

    def card_of(self, p: Pos, c: Cand) -> int | None:
        _, source, index, _ = c
        if source == "stock":
            return p.stock_top
        if source == "hand":
            return p.hand[index]
        if source == "discard":
            pile = p.discards[index]
            return pile[-1] if pile else None
        return None

    def natural_alternative(self, p: Pos, c: Cand) -> bool:
        """hasNaturalAlternativeForBuild."""
        _, source, index, target = c
        n = p.center[target]
        if p.stock_top is not None and p.stock_top != WILD and can_play(p.stock_top, n) and source != "stock":
            return True
        for i, h in enumerate(p.hand):
            if h is not None and h != WILD and can_play(h, n) and not (source == "hand" and index == i):
                return True
        for i, d in enumerate(p.discards):
            if d and d[-1] != WILD and can_play(d[-1], n) and not (source == "discard" and index == i):
                return True
        return False

    def evaluate_move(self, p: Pos, c: Cand, nxt: Pos) -> float:
        kind, source, index, target = c
        v = self.card_of(p, c)
        score = 0.0
        if kind == "play":
            if source == "stock":
                score += W_PLAY_FROM_STOCK
            if source == "discard":
                score += W_PLAY_FROM_DISCARD
                pile = p.discards[index]
                if len(pile) >= 2:
                    revealed = pile[-2]
                    if any_playable(revealed, nxt.center):
                        score += W_REVEAL_PLAYABLE
                    ns = nxt.stock_top
                    if ns is not None and ns != WILD and revealed != WILD and revealed < ns:
                        gap = ns - revealed
                        if 1 <= gap <= 2:
                            score += W_REVEAL_STOCK_BRIDGE * (3 - gap)
            if p.center[target] == 11:
                score += W_COMPLETE_PILE
            if v == WILD:
                score -= W_USE_WILD
                if self.natural_alternative(p, c):
                    score -= W_REDUNDANT_WILD
            before = closest_gap(p.stock_top, p.center)
            after = closest_gap(nxt.stock_top, nxt.center)
            if before is not None and after is not None and after < before:
                score += (before - after) * W_STOCK_GAP * 2
            t_before = self.opp_threat(p.center)
            t_after = self.opp_threat(nxt.center)
            if t_after < t_before:
                score += t_before - t_after
        if kind == "discard" and v is not None:
            score += self.discard_score(v, target, p)
        return score

    # -- moves ------------------------------------------------------------------------------------
    @staticmethod
    def play_moves(p: Pos) -> list[Cand]:
        out: list[Cand] = []
        if p.stock_top is not None:
            out.extend(("play", "stock", 0, i) for i in playable_piles(p.stock_top, p.center))
        for h, c in enumerate(p.hand):
            if c is not None:
                out.extend(("play", "hand", h, i) for i in playable_piles(c, p.center))
        for d, pile in enumerate(p.discards):
            if pile:
                out.extend(("play", "discard", d, i) for i in playable_piles(pile[-1], p.center))
        return out

    @staticmethod
    def discard_moves(p: Pos) -> list[Cand]:
        return [
            ("discard", "hand", h, d)
            for h, c in enumerate(p.hand)
            if c is not None and c != WILD
            for d in range(len(p.discards))
        ]

    @staticmethod
    def simulate(p: Pos, c: Cand) -> Pos:
        kind, source, index, target = c
        if kind == "discard":
            card = p.hand[index]
            assert card is not None
            hand = list(p.hand)
            hand[index] = None
            discards = list(p.discards)
            discards[target] = (*discards[target], card)
            return replace(p, hand=tuple(hand), discards=tuple(discards))
        center = list(p.center)
        center[target] += 1
        if center[target] == MAX_VALUE:  # complete: the pile goes back to the stock
            center[target] = 0
        hand_t, discards_t, stock_top, stock_count = p.hand, p.discards, p.stock_top, p.stock_count
        if source == "stock":
            stock_count -= 1
            stock_top = UNKNOWN  # the card under it is hidden from us
        elif source == "hand":
            hand = list(p.hand)
            hand[index] = None
            hand_t = tuple(hand)  # an emptied hand's refill is hidden: it stays empty here
        else:
            discards = list(p.discards)
            discards[index] = discards[index][:-1]
            discards_t = tuple(discards)
        return Pos(tuple(center), hand_t, discards_t, stock_top, stock_count, over=stock_count == 0)

    # -- the search -------------------------------------------------------------------------------
    def search(self, p: Pos, depth: int) -> tuple[float, Cand | None]:
        """searchTurn."""
        if depth <= 0 or p.over:
            return self.evaluate_state(p), None
        plays = self.play_moves(p)
        discards = self.discard_moves(p)
        scored = [(c, self.discard_score(_card(p.hand[c[2]]), c[3], p)) for c in discards]
        scored.sort(key=lambda t: -t[1])  # stable, like the source's sort
        candidates = plays + [c for c, _ in scored[:RANKED_DISCARDS]]
        if not candidates:
            return self.evaluate_state(p) - 5, ("end", "", 0, 0)
        options: list[tuple[Cand, float]] = []
        for c in candidates:
            nxt = self.simulate(p, c)
            local = self.evaluate_move(p, c, nxt)
            if c[0] == "play" and not nxt.over:
                future = self.search(nxt, depth - 1)[0]
            else:
                future = self.evaluate_state(nxt)
            options.append((c, local + future))
        chosen = pick_near_best(options, WINDOW_SEARCH, self.rng)
        assert chosen is not None
        return chosen[1], chosen[0]

    def fallback_discard(self, p: Pos) -> tuple[int, int]:
        """Adapted turn end (see the module docstring): the source's discard
        choice (selectCardToDiscard, findBestDiscardPile), Kings allowed, since
        our turn can end only with a discard."""
        scored_cards: list[tuple[int, float]] = []
        needed = _needed_soon(p.center)
        hand = p.hand
        for i, v in enumerate(hand):
            if v is None:
                continue
            score = 0.0
            dup = sum(1 for x in hand if x is not None and x != WILD and x == v)
            if v != WILD and dup > 1:
                score += W_DUPLICATE_DISCARD + (dup - 2)
            if v in needed:
                score -= W_NEEDED_SOON
            urgency = self.bridge_urgency(v, p.stock_top)
            if urgency > 0:
                score -= W_STOCK_BRIDGE * urgency
            if v != WILD and max(0, NATURAL_COPIES - self.visible[v]) <= 2:
                score -= W_NEEDED_SOON / 2
            if any_playable(v, p.center):
                score -= 4
            score += (v / 12) * W_HIGH_VALUE_DISCARD
            if self.opp.stock_count <= 3 and v <= 4:
                score -= 4
            scored_cards.append((i, score))
        card = pick_near_best(scored_cards, WINDOW_DISCARD_CARD, self.rng)
        assert card is not None
        v = hand[card[0]]
        assert v is not None
        piles = [(d, self.discard_placement(v, pile, p)) for d, pile in enumerate(p.discards)]
        pile = pick_near_best(piles, WINDOW_DISCARD_PILE, self.rng)
        assert pile is not None
        return card[0], pile[0]


def _card(v: int | None) -> int:
    assert v is not None
    return v


def _band(v: int) -> int:
    return 0 if v <= 4 else 1 if v <= 8 else 2


def _needed_soon(center: Sequence[int]) -> set[int]:
    """collectNeededValues(state, 2)."""
    out: set[int] = set()
    for n in center:
        for off in (0, 1):
            v = n + 1 + off
            if 1 <= v <= 12:
                out.add(v)
    return out


def position(view: PlayerView) -> tuple[Pos, Opp, list[int]]:
    """The searched position from a view: everything in it is visible to ``view.seat``."""
    me, op = view.seat, view.opponent
    my_top, op_top = view.payoff_tops[me], view.payoff_tops[op]
    pos = Pos(
        center=tuple(len(c) for c in view.center),
        hand=tuple(value(c) for c in view.hand),
        discards=tuple(tuple(value(c) for c in st) for st in view.sides[me]),
        stock_top=None if my_top is None else value(my_top),
        stock_count=view.payoff_counts[me],
    )
    opp = Opp(
        stock_top=None if op_top is None else value(op_top),
        stock_count=view.payoff_counts[op],
        discard_tops=tuple(None if t is None else value(t) for t in view.side_tops(op)),
    )
    visible = [0] * 13
    shown: list[Card] = [*view.hand, *(c for st in view.center for c in st)]
    for seat in (0, 1):
        top = view.payoff_tops[seat]
        if top is not None:
            shown.append(top)
        shown.extend(c for st in view.sides[seat] for c in st)
    for c in shown:
        visible[value(c)] += 1
    return pos, opp, visible


class IndependentBot:
    """The ported Skip-Bo look-ahead AI (see the module docstring).  It decides
    from its ``PlayerView`` alone; its random choices come from ``seed``."""

    name = NAME

    def __init__(self, seed: int | None = None, depth: int = SEARCH_DEPTH) -> None:
        self._rng = random.Random(seed)
        self.depth = depth

    def choose(self, view: PlayerView) -> Move:
        if not view.my_turn:
            raise ValueError("indep: it is not this view's seat's turn")
        pos, opp, visible = position(view)
        search = _Search(opp, self._rng, visible)
        _, best = search.search(pos, self.depth)
        seat = view.seat
        if best is None or best[0] == "end":
            h, d = search.fallback_discard(pos)
            return Move(seat, HAND, view.hand[h], SIDE, d)
        kind, source, index, target = best
        if kind == "discard":
            return Move(seat, HAND, view.hand[index], SIDE, target)
        if source == "stock":
            return Move(seat, PAYOFF, None, CENTER, target)
        if source == "hand":
            return Move(seat, HAND, view.hand[index], CENTER, target)
        return Move(seat, SIDE, index, CENTER, target)


def make(seed: int | None = None) -> IndependentBot:
    return IndependentBot(seed)
