"""Computer opponents: legality, fairness (view only), clear positions, strength.

The 1,000-game measurements live in scripts/bench_bots; here the margins are
small and the seeds fixed, so the file stays fast and deterministic.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import sys
from pathlib import Path

import pytest

from p2p_spite.bots import LEVELS, STRONGEST, Bot, best_move, make_bot
from p2p_spite.bots.expert import (
    EXPERT,
    EXPERT_FIXED,
    ExpertBot,
    ExpertConfig,
    greedy_turn,
    plan_turn,
    sample_world,
    turn_end_rule,
)
from p2p_spite.bots.planner import (
    MEDIUM,
    HardBot,
    _can_reach,
    _climb,
    _opponent_masks,
    _reach_set,
    rank_shares,
    unseen_ranks,
)
from p2p_spite.engine import CENTER, HAND, PAYOFF, SIDE, GameState, Move, PlayerView, Result, view
from p2p_spite.engine.cards import rank
from tests.support.opponents.bfs_ai import BfsBot  # benchmark opponent "bfs", not a product level

from ..support.games import play_game
from ..support.positions import cards, make_state


def seed(i: int) -> bytes:
    return hashlib.sha256(f"test_bots {i}".encode()).digest()


# -- levels and the API -------------------------------------------------------


def fixed_bot(level: str, seed: int) -> Bot:
    """A bot of ``level`` whose moves do not depend on the clock (expert without its budget)."""
    return ExpertBot(seed, EXPERT_FIXED) if level == "expert" else make_bot(level, seed)


def test_levels_are_registered() -> None:
    for level in ("random", "easy", "medium", "hard", "expert"):
        assert level in LEVELS
        assert make_bot(level, 1).name == level
    assert STRONGEST in LEVELS
    with pytest.raises(ValueError, match="hard"):
        make_bot("genius")


@pytest.mark.parametrize(
    ("a", "b", "games"),
    [
        pytest.param("random", "hard", 8, marks=pytest.mark.slow),
        pytest.param("hard", "easy", 8, marks=pytest.mark.slow),
        ("medium", "hard", 6),
        ("easy", "medium", 8),
        pytest.param("hard", "hard", 6, marks=pytest.mark.slow),
        ("random", "medium", 8),
        pytest.param("expert", "hard", 2, marks=pytest.mark.slow),
        pytest.param("easy", "expert", 2, marks=pytest.mark.slow),
    ],
)
def test_bots_only_make_legal_moves(a: str, b: str, games: int) -> None:
    for i in range(games):
        state = play_game([fixed_bot(a, i), fixed_bot(b, i + 100)], seed(1000 + i))
        assert state.card_count() == 104


def test_best_move_is_legal_and_stateless() -> None:
    state = GameState.deal(seed(7), 1)
    for _ in range(60):
        if state.result is not None:
            break
        v = view(state, state.turn)
        m = best_move(v, budget=None)
        assert m in state.legal_moves()
        assert best_move(v, budget=None) == m  # same view, same advice
        assert best_move(v) in state.legal_moves()  # within the hint's time budget
        state.apply(m)
    v = view(state, 1 - state.turn)
    with pytest.raises(ValueError):
        best_move(v)


# -- fairness -----------------------------------------------------------------


def _reachable_objects(obj: object, seen: set[int] | None = None) -> list[object]:
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return []
    seen.add(id(obj))
    out = [obj]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            out += _reachable_objects(getattr(obj, f.name), seen)
    elif isinstance(obj, (tuple, list)):
        for x in obj:
            out += _reachable_objects(x, seen)
    return out


def test_view_holds_only_plain_visible_data() -> None:
    """What a bot is handed: ints, tuples, None and the result; no state, no list."""
    state = GameState.deal(seed(3), 1)
    bots = [make_bot("easy", 0), make_bot("easy", 1)]
    for _ in range(80):
        seat = state.turn
        for who in (0, 1):
            v = view(state, who)
            for x in _reachable_objects(v):
                assert isinstance(x, (PlayerView, int, tuple, Result, str, type(None))), type(x)
                assert not isinstance(x, (GameState, list))
            hidden = set(state.hands[1 - who]) | set(state.stock)
            hidden |= {c for p in state.payoff for c in p[:-1]}
            visible = set(v.hand) | {c for sd in v.sides for st in sd for c in st}
            visible |= {c for cen in v.center for c in cen} | {t for t in v.payoff_tops if t is not None}
            assert visible.isdisjoint(hidden)
            # Every card id the view holds is open to `who` in the state.
            open_cards = set(state.hands[who]) | {c for sd in state.sides for st in sd for c in st}
            open_cards |= {c for cen in state.center for c in cen}
            open_cards |= {p[-1] for p in state.payoff if p}
            assert visible == open_cards
        state.apply(bots[seat].choose(view(state, seat)))
        if state.result is not None:
            break


def _shuffle_hidden(state: GameState, who: int, rng: random.Random) -> GameState:
    """A state that looks the same to ``who`` but has its hidden cards permuted:
    the opponent's hand, the stock and both pay-off piles under their tops."""
    other = state.copy()
    opp = 1 - who
    slots: list[tuple[list[int], int]] = []
    slots += [(other.hands[opp], i) for i in range(len(other.hands[opp]))]
    slots += [(other.stock, i) for i in range(len(other.stock))]
    for p in other.payoff:
        slots += [(p, i) for i in range(len(p) - 1)]
    values = [pile[i] for pile, i in slots]
    rng.shuffle(values)
    for (pile, i), c in zip(slots, values, strict=True):
        pile[i] = c
    return other


