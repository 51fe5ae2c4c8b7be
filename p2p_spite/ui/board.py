"""Drawing the board as styled text lines (no prompt_toolkit application here).

:func:`render_board` turns a :class:`BoardInfo` (a seat's view plus names,
scores and what the interface highlights) into lines of prompt_toolkit
fragments for a given width.  Cards are drawn as small chips, ``7♥`` red on
white and ``Q♠`` black on white; a King carries a ``*`` (wild) and, on a
center stack, the rank it stands for (``K♠=5``).  With NO_COLOR the chips keep
their text and lose their colours; the top card of a pile is underlined.

Every clickable chip carries a mouse handler that reports a token: ``h3``
(hand card 3 as shown), ``p`` (own pay-off), ``s2`` (own side stack 2), ``c1``
(center 1).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout.utils import explode_text_fragments
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.styles import Style
from prompt_toolkit.utils import get_cwidth

from ..contracts.i18n import _, ngettext
from ..engine import CENTER, Card, Move, PlayerView, stands_for
from ..engine import needs as rank_needed
from ..engine.cards import RANK_CHARS, is_king, is_red, rank, suit
from .text import ARROW, BACK, DOT, RULE, UNICODE, card_label

Line = StyleAndTextTuples
Click = Callable[[str], None]

MIN_WIDTH = 64
STATUS_NAME = 20  # a name in the header's turn label is cut to this


def no_color() -> bool:
    return bool(os.environ.get("NO_COLOR"))


def rank_label(r: int) -> str:
    return "10" if r == 10 else RANK_CHARS[r - 1]


def hand_order(hand: Sequence[Card]) -> tuple[Card, ...]:
    """The hand sorted as a fresh hand is shown: by rank (Kings last), then suit."""
    return tuple(sorted(hand, key=lambda c: (rank(c), suit(c), c)))


Slots = tuple[Card | None, ...]


def hand_slots(hand: Sequence[Card], before: Sequence[Card | None] = (), my_turn: bool = True) -> Slots:
    """The hand as numbered on screen (``h1`` is slot 1), stable within a turn.

    The rule: a hand is sorted (:func:`hand_order`) whenever cards come into it
    (the refill at the start of a turn, a fresh five after emptying it) and
    whenever it is not this seat's turn.  During the turn, while cards only
    leave it, every card keeps its number and a played card leaves an empty
    slot (``None``), so ``h4`` stays the card that was 4th.  ``before`` is the
    numbering shown last.
    """
    held = set(hand)  # card ids are unique (two decks: 0..103)
    if my_turn and hand and held <= set(before):
        return tuple(c if c in held else None for c in before)
    return hand_order(hand)


COLOR_STYLE = Style.from_dict(
    {
        "card": "bg:#f4f4f4 #111111",
        "card.red": "bg:#f4f4f4 #c41010",
        "card.king": "bold",
        "card.top": "bold",
        "card.under": "bg:#c8c8c8",
        "empty": "#6c6c6c",
        "back": "#5f87d7",
        "card.selected": "bg:#ffd75f #000000 bold",
        "card.last": "bg:#afd7af",
        "label": "#8a8a8a",
        "needs": "#d7af00",
        "stock.low": "#ff5f5f bold",
        "target": "bg:#00875f #ffffff bold",
        "name": "bold",
        "name.me": "bold #5fafff",
        "name.opp": "bold #ff875f",
        "header": "bg:#262626 #d0d0d0",
        "header.turn.me": "bg:#00875f #ffffff bold",
        "header.turn.opp": "bg:#af5f00 #ffffff bold",
        "header.turn.over": "bg:#555555 #ffffff bold",
        "rule": "#4e4e4e",
        "click": "",
        "msg.me": "#5fafff",
        "msg.opp": "#ff875f",
        "msg.event": "#d7af00 bold",
        "msg.error": "#ff5f5f bold",
        "msg.info": "#a8a8a8",
        "msg.chat": "#87d787",
        "msg.help": "",
        "input.prompt": "bold #5fafff",
        "input.confirm": "bold #ffd24a",
        "placeholder": "#6c6c6c italic",
        "toolbar": "bg:#303030 #c6c6c6",
        "toolbar.ok": "bg:#303030 #87d787 bold",
        "toolbar.bad": "bg:#303030 #ff5f5f bold",
        "toolbar.key": "bg:#303030 #ffffff bold",
        "small": "bg:#870000 #ffffff bold",
        "list.current": "reverse",
        "list.game": "bold",
    }
)

MONO_STYLE = Style.from_dict(
    {
        "card.top": "underline bold",
        "card.king": "bold",
        "card.selected": "reverse",
        "card.last": "reverse",
        "name": "bold",
        "stock.low": "bold underline",
        "target": "reverse",
        "header": "reverse",
        "header.turn.me": "bold",
        "header.turn.opp": "",
        "msg.event": "bold",
        "msg.error": "bold",
        "input.prompt": "bold",
        "input.confirm": "bold",
        "placeholder": "",
        "toolbar": "reverse",
        "toolbar.key": "reverse bold",
        "list.current": "reverse",
        "list.game": "bold",
        "small": "reverse bold",
    }
)


def app_style() -> Style:
    return MONO_STYLE if no_color() else COLOR_STYLE


@dataclass
class BoardInfo:
    """What the board shows: ``view`` seen from its seat (drawn at the bottom)."""

    view: PlayerView
    names: tuple[str, str]  # by seat
    scores: tuple[int, int] = (0, 0)
    target: int | None = None
    me_label: str | None = None  # the bottom seat's label (None: the player at the screen, "You")
    opp_hand: tuple[Card, ...] | None = None  # shown face up (replay)
    selected: str | None = None  # a token: h3, p, s2
    highlight: frozenset[str] = frozenset()  # tokens: c1, s2 (own), os2 (opponent's), p, op
    targets: frozenset[str] = frozenset()  # where the selected card may go: c1, s2
    status: str | None = None  # overrides the header's turn status
    title: str | None = None  # instead of "Game 3" in the header (a lesson's "Lesson 1/7")
    status_style: str | None = None
    on_click: Click | None = None

    @property
    def bottom_label(self) -> str:
        return _("You") if self.me_label is None else self.me_label

    header_extra: str = ""
    private: bool = False  # a private-deck match: the header says so where it fits
    watcher: bool = False  # a watcher's board: the bottom seat's hand lies face down too
    hand: Slots = field(default=())  # the hand as numbered, None for a played slot (default: hand_order)

    def shown_hand(self) -> Slots:
        return self.hand or hand_order(self.view.hand)


def as_text(lines: Sequence[Line]) -> StyleAndTextTuples:
    """``lines`` as one fragment list, a newline between each (a window's text)."""
    out: StyleAndTextTuples = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out.extend(line)
    return out


def width_of(line: Line) -> int:
    return sum(get_cwidth(c) for frag in line for c in frag[1])


def _click(info: BoardInfo, token: str) -> Callable[[MouseEvent], None] | None:
    cb = info.on_click
    if cb is None:
        return None

    def handler(ev: MouseEvent) -> None:
        if ev.event_type == MouseEventType.MOUSE_UP:
            cb(token)

    return handler


def _frag(style: str, text: str, handler: Callable[[MouseEvent], None] | None = None) -> Line:
    if handler is None:
        return [(style, text)]
    return [(style, text, handler)]


def chip(
    card: Card | None,
    *,
    top: bool = True,
    king_as: int | None = None,
    selected: bool = False,
    last: bool = False,
    width: int = 3,
    handler: Callable[[MouseEvent], None] | None = None,
) -> Line:
    """One card: its label padded to ``width`` (Kings get ``*`` or ``=rank``)."""
    if card is None:
        text = (" " * (width - 1) + DOT) if width > 1 else DOT
        return _frag("class:empty", text, handler)
    label = card_label(card)
    styles = ["class:card", "class:card.red" if is_red(card) else "class:card.black"]
    if is_king(card):
        styles.append("class:card.king")
        label += f"={rank_label(king_as)}" if king_as is not None else "*"
    if top:
        styles.append("class:card.top")
    else:
        styles.append("class:card.under")
    if last:
        styles.append("class:card.last")
    if selected:
        styles.append("class:card.selected")
    text = label.rjust(width)
    return _frag(" ".join(styles), text, handler)


def _pad(line: Line, width: int) -> Line:
    w = width_of(line)
    if w < width:
        line = [*line, ("", " " * (width - w))]
    return line


def _stack_line(info: BoardInfo, seat: int, index: int, width: int, label_style: str) -> Line:
    """``s1 7♥ 8♣ 9♦`` within ``width`` columns; older cards elided when too long."""
    view = info.view
    mine = seat == view.seat
    token = f"s{index + 1}" if mine else f"os{index + 1}"
    handler = _click(info, token) if mine else None
    stack = view.sides[seat][index]
    line: Line = [*_frag(_label_style(info, token, label_style), f"s{index + 1}", handler), ("", " ")]
    if not stack:
        line += _frag("class:empty", DOT, handler)
        return _pad(line, width)
    room = (width - 3) // 4
    shown = list(stack)
    if len(shown) > room:
        keep = max(1, room - 1)
        hidden = len(shown) - keep
        shown = shown[-keep:]
        line += _frag("class:label", f"+{hidden}".rjust(3) + " ", handler)
    for i, card in enumerate(shown):
        is_top = i == len(shown) - 1
        if i:
            line.append(("", " "))
        line += chip(
            card,
            top=is_top,
            selected=is_top and mine and info.selected == token,
            last=is_top and token in info.highlight,
            handler=handler,
        )
    return _pad(line, width)


def _stack_len_fits(stack: Sequence[Card], width: int) -> bool:
    return len(stack) * 4 + 3 <= width


def _sides(info: BoardInfo, seat: int, width: int, indent: int) -> list[Line]:
    stacks = info.view.sides[seat]
    avail = width - indent
    col = avail // 2
    mine = seat == info.view.seat
    label = "class:name.me" if mine else "class:name.opp"
    lines: list[Line] = []
    if all(_stack_len_fits(st, col - 2) for st in stacks):
        for a, b in ((0, 1), (2, 3)):
            line: Line = [("", " " * indent)]
            line += _stack_line(info, seat, a, col, label)
            line += _stack_line(info, seat, b, avail - col, label)
            lines.append(line)
    else:
        for i in range(4):
            lines.append([("", " " * indent), *_stack_line(info, seat, i, avail, label)])
    return lines


def _header(info: BoardInfo, width: int, n: int = STATUS_NAME, short: bool = False) -> Line:
    """``n``: a name in the turn label is cut to this; ``short``: ``G3`` for ``Game 3``.

    When the scores' names would have to be cut short, the turn label gives up the
    opponent's name first (``their turn``): a language whose label runs long keeps the names."""
    v = info.view
    me, opp = v.seat, v.opponent
    game = " " + (info.title or (_("G{game}") if short else _("Game {game}")).format(game=v.game))
    lefts = [game]
    if info.header_extra:
        lefts = [f"{game} {info.header_extra}"]
    elif info.target:
        lefts = [f"{game} {DOT} " + _("first to {target}").format(target=info.target), game]
    if info.private:  # the longest that fits wins; at the narrowest, as a seeded match
        deck, brief = _("private deck"), _("private")
        deck_lefts = [f"{lefts[0]} {DOT} {deck}", f"{game} {DOT} {deck}", f"{game} {DOT} {brief}"]
        lefts = [*deck_lefts, *lefts]
    names = (info.bottom_label, info.names[opp])
    tries = [(True, 14), (True, 10), (False, 14), (False, 10), (False, 6)]
    if info.me_label is not None:  # (a replay: both labels name a player)
        tries = [(True, 14), (True, 10), (True, 6)]
    for named, k in tries:
        status, sstyle = _turn_status(info, n, named)
        a, b = names[0][:k], names[1][:k]
        score = f"{a} {info.scores[me]} : {info.scores[opp]} {b}"
        for left in lefts:
            room = width - len(left) - len(status)
            if room >= len(score) + 2:
                mid = score.center(room)
                return [("class:header", left + mid), (sstyle, status)]
    left = lefts[-1]
    return clip(_pad([("class:header", left + " "), (sstyle, status)], width), width)


def _turn_status(info: BoardInfo, n: int, named: bool) -> tuple[str, str]:
    """The header's turn label, padded to one width whoever's turn it is (so the scores
    never move when it changes), and its style."""
    v = info.view
    me, opp = v.seat, v.opponent
    if info.me_label is None:
        theirs = _("{name}'s turn").format(name=info.names[opp][:n]) if named else _("their turn")
        mine = _("your turn")
    else:
        mine = _("{name} to play").format(name=info.names[me][:n])
        theirs = _("{name} to play").format(name=info.names[opp][:n])
    over = _("game over")
    if v.result is not None:
        status, sstyle = over, "class:header.turn.over"
    elif v.turn == me:
        status, sstyle = mine, "class:header.turn.me"
    else:
        status, sstyle = theirs, "class:header.turn.opp"
    if info.status is not None:
        status = info.status
        if info.status_style:
            sstyle = info.status_style
    return f" {status.center(max(len(mine), len(theirs), len(over)))} ", sstyle


def _payoff(info: BoardInfo, seat: int) -> Line:
    v = info.view
    mine = seat == v.seat
    token = "p" if mine else "op"
    handler = _click(info, token) if mine else None
    top = v.payoff_tops[seat]
    count = v.payoff_counts[seat]
    line: Line = [*_frag("class:label", _("Pay-off") + " ", handler)]
    line += chip(top, selected=mine and info.selected == "p", last=token in info.highlight, handler=handler)
    line += _frag("class:label", " " + _left(count, 2), handler)
    return line


def _backs(info: BoardInfo, seat: int) -> Line:
    """A hand face down: ``Hand ▒▒▒▒▒ 5``."""
    n = info.view.hand_counts[seat]
    return [("class:label", _("Hand") + " "), ("class:back", BACK * n), ("class:label", f" {n}")]


def _hand(info: BoardInfo, width: int) -> Line:
    if info.watcher:
        return _backs(info, info.view.seat)
    line: Line = [("class:label", _("Hand").ljust(8))]
    cards = info.shown_hand()
    if not any(c is not None for c in cards):
        line.append(("class:empty", _("(empty)")))
        return line
    for i, card in enumerate(cards):
        token = f"h{i + 1}"
        handler = _click(info, token) if card is not None else None
        line += _frag("class:label", f" {i + 1}", handler)
        line += _frag("", " ", handler)
        line += chip(card, selected=info.selected == token, handler=handler)
        line.append(("", " "))
    return line


def _center(info: BoardInfo, width: int, indent: int) -> Line:
    v = info.view
    line: Line = [("", " " * indent)]
    col = (width - indent - 12) // 3
    for i in range(len(v.center)):
        needs = " " + _("needs") + " "
        fits = col >= 12 + len(needs)
        line += _pad(_center_cell(info, i, 4, needs if fits else f" {ARROW} "), col)
    line += [("class:label", _("Stock") + " "), (_stock_style(v.stock_count), f"{v.stock_count:>2}")]
    return line


def _center_cell(info: BoardInfo, i: int, chip_width: int, needs: str) -> Line:
    """Center ``i``: ``c1 5♥ needs 6`` (``needs``: the words before the rank needed)."""
    stack = info.view.center[i]
    token = f"c{i + 1}"
    handler = _click(info, token)
    cell: Line = [*_frag(_label_style(info, token, "class:name"), token, handler), ("", " ")]
    top = stack[-1] if stack else None
    king_as = stands_for(len(stack)) if top is not None and is_king(top) else None
    cell += chip(top, king_as=king_as, last=token in info.highlight, width=chip_width, handler=handler)
    cell += _frag("class:label", needs, handler)
    cell += _frag("class:needs", rank_label(rank_needed(len(stack))), handler)
    return cell


def _label_style(info: BoardInfo, token: str, style: str) -> str:
    """A stack's label, lit when the selected card may go there."""
    return f"{style} class:target" if token in info.targets else style


def _stock_style(n: int) -> str:
    """The stock count turns red when a draw is near (an empty stock ends the game)."""
    return "class:stock.low" if n <= 10 else "class:name"


def _rule(title: str, width: int, style: str) -> Line:
    if not title:
        return [("class:rule", RULE * width)]
    head = f"{RULE * 2} "
    tail = RULE * max(0, width - len(head) - len(title) - 1)
    return [("class:rule", head), (style, title), ("class:rule", " " + tail)]


def render_board(info: BoardInfo, width: int, large: bool = False) -> list[Line]:
    """The board, one fragment list per screen line, each at most ``width`` wide.

    ``large``: the pay-offs, the centers and the hand as big cards (for a tall terminal).
    """
    if large and width >= LARGE_MIN_WIDTH:
        return render_large(info, width)
    v = info.view
    me, opp = v.seat, v.opponent
    width = max(width, MIN_WIDTH)
    indent = 2
    lines: list[Line] = [_header(info, width)]

    # The opponent: name, pay-off, hand, then the side stacks.
    opp_name = info.names[opp]
    top: Line = [("", " " * indent), ("class:name.opp", opp_name[:14].ljust(15))]
    top += _payoff(info, opp)
    top.append(("", "    "))
    if info.opp_hand is not None:
        top.append(("class:label", _("Hand") + " "))
        for card in hand_order(info.opp_hand):
            top.append(("", " "))
            top += chip(card)
    else:
        top += _backs(info, opp)
    lines.append(top)
    lines += _sides(info, opp, width, indent + 2)
    lines.append(_rule(_("Center"), width, "class:label"))
    lines.append(_center(info, width, indent))
    lines.append(_rule("", width, "class:label"))
    lines += _sides(info, me, width, indent + 2)
    bottom: Line = [("", " " * indent), ("class:name.me", info.bottom_label[:14].ljust(15))]
    bottom += _payoff(info, me)
    if info.watcher:  # (both hands face down: on one line each, as the top seat's)
        lines.append([*bottom, ("", "    "), *_hand(info, width)])
    else:
        lines.append(bottom)
        lines.append([("", " " * indent), *_hand(info, width)])
    return [clip(line, width) for line in lines]


COMPACT_MIN_WIDTH = 40


def fit_board(info: BoardInfo, width: int, rows: int, spare: int = 0) -> list[Line]:
    """The board that fits ``width`` x ``rows``: the compact one on a small terminal,
    the large one on a tall one when ``spare`` more rows still fit below it."""
    lines = render_board(info, width)
    if width < MIN_WIDTH or rows < len(lines) + 4:
        return render_compact(info, width)
    if rows >= 30:
        large = render_board(info, width, large=True)
        if rows - len(large) - 2 - spare >= 0:
            return large
    return lines


def move_highlight(move: Move | None, bottom: int) -> frozenset[str]:
    """The tokens a board lights for the last ``move`` (``bottom``: the seat drawn at the bottom)."""
    if move is None:
        return frozenset()
    if move.target == CENTER:
        return frozenset({f"c{move.slot + 1}"})
    return frozenset({f"s{move.slot + 1}" if move.seat == bottom else f"os{move.slot + 1}"})


def render_compact(info: BoardInfo, width: int) -> list[Line]:
    """The board for a small terminal (40 to 63 columns, or too few rows for
    :func:`render_board`): seven lines (eight with the top hand face up).
    Each player's side stacks on one line, the older cards of a long stack
    elided (``+3 9♣``: three more under the 9♣); the centers as ``c1 5♥→6``
    (5♥ on top, a 6 comes next); the hand numbered as typed (``h1 2♦``).
    """
    v = info.view
    me, opp = v.seat, v.opponent
    width = max(width, COMPACT_MIN_WIDTH)
    lines: list[Line] = [_header(info, width, n=8, short=True)]
    n = v.hand_counts[opp]
    top: Line = [("class:name.opp", info.names[opp][:9].ljust(10)), *_compact_payoff(info, opp)]
    if info.opp_hand is None:  # the card backs, without their label when a language runs long
        backs: Line = [("class:label", " " + _("Hand") + " "), ("class:back", BACK * n)]
        if width_of(top) + width_of(backs) > width:
            backs = [("", " "), ("class:back", BACK * n)]
        lines.append([*top, *backs])
    else:  # face up (replay), on a line of its own
        lines.append(top)
        up: Line = [("class:label", _("Hand"))]
        for card in hand_order(info.opp_hand):
            up += [("", " "), *chip(card, width=0)]
        lines.append(up)
    lines.append(_compact_sides(info, opp, width))
    lines.append(_compact_center(info, width))
    lines.append(_compact_sides(info, me, width))
    lines.append([("class:name.me", info.bottom_label[:9].ljust(10)), *_compact_payoff(info, me)])
    lines.append(_compact_hand(info))
    return [clip(line, width) for line in lines]


def _compact_payoff(info: BoardInfo, seat: int) -> Line:
    """``Pay-off 5♠ 8 left``."""
    mine = seat == info.view.seat
    token = "p" if mine else "op"
    handler = _click(info, token) if mine else None
    line: Line = [*_frag("class:label", _("Pay-off") + " ", handler)]
    top = info.view.payoff_tops[seat]
    selected = mine and info.selected == "p"
    line += chip(top, selected=selected, last=token in info.highlight, width=0, handler=handler)
    line += _frag("class:label", " " + _left(info.view.payoff_counts[seat]), handler)
    return line


def _compact_sides(info: BoardInfo, seat: int, width: int) -> Line:
    """The four side stacks on one line: ``s1 +3 9♣  s2 ·  s3 K♠*  s4 5♦ 6♥``."""
    v = info.view
    mine = seat == v.seat
    label = "class:name.me" if mine else "class:name.opp"
    col = width // 4
    line: Line = []
    for i, stack in enumerate(v.sides[seat]):
        token = f"s{i + 1}" if mine else f"os{i + 1}"
        handler = _click(info, token) if mine else None
        cell: Line = [*_frag(_label_style(info, token, label), f"s{i + 1}", handler), ("", " ")]
        if not stack:
            cell += _frag("class:empty", DOT, handler)
        else:
            keep = len(stack)
            while keep > 1 and _compact_stack_width(stack, keep) > col - 1:
                keep -= 1
            if keep < len(stack):
                cell += _frag("class:label", f"+{len(stack) - keep} ", handler)
            for j, card in enumerate(stack[-keep:]):
                is_top = j == keep - 1
                if j:
                    cell.append(("", " "))
                selected = is_top and mine and info.selected == token
                last = is_top and token in info.highlight
                cell += chip(card, top=is_top, selected=selected, last=last, width=0, handler=handler)
        line += _pad(cell, col)
    return line


def _compact_stack_width(stack: Sequence[Card], keep: int) -> int:
    """The width of ``s1 [+N ]c c c`` showing the top ``keep`` cards."""
    shown = stack[-keep:]
    hidden = len(stack) - keep
    labels = sum(len(card_label(c)) + is_king(c) for c in shown) + len(shown) - 1
    return 3 + (len(f"+{hidden} ") if hidden else 0) + labels


def _compact_center(info: BoardInfo, width: int) -> Line:
    """``c1 5♥→6  c2 ·→A  c3 K♠=7→8  Stock 80``."""
    v = info.view
    stock: Line = [("class:label", _("Stock") + " "), (_stock_style(v.stock_count), f"{v.stock_count:>2}")]
    col = (width - width_of(stock)) // 3
    line: Line = []
    for i in range(len(v.center)):
        line += _pad(_center_cell(info, i, 0, ARROW), col)
    return line + stock


def _compact_hand(info: BoardInfo) -> Line:
    """``Hand h1 2♦ h2 · h3 10♦``: numbered as typed; ``·`` a card played this turn."""
    if info.watcher:
        return _backs(info, info.view.seat)
    line: Line = [("class:label", _("Hand"))]
    cards = info.shown_hand()
    if not any(c is not None for c in cards):
        return [*line, ("class:empty", " " + _("(empty)"))]
    for i, card in enumerate(cards):
        token = f"h{i + 1}"
        handler = _click(info, token) if card is not None else None
        line += _frag("class:label", f" h{i + 1} ", handler)
        line += chip(card, selected=info.selected == token, width=0, handler=handler)
    return line


LARGE_MIN_WIDTH = 80
if UNICODE:
    BOX_TOP, BOX_SIDE, BOX_BOTTOM = "╭────╮", "│", "╰────╯"
else:
    BOX_TOP, BOX_SIDE, BOX_BOTTOM = "+----+", "|", "+----+"


def big(
    card: Card | None,
    *,
    king_as: int | None = None,
    selected: bool = False,
    last: bool = False,
    handler: Callable[[MouseEvent], None] | None = None,
    empty: str = "",
) -> list[Line]:
    """A card three lines tall and six columns wide."""
    if card is None:
        style = "class:empty"
        mid = empty.center(4)[:4]
    else:
        label = card_label(card)
        styles = ["class:card", "class:card.red" if is_red(card) else "class:card.black", "class:card.top"]
        if is_king(card):
            styles.append("class:card.king")
            label += f"={rank_label(king_as)}" if king_as is not None else "*"
        if last:
            styles.append("class:card.last")
        if selected:
            styles.append("class:card.selected")
        style = " ".join(styles)
        mid = label.center(4) if len(label) < 4 else label
    rows = [BOX_TOP, BOX_SIDE + mid + BOX_SIDE, BOX_BOTTOM]
    return [_frag(style, r, handler) for r in rows]


def hjoin(blocks: Sequence[list[Line]], gap: int = 1) -> list[Line]:
    """Blocks of lines side by side (each block padded to its widest line)."""
    height = max(len(b) for b in blocks)
    out: list[Line] = [[] for _ in range(height)]
    for k, block in enumerate(blocks):
        w = max((width_of(line) for line in block), default=0)
        for i in range(height):
            line = block[i] if i < len(block) else []
            if k:
                out[i].append(("", " " * gap))
            out[i] += _pad(line, w)
    return out


def _text(text: str, style: str = "class:label", width: int = 0) -> Line:
    return [(style, text.ljust(width))]


def render_large(info: BoardInfo, width: int) -> list[Line]:
    """The roomy board: big cards for what is played from and onto."""
    v = info.view
    me, opp = v.seat, v.opponent
    indent = 2
    pad: list[Line] = [_text(" " * indent)] * 3
    lines: list[Line] = [_header(info, width), []]

    # The opponent.
    op_top = v.payoff_tops[opp]
    name_col = [_text(info.names[opp][:14], "class:name.opp", 15), _text(_("Pay-off"), width=15), []]
    op_card = big(op_top, last="op" in info.highlight, empty="")
    op_info = [_text(_left(v.payoff_counts[opp], 2)), [], []]
    if info.opp_hand is not None:
        hand_blocks = [big(c) for c in hand_order(info.opp_hand)]
        op_hand = hjoin(hand_blocks) if hand_blocks else [[], [], []]
        lines += hjoin([pad, name_col, op_card, op_info, _label_col(_("Hand")), op_hand], gap=1)
    else:
        hand_col: list[Line] = [_backs(info, opp), [], []]
        lines += hjoin([pad, name_col, op_card, op_info, [[], [], []], hand_col], gap=1)
    lines += _sides(info, opp, width, indent + 2)
    lines.append(_rule(_("Center"), width, "class:label"))

    # The centers and the stock.
    cells: list[list[Line]] = []
    for i, stack in enumerate(v.center):
        token = f"c{i + 1}"
        handler = _click(info, token)
        top = stack[-1] if stack else None
        king_as = stands_for(len(stack)) if top is not None and is_king(top) else None
        box = big(top, king_as=king_as, last=token in info.highlight, handler=handler, empty="")
        label = [[], [*_frag(_label_style(info, token, "class:name"), f"c{i + 1}", handler), ("", " ")], []]
        need = rank_label(rank_needed(len(stack)))
        wanted = [
            [],
            [*_frag("class:label", " " + _("needs") + " ", handler), *_frag("class:needs", need, handler)],
            _frag("class:label", " " + _cards(len(stack)) if stack else "", handler),
        ]
        cells.append(hjoin([label, box, wanted], gap=0))
    col = max(22, (width - indent - 16) // 3)
    padded = [[_pad(line, col) for line in cell] for cell in cells]
    count: Line = [("class:label", _("Stock") + " "), (_stock_style(v.stock_count), f"{v.stock_count:>2}")]
    stock: list[Line] = [[], count, []]
    lines += hjoin([pad, *padded, stock], gap=0)
    lines.append(_rule("", width, "class:label"))

    # This seat.
    lines += _sides(info, me, width, indent + 2)
    my_handler = _click(info, "p")
    name_col = [_text(info.bottom_label[:14], "class:name.me", 15), _text(_("Pay-off"), width=15), []]
    my_card = big(v.payoff_tops[me], selected=info.selected == "p", handler=my_handler)
    my_info = [_frag("class:label", _left(v.payoff_counts[me], 2), my_handler), [], []]
    if info.watcher:  # the bottom hand face down, as the top one
        lines += hjoin([pad, name_col, my_card, my_info, [[], [], []], [_backs(info, me), [], []]], gap=1)
        return [clip(line, width) for line in lines]
    hand_blocks = []
    numbers: Line = []
    for i, card in enumerate(info.shown_hand()):
        token = f"h{i + 1}"
        h = _click(info, token) if card is not None else None
        hand_blocks.append(big(card, selected=info.selected == token, handler=h))
        numbers += _frag("class:label", f"{i + 1}".center(7), h)
    hand = hjoin(hand_blocks) if hand_blocks else [[], _text(_("(empty)"), "class:empty"), []]
    band = hjoin([pad, name_col, my_card, my_info, _label_col(_("Hand")), hand], gap=1)
    lines += band
    lead = width_of(band[0]) - width_of(hand[0]) if hand_blocks else 0
    lines.append([("", " " * lead), *numbers])
    return [clip(line, width) for line in lines]


def _left(n: int, width: int = 0) -> str:
    """``8 left``: the cards left on a pay-off pile (the number right-aligned in ``width``)."""
    return ngettext("{n} left", "{n} left", n).format(n=f"{n:>{width}}")


def _cards(n: int) -> str:
    """`` 1 card``, ``12 cards``: a center stack's size (the number two wide)."""
    return ngettext("{n} card", "{n} cards", n).format(n=f"{n:>2}")


def _label_col(text: str) -> list[Line]:
    return [[], _text(text), []]


def clip(line: Line, width: int) -> Line:
    """``line`` cut to ``width`` columns."""
    if width_of(line) <= width:
        return line
    out: Line = []
    used = 0
    for frag in explode_text_fragments(line):
        w = get_cwidth(frag[1])
        if used + w > width:
            break
        out.append(frag)
        used += w
    return out


def wrap(line: Line, width: int, indent: int = 2) -> list[Line]:
    """``line`` wrapped to ``width`` columns (at spaces when it can), continuation indented."""
    if width < 8 or width_of(line) <= width:
        return [line]
    chars = explode_text_fragments(line)
    out: list[Line] = []
    cur: Line = []
    used = 0
    last_space = -1
    for frag in chars:
        w = get_cwidth(frag[1])
        if used + w > width:
            if last_space > indent:
                rest = cur[last_space + 1 :]
                cur = cur[:last_space]
            else:
                rest = []
            out.append(cur)
            cur = [("", " " * indent), *rest]
            used = indent + sum(get_cwidth(f[1]) for f in rest)
            last_space = -1
        if frag[1] == " ":
            last_space = len(cur)
        cur.append(frag)
        used += w
    if cur:
        out.append(cur)
    return out


__all__ = [
    "BoardInfo",
    "app_style",
    "as_text",
    "card_label",
    "chip",
    "clip",
    "fit_board",
    "hand_order",
    "hand_slots",
    "move_highlight",
    "render_board",
    "render_compact",
    "width_of",
    "wrap",
]
