"""Version-2 records: a private-deck match, each game replayed from the deck
order and reshuffles its end-of-game reveal established (docs/fairness.md)."""

from __future__ import annotations

import copy
import functools
import json
import random
from pathlib import Path
from typing import Any

import pytest

from p2p_spite.bots import make_bot
from p2p_spite.commands.cli import main
from p2p_spite.engine import CENTER, Match, Result, view
from p2p_spite.engine.state import EndReason
from p2p_spite.fairdeck import GameDeck, private_game
from p2p_spite.storage import record
from p2p_spite.storage.record import RecordError

SEED = bytes(range(32))


def private_match(games: int = 3) -> tuple[Match, list[GameDeck]]:
    """A match whose games are dealt from decks and reshuffles made up here
    (as the joint shuffle would: any order), played by two bots."""
    match = Match(SEED, 10_000, ("ann", "bob"))
    decks: list[GameDeck] = []
    rng = random.Random(5)
    bots = [make_bot("easy", 1), make_bot("easy", 2)]
    for g in range(1, games + 1):
        if g > 1:
            match.next_game()
        deck = list(range(104))
        rng.shuffle(deck)
        orders: list[list[int]] = []
        match.use_deal(functools.partial(private_game, SEED, g, deck, orders))
        state = match.game
        while state.result is None:
            move = bots[state.turn].choose(view(state, state.turn))
            if move.target == CENTER and len(state.center[move.slot]) == 11:
                order = [*state.stock, *state.center[move.slot], state.card_of(move)]
                rng.shuffle(order)
                orders.append(order)
            match.apply(move)
        decks.append(GameDeck(deck, orders))
    return match, decks


@pytest.fixture(scope="module")
def v2() -> dict[str, Any]:
    match, decks = private_match()
    assert sum(len(d.reshuffles) for d in decks) >= 2
    data = record.to_json(match, private=decks)
    return json.loads(record.dumps(data))  # type: ignore[no-any-return]


def check(data: dict[str, Any]) -> Match:
    return record.verify(record.from_json(copy.deepcopy(data)))


def test_a_private_record_replays_move_for_move(v2: dict[str, Any], tmp_path: Path) -> None:
    assert v2["version"] == 2 and v2["private"] is True
    match = check(v2)
    assert match.scores == v2["scores"] and match.total_moves == sum(len(g["moves"]) for g in v2["games"])
    path = tmp_path / "private.json"
    path.write_text(record.dumps(v2))
    assert main(["replay", "--check", str(path)]) == 0
    fresh = match.fresh_game(2)  # the deal as it was, from the record's deck
    assert [*fresh.payoff[0], *fresh.payoff[1]] == v2["games"][1]["deck"][:40]


def test_seeded_records_stay_version_1() -> None:
    match = Match(SEED)
    assert record.to_json(match)["version"] == 1
    data = record.to_json(match)
    data["games"][0]["deck"] = list(range(104))  # an unknown key in version 1: ignored
    assert record.verify(record.from_json(data)).game.payoff[0] == Match(SEED).game.payoff[0]


def test_a_swapped_card_in_the_deck_is_caught(v2: dict[str, Any]) -> None:
    data = copy.deepcopy(v2)
    deck = data["games"][0]["deck"]
    deck[40], deck[60] = deck[60], deck[40]  # a card of seat 0's hand with one of the stock
    with pytest.raises(RecordError, match="game 1"):
        check(data)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda g: g["reshuffles"].pop(), "no order given for reshuffle"),
        (lambda g: g["reshuffles"].append(list(range(10))), "gives .* reshuffles, the game made"),
        (lambda g: g["reshuffles"][0].__setitem__(0, g["reshuffles"][0][1]), "not an order of the cards"),
        (lambda g: g["deck"].__setitem__(0, g["deck"][1]), "each card id 0..103 exactly once"),
        (lambda g: g["deck"].append(5), "each card id 0..103 exactly once"),
        (lambda g: g["deck"].__setitem__(3, True), "card ids 0..103"),
        (lambda g: g.__setitem__("reshuffles", {}), "reshuffles must be an array"),
        (lambda g: g.pop("deck"), "reshuffles without a deck"),
        (lambda g: (g.pop("deck"), g.pop("reshuffles")), "a finished private-deck game must give its deck"),
    ],
)
def test_a_tampered_private_game_is_refused(v2: dict[str, Any], change: Any, message: str) -> None:
    data = copy.deepcopy(v2)
    game = next(g for g in data["games"] if g["reshuffles"])
    change(game)
    with pytest.raises(RecordError, match=message):
        check(data)