@pytest.mark.parametrize("level", [pytest.param("expert", marks=pytest.mark.slow), "hard", "medium", "easy"])
def test_decisions_ignore_hidden_cards(level: str) -> None:
    """Two games that differ only in cards the bot cannot see: the same views,
    and so the same decisions."""
    rng = random.Random(5)
    for g in range(3):
        state = GameState.deal(seed(50 + g), 1)
        driver = [make_bot("easy", 0), make_bot("easy", 1)]
        for step in range(120):
            if state.result is not None:
                break
            seat = state.turn
            if step % 7 == 0:
                twin = _shuffle_hidden(state, seat, rng)
                assert twin.digest() != state.digest() or not state.stock
                v1, v2 = view(state, seat), view(twin, seat)
                assert v1 == v2
                m1 = fixed_bot(level, 42).choose(v1)
                m2 = fixed_bot(level, 42).choose(v2)
                assert m1 == m2
            state.apply(driver[seat].choose(view(state, seat)))


def test_unseen_ranks_counts_only_what_the_view_hides() -> None:
    state = GameState.deal(seed(9), 1)
    v = view(state, 0)
    pool = unseen_ranks(v)
    hidden = [*state.hands[1], *state.stock, *state.payoff[0][:-1], *state.payoff[1][:-1]]
    assert sorted(pool) == sorted(c % 13 for c in hidden)


# -- clear positions ----------------------------------------------------------


def play_turn(bot: Bot, state: GameState) -> list[Move]:
    """Let ``bot`` play until its turn ends (or the game does); the moves made."""
    seat = state.turn
    moves = []
    while state.result is None and state.turn == seat:
        m = bot.choose(view(state, seat))
        state.apply(m)
        moves.append(m)
    return moves


def test_hard_uses_a_king_to_bridge_to_its_payoff() -> None:
    # Pay-off top 5; a center holds A 2 3 and needs a 4: the King bridges it.
    state = make_state(
        payoff=("9C 5C", "3H QS"),
        hands=("KS 9D TD JD QD", "6D 7D 8D 9H TH"),
        center=("AC 2C 3C", "", ""),
    )
    moves = play_turn(HardBot(0), state)
    assert moves[0] == Move(0, HAND, cards("KS")[0], CENTER, 0)
    assert moves[1] == Move(0, PAYOFF, None, CENTER, 0)
    assert len(state.payoff[0]) == 1


def test_hard_chains_hand_side_and_king_to_reach_its_payoff() -> None:
    # Needs 5 6 7 on the center holding A-4 before its 8: 5 in hand, 6 on a
    # side stack (under nothing), no 7 anywhere but a King in hand.
    state = make_state(
        payoff=("2C 8C", "3H QS"),
        hands=("5D KS JD QD QH", "6D 7D 8D 9H TH"),
        sides=(("6S", "", "", ""), ("", "", "", "")),
        center=("AC 2C 3C 4C", "", ""),
    )
    play_turn(HardBot(0), state)
    assert len(state.payoff[0]) == 1  # the 8 went down
    assert [rank(c) for c in state.center[0]][-1] == 8


def test_hard_prefers_a_natural_card_to_a_king() -> None:
    # 4 and a King in hand, the center needs a 4, the pay-off top is a 5.
    state = make_state(
        payoff=("9C 5C", "3H QS"),
        hands=("4D KS JD QD QH", "6D 7D 8D 9H TH"),
        center=("AC 2C 3C", "", ""),
    )
    moves = play_turn(HardBot(0), state)
    assert moves[0] == Move(0, HAND, cards("4D")[0], CENTER, 0)
    assert cards("KS")[0] in state.hands[0]


def test_hard_does_not_hand_the_opponent_its_payoff() -> None:
    # The opponent's pay-off top is a 6; a center needs a 5.  Hard cannot use
    # its 5 for itself (its pay-off top is a Queen), so it keeps it.
    state = make_state(
        payoff=("2C QC", "3H 6S"),
        hands=("5D 9D TD JD 9S", "2D 7D 8D 9H TH"),
        center=("AC 2C 3C 4C", "", ""),
    )
    play_turn(HardBot(0), state)
    assert all(len(c) != 5 for c in state.center)
    # The plain baseline does play it.
    state = make_state(
        payoff=("2C QC", "3H 6S"),
        hands=("5D 9D TD JD 9S", "2D 7D 8D 9H TH"),
        center=("AC 2C 3C 4C", "", ""),
    )
    play_turn(make_bot("easy", 0), state)
    assert any(len(c) == 5 for c in state.center)


