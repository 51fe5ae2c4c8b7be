"""``p2p-spite review``: each turn judged from the seat's own view, and only from it."""

from __future__ import annotations

import dataclasses
import json
import random
import re
import time
from pathlib import Path

import pytest

from p2p_spite.bots import make_bot
from p2p_spite.bots.review import (
    BLUNDER,
    INACCURACY,
    MISTAKE,
    REVIEW_FIXED,
    accuracy_of,
    judged_part,
    mark_of,
    review_turn,
)
from p2p_spite.bots.turns import run_review, turns_of
from p2p_spite.commands.cli import main
from p2p_spite.engine import CENTER, HAND, PAYOFF, SIDE, Card, GameState, Match, Move, view
from p2p_spite.fairdeck import GameDeck
from p2p_spite.fairdeck.dealing import DeckStream
from p2p_spite.storage import record

SEED = bytes(range(32))
QUICK = dataclasses.replace(REVIEW_FIXED, worlds=16)


class _Orders(DeckStream):
    """A private deck's stream that makes up each reshuffle's order as the game needs it
    (from its own generator), keeping them for the record."""

    def __init__(self, orders: list[list[Card]], rng: random.Random) -> None:
        super().__init__(SEED, 1, orders)
        self.rng = rng

    def shuffle(self, items: list[Card]) -> None:
        if self.used >= len(self.orders):
            order = list(items)
            self.rng.shuffle(order)
            self.orders.append(order)
        super().shuffle(items)


def _private_game(deck: list[Card], orders: list[list[Card]], moves: list[Move] | None) -> Match:
    """Game 1 of a match dealt from ``deck``: ``moves`` replayed, or (None) random against
    easy, seat 0 the random one (it makes mistakes to find)."""
    match = Match(SEED, 50, ("Ann", "Bob"))
    stream = _Orders(orders, random.Random(3))
    match.use_deal(lambda: GameState.from_deck(deck, 1, stream))
    g = match.game
    if moves is not None:
        for m in moves:
            match.apply(m)
        return match
    bots = [make_bot("random", 1), make_bot("easy", 2)]
    while g.result is None and g.ply < 400:
        match.apply(bots[g.turn].choose(view(g, g.turn)))
    return match


def _save(match: Match, deck: list[Card], orders: list[list[Card]], path: Path) -> Path:
    data = record.to_json(match, {"match_id": "ab" * 16}, private=[GameDeck(deck, orders)])
    path.write_text(json.dumps(data))
    return path


def _seen_by(seat: int, moves: list[Move], deck: list[Card], orders: list[list[Card]]) -> set[Card]:
    """Every card ``seat`` saw in the game: replayed, each view's cards."""
    again = _private_game(deck, [list(o) for o in orders], [])
    g = again.game
    seen: set[Card] = set()
    for m in [*moves, None]:
        v = view(g, seat)
        seen.update(v.hand)
        seen.update(c for c in v.payoff_tops if c is not None)
        seen.update(c for sd in v.sides for st in sd for c in st)
        seen.update(c for st in v.center for c in st)
        if m is not None:
            seen.add(g.card_of(m))
            again.apply(m)
    return seen


def test_two_records_that_differ_only_in_hidden_cards_get_the_same_marks(tmp_path: Path) -> None:
    """A private-deck record holds its deal: the same game dealt with two cards that seat 0
    never saw changed over (in the opponent's hand, the stock or under a pay-off top) is
    another valid record, with the same moves, and the review of seat 0 must not change."""
    deck = list(range(104))
    random.Random(5).shuffle(deck)
    orders: list[list[Card]] = []
    match = _private_game(deck, orders, None)
    moves = list(match.moves[0])
    seen = _seen_by(0, moves, deck, orders)
    hidden = sorted(set(range(104)) - seen)
    # two hidden cards of different ranks, one of them where the opponent can use it
    a = next(c for c in hidden if c in deck[20:40] or c in deck[45:50])
    b = next(c for c in hidden if c % 13 != a % 13 and c != a)
    swap = {a: b, b: a}
    deck2 = [swap.get(c, c) for c in deck]
    orders2 = [[swap.get(c, c) for c in o] for o in orders]
    assert deck2 != deck
    one = _save(match, deck, orders, tmp_path / "one.json")
    two = _save(
        _private_game(deck2, [list(o) for o in orders2], moves), deck2, orders2, tmp_path / "two.json"
    )
    assert (
        json.loads(one.read_text())["games"][0]["moves"] == json.loads(two.read_text())["games"][0]["moves"]
    )
    assert record.load(one).games[0].deck != record.load(two).games[0].deck
    turns = [turns_of(record.load(p), 0)[:12] for p in (one, two)]
    assert len(turns[0]) == 12
    judged = [run_review(t, QUICK) for t in turns]
    marks = [[j.review.mark for j in js] for js in judged]
    assert marks[0] == marks[1]
    assert [j.review for j in judged[0]] == [j.review for j in judged[1]]  # win chances, best turns too
    assert any(m is not None for m in marks[0])  # (random's turns: there are marks to compare)


