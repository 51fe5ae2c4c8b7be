"""The language the interface speaks: English (the source), Filipino, Malay, Polish, Spanish.

Chosen once per process (:func:`setup`): ``--lang CODE`` first, then the
environment in gettext's order (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``,
``LANG``: the first one set decides; ``LANGUAGE`` may list several, the first
known one wins).  An unknown code means English, without a word.  The catalogs
are gettext ``.mo`` files shipped in ``p2p_spite/locale`` (compiled from the
``.po`` sources by ``scripts/i18n compile``); every sentence is looked up
through :func:`_` and :func:`ngettext`, whose plural rule is the catalog's own
(Polish has three forms: 1 karta, 2 karty, 5 kart).

Only what a person reads goes through here: records, journals and the wire are
language-neutral, and so is the move notation (``h3 c1``, ``7h``).
Standard library only.
"""

from __future__ import annotations

import argparse
import gettext
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

DOMAIN = "p2p_spite"
LOCALE_DIR = Path(__file__).parent.parent / "locale"
SOURCE = "en"

# code -> the language's name in itself (English first: the default and the source)
LANGUAGES: dict[str, str] = {
    "en": "English",
    "tl": "Filipino",
    "ms": "Bahasa Melayu",
    "pl": "polski",
    "es": "español",
}
ALIASES = {"fil": "tl"}  # ISO 639-2 Filipino, as some systems name it
ENV_ORDER = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

_translation: gettext.NullTranslations = gettext.NullTranslations()
_language = SOURCE


def known(code: str) -> str | None:
    """The language ``code`` names (``pl``, ``pl_PL.UTF-8``, ``fil_PH``, ``es-ES``), or None."""
    base = code.strip().split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
    base = ALIASES.get(base, base)
    return base if base in LANGUAGES else None


def choose(option: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The language to speak: ``option`` (``--lang``) if given, else the environment's."""
    if option is not None:
        return known(option) or SOURCE
    env = os.environ if environ is None else environ
    for name in ENV_ORDER:
        value = env.get(name, "")
        if value:
            for code in value.split(":"):
                lang = known(code)
                if lang is not None:
                    return lang
            return SOURCE  # the first variable set decides (``LANG=C``: English)
    return SOURCE


def take_option(argv: Sequence[str]) -> tuple[str | None, list[str]]:
    """``--lang CODE`` / ``--lang=CODE`` anywhere in ``argv`` (before or after the
    command), and the arguments without it (the last one given counts)."""
    rest: list[str] = []
    lang: str | None = None
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            rest += argv[i:]
            break
        if arg.startswith("--lang="):
            lang = arg.partition("=")[2]
        elif arg == "--lang" and i + 1 < len(argv):
            lang = argv[i + 1]
            i += 1
        else:
            rest.append(arg)
        i += 1
    return lang, rest


def setup(lang: str) -> str:
    """Speak ``lang`` (a code of :data:`LANGUAGES`) from now on; returns the code used."""
    global _translation, _language
    code = known(lang) or SOURCE
    _translation = gettext.NullTranslations()
    if code != SOURCE:
        # The catalog read directly (gettext.translation would search the locale's
        # variants and copy it: time at every start for nothing, the path is known).
        try:
            with open(LOCALE_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.mo", "rb") as f:
                _translation = gettext.GNUTranslations(f)
        except OSError:
            code = SOURCE  # a catalog missing from an installation: English, without fuss
    _language = code
    # argparse words its usage, errors and section titles through gettext.gettext at
    # call time; these messages are in our catalogs (ARGPARSE_MESSAGES).
    setattr(argparse, "_", _)  # noqa: B010 (the module's own lookup, replaced)
    setattr(argparse, "ngettext", ngettext)  # noqa: B010
    return code


def language() -> str:
    """The code of the language spoken now."""
    return _language


def _(message: str) -> str:
    """``message`` in the language spoken."""
    return _translation.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form for ``n`` in the language spoken (its own plural rule)."""
    return _translation.ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the language spoken, as meant in ``context`` (one English word, two
    meanings: a match ``lost`` and a connection ``lost``)."""
    return _translation.pgettext(context, message)


def N_(message: str) -> str:
    """Marks ``message`` for the catalogs (``scripts/i18n extract``); looked up later by :func:`_`."""
    return message


# What argparse itself says (usage, section titles, errors), looked up through our catalogs.
ARGPARSE_MESSAGES = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("show program's version number and exit"),
    N_("%(prog)s: error: %(message)s\n"),
    N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"),
    N_("expected one argument"),
    N_("expected at least one argument"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("invalid %(type)s value: %(value)r"),
    N_("not allowed with argument %s"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("one of the arguments %s is required"),
)


class _Translating(argparse.HelpFormatter):
    """Help texts (an argument's ``help=``, a parser's ``description=``/``epilog=``, all
    literal strings that ``scripts/i18n extract`` collects) looked up as they are shown."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        return _translation.gettext(action.help) if action.help else action.help

    def add_text(self, text: str | None) -> None:
        super().add_text(_translation.gettext(text) if text and text is not argparse.SUPPRESS else text)


class HelpFormatter(_Translating):
    pass


class RawDescriptionHelpFormatter(_Translating, argparse.RawDescriptionHelpFormatter):
    pass


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose help speaks the language (its subparsers are of this class too)."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        kw.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kw)


def languages_line() -> str:
    """``en (English), tl/fil (Filipino), ...``: what ``--version`` and help list."""
    inverse = {v: k for k, v in ALIASES.items()}
    return ", ".join(
        f"{code}{'/' + inverse[code] if code in inverse else ''} ({name})" for code, name in LANGUAGES.items()
    )


__all__ = [
    "LANGUAGES",
    "N_",
    "ArgumentParser",
    "HelpFormatter",
    "RawDescriptionHelpFormatter",
    "_",
    "choose",
    "known",
    "language",
    "languages_line",
    "ngettext",
    "pgettext",
    "setup",
    "take_option",
]
