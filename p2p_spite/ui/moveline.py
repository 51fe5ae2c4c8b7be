"""The move line's own input: what Tab completes and what a click on the board picks.

The move line completes the legal moves and the commands (:class:`MoveCompleter`); Tab
lists them (:func:`press_tab`); a click picks a card, then the stack it goes on
(:func:`clicked`), and the board shows where the card picked may go
(:func:`current_source`, :func:`targets_of`).  Each reads and changes the
:class:`LineScreen` it is given (the :class:`~.app.GameApp`): its view, its move line,
the card picked.
"""

from __future__ import annotations

from collections.abc import Coroutine, Iterable
from typing import Any, Protocol

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion, get_common_complete_suffix
from prompt_toolkit.document import Document

from ..contracts.i18n import _
from ..engine import PlayerView
from .board import Slots
from .commands import completions
from .notation import source_token, target_token, typed_source
from .words import Style


class LineScreen(Protocol):
    """What the move line reads and changes of the game screen."""

    buffer: Buffer
    selected: str | None  # the board token clicked first
    app: Application[None]

    @property
    def view(self) -> PlayerView | None: ...
    @property
    def finished(self) -> bool: ...

    def shown_hand(self) -> Slots: ...
    def move_choices(self, typed: str = "") -> list[tuple[str, str]]: ...
    def say(self, style: Style, text: str) -> None: ...
    def command(self, text: str) -> Coroutine[Any, Any, None]: ...
    def invalidate(self) -> None: ...


class MoveCompleter(Completer):
    """Completes the legal moves (as shown numbers) and the commands."""

    def __init__(self, app: LineScreen) -> None:
        self.app = app

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        typed = " ".join(text.lower().split())
        if not typed and not complete_event.completion_requested:
            return  # no menu over an empty line unless Tab asks for it
        if text.endswith(" ") and typed:
            typed += " "
        choices = self.app.move_choices(typed)
        for notation, meta in choices:
            yield Completion(notation, start_position=-len(text), display_meta=meta)
        if len(typed) >= 2 or (typed and not self.app.move_choices()):
            for cmd in completions():
                if cmd.startswith(typed) and cmd != typed:
                    yield Completion(cmd, start_position=-len(text))


def press_tab(screen: LineScreen) -> None:
    """Tab: list the completions; insert only what makes whole words, and
    never pick one of them.

    prompt_toolkit's own Tab inserts the completions' common prefix, so on
    an empty line it typed ``h`` (every move started with a hand card) and
    ``h5`` then read ``hh5``; over a menu already open (it opens as one
    types and pauses) it selected the first move listed, a discard that
    Enter then played.  Here the common part is inserted only when the
    line is not empty and what it completes is a whole token, the one
    choice left is completed in full (it shows whole on the line), and
    otherwise the choices are listed with none selected."""
    b = screen.buffer
    doc = b.document
    event = CompleteEvent(completion_requested=True)
    found = list(MoveCompleter(screen).get_completions(doc, event))
    if len(found) == 1 and doc.text_before_cursor.strip():
        b.apply_completion(found[0])
        return
    common = get_common_complete_suffix(doc, found) if found else ""
    whole = common[: common.rfind(" ") + 1]  # (up to its last whole word: "8" gives "8c ")
    if doc.text_before_cursor.strip() and whole:
        b.insert_text(whole)
    b.start_completion(insert_common_part=False)


def clicked(screen: LineScreen, token: str) -> None:
    """A click on a board token: pick a card, then the stack it goes on.  A play on
    a center is made at once (``undo`` takes it back); a discard, which ends the turn
    for good, is only put on the move line: Enter, or a second click on the same
    side stack, makes it (as Tab leaves a move on the line for Enter)."""
    v = screen.view
    if v is None or not v.my_turn or screen.finished:
        return
    sel = screen.selected
    is_source = token.startswith(("h", "p")) or (token.startswith("s") and sel is None)
    discard = f"{sel} {token}" if sel is not None and sel.startswith("h") and token.startswith("s") else None
    if token == sel:
        screen.selected = None
        screen.buffer.reset()
    elif discard is not None and screen.buffer.text != discard:
        screen.buffer.set_document(Document(discard, len(discard)))
        screen.say(
            Style.INFO,
            _("Enter (or a second click on {stack}) discards: that ends your turn.").format(stack=token),
        )
    elif sel is not None and (token.startswith("c") or discard is not None):
        screen.selected = None
        screen.buffer.reset()
        screen.app.create_background_task(screen.command(f"{sel} {token}"))
    elif is_source or token.startswith("s"):
        screen.selected = token
        screen.buffer.set_document(Document(f"{token} ", len(token) + 1))
    screen.invalidate()


def current_source(screen: LineScreen) -> str | None:
    """The card being played: clicked, or typed at the start of the line (``h3``, ``p``, ``s2``)."""
    if screen.selected is not None:
        return screen.selected
    return typed_source(screen.buffer.text)


def targets_of(screen: LineScreen, source: str | None) -> frozenset[str]:
    """Where the card ``source`` may go now (from the legal moves): ``c1``, ``s3``..."""
    v = screen.view
    if source is None or v is None or screen.finished:
        return frozenset()
    hand = screen.shown_hand()
    out: set[str] = set()
    for m in v.legal_moves():
        if source_token(m, hand) == source:
            out.add(target_token(m))
    return frozenset(out)


__all__ = ["LineScreen", "MoveCompleter", "clicked", "current_source", "press_tab", "targets_of"]
