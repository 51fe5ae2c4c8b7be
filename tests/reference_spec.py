"""A second, deliberately plain implementation of SPEC sections 1-3.

Written from the SPEC text alone, sharing no code with ``p2p_spite``: the
tests play games with it and check that the project's engine and record
verifier agree with it move for move ("records written by any other correct
implementation pass too").
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any


class RefStream:
    def __init__(self, seed: bytes, game: int) -> None:
        self.key = b"p2p-spite/v1" + seed + game.to_bytes(4, "big")
        self.i = 0

    def number(self) -> int:
        digest = hashlib.sha256(self.key + self.i.to_bytes(8, "big")).digest()
        self.i += 1
        return int.from_bytes(digest[:8], "big")

    def below(self, n: int) -> int:
        limit = 2**64 - (2**64 % n)
        while True:
            x = self.number()
            if x < limit:
                return x % n

    def shuffle(self, items: list[int]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def rank_of(card: int) -> int:
    return card % 13 + 1


class RefGame:
    def __init__(self, seed: bytes, game: int) -> None:
        self.rng = RefStream(seed, game)
        deck = list(range(104))
        self.rng.shuffle(deck)
        self.payoff = {0: deck[0:20], 1: deck[20:40]}
        self.hand = {0: deck[40:45], 1: deck[45:50]}
        self.stock = deck[50:104]
        self.side: dict[int, list[list[int]]] = {0: [[], [], [], []], 1: [[], [], [], []]}
        self.center: list[list[int]] = [[], [], []]
        t0, t1 = rank_of(self.payoff[0][-1]), rank_of(self.payoff[1][-1])
        if t0 > t1:
            self.turn = 0
        elif t1 > t0:
            self.turn = 1
        else:
            self.turn = self.rng.below(2)
        self.result: dict[str, Any] | None = None
        self.draw_up(self.turn)

    def draw_up(self, seat: int) -> None:
        while len(self.hand[seat]) < 5:
            if not self.stock:
                self.result = {"winner": None, "points": 0, "reason": "stock"}
                return
            self.hand[seat].append(self.stock.pop())

    def can_play(self, card: int, stack: list[int]) -> bool:
        return rank_of(card) == 13 or rank_of(card) == len(stack) + 1

    def moves(self) -> list[list[Any]]:
        if self.result is not None:
            return []
        s = self.turn
        out: list[list[Any]] = []
        for c in range(3):
            if self.can_play(self.payoff[s][-1], self.center[c]):
                out.append([s, "payoff", None, "center", c])
            for k in range(4):
                if self.side[s][k] and self.can_play(self.side[s][k][-1], self.center[c]):
                    out.append([s, "side", k, "center", c])
            for card in self.hand[s]:
                if self.can_play(card, self.center[c]):
                    out.append([s, "hand", card, "center", c])
        for card in self.hand[s]:
            for k in range(4):
                out.append([s, "hand", card, "side", k])
        return out

    def play(self, move: list[Any]) -> None:
        assert self.result is None and move in self.moves(), move
        s, source, arg, target, index = move
        if target == "side":
            self.hand[s].remove(arg)
            self.side[s][index].append(arg)
            self.turn = 1 - s
            self.draw_up(self.turn)
            return
        if source == "hand":
            self.hand[s].remove(arg)
            card = arg
        elif source == "payoff":
            card = self.payoff[s].pop()
        else:
            card = self.side[s][arg].pop()
        self.center[index].append(card)
        if len(self.center[index]) == 12:
            self.stock.extend(self.center[index])
            self.center[index] = []
            self.rng.shuffle(self.stock)
        if source == "payoff" and not self.payoff[s]:
            self.result = {"winner": s, "points": len(self.payoff[1 - s]), "reason": "payoff"}
        elif not self.hand[s]:
            self.draw_up(s)


def play_reference_match(
    seed: bytes, target: int, max_games: int, rng: random.Random, prefer_center: float = 0.85
) -> dict[str, Any]:
    """A record of a match played on the reference implementation with a
    random player that favours center plays (so games do finish)."""
    scores = [0, 0]
    games: list[dict[str, Any]] = []
    for g in range(1, max_games + 1):
        game = RefGame(seed, g)
        moves: list[list[Any]] = []
        while game.result is None:
            legal = game.moves()
            center = [m for m in legal if m[3] == "center"]
            payoff = [m for m in center if m[1] == "payoff"]
            if payoff:
                move = payoff[0]
            elif center and rng.random() < prefer_center:
                move = rng.choice(center)
            else:
                move = rng.choice([m for m in legal if m[3] == "side"])
            game.play(move)
            moves.append(move)
            if len(moves) > 5000:
                break
        entry: dict[str, Any] = {"moves": moves}
        if game.result is not None:
            entry["result"] = game.result
            if game.result["winner"] is not None:
                scores[game.result["winner"]] += game.result["points"]
        games.append(entry)
        if max(scores) >= target or game.result is None:
            break
    return {
        "format": "p2p-spite-record",
        "version": 1,
        "seed": seed.hex(),
        "players": ["ref a", "ref b"],
        "target": target,
        "games": games,
        "scores": scores,
        "written_by": "tests/reference_spec.py",
    }


def dumps(record: dict[str, Any]) -> str:
    return json.dumps(record)