def test_the_marks_are_lichess_thresholds_on_win_chance() -> None:
    assert mark_of(0.0) is None and mark_of(0.049) is None
    assert mark_of(0.05) == INACCURACY and mark_of(0.099) == INACCURACY
    assert mark_of(0.10) == MISTAKE and mark_of(0.149) == MISTAKE
    assert mark_of(0.15) == BLUNDER and mark_of(1.0) == BLUNDER
    assert accuracy_of(0.0) == 100.0
    # lichess: 103.1668100711649 * exp(-0.04354415386753951 * drop) - 3.166924740191411, + 1
    assert accuracy_of(0.10) == pytest.approx(64.58, abs=0.01)
    assert accuracy_of(1.0) == 0.0


def test_a_turn_is_judged_up_to_its_first_new_card() -> None:
    g = Match(SEED, 50, ("a", "b")).game
    v = view(g, g.turn)
    seat = v.seat
    h = list(v.hand)
    side = Move(seat, HAND, h[0], SIDE, 0)
    assert judged_part(v, [side]) == 1
    plays = [Move(seat, HAND, c, CENTER, 0) for c in h]  # (not legal: judged_part counts only)
    assert judged_part(v, plays) == len(h)  # the hand emptied at the last: refilled after it
    assert judged_part(v, [*plays[:2], Move(seat, PAYOFF, None, CENTER, 1), side]) == 3


def test_expert_against_itself_loses_nothing() -> None:
    """The turn expert would play, played, is its own best: no loss, no mark."""
    from p2p_spite.bots.review import _expert, _turn

    match = Match(SEED, 50, ("a", "b"))
    g = match.game
    bots = [make_bot("easy", 1), make_bot("easy", 2)]
    for _ in range(12):  # a position some moves in
        match.apply(bots[g.turn].choose(view(g, g.turn)))
    v = view(g, g.turn)
    best, _cards = _turn(v, _expert(QUICK, time.perf_counter).choose, random.Random(0))
    r = review_turn(v, best, QUICK)
    assert r.same and r.loss == 0.0 and r.mark is None and r.worlds == QUICK.worlds


def test_review_json_has_one_object_per_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert main(["review"]) == 2  # no record saved yet
    assert "no record to review in" in capsys.readouterr().err
    match = Match(SEED, 50, ("Ann", "Bob"))
    from p2p_spite.bots.selfplay import play_match

    play_match(match, [make_bot("random", 1), make_bot("easy", 2)], max_games=1)
    path = record.save(match, tmp_path / "m.json")
    assert main(["review", str(path), "--name", "Bob", "--json", "--seconds", "0.05"]) == 0
    data = json.loads(capsys.readouterr().out)
    turns = data["turns"]
    assert data["seat"] == 1 and turns and all(t["seat"] == 1 and t["game"] == 1 for t in turns)
    assert [t["turn"] for t in turns] == sorted({t["turn"] for t in turns})
    for t in turns:
        assert set(t) >= {"seat", "game", "turn", "played", "best", "win_best", "win_played", "mark"}
        assert 0 <= t["win_best"] <= 1 and 0 <= t["win_played"] <= 1
        assert t["mark"] in (None, INACCURACY, MISTAKE, BLUNDER)
        assert t["played"] and all(isinstance(m, str) and " " in m for m in t["played"])
        assert t["played"][-1].split()[1].startswith(("s", "c"))
    notation = re.compile(r"^((10|[2-9atjqk])[cdhs]|p|s[1-4]) (c[1-3]|s[1-4])$")
    assert all(notation.match(m) for t in turns for m in [*t["played"], *t["best"]])
    assert data["match"]["turns"] == len(turns)
    # text: a summary per game and for the match
    assert main(["review", str(path), "--seat", "0", "--seconds", "0.05"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Review of Ann (seat 0) in ")
    assert out[-2].startswith("Game 1: ") and out[-1].startswith("Match: ") and "accuracy" in out[-1]
    assert main(["review", str(path), "--name", "Cy"]) == 2
    assert "no player Cy in" in capsys.readouterr().err
