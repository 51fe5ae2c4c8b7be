"""The full screen's message pane: the lines said, wrapped, and scrolled back.

It keeps the newest :data:`MAX_MESSAGES` messages and each one wrapped to the
width it was last drawn at: a frame re-wraps only after a resize, so a long
match (or a chatty peer) costs nothing per frame.  ``scrolled`` counts the
wrapped lines hidden below the pane (0: the newest line shows last).
"""

from __future__ import annotations

from collections import deque

from prompt_toolkit.formatted_text import StyleAndTextTuples

from .board import Line, wrap

MAX_MESSAGES = 2000  # messages kept for scrolling back


def _wrapped(line: Line, width: int) -> list[Line]:
    return wrap([("", " "), *line], width - 1)  # one blank column before each message


class MessageLog:
    def __init__(self, most: int = MAX_MESSAGES) -> None:
        self.messages: deque[Line] = deque(maxlen=most)
        self._wrapped: deque[list[Line]] = deque(maxlen=most)
        self.wrapped_width = 0  # the width the kept wrapping is for
        self.scrolled = 0

    def add(self, line: Line, width: int) -> None:
        """Add a message; a pane scrolled back stays on the lines it shows."""
        wrapped = _wrapped(line, width)
        if self.scrolled:
            self.scrolled += len(wrapped)
        self.messages.append(line)
        self._wrapped.append(wrapped if width == self.wrapped_width else [])

    def lines(self, width: int) -> list[Line]:
        """Every message wrapped to ``width`` columns, oldest first."""
        if width != self.wrapped_width:
            self._wrapped = deque((_wrapped(m, width) for m in self.messages), self.messages.maxlen)
            self.wrapped_width = width
        out: list[Line] = []
        for lines in self._wrapped:
            out += lines
        return out

    def scroll(self, by: int, rows: int, width: int) -> None:
        """Scroll back ``by`` lines (forward when negative), within what there is."""
        limit = max(0, len(self.lines(width)) - rows)
        self.scrolled = max(0, min(limit, self.scrolled + by))

    def text(self, rows: int, width: int) -> StyleAndTextTuples:
        """The pane's ``rows`` rows: blank ones on top until there are enough lines."""
        lines = self.lines(width)
        end = len(lines) - self.scrolled
        shown = lines[max(0, end - rows) : end]
        frags: StyleAndTextTuples = []
        if len(shown) < rows:
            frags.append(("", "\n" * (rows - len(shown))))
        for i, line in enumerate(shown):
            if i:
                frags.append(("", "\n"))
            frags.extend(line)
        return frags


__all__ = ["MAX_MESSAGES", "MessageLog"]
