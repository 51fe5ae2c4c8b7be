"""Issue 47: ``hint`` (and the review's better turn) says why in the game's words.

Each kind of reason of :func:`p2p_spite.bots.reasons.explain` on a prepared position;
the reasons come with the hint through the evaluation (``bots.review.hint_reason``) and
never depend on a hidden card; the hint's reason in Polish on the real game screen."""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Sequence

from p2p_spite.bots.reasons import Explanation, Reason, Why, explain
from p2p_spite.bots.review import REVIEW_FIXED, TurnReview, hint_reason
from p2p_spite.bots.turns import Judged, Turn
from p2p_spite.contracts import i18n
from p2p_spite.engine import CENTER, HAND, PAYOFF, SIDE, GameState, Move, PlayerView, view
from p2p_spite.engine.cards import parse_card
from p2p_spite.ui.review import mark_note, print_review, turn_lines
from p2p_spite.ui.words import hint_reason_words, reasons_words
from tests.support.positions import cards, make_state
from tests.support.ui import LocalSession, find_seed, run, running, texts, until

FIXED = dataclasses.replace(REVIEW_FIXED, worlds=12)


def c(name: str) -> int:
    return parse_card(name)


def hand(name: str, center: int) -> Move:
    return Move(0, HAND, c(name), CENTER, center)


def discard(name: str, side: int) -> Move:
    return Move(0, HAND, c(name), SIDE, side)


def why(state: GameState, turn: Sequence[Move], other: Sequence[Move] = ()) -> Explanation:
    """The reasons of ``turn`` against ``other`` from seat 0's view of ``state``."""
    v = view(state, 0)
    return explain(v, turn, [_card(v, m) for m in turn], other, [_card(v, m) for m in other])


def _card(v: PlayerView, m: Move) -> int:
    card = v.card_of(m)
    assert card is not None
    return card


def test_a_pay_off_card_played_is_the_reason() -> None:
    s = make_state(payoff=("9D AC", "4H 8S"), hands=("2C 3C 4D 6S 7S", "6D 7D 8D 9H TH"))
    got = why(s, [Move(0, PAYOFF, None, CENTER, 1)])
    assert got.good[0] == Reason(Why.PAYOFF_PLAYED, c("AC"), 1)
    assert reasons_words(got, "Bob") == "your pay-off card A♣ gets played: one card nearer the win"


def test_the_pay_off_comes_within_reach_or_closer() -> None:
    s = make_state(payoff=("9D 3D", "4H 8S"), hands=("AC 2C 7H 8H 9H", "6D 7D 8D 9H TH"))
    turn = [hand("AC", 0), hand("2C", 0), discard("9H", 0)]
    assert why(s, turn).good[0] == Reason(Why.PAYOFF_IN_REACH, c("3D"), 0)
    s = make_state(payoff=("9D 5D", "4H 8S"), hands=("AC 2C 7H 8H 9H", "6D 7D 8D 9H TH"))
    assert why(s, turn).good[0] == Reason(Why.PAYOFF_CLOSER, c("5D"), 0, gap=2)
    assert why(s, [discard("9H", 0)]).good[0].kind is not Why.PAYOFF_CLOSER  # nothing came closer


def test_a_king_completing_a_center_and_an_emptied_hand() -> None:
    s = make_state(
        payoff=("9D 5D", "4H 8S"),
        hands=("KS 2C 7H 8H 9H", "6D 7D 8D 9H TH"),
        center=("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC", "", ""),
    )
    got = why(s, [Move(0, HAND, c("KS"), CENTER, 0)])
    assert Reason(Why.CENTER_COMPLETED, c("KS"), 0) in got.good
    s = make_state(payoff=("9D 7D", "4H 8S"), hands=("AC 2C 3H 4H 5S", "6D 7D 8D 9H TH"))
    got = why(s, [hand("AC", 0), hand("2C", 0), hand("3H", 0), hand("4H", 0), hand("5S", 0)])
    assert got.good == (Reason(Why.PAYOFF_CLOSER, c("7D"), 0, gap=1), Reason(Why.HAND_EMPTIED, gap=5))


def test_a_center_closed_to_the_opponents_pay_off() -> None:
    s = make_state(
        payoff=("9D 8D", "4H 3H"), hands=("3C 7S 7H 8H 9H", "6D 7D 8D 9H TH"), center=("AC 2D", "", "")
    )
    got = why(s, [hand("3C", 0), discard("9H", 0)])
    assert Reason(Why.BLOCKS, c("3H"), 0) in got.good