def test_hard_plays_past_the_opponents_need() -> None:
    # Opponent needs a center at 5 for its 6.  Hard holds 5 and 6: playing both
    # lifts the center past the danger instead of leaving it at 4 (a 5 or a
    # King from the opponent would do) -- and empties more of its hand.
    state = make_state(
        payoff=("2C QC", "3H 6S"),
        hands=("5D 6D TD JD 9S", "2D 7D 8D 9H TH"),
        center=("AC 2C 3C 4C", "", ""),
    )
    play_turn(HardBot(0), state)
    assert all(len(c) != 5 for c in state.center)
    assert len(state.center[0]) >= 6


def test_hard_discards_onto_a_descending_run() -> None:
    # Nothing to play; the 8 goes on the 9 (bottom to top: 9 8 plays out 8, 9).
    state = make_state(
        payoff=("2C QC", "3H 6S"),
        hands=("8D JH JD QD QH", "2D 7D 8D 9H TH"),
        sides=(("9S", "5S", "", ""), ("", "", "", "")),
        center=("AC 2C", "AD", "AH"),
    )
    moves = play_turn(HardBot(0), state)
    assert moves == [Move(0, HAND, cards("8D")[0], SIDE, 0)]


def test_hard_keeps_its_kings() -> None:
    state = make_state(
        payoff=("2C QC", "3H 6S"),
        hands=("KD KH 9D 4S 7S", "2D 7D 8D 9H TH"),
        sides=(("TS", "", "", ""), ("", "", "", "")),
        center=("AC 2C", "AD", ""),
    )
    play_turn(HardBot(0), state)
    assert cards("KD KH")[0] in state.hands[0] and cards("KD KH")[1] in state.hands[0]


# -- strength (small, safe margins; scripts/bench_bots measures properly) --------


@pytest.mark.slow
def test_hard_never_loses_to_random() -> None:
    for i in range(12):
        for hard_seat in (0, 1):
            bots = [make_bot("random", i), make_bot("random", i)]
            bots[hard_seat] = make_bot("hard", i)
            state = play_game(bots, seed(2000 + i), check=False)
            assert state.result is not None
            assert state.result.winner in (None, hard_seat)


@pytest.mark.slow
def test_hard_beats_easy() -> None:
    wins = losses = 0
    for i in range(10):
        for hard_seat in (0, 1):
            bots = [make_bot("easy", i), make_bot("easy", i)]
            bots[hard_seat] = make_bot("hard", i)
            state = play_game(bots, seed(3000 + i), check=False)
            assert state.result is not None
            if state.result.winner == hard_seat:
                wins += 1
            elif state.result.winner is not None:
                losses += 1
    # bench: about 99% of decided games; here at least 80% of ~10-15.
    assert wins >= 6
    assert wins >= 4 * losses


def test_a_cached_plan_is_rechecked_against_the_new_view() -> None:
    # A view where hard plans several plays, then a view from another game:
    # the stale plan must not leak into it.
    state = make_state(
        payoff=("2C 8C", "3H QS"),
        hands=("5D KS JD QD QH", "6D 7D 8D 9H TH"),
        sides=(("6S", "", "", ""), ("", "", "", "")),
        center=("AC 2C 3C 4C", "", ""),
    )
    bot = HardBot(0)
    first = bot.choose(view(state, 0))
    assert first.target == CENTER
    other = GameState.deal(seed(77), 1)
    v = view(other, other.turn)
    assert bot.choose(v) in other.legal_moves()


def test_bench_script_runs(tmp_path: Path) -> None:
    import subprocess

    script = Path(__file__).resolve().parents[2] / "scripts" / "bench_bots"

    def bench(*args: str) -> str:
        return subprocess.run(
            [sys.executable, str(script), *args], capture_output=True, text=True, timeout=60, check=True
        ).stdout

    games = tmp_path / "games.jsonl"
    out = bench("hard", "random", "-n", "2", "--jobs", "1", "--games-out", str(games))
    assert "win rate" in out and "95% CI" in out and "p99" in out and "draw rate" in out
    # Two chunks (seed bases) pooled from their --games-out lines: the same figures
    # as one run would print for those 4 games, A's think time over all its turns.
    bench("hard", "random", "-n", "2", "--jobs", "1", "--seed-base", "2", "--games-out", str(games))
    pooled = bench("--pool", str(games))
    assert "4 games pooled" in pooled and "seeds 1, 2" in pooled and "95% CI" in pooled
    turns = sum(len(json.loads(line)["think_a_ms"]) for line in games.read_text().splitlines())
    assert f"({turns} turns)" in pooled


