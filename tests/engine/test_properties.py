"""Properties of the engine over many seeds and random legal play."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p_spite.engine import GameState, IllegalMoveError, Match, Move
from p2p_spite.storage import record
from tests.reference_spec import RefGame

seeds = st.binary(min_size=32, max_size=32)
games = st.integers(min_value=1, max_value=50)
SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def all_cards(s: GameState) -> Counter[int]:
    piles = [*s.payoff, *s.hands, *s.sides[0], *s.sides[1], *s.center, s.stock]
    return Counter(c for p in piles for c in p)


def pick(rng: random.Random, moves: list[Move], center_bias: float = 0.8) -> Move:
    center = [m for m in moves if m.target == "center"]
    if center and rng.random() < center_bias:
        return rng.choice(center)
    return rng.choice(moves)


@pytest.mark.slow
@SETTINGS
@given(seeds, games, st.integers(0, 2**32))
def test_cards_are_conserved_and_every_legal_move_applies(seed: bytes, game: int, k: int) -> None:
    rng = random.Random(k)
    s = GameState.deal(seed, game)
    full = Counter(range(104))
    steps = 0
    while s.result is None and steps < 400:
        moves = s.legal_moves()
        assert moves, "a game in progress always has a legal move"
        if steps % 10 == 0:
            for m in moves:
                t = s.copy()
                t.apply(m)
                assert t.card_count() == 104
        s.apply(pick(rng, moves))
        assert all_cards(s) == full
        steps += 1


values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 106),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1, max_value=5),
    st.sampled_from(["hand", "payoff", "side", "center", "x", ""]),
)
fuzz_moves = st.one_of(
    st.tuples(
        st.sampled_from([0, 1, 2, -1, True, False, 1.0, None]),
        st.sampled_from(["hand", "payoff", "side", "center", "stock", 3]),
        values,
        st.sampled_from(["center", "side", "hand", None]),
        values,
    ).map(list),
    st.lists(values, max_size=7),
)


@SETTINGS
@given(seeds, st.integers(0, 2**32), st.lists(fuzz_moves, min_size=1, max_size=40))
def test_the_checker_agrees_with_the_generator(seed: bytes, k: int, attempts: list[list[Any]]) -> None:
    """A move is accepted exactly when legal_moves() lists it; refused moves change nothing."""
    rng = random.Random(k)
    s = GameState.deal(seed, 1)
    for attempt in attempts:
        if s.result is not None:
            break
        legal = s.legal_moves()
        # Half the time aim the fuzzed move at a card the seat really holds.
        if len(attempt) == 5 and attempt[1] == "hand" and rng.random() < 0.5:
            attempt[2] = rng.choice(s.hands[s.turn])
        is_legal = len(attempt) == 5 and any(
            all(type(a) is type(b) and a == b for a, b in zip(m, attempt, strict=True)) for m in legal
        )
        before = s.digest()
        if is_legal:
            assert s.check(attempt) is None
            s.apply(attempt)
        else:
            assert s.check(attempt) is not None
            try:
                s.apply(attempt)
            except IllegalMoveError:
                pass
            else:
                raise AssertionError(f"accepted {attempt!r}, not in {legal}")
            assert s.digest() == before
        # keep the game moving
        if s.result is None and rng.random() < 0.5:
            s.apply(pick(rng, s.legal_moves()))


@pytest.mark.slow
@SETTINGS
@given(seeds, st.integers(0, 2**32))
def test_engine_agrees_with_the_reference_implementation(seed: bytes, k: int) -> None:
    rng = random.Random(k)
    ours, ref = GameState.deal(seed, 1), RefGame(seed, 1)
    for _ in range(600):
        legal = ours.legal_moves()
        assert sorted(map(list, legal), key=repr) == sorted(ref.moves(), key=repr)
        if ours.result is not None:
            break
        m = pick(rng, legal, 0.9)
        ours.apply(m)
        ref.play(list(m))
        assert ours.hands == [ref.hand[0], ref.hand[1]]
        assert ours.stock == ref.stock
        assert ours.center == ref.center
        assert ours.turn == ref.turn
        assert (ours.result.to_json() if ours.result else None) == ref.result


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, st.integers(0, 2**32), st.integers(1, 60))
def test_replaying_a_record_reproduces_the_match(seed: bytes, k: int, target: int) -> None:
    rng = random.Random(k)
    m = Match(seed, target)
    for _ in range(4):
        g = m.game
        n = 0
        while g.result is None and n < 3000:
            m.apply(pick(rng, g.legal_moves(), 0.9))
            n += 1
        if g.result is None:
            if rng.random() < 0.5:
                m.resign(rng.randrange(2))
            else:
                break
        if m.over:
            break
        m.next_game()
    text = record.dumps(record.to_json(m))
    replayed = record.verify(record.loads(text))
    assert [g.digest() for g in replayed.games] == [g.digest() for g in m.games]
    assert replayed.scores == m.scores
    assert replayed.moves == m.moves