def test_the_issues_example_nothing_reaches_and_the_plain_play_gives_a_3() -> None:
    """ "discard 7♦ on side stack 1: nothing fits a center that helps your pay-off 9♠;
    playing A♦ and 2♠ now would give the computer a 3"."""
    sides = (("", "9C", "", ""), ("", "", "", ""))
    s = make_state(payoff=("4D 9S", "4H 3C"), hands=("AD 2S 7D 5H QH", "6D 7D 8D 9H TH"), sides=sides)
    turn, plain = [discard("7D", 0)], [hand("AD", 0), hand("2S", 0), discard("QH", 0)]
    got = why(s, turn, plain)
    assert got.good == (Reason(Why.NOTHING_REACHES, c("9S")), Reason(Why.DISCARD_EMPTY, c("7D"), side=0))
    assert got.against == (Reason(Why.GIVES, c("3C"), 0, cards=(c("AD"), c("2S"))),)
    said = reasons_words(got, "Computer")
    assert said == (
        "nothing you hold brings a center to your pay-off 9♠ this turn; "
        "7♦ starts the empty side stack 1, keeping the runs on the others; "
        "playing A♦, 2♠ now would let Computer play the pay-off 3♣"
    )
    # a pay-off 4♠ within reach of A♦, 2♠ and a King (as the 3): "nothing reaches" is not said
    s = make_state(payoff=("4D 4S", "4H 3C"), hands=("AD 2S 7D KH QH", "6D 7D 8D 9H TH"), sides=sides)
    assert Why.NOTHING_REACHES not in {r.kind for r in why(s, turn, plain).good}


def test_a_center_kept_low_for_the_pay_off() -> None:
    s = make_state(
        payoff=("9D 7D", "8S 4H"), hands=("5C 6S 7C QH QD", "6D 7D 8D 9H TH"), center=("AC 2C 3C 4C", "", "")
    )
    got = why(s, [discard("QH", 0)], [hand("5C", 0), hand("6S", 0), hand("7C", 0), discard("QD", 0)])
    assert Reason(Why.KEEPS_LOW, c("7D"), 0) in got.good
    assert got.against == ()  # the opponent's 4♥ is not given


def test_a_discard_on_a_run_or_a_pair() -> None:
    sides = (("8C", "7S", "", ""), ("", "", "", ""))
    s = make_state(payoff=("9D KD", "4H 8S"), hands=("7D 2C 3C QH QD", "6D 7D 8D 9H TH"), sides=sides)
    assert why(s, [discard("7D", 0)]).good == (Reason(Why.DISCARD_RUN, c("7D"), side=0, other=c("8C")),)
    assert why(s, [discard("7D", 1)]).good == (Reason(Why.DISCARD_PAIR, c("7D"), side=1, other=c("7S")),)
    assert why(s, [discard("3C", 0)]).good == ()  # a 3 on an 8: no reason to give
    assert why(s, [discard("2C", 2)]).good == (Reason(Why.DISCARD_EMPTY, c("2C"), side=2),)
    s = make_state(payoff=("9D KD", "4H 8S"), hands=("7D 2C 3C QH QD", "6D 7D 8D 9H TH"))
    assert why(s, [discard("2C", 2)]).good == ()  # every side stack empty: nothing kept in order
    assert why(s, [discard("QH", 2)]).good == (Reason(Why.DISCARD_SPARE, c("QH"), side=2, other=c("QD")),)


def test_a_king_kept_against_one_spent_for_nothing() -> None:
    s = make_state(payoff=("9D 9S", "4H 8S"), hands=("KH 2C 3C QH QD", "6D 7D 8D 9H TH"))
    plain = [Move(0, HAND, c("KH"), CENTER, 0), discard("QH", 0)]
    assert Reason(Why.KEEPS_KING, c("KH")) in why(s, [discard("QH", 0)], plain).good
    s = make_state(payoff=("9D 2S", "4H 8S"), hands=("KH 2C 3C QH QD", "6D 7D 8D 9H TH"))
    # the King as the Ace brings the pay-off 2♠ within reach: it was not spent for nothing
    assert Why.KEEPS_KING not in {r.kind for r in why(s, [discard("QH", 0)], plain).good}


def test_the_hint_carries_the_reasons_of_its_evaluation() -> None:
    s = make_state(payoff=("4D 9S", "4H 3C"), hands=("AD 2S 7D 5H QH", "6D 7D 8D 9H TH"))
    v = view(s, 0)
    got = hint_reason(v, discard("7D", 0), FIXED)
    assert got.best == (discard("7D", 0),)
    assert got.why == explain(v, got.best, got.best_cards, got.plain, got.plain_cards)
    assert Reason(Why.NOTHING_REACHES, c("9S")) in got.why.good
    said = hint_reason_words(got, "Computer")
    assert said.startswith("Why: nothing you hold brings a center to your pay-off 9♠ this turn; ")
    assert f"{100 * got.win_best:.0f}%" in said


