"""Records (SPEC section 3): golden files, round trips, and tampered records
that must fail with a precise message."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_spite.commands.cli import main
from p2p_spite.engine import EndReason, GameState, Match, Result
from p2p_spite.engine.cards import is_king
from p2p_spite.storage import record
from p2p_spite.storage.record import RecordError

DATA = Path(__file__).parents[1] / "data"
EXPECTED: dict[str, str] = json.loads((DATA / "expected.json").read_text())


def load_json(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / name).read_text())
    return data


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_golden_records_replay_to_their_expected_outcome(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", "--check", str(DATA / name)]) == 0
    assert capsys.readouterr().out.strip() == EXPECTED[name]


def test_golden_draw_ends_on_an_empty_stock() -> None:
    m = record.verify(record.load(DATA / "draw-on-empty-stock.json"))
    g = m.games[0]
    assert g.result == Result(None, 0, EndReason.STOCK)
    assert g.stock == []


def test_golden_match_has_a_draw_and_a_king_on_an_empty_center_stack() -> None:
    m = record.verify(record.load(DATA / "match-easy-vs-easy.json"))
    assert any(g.result and g.result.reason == "stock" for g in m.games)
    kings_on_empty = 0
    for n, moves in enumerate(m.moves, 1):
        s = GameState.deal(m.seed, n)
        for mv in moves:
            if mv.target == "center" and not s.center[mv.slot]:
                card = s.card_of(mv)
                kings_on_empty += is_king(card)
            s.apply(mv)
    assert kings_on_empty >= 1


def test_reference_implementation_records_pass() -> None:
    """Written by tests/reference_spec.py, an independent implementation of SPEC."""
    m = record.verify(record.load(DATA / "reference-implementation.json"))
    assert m.scores == [27, 32] and m.winner == 1


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    m = record.verify(record.load(DATA / "resign-then-unfinished.json"))
    path = record.save(m, tmp_path / "sub" / "r.json", extra={"note": "hi"})
    again = record.load(path)
    assert again.extra == {"note": "hi"}
    assert record.verify(again).moves == m.moves
    assert not list(path.parent.glob("*.tmp"))


def test_unknown_keys_are_ignored() -> None:
    data = load_json("draw-on-empty-stock.json")
    data["chat"] = ["hello"]
    data["games"][0]["hashes"] = ["abc"]
    record.verify(record.from_json(data))


def tampered(name: str, change: Any) -> str:
    data = copy.deepcopy(load_json(name))
    change(data)
    with pytest.raises(RecordError) as e:
        record.verify(record.from_json(data))
    return str(e.value)


def set_move(g: int, i: int, value: Any) -> Any:
    def change(d: dict[str, Any]) -> None:
        d["games"][g]["moves"][i] = value

    return change


MATCH = "match-easy-vs-easy.json"


def test_an_illegal_move_is_named_with_game_move_and_reason() -> None:
    first = load_json(MATCH)["games"][0]["moves"][0]
    bad = [first[0], "hand", 103, "center", 0]
    msg = tampered(MATCH, set_move(0, 0, bad))
    assert msg.startswith("game 1, move 1: illegal move [")
    assert "is not in seat" in msg


def test_an_out_of_turn_move_is_refused() -> None:
    first = load_json(MATCH)["games"][1]["moves"][0]
    bad = [1 - first[0], *first[1:]]
    assert "game 2, move 1: illegal move" in (msg := tampered(MATCH, set_move(1, 0, bad)))
    assert "turn" in msg


@pytest.mark.parametrize("bad_seat", [True, 1.0, "1"])
def test_integers_must_be_json_integers(bad_seat: Any) -> None:
    def change(d: dict[str, Any]) -> None:
        mv = d["games"][0]["moves"][0]
        mv[0] = bad_seat if mv[0] == 1 else (False if bad_seat is True else 0.0)

    assert "game 1, move 1: illegal move" in tampered(MATCH, change)


def test_a_result_that_disagrees_is_refused() -> None:
    def change(d: dict[str, Any]) -> None:
        d["games"][0]["result"]["points"] += 1

    msg = tampered(MATCH, change)
    assert msg.startswith("game 1: the record says seat")
    assert "but the replay gives" in msg


def test_a_wrong_winner_is_refused() -> None:
    def change(d: dict[str, Any]) -> None:
        r = d["games"][0]["result"]
        r["winner"] = 1 - r["winner"]

    assert "but the replay gives" in tampered(MATCH, change)


def test_a_result_on_an_unfinished_game_is_refused() -> None:
    def change(d: dict[str, Any]) -> None:
        d["games"][0]["moves"].pop()

    assert "but the game is not over after its" in tampered(MATCH, change)


def test_a_move_after_the_game_ended_is_refused() -> None:
    def change(d: dict[str, Any]) -> None:
        moves = d["games"][0]["moves"]
        moves.append(moves[-1])

    msg = tampered(MATCH, change)
    n = len(load_json(MATCH)["games"][0]["moves"]) + 1
    assert msg.startswith(f"game 1, move {n}: a move after the game ended")


def test_a_finished_game_without_result_is_refused() -> None:
    def change(d: dict[str, Any]) -> None:
        del d["games"][0]["result"]

    assert "but the record gives no result" in tampered(MATCH, change)


def test_only_the_last_game_may_be_unfinished() -> None:
    def change(d: dict[str, Any]) -> None:
        d["games"][1]["moves"] = d["games"][1]["moves"][:3]
        del d["games"][1]["result"]

    assert (
        tampered(MATCH, change) == "game 2: only the last game may be unfinished, and this one has no result"
    )


def test_a_game_after_the_match_was_decided_is_refused() -> None:
    def change(d: dict[str, Any]) -> None:
        d["games"].append({"moves": []})

    assert tampered(MATCH, change) == "game 9: the match was already decided after game 8"


def test_scores_that_disagree_are_refused() -> None:
    def change(d: dict[str, Any]) -> None:
        d["scores"] = [1, 54]

    assert "scores [1, 54] disagree with the replay's [0, 54]" in tampered(MATCH, change)


def test_a_false_resignation_is_refused() -> None:
    def change(d: dict[str, Any]) -> None:
        d["games"][0]["result"]["reason"] = "resign"

    assert "the record says a resignation, but the game had already ended" in tampered(MATCH, change)


def test_resignation_points_are_checked() -> None:
    def change(d: dict[str, Any]) -> None:
        d["games"][1]["result"]["points"] = 3

    assert "but the replay gives" in tampered("resign-then-unfinished.json", change)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not a JSON record"),
        ("[]", "a record is a JSON object"),
        ('{"format": "other", "version": 1, "seed": "' + "00" * 32 + '"}', "format must be"),
        (
            '{"format": "p2p-spite-record", "version": 3, "seed": "' + "00" * 32 + '"}',
            "unsupported record version 3",
        ),
        (
            '{"format": "p2p-spite-record", "version": 2, "seed": "' + "00" * 32 + '"}',
            'a version 2 record is a private-deck match: "private": true',
        ),
        (
            '{"format": "p2p-spite-record", "version": true, "seed": "' + "00" * 32 + '"}',
            "unsupported record version",
        ),
        ('{"format": "p2p-spite-record", "version": 1, "seed": "00"}', "bad seed"),
        ('{"format": "p2p-spite-record", "version": 1, "seed": "' + "AB" * 32 + '"}', "bad seed"),
        ('{"format": "p2p-spite-record", "version": 1, "seed": "' + "00" * 32 + '", "target": 0}', "target"),
        ('{"format": "p2p-spite-record", "version": 1, "seed": "' + "00" * 32 + '", "games": {}}', "games"),
        (
            '{"format": "p2p-spite-record", "version": 1, "seed": "' + "00" * 32 + '", "scores": [1]}',
            "scores",
        ),
        ('{"format": "p2p-spite-record", "version": 1, "seed": "' + "00" * 32 + '", "x": NaN}', "not a JSON"),
    ],
)
def test_malformed_files_fail_with_one_line(text: str, message: str) -> None:
    with pytest.raises(RecordError) as e:
        record.verify(record.loads(text))
    assert message in str(e.value)
    assert "\n" not in str(e.value)


def test_cli_check_exit_codes_and_one_line_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    data = load_json(MATCH)
    data["games"][2]["moves"][5][2] = 555
    bad.write_text(json.dumps(data))
    for path, code in [(DATA / MATCH, 0), (bad, 1), (tmp_path / "missing.json", 1)]:
        proc = subprocess.run(
            [sys.executable, "-m", "p2p_spite", "replay", "--check", str(path)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == code, proc.stderr
        out = (proc.stdout if code == 0 else proc.stderr).strip()
        assert len(out.splitlines()) == 1, out
        assert "Traceback" not in proc.stderr


def test_cli_reports_the_tampered_move(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    data = load_json(MATCH)
    data["games"][2]["moves"][5][2] = 555
    bad.write_text(json.dumps(data))
    assert main(["replay", "--check", str(bad)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("p2p-spite: game 3, move 6: ")
    assert "there is no card 555" in err and '[1, "hand", 555, ' in err


def test_match_record_of_a_live_match_is_valid() -> None:
    m = Match(bytes(range(32)), target=5)
    m.apply(m.game.legal_moves()[-1])
    assert record.verify(record.loads(record.dumps(record.to_json(m)))).total_moves == 1


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 200) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=6) | st.dictionaries(st.text(max_size=8), children, max_size=6)
    ),
    max_leaves=40,
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.data())
def test_fuzzed_records_fail_cleanly(data: st.DataObject) -> None:
    """Random changes anywhere in a real record give a RecordError or a valid match, nothing else."""
    rec = copy.deepcopy(load_json("resign-then-unfinished.json"))
    for _ in range(data.draw(st.integers(1, 3))):
        games = rec.get("games")
        if not (isinstance(games, list) and games and all(isinstance(x, dict) for x in games)):
            break
        g = data.draw(st.integers(0, len(games) - 1))
        target = data.draw(st.sampled_from(["move", "result", "top", "game"]))
        value = data.draw(json_values)
        if target == "move" and isinstance(rec["games"][g].get("moves"), list) and rec["games"][g]["moves"]:
            i = data.draw(st.integers(0, len(rec["games"][g]["moves"]) - 1))
            move = rec["games"][g]["moves"][i]
            if data.draw(st.booleans()) and isinstance(move, list) and len(move) == 5:
                move[data.draw(st.integers(0, 4))] = value
            else:
                rec["games"][g]["moves"][i] = value
        elif target == "result":
            rec["games"][g]["result"] = value
        elif target == "game":
            rec["games"][g] = value
        else:
            rec[data.draw(st.sampled_from(["seed", "version", "target", "players", "scores", "games"]))] = (
                value
            )
    try:
        record.verify(record.loads(json.dumps(rec)))
    except RecordError as e:
        assert "\n" not in str(e)


@pytest.mark.parametrize("where", ["seat", "arg", "index", "points", "winner", "scores"])
@pytest.mark.parametrize("as_type", [float, bool])
def test_json_integers_everywhere_refuse_bools_and_floats(where: str, as_type: type) -> None:
    """The same value with another JSON type (1 -> 1.0 or true) is refused."""

    def swap(v: int) -> Any:
        return as_type(v) if as_type is float else bool(v)

    def change(d: dict[str, Any]) -> None:
        game = d["games"][0]
        result = game["result"]
        # a hand move whose values are 0 or 1, so that a bool stands for the same number
        if where in ("seat", "arg", "index"):
            pos = {"seat": 0, "arg": 2, "index": 4}[where]
            move = next(m for m in game["moves"] if m[1] in ("hand", "side") and m[pos] in (0, 1))
            move[pos] = swap(move[pos])
        elif where == "points":
            result["points"] = swap(result["points"]) if as_type is float else True
        elif where == "winner":
            result["winner"] = swap(result["winner"])
        else:
            d["scores"] = [swap(d["scores"][0]), d["scores"][1]]

    assert tampered(MATCH, change)


def test_deeply_nested_json_is_one_line() -> None:
    text = '{"format": "p2p-spite-record", "version": 1, "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(RecordError, match="nested too deeply"):
        record.loads(text)