def test_the_last_game_may_still_be_played_without_its_deck(v2: dict[str, Any]) -> None:
    data = copy.deepcopy(v2)
    last = data["games"][-1]
    del last["deck"], last["reshuffles"], last["result"]
    last["moves"] = last["moves"][:10]
    data.pop("scores")
    match = check(data)
    assert match.game_number == len(data["games"]) - 1  # checked up to the game before it


def test_version_2_needs_the_private_flag(v2: dict[str, Any]) -> None:
    data = copy.deepcopy(v2)
    data["private"] = "yes"
    with pytest.raises(RecordError, match='"private": true'):
        check(data)


def test_undo_in_a_private_game_deals_from_its_deck() -> None:
    deck = list(range(103, -1, -1))
    match = Match(SEED)
    match.use_deal(lambda: private_game(SEED, 1, deck, []))
    bots = [make_bot("easy", 1), make_bot("easy", 2)]
    for _ in range(6):
        match.apply(bots[match.game.turn].choose(view(match.game, match.game.turn)))
    before = match.game.digest()
    match.apply(bots[match.game.turn].choose(view(match.game, match.game.turn)))
    match.undo()
    assert match.game.digest() == before
    assert match.game.payoff[0] == deck[0:20][: len(match.game.payoff[0])]
    with pytest.raises(Exception, match="no move yet"):
        match.use_deal(lambda: private_game(SEED, 1, deck, []))


def test_a_deck_must_be_a_permutation_of_the_104_cards() -> None:
    with pytest.raises(ValueError, match="exactly once"):
        private_game(SEED, 1, [0, *range(1, 103), 0], [])
    with pytest.raises(ValueError, match="exactly once"):
        private_game(SEED, 1, list(range(103)), [])


def test_the_replay_viewer_shows_a_private_game_from_its_deck(v2: dict[str, Any], tmp_path: Path) -> None:
    from p2p_spite.ui.replay import load_replay

    path = tmp_path / "private.json"
    path.write_text(record.dumps(v2))
    replay = load_replay(path)
    match = check(v2)
    for g, moves in enumerate(match.moves, start=1):
        replay.goto(g, len(moves))
        end = replay.state()
        assert end.digest() == match.games[g - 1].digest()  # every move, reshuffles included
        assert len(replay.move_cards()) == len(moves)


def _unrevealed(game: int) -> dict[str, Any]:
    return {
        "kind": "unrevealed",
        "seat": 1,
        "reason": f"seat 1 did not reveal its game secret, so the deck order of game {game} is not known",
        "game": game,
    }


def test_a_last_game_whose_secret_never_came_checks_with_the_result_the_record_gives(
    v2: dict[str, Any],
) -> None:
    """The last game resigned, the peer's secret never came: no deck, an ``unrevealed``
    entry, the result and the scores with it.  ``replay --check``'s verify passes, the
    match checked ends with the game before, and the record's scores must be those plus
    the result it gives; an unrevealed game before the last is an error."""
    data = copy.deepcopy(v2)
    n = len(data["games"])
    last = data["games"][-1]
    del last["deck"], last["reshuffles"]
    last["cheat"] = _unrevealed(n)
    last["moves"] = last["moves"][:10]
    last["result"] = {"winner": 0, "points": 37, "reason": "resign"}
    before = check({**data, "games": data["games"][:-1], "scores": None}).scores
    data["scores"] = [before[0] + 37, before[1]]
    match = record.verify(record.from_json(copy.deepcopy(data)), in_play=True)
    assert match.game_number == n - 1 and match.scores == before
    assert record.unchecked_result(record.from_json(data).games[-1], n) == Result(0, 37, EndReason.RESIGN)
    data["scores"] = before  # the record's scores without the result it gives
    with pytest.raises(RecordError, match=r"disagree with the replay's .* with game 3's result"):
        record.verify(record.from_json(copy.deepcopy(data)), in_play=True)
    data["scores"] = [before[0] + 37, before[1]]
    data["games"][0] = {**data["games"][0], "cheat": _unrevealed(1)}
    del data["games"][0]["deck"], data["games"][0]["reshuffles"]
    with pytest.raises(RecordError, match="cannot be checked: seat 1 did not reveal"):
        record.verify(record.from_json(copy.deepcopy(data)), in_play=True)