def test_the_reason_never_depends_on_a_hidden_card() -> None:
    """Two games alike in all the seat sees, unlike in the opponent's hand, the stock and
    the pay-off cards under the tops: the same reasons, the same words."""
    a = make_state(payoff=("4D 9S", "4H 3C"), hands=("AD 2S 7D 5H QH", "6D 7D 8D 9H TH"))
    b = make_state(payoff=("JC 9S", "5S 3C"), hands=("AD 2S 7D 5H QH", "2H 3H 5D 6C KC"))
    rest = [x for x in range(104) if x not in set(cards("JC 9S 5S 3C AD 2S 7D 5H QH 2H 3H 5D 6C KC"))]
    b.stock = rest[::-1]
    assert a.hands[1] != b.hands[1] and a.stock != b.stock and a.payoff[0] != b.payoff[0]
    va, vb = view(a, 0), view(b, 0)
    assert va == vb
    for first in va.legal_moves()[:: max(1, len(va.legal_moves()) // 4)]:
        ra, rb = hint_reason(va, first, FIXED), hint_reason(vb, first, FIXED)
        assert ra == rb
        assert hint_reason_words(ra, "Computer") == hint_reason_words(rb, "Computer")


def test_the_hint_says_why_in_polish_on_the_game_screen() -> None:
    """``podpowiedź`` typed on the real screen (a pipe): the hint, then its reason in Polish."""
    i18n.setup("pl")

    async def main() -> None:
        s = LocalSession(find_seed(0), names=("Ala", "Komputer"))
        async with running(s, cols=80, rows=24) as (app, inp):
            v = app.view
            assert v is not None
            discards = [m for m in v.legal_moves() if m.target == SIDE][:8]
            reasons = {m: hint_reason(v, m, FIXED) for m in discards}
            chosen = next(m for m, r in reasons.items() if r.why.good)  # a discard with a reason
            app.ctl.hint_fn = lambda view: chosen
            app.ctl.why_fn = lambda view, move: hint_reason(view, move, FIXED)
            inp.send_text("podpowiedź\r")
            await until(lambda: "Dlaczego: " in texts(app), timeout=60)
            said = " ".join(texts(app).split()).split("Dlaczego: ", 1)[1]
            first = reasons_words(reasons[chosen].why, "Komputer").split("; ")[0]
            assert said.startswith(first), (said, first)
            assert "nie doprowadzi" in first or "stos" in first or "wypłaty" in first, first

    run(main())


def _judged_turn() -> Judged:
    """Turn 3 of game 1: A♦, 2♠ played on center 1 (giving Bob's pay-off 3♣ a center)
    where a discard of 7♦ was better."""
    sides = (("", "9C", "", ""), ("", "", "", ""))
    s = make_state(payoff=("4D 9S", "4H 3C"), hands=("AD 2S 7D 5H QH", "6D 7D 8D 9H TH"), sides=sides)
    v = view(s, 0)
    played = (hand("AD", 0), hand("2S", 0), discard("QH", 0))
    best = (discard("7D", 0),)
    cards_of = tuple(_card(v, m) for m in played)
    review = TurnReview(played, cards_of, best, (c("7D"),), 0.3, 0.5, 64)
    return Judged(Turn(1, 3, v, played, cards_of), review)


def test_the_reviews_better_turn_says_why_in_the_same_words() -> None:
    j = _judged_turn()
    lines = turn_lines(j, "Bob")
    assert lines[0] == "Game 1, turn 3: blunder, win chance 50% → 30%"
    assert lines[-1] == (
        "  better: discard 7♦ on side 1: nothing you hold brings a center to your pay-off 9♠ this "
        "turn; 7♦ starts the empty side stack 1, keeping the runs on the others; as played, A♦, 2♠ "
        "let Bob play the pay-off 3♣ on center 1 (win chance 30% → 50%)"
    )
    assert mark_note(j, "Bob").startswith("?? blunder: win chance 50% → 30%; better: discard 7♦ on side 1: ")


def test_the_review_on_a_terminal_breaks_its_lines_between_words() -> None:
    out = io.StringIO()
    print_review([_judged_turn()], "Review of Ann", out, "Bob", width=60)
    lines = out.getvalue().splitlines()
    assert max(map(len, lines)) <= 60 and len(lines) > 6
    whole = io.StringIO()
    print_review([_judged_turn()], "Review of Ann", whole, "Bob")
    assert out.getvalue().split() == whole.getvalue().split()  # every word whole, in order
    better = next(k for k, line in enumerate(lines) if line.startswith("  better: "))
    assert lines[better + 1].startswith("    ")  # its continuations under it, indented
