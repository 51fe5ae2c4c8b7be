"""Errors a user can meet: the CLI prints their message as one line and exits non-zero."""

from __future__ import annotations


class UserError(Exception):
    """Something the user can fix (bad address, unreadable file, ...).

    ``exit_code`` is what the process exits with.
    """

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code