def test_hard_learns_that_random_does_not_take_its_chances() -> None:
    # It watches, from its views only, whether the opponent plays its pay-off
    # card when its own estimate says it could; random rarely does.
    bot = HardBot(1)
    state = play_game([bot, make_bot("random", 2)], seed(4000), check=False)
    assert state.result is not None
    assert bot.opponent_skill < 0.5
    fresh = HardBot(1)
    assert fresh.opponent_skill == 1.0


def test_levels_below_expert_play_as_recorded() -> None:
    """random, easy, medium and hard make exactly the moves they made when this
    digest was recorded (speed work on the engine and the planner must not change
    their play; a deliberate change of a level updates the digest)."""
    pairings = [
        ("hard", "medium"),
        ("medium", "hard"),
        ("hard", "easy"),
        ("easy", "random"),
        ("hard", "hard"),
        ("random", "medium"),
    ]
    h = hashlib.sha256()
    for i, (a, b) in enumerate(pairings):
        state = GameState.deal(hashlib.sha256(f"pinned levels {i}".encode()).digest(), 1)
        bots = [make_bot(a, 10 + i), make_bot(b, 20 + i)]
        while state.result is None and state.ply < 600:
            m = bots[state.turn].choose(view(state, state.turn))
            state.apply(m)
            h.update(repr(tuple(m)).encode())
        h.update(state.digest())
    assert h.hexdigest() == "a036810cef9107efb98b1ee775b8219a3343fc8215060e1c2f4e43d53e509e4e"


# -- expert --------------------------------------------------------------------


def test_sampled_worlds_agree_with_the_view_and_vary_only_hidden_cards() -> None:
    state = GameState.deal(seed(90), 1)
    driver = [make_bot("easy", 0), make_bot("easy", 1)]
    rng = random.Random(3)
    checked = 0
    while state.result is None and state.ply < 150:
        seat = state.turn
        if state.ply % 9 == 0:
            v = view(state, seat)
            worlds = [sample_world(v, rng) for _ in range(4)]
            for w in worlds:
                assert w is not None
                assert view(w, seat) == v  # the same to this seat
                piles = [*w.payoff, *w.hands, *w.sides[0], *w.sides[1], *w.center, w.stock]
                assert sorted(c for pile in piles for c in pile) == list(range(104))
                assert w.legal_moves() == state.legal_moves()
            hidden = {tuple(w.hands[1 - seat]) + tuple(w.stock) for w in worlds if w is not None}
            assert len(hidden) > 1 or not state.stock  # the hidden cards are really sampled
            checked += 1
        state.apply(driver[seat].choose(view(state, seat)))
    assert checked >= 5


def test_world_policies_finish_the_turn() -> None:
    """The playouts' policies (the planner's and the greedy one) end the seat's
    turn in a sampled world, with legal moves only (apply raises on others)."""
    state = GameState.deal(seed(93), 1)
    driver = [make_bot("hard", 0), make_bot("hard", 1)]
    rng = random.Random(4)
    weights = dataclasses.replace(MEDIUM, node_limit=200)
    checked = 0
    while state.result is None and state.ply < 200:
        seat = state.turn
        v = view(state, seat)
        world = sample_world(v, rng)
        assert world is not None
        for finish in (plan_turn, greedy_turn):
            w = world.copy()
            if finish is plan_turn:
                plan_turn(w, seat, weights, rng)
            else:
                greedy_turn(w, seat)
            assert w.result is not None or w.turn != seat
        w = world.copy()
        greedy_turn(w, seat, guard=True)
        assert w.result is not None or w.turn != seat
        checked += 1
        state.apply(driver[seat].choose(v))
    assert checked >= 20


def test_the_guarded_greedy_reply_covers_our_top_and_does_not_feed_it() -> None:
    """``greedy_turn(guard=True)`` (expert's ``reply="block"``): the seat covers a
    center that takes the other seat's pay-off top (a King if it must) and plays
    no card that leaves a center taking it; unguarded it does the opposite."""

    def lens_after(guard: bool) -> list[int]:
        # Seat 0's top is a 4: the center of three cards takes it.  Seat 1 (to move)
        # cannot reach its Queen; it holds a King and a 3 that fits the center of two.
        state = make_state(
            payoff=("9D 4S", "7H QH"),
            hands=("AS 5S 6S 7S 8S", "KD 3D 8C 9C JC"),
            center=("AH 2H", "AC 2C 3C", ""),
            turn=1,
        )
        greedy_turn(state, 1, guard=guard)
        assert state.turn == 0
        return [len(c) for c in state.center]

    assert lens_after(True) == [2, 4, 0]  # the King covers the 3; the 3 stays in hand
    assert lens_after(False) == [3, 3, 0]  # the 3 goes on the two: a second center takes the 4


@pytest.mark.parametrize("config", [EXPERT_FIXED, dataclasses.replace(EXPERT_FIXED, leaf=0.0)])
def test_plain_discards_share_one_playout_with_the_same_scores(config: ExpertConfig) -> None:
    """expert scores all plain discards of a world from one reply: for every
    discard, exactly the score of its own playout (the reply does not depend on
    which card went on which stack; only our next turn's prospects do), whether
    those are valued by hard's search of the turn (``leaf``) or by reach tests."""
    state = GameState.deal(seed(94), 1)
    driver = [make_bot("hard", 0), make_bot("hard", 1)]
    bot = ExpertBot(2, config)
    rng = random.Random(5)
    checked = differ = 0
    while state.result is None and state.ply < 400:
        seat = state.turn
        v = view(state, seat)
        discards = [m for m in state.legal_moves() if m.source == HAND and m.target == SIDE]
        world = sample_world(v, rng)
        assert world is not None
        shares = rank_shares(v)
        leaf = config.leaf > 0
        alone = [bot._play_out(world.copy(), seat, (m,), shares, leaf) for m in discards]
        assert bot._discard_outs(world.copy(), seat, discards, shares, leaf) == alone
        checked += 1
        differ += len(set(alone)) > 1
        state.apply(driver[seat].choose(v))
    assert checked >= 50 and differ >= 5  # and the discards' scores do differ


def test_climbs_agree_with_the_planners_reach_test() -> None:
    """expert's climbs (the cards a climb leaves; every rank one center can be
    lifted to) are the planner's greedy reach test, on random hands and stacks."""
    rng = random.Random(11)
    climbed = 0
    for _ in range(3000):
        hand = [0] * 13
        for r in rng.choices(range(13), k=rng.randint(0, 6)):
            hand[r] += 1
        stacks = [tuple(rng.choices(range(13), k=rng.randint(0, 4))) for _ in range(4)]
        n = rng.randrange(12)
        reach = _reach_set(n, hand, stacks)
        for target in range(12):
            can = _can_reach(n, target, hand, stacks)
            assert bool(reach >> target & 1) == can, (n, target, hand, stacks)
            got = _climb(n, target, hand, stacks)
            assert (got is not None) == can
            if got is not None and target != n:
                h, left = got
                used = sum(hand) - sum(h) + sum(map(len, stacks)) - sum(left)
                assert used == (target - n) % 12  # one card per step, none lost
                climbed += 1
    assert climbed > 1000


# -- what a racer's kept cards tell (expert's ``infer``) ----------------------


def test_turn_end_rule_reads_the_centers_the_opponents_turn_left() -> None:
    # Seat 1's top is a 7 (it needs a center of six cards); the centers hold 5, 0 and 2.
    state = make_state(
        payoff=("9D 4C", "2H 7S"),
        center=("AH 2H 3H 4H 5H", "", "AS 2S"),
        turn=0,
    )
    state.ply = 9  # the opponent has had a turn
    assert turn_end_rule(view(state, 0)) == (0, 2, 5)
    state.ply = 0  # the game's first turn: nothing to tell
    assert turn_end_rule(view(state, 0)) == ()
    # Its side stacks alone climb from five to its 7 (a 6 on top): it did not race.
    raced = make_state(
        payoff=("9D 4C", "2H 7S"),
        sides=(("", "", "", ""), ("6D", "", "", "")),
        center=("AH 2H 3H 4H 5H", "", "AS 2S"),
    )
    raced.ply = 9
    assert turn_end_rule(view(raced, 0)) == ()


def test_expert_reads_the_rule_only_at_a_turn_it_saw_begin() -> None:
    # A fresh bot (a hint, a resumed match) may be asked in the middle of a turn,
    # when the centers are no longer as the opponent left them.
    state = GameState.deal(seed(95), 1)
    expert = ExpertBot(1, EXPERT_FIXED)
    bots = [expert, make_bot("hard", 2)]
    # (the rule read by the bot, the rule of its view) at each of its turns
    starts: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    mover = -1  # the seat that made the last move
    while state.result is None and len(starts) < 6:
        seat = state.turn
        v = view(state, seat)
        state.apply(bots[seat].choose(v))
        if seat == 0 and mover != 0:  # the first move of its turn
            starts.append((expert._avoid, turn_end_rule(v)))
        mover = seat
    assert starts[0][0] == ()  # its first view: it did not see the turn begin
    assert all(got == want for got, want in starts[1:])
    assert any(want for _, want in starts[1:])


def test_kept_cards_that_could_not_race_shape_the_worlds_and_the_threat() -> None:
    # The opponent (seat 1) needs a 6 (or a King) on the center of five to play its 7.
    state = make_state(
        payoff=("9D 4C", "2H 7S"),
        hands=("AC 2C 3C 4D JS", "6D 7D 8D 9H TH"),
        center=("AH 2H 3H 4H 5H", "", ""),
    )
    state.ply = 9
    v = view(state, 0)
    avoid = turn_end_rule(v)
    assert avoid == (0, 5)
    rng = random.Random(5)
    worlds = [sample_world(v, rng, avoid) for _ in range(50)]
    for w in worlds:
        assert w is not None and view(w, 0) == v
        assert not any(c % 13 in (5, 12) for c in w.hands[1])  # no 6, no King kept
    plain = [sample_world(v, rng) for _ in range(50)]
    assert any(any(c % 13 in (5, 12) for c in w.hands[1]) for w in plain if w is not None)
    # The threat: with all five of its cards kept, a center of five never serves it.
    masks = _opponent_masks(v, 40, random.Random(6), avoid)
    assert not any(m >> 5 & 1 for m in masks)
    assert any(m >> 5 & 1 for m in _opponent_masks(v, 40, random.Random(6)))


def test_expert_values_reaching_the_card_under_its_payoff_top() -> None:
    """With the reach tests (``leaf=0``), of two discards that both leave the
    pay-off top reachable, the one whose climb leaves more ranks in reach scores
    higher."""
    bot = ExpertBot(1, dataclasses.replace(EXPERT_FIXED, leaf=0.0))
    shares = [(r, 1 / 13) for r in range(13)]
    centers = [[0] * 2, [], []]  # a center of two cards takes a 3
    pile = cards("9D 4C")  # ... and then our pay-off 4 (top last)
    stacks: list[tuple[int, ...]] = [(), (), (), ()]
    three, five, nine = 2, 4, 8  # rank indexes
    hand = [0] * 13
    hand[three] = 1
    with_five, with_nine = hand[:], hand[:]
    with_five[five] = 1
    with_nine[nine] = 1
    keep_five = bot._next_turn(pile, with_five, stacks, centers, shares)
    keep_nine = bot._next_turn(pile, with_nine, stacks, centers, shares)
    # 3 then the 4 lift a center to four cards; a 5 kept lifts it to five: one more rank
    assert keep_five > keep_nine > 0
    hand_without_three = [0] * 13
    assert bot._next_turn(pile, hand_without_three, stacks, centers, shares) == 0.0


def test_expert_values_its_next_turn_with_hards_search() -> None:
    """``leaf``: our next turn in a world is worth ``leaf`` times hard's best plan
    for it: more when the pay-off top can be reached, more still when the card
    that climbs to it is on a side stack rather than needed for the hand."""
    bot = ExpertBot(1, EXPERT_FIXED)

    def worth(hand: str, sides: tuple[str, str, str, str] = ("", "", "", "")) -> float:
        # our pay-off top is a 4; a center of two cards takes a 3
        state = make_state(
            payoff=("9D 4C", "7H QH"),
            hands=(hand, "6D 7D 8D 9H TH"),
            sides=(sides, ("", "", "", "")),
            center=("AH 2H", "", ""),
        )
        return bot._leaf_value(state, 0)

    blocked = worth("9S 9C JS JC 8S")
    reach = worth("3S 9C JS JC 8S")
    assert reach > blocked + 0.5 * EXPERT_FIXED.leaf * 100  # about a pay-off card more
    assert worth("9S 9C JS JC 8S", ("3S", "", "", "")) > blocked


def test_expert_turns_to_reach_tests_late_in_a_long_turn() -> None:
    """With its clock, ``expert`` values the next turn with hard's search only while
    the turn has spent less than ``leaf_until``; then with the cheap reach tests."""
    state = GameState.deal(seed(95), 1)
    v = view(state, state.turn)
    bot = ExpertBot(3, EXPERT, clock=lambda: 0.0)  # a clock that never moves: every world
    bot._think(v)
    assert bot.last_worlds == EXPERT.worlds and bot.last_leaf
    bot._spent = EXPERT.leaf_until  # as if the turn's earlier moves had taken this long
    bot._think(v)
    assert bot.last_worlds == EXPERT.worlds and not bot.last_leaf
    fixed = ExpertBot(3, EXPERT_FIXED)
    fixed._spent = 1.0
    fixed._think(v)
    assert fixed.last_worlds == EXPERT.worlds and fixed.last_leaf  # no clock: always the search


class _SlowLeafExpert(ExpertBot):
    """expert on a clock that moves only when it values our next turn in a world:
    hard's search of it (the ``leaf``) takes ``cost`` seconds, the reach tests a
    tenth of that."""

    def __init__(self, config: ExpertConfig, cost: float) -> None:
        self.now = 0.0
        super().__init__(3, config, clock=lambda: self.now)
        self.cost = cost

    def _leaf_value(self, state: GameState, me: int) -> float:
        self.now += self.cost
        return super()._leaf_value(state, me)

    def _next_turn(
        self,
        pile: list[int],
        hand: list[int],
        stacks: list[tuple[int, ...]],
        centers: list[list[int]],
        shares: list[tuple[int, float]],
    ) -> float:
        self.now += self.cost / 10
        return super()._next_turn(pile, hand, stacks, centers, shares)


def test_expert_falls_back_to_reach_tests_rather_than_cut_its_worlds() -> None:
    """When hard's search in every world would take the decision past the turn's
    budget, expert values the first worlds with it and the rest with the cheap
    reach tests: every world is played, none cut by the clock."""
    state = GameState.deal(seed(95), 1)
    v = view(state, state.turn)
    roomy = _SlowLeafExpert(EXPERT, 0.0001)  # 16 worlds of searches fit in the budget
    roomy._think(v)
    assert roomy.last_worlds == roomy.last_leaf_worlds == EXPERT.worlds
    slow = _SlowLeafExpert(EXPERT, 0.01)  # 16 worlds of searches: 0.32 s or more
    slow._think(v)
    assert slow.last_worlds == EXPERT.worlds and slow.cut_short == 0
    assert 0 < slow.last_leaf_worlds < EXPERT.worlds
    assert slow.now <= EXPERT.turn_budget  # type: ignore[operator]


def test_expert_without_a_clock_is_deterministic() -> None:
    def moves(bot_seed: int) -> list[Move]:
        state = GameState.deal(seed(91), 1)
        bots = [ExpertBot(bot_seed, EXPERT_FIXED), make_bot("hard", 5)]
        out = []
        while state.result is None and state.ply < 120:
            m = bots[state.turn].choose(view(state, state.turn))
            if state.turn == 0:
                out.append(m)
            state.apply(m)
        return out

    first = moves(7)
    assert first == moves(7)
    assert len(first) > 10


def test_expert_keeps_to_its_thinking_budget() -> None:
    state = GameState.deal(seed(92), 1)
    v = view(state, state.turn)
    no_time = ExpertBot(1, dataclasses.replace(EXPERT, turn_budget=0.0))
    m = no_time.choose(v)
    assert no_time.last_worlds == 0  # no time: hard's own best plan, no world sampled
    assert m == HardBot(1).choose(v)
    fixed = ExpertBot(1, EXPERT_FIXED)
    fixed.choose(v)
    assert fixed.last_worlds in (0, EXPERT_FIXED.worlds)  # 0: a single candidate


def test_expert_plays_its_last_payoff_card() -> None:
    state = make_state(
        payoff=("9C", "3H QS"),
        hands=("5D KS JD QD QH", "6D 7D 8D 9H TH"),
        sides=(("", "", "", ""), ("", "", "", "")),
        center=("AC 2C 3C 4C 5C 6C 7C 8C", "", ""),
    )
    bot = ExpertBot(0, EXPERT_FIXED)
    while state.result is None and state.turn == 0:
        state.apply(bot.choose(view(state, 0)))
    assert state.result is not None and state.result.winner == 0


class _CountingExpert(ExpertBot):
    """expert, counting its decisions (``_think``) and moves per turn."""

    def __init__(self, seed: int, config: ExpertConfig) -> None:
        super().__init__(seed, config)
        self.turns: list[list[int]] = []  # per turn: [moves, decisions]
        self._new_turn = True

    def choose(self, view: PlayerView) -> Move:
        if self._new_turn:
            self.turns.append([0, 0])
        move = super().choose(view)
        self.turns[-1][0] += 1
        self._new_turn = move.target != CENTER
        return move

    def _think(self, view: PlayerView) -> Move:
        self.turns[-1][1] += 1
        return super()._think(view)


@pytest.mark.parametrize(
    ("rethink", "budget"),
    [(True, None), (True, 60.0), (False, None), (True, 0.0)],
    ids=["rethink", "time-left", "plan", "no-time"],
)
def test_expert_decides_again_before_every_move_while_its_turn_has_time(
    rethink: bool, budget: float | None
) -> None:
    """With ``rethink`` (the default) expert compares plans before each move of a
    turn; without it, or once the turn's time is spent, it follows the plan it
    made up to the next chance event."""
    config = dataclasses.replace(EXPERT, rethink=rethink, turn_budget=budget, worlds=4)
    bot = _CountingExpert(3, config)
    state = GameState.deal(seed(94), 1)
    hard = make_bot("hard", 4)
    while state.result is None and state.ply < 300:
        seat = state.turn
        state.apply((bot if seat == 0 else hard).choose(view(state, seat)))
    long_turns = [t for t in bot.turns if t[0] >= 3]
    assert len(long_turns) >= 3
    if rethink and budget != 0.0:
        assert all(moves == thinks for moves, thinks in bot.turns)
    else:
        assert sum(thinks for _, thinks in long_turns) < sum(moves for moves, _ in long_turns)


def test_expert_starts_a_new_game_with_its_whole_budget_after_a_turn_without_discard() -> None:
    """A turn need not end with a discard: the game is won by a pay-off card (or
    a record is resumed).  The time it spent must not count against the first
    turn of the next game, which then would be played hurried and unsampled."""
    now = [0.0]
    ticking = [True]

    def clock() -> float:  # one second per reading while ticking; then stopped
        if ticking[0]:
            now[0] += 1.0
        return now[0]

    config = dataclasses.replace(EXPERT, turn_budget=0.15, worlds=4)
    bot = ExpertBot(5, config, clock)
    # Game 1: expert thinks (for seconds, on this clock) and plays to a center, and
    # the game ends there: its turn had no discard.
    state = GameState.deal(seed(94), 1)
    hard = make_bot("hard", 6)
    for _ in range(300):
        v = view(state, state.turn)
        if bot.choose(v).target == CENTER:
            break
        state.apply(hard.choose(v))
    else:
        pytest.fail("expert never played to a center")
    assert bot.last_worlds == 0  # its first turn's clock ran out: no world sampled
    ticking[0] = False
    # Game 2, its first decision: a fresh turn, the whole budget left.
    first = GameState.deal(seed(95), 2)
    v2 = view(first, first.turn)
    fresh = ExpertBot(5, config, clock)
    fresh.choose(v2)
    assert fresh.last_worlds == 4  # the decision compares plans in 4 worlds ...
    bot.choose(v2)
    assert bot.last_worlds == 4  # ... for the bot that played game 1 too


def test_expert_tells_the_turns_of_two_seats_apart() -> None:
    """One bot asked for both seats (each view is all it knows): the view right
    after its discard for seat 0 is seat 1's first decision, a new turn with the
    whole budget, not the rest of seat 0's spent turn."""
    now = [0.0]
    ticking = [True]

    def clock() -> float:
        if ticking[0]:
            now[0] += 1.0
        return now[0]

    config = dataclasses.replace(EXPERT, turn_budget=0.15, worlds=4)
    state = GameState.deal(seed(96), 1)
    hard = make_bot("hard", 7)
    checked = 0
    while state.result is None and state.ply < 400 and checked < 3:
        v = view(state, state.turn)
        move = hard.choose(v)
        if move.target == SIDE:  # a discard: ask one bot for it, then for the next seat
            bot = ExpertBot(5, config, clock)
            ticking[0] = True
            bot.choose(v)  # spends its whole budget (a second per clock reading)
            state.apply(move)
            if state.result is not None:
                break
            ticking[0] = False
            nxt = view(state, state.turn)
            fresh = ExpertBot(5, config, clock)
            fresh.choose(nxt)
            if fresh.last_worlds:  # a decision that compares plans
                bot.choose(nxt)
                assert bot.last_worlds == fresh.last_worlds == 4
                checked += 1
            continue
        state.apply(move)
    assert checked == 3


# -- the second outside opponent (tests/support/opponents/bfs_ai.py, benchmark level "bfs") ----


def test_bfs_plays_whole_games_legally_and_reproducibly() -> None:
    bfs = BfsBot
    assert "bfs" not in LEVELS and bfs.name == "bfs"
    for i, other in enumerate(("easy", "hard", "bfs")):
        opp: Bot = bfs(100 + i) if other == "bfs" else make_bot(other, 100 + i)
        bots: list[Bot] = [bfs(i), opp]
        if i % 2:
            bots.reverse()
        assert play_game(bots, seed(300 + i)).result is not None
    runs = [play_game([bfs(7), make_bot("easy", 1)], seed(310)) for _ in range(2)]
    assert runs[0].digest() == runs[1].digest()


def test_bfs_takes_the_shortest_way_to_its_payoff_card() -> None:
    # Pay-off 5: the 4 on the center of three cards is one step; A 2 3 4 on the empty one four.
    state = make_state(
        payoff=("9D 5C", "7H 8S"), hands=("AC 2C 3C 4D 9S", "6D 7D 8D 9H TH"), center=("", "AH 2H 3H", "")
    )
    moves = play_turn(BfsBot(0), state)
    assert moves[:2] == [Move(0, HAND, cards("4D")[0], CENTER, 1), Move(0, PAYOFF, None, CENTER, 1)]


def test_bfs_blocks_the_opponents_payoff_then_discards_by_its_rules() -> None:
    # The opponent's 4 fits the center of three cards: bfs covers it with a King (only
    # its block search plays Kings), then discards its 9 on the side stack whose top
    # is a 9 (the first discard rule).
    state = make_state(
        payoff=("QD JC", "7H 4S"),
        hands=("KD 9S 7C 7S 2D", "6D 7D 8D 9H TH"),
        sides=(("", "TD 9C", "", ""), ("", "", "", "")),
        center=("AH 2H 3H", "", ""),
    )
    moves = play_turn(BfsBot(0), state)
    assert moves == [Move(0, HAND, cards("KD")[0], CENTER, 0), Move(0, HAND, cards("9S")[0], SIDE, 1)]
    # Without the threat it keeps the King and discards the same way.
    state = make_state(
        payoff=("QD JC", "7H 6S"),
        hands=("KD 9S 7C 7S 2D", "6D 7D 8D 9H TH"),
        sides=(("", "TD 9C", "", ""), ("", "", "", "")),
        center=("AH 2H 3H", "", ""),
    )
    assert play_turn(BfsBot(0), state) == [Move(0, HAND, cards("9S")[0], SIDE, 1)]
