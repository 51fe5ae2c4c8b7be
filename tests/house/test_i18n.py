"""The interface's languages: choosing one, the catalogs (complete, compiled, placeholders
kept), the plural rules, and the words a player types in each language."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

from p2p_spite.commands import cli
from p2p_spite.contracts import i18n
from p2p_spite.ui.commands import Chat, Help, Hint, PlayText, Quit, Resign, is_yes, parse_command
from p2p_spite.ui.text import points

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("tl", "ms", "pl", "es")


def _tool() -> ModuleType:
    path = str(ROOT / "scripts" / "i18n")
    loader = importlib.machinery.SourceFileLoader("p2p_spite_i18n_tool", path)
    spec = importlib.util.spec_from_file_location("p2p_spite_i18n_tool", path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    loader.exec_module(module)
    return module


TOOL = _tool()


# -- choosing the language --------------------------------------------------------------


def test_the_option_comes_first_then_the_environment_in_gettexts_order() -> None:
    env = {"LANGUAGE": "pl", "LC_ALL": "es_ES.UTF-8", "LC_MESSAGES": "ms", "LANG": "tl"}
    assert i18n.choose("es", env) == "es"
    assert i18n.choose(None, env) == "pl"
    del env["LANGUAGE"]
    assert i18n.choose(None, env) == "es"
    del env["LC_ALL"]
    assert i18n.choose(None, env) == "ms"
    del env["LC_MESSAGES"]
    assert i18n.choose(None, env) == "tl"
    assert i18n.choose(None, {}) == "en"


def test_unknown_languages_fall_back_to_english_and_fil_is_filipino() -> None:
    assert i18n.choose("xx") == "en"
    assert i18n.choose("fil") == "tl" and i18n.choose("fil_PH.UTF-8") == "tl"
    assert i18n.choose(None, {"LANGUAGE": "de:pl_PL:es"}) == "pl"  # the first known of a list
    assert i18n.choose(None, {"LANG": "C", "LC_MESSAGES": ""}) == "en"  # the first one set decides
    assert i18n.choose(None, {"LC_ALL": "C.UTF-8", "LANG": "es_ES.UTF-8"}) == "en"
    assert i18n.setup("klingon") == "en" and i18n._("Hand") == "Hand"


def test_lang_is_taken_before_or_after_the_command() -> None:
    assert i18n.take_option(["--lang", "pl", "play", "--bot", "easy"]) == ("pl", ["play", "--bot", "easy"])
    assert i18n.take_option(["play", "--lang=es"]) == ("es", ["play"])
    assert i18n.take_option(["replay", "--", "--lang"]) == (None, ["replay", "--", "--lang"])


def test_version_and_help_list_the_languages(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--version"])
    out = capsys.readouterr().out
    assert "tl/fil (Filipino)" in out and "pl (polski)" in out and "es (español)" in out
    assert "ms (Bahasa Melayu)" in out and "en (English)" in out
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "pl (polski)" in capsys.readouterr().out


def test_main_sets_the_language_from_the_option_anywhere(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--version", "--lang", "pl"])
    assert i18n.language() == "pl"
    with pytest.raises(SystemExit):
        cli.main(["--lang", "zz", "--version"])  # silently English
    assert i18n.language() == "en"


# -- plurals ----------------------------------------------------------------------------


def test_polish_has_three_plural_forms() -> None:
    i18n.setup("pl")
    cards = [i18n.ngettext("{n} card", "{n} cards", n).format(n=n) for n in (1, 2, 4, 5, 12, 21, 22, 25, 112)]
    assert cards == [
        "1 karta", "2 karty", "4 karty", "5 kart", "12 kart", "21 kart", "22 karty", "25 kart", "112 kart",
    ]  # fmt: skip
    assert [points(n) for n in (0, 1, 3, 14, 23)] == [
        "0 punktów",
        "1 punkt",
        "3 punkty",
        "14 punktów",
        "23 punkty",
    ]


def test_each_language_has_its_own_plural_rule() -> None:
    i18n.setup("es")
    assert (points(1), points(2), points(0)) == ("1 punto", "2 puntos", "0 puntos")
    i18n.setup("ms")
    assert (points(1), points(7)) == ("1 mata", "7 mata")
    i18n.setup("en")
    assert (points(1), points(2)) == ("1 point", "2 points")


# -- the catalogs -----------------------------------------------------------------------


INFLECTING = ("pl", "es")  # (Filipino nouns keep one form, Malay has one plural form)
ONE_FORM_ON_PURPOSE = {  # (language, msgid): why its forms are the same for every count
    ("es", "{news} (and {n} more like it)"): "'como esta' agrees with the news, not with the count",
}


def _plurals(lang: str, text: str | None = None) -> dict[tuple[str, str], list[str]]:
    if text is None:
        text = TOOL.po_path(lang).read_text(encoding="utf-8")
    return {(e.msgid, e.plural): e.msgstr for e in TOOL.parse_po(text) if e.plural is not None}


def one_form_for_every_count(catalogs: dict[str, dict[tuple[str, str], list[str]]]) -> list[str]:
    """The plural entries of a language that inflects for number (Polish, Spanish) that use
    the same words for every count although the number shows: in the English (``{n} card``,
    ``{n} cards``) or in the other inflecting language (``{n} left``: Spanish ``queda 1``,
    ``quedan 2``, so Polish needs ``została 1``, ``zostały 2``, ``zostało 5``)."""
    found = []
    for lang in INFLECTING:
        (other,) = (o for o in INFLECTING if o != lang)
        for (msgid, plural), forms in catalogs[lang].items():
            shows = msgid != plural or len(set(catalogs[other].get((msgid, plural), [""]))) > 1
            if shows and len(set(forms)) == 1 and (lang, msgid) not in ONE_FORM_ON_PURPOSE:
                found.append(f"{lang}: {msgid!r} is {forms[0]!r} for every count")
    return found


def test_no_plural_form_serves_every_count() -> None:
    catalogs = {lang: _plurals(lang) for lang in INFLECTING}
    assert one_form_for_every_count(catalogs) == []
    for lang, msgid in ONE_FORM_ON_PURPOSE:  # (each exception is still one)
        assert any(k[0] == msgid and len(set(v)) == 1 for k, v in catalogs[lang].items()), msgid


def test_a_plural_form_used_for_every_count_is_caught() -> None:
    catalogs = {lang: _plurals(lang) for lang in INFLECTING}
    left = ("{n} left", "{n} left")  # the same in English: only Spanish shows the number
    assert len(set(catalogs["es"][left])) == 2
    catalogs["pl"][left] = ["zostało {n}"] * 3  # (as the catalog said until December 2026)
    cards = ("{n} card", "{n} cards")
    catalogs["es"][cards] = ["{n} cartas"] * 2
    assert one_form_for_every_count(catalogs) == [
        "pl: '{n} left' is 'zostało {n}' for every count",
        "es: '{n} card' is '{n} cartas' for every count",
    ]


@pytest.mark.parametrize("lang", LANGS)
def test_the_catalog_is_complete_and_compiled(lang: str) -> None:
    assert TOOL.problems(lang) == []


@pytest.mark.parametrize("lang", LANGS)
def test_the_shipped_catalog_is_the_one_loaded(lang: str) -> None:
    i18n.setup(lang)
    assert i18n._("Hand") != "Hand" and i18n._("Hand") == _translation_of(lang, "Hand")


def _translation_of(lang: str, msgid: str) -> str:
    entries = TOOL.parse_po(TOOL.po_path(lang).read_text(encoding="utf-8"))
    found: str = next(e.msgstr[0] for e in entries if e.msgid == msgid)
    return found


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the Polish catalog the checks read instead of the real one."""
    shutil.copytree(TOOL.LOCALE / "pl", tmp_path / "pl")
    monkeypatch.setattr(TOOL, "LOCALE", tmp_path)
    return tmp_path / "pl" / "LC_MESSAGES" / "p2p_spite.po"


def _edit(po: Path, old: str, new: str) -> None:
    text = po.read_text(encoding="utf-8")
    assert old in text
    po.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_stale_mo_is_caught(scratch: Path) -> None:
    assert TOOL.problems("pl") == []
    _edit(scratch, 'msgstr "Ręka"', 'msgstr "Dłoń"')
    assert any("stale" in p for p in TOOL.problems("pl"))
    scratch.with_suffix(".mo").write_bytes(TOOL.compile_mo(TOOL.load("pl")))
    assert TOOL.problems("pl") == []


def test_a_missing_fuzzy_or_empty_entry_is_caught(scratch: Path) -> None:
    _edit(scratch, 'msgid "Hand"\nmsgstr "Ręka"', 'msgid "Hand"\nmsgstr ""')
    assert any("'Hand' is not translated" in p for p in TOOL.problems("pl"))
    _edit(scratch, 'msgid "Hand"\nmsgstr ""', '#, fuzzy\nmsgid "Hand"\nmsgstr "Ręka"')
    assert any("'Hand' is fuzzy" in p for p in TOOL.problems("pl"))
    _edit(scratch, '#, fuzzy\nmsgid "Hand"\nmsgstr "Ręka"', "")
    assert any("missing 'Hand'" in p for p in TOOL.problems("pl"))


def test_a_changed_placeholder_is_caught(scratch: Path) -> None:
    _edit(scratch, '"Twoja tura. Dobierasz {n} karty."', '"Twoja tura. Dobierasz {k} karty."')
    assert any("placeholders ['{k}']" in p for p in TOOL.problems("pl"))


def test_compiled_catalogs_read_back_with_gettext(tmp_path: Path) -> None:
    import gettext

    entries = TOOL.parse_po(TOOL.po_path("pl").read_text(encoding="utf-8"))
    (tmp_path / "x.mo").write_bytes(TOOL.compile_mo(entries))
    with open(tmp_path / "x.mo", "rb") as f:
        t = gettext.GNUTranslations(f)
    assert t.ngettext("{n} card", "{n} cards", 5) == "{n} kart"
    assert t.gettext("Hand") == "Ręka"


def test_extract_refuses_a_message_it_could_not_look_up(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "m.py").write_text('from i18n import _\nx = 3\nprint(_(f"{x} cards"))\n')
    with pytest.raises(TOOL.CatalogError, match="literal"):
        TOOL.extract(pkg)


# -- what a player types ----------------------------------------------------------------


def test_the_languages_command_words_work_beside_the_english_ones() -> None:
    assert parse_command("pomoc") == PlayText("pomoc")  # English: not a command
    i18n.setup("pl")
    assert parse_command("pomoc") == Help() and parse_command("help") == Help()
    assert parse_command("podpowiedź") == Hint() and parse_command("poddaj") == Resign()
    assert parse_command("wyjdź") == Quit() and parse_command("czat cześć") == Chat("cześć")
    assert parse_command("h3 c1") == PlayText("h3 c1")  # the notation is the same
    i18n.setup("es")
    assert (parse_command("ayuda"), parse_command("pista"), parse_command("salir")) == (
        Help(),
        Hint(),
        Quit(),
    )
    assert parse_command("rendirse") == Resign() and parse_command("charla hola") == Chat("hola")
    i18n.setup("ms")
    assert parse_command("bantuan") == Help() and parse_command("keluar") == Quit()
    i18n.setup("tl")
    assert parse_command("tulong") == Help() and parse_command("suko") == Resign()


@pytest.mark.parametrize(
    ("lang", "yes", "no"),
    [("pl", ["t", "tak", "y"], ["n", "nie", ""]), ("es", ["s", "sí", "si", "y"], ["n", "no"]),
     ("ms", ["y", "ya"], ["t", "tidak"]), ("tl", ["o", "oo", "y"], ["h", "hindi"]),
     ("en", ["y", "yes"], ["t", "s", "o", "n"])],
)  # fmt: skip
def test_a_question_takes_the_languages_yes(lang: str, yes: list[str], no: list[str]) -> None:
    i18n.setup(lang)
    assert all(is_yes(w) for w in yes) and not any(is_yes(w) for w in no)


def test_a_catalog_missing_from_an_installation_means_english(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    assert i18n.setup("pl") == "en" and i18n.language() == "en" and i18n._("Hand") == "Hand"


def test_argparse_speaks_the_language(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["host", "--help", "--lang", "pl"])
    out = capsys.readouterr().out
    assert out.startswith("użycie: p2p-spite host") and "opcje:" in out
    assert "pokaż tę pomoc i zakończ" in out and "nie wymagaj kodu dołączenia" in out
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--lang", "es", "play", "--bogus"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("uso: p2p-spite") and "error: argumentos no reconocidos: --bogus" in err
    with pytest.raises(SystemExit):
        cli.main(["host", "--help"])  # and English again, as written
    out = capsys.readouterr().out
    assert out.startswith("usage: p2p-spite host") and "show this help message and exit" in out


def test_polish_counts_of_the_command_lines_take_three_forms() -> None:
    i18n.setup("pl")
    try:
        ok = [i18n.ngettext("ok: {n} game", "ok: {n} games", n).format(n=n) for n in (1, 3, 5, 22, 25)]
        assert ok == ["ok: 1 partia", "ok: 3 partie", "ok: 5 partii", "ok: 22 partie", "ok: 25 partii"]
        moves = [i18n.ngettext(", {n} move", ", {n} moves", n).format(n=n) for n in (1, 53, 12)]
        assert moves == [", 1 ruch", ", 53 ruchy", ", 12 ruchów"]
        opened = "matches: {won} won, {lost} lost, {open} unfinished"
        left = [i18n.ngettext(opened, opened, n).format(won=0, lost=1, open=n) for n in (1, 2, 7)]
        assert [t.rsplit(", ", 1)[1] for t in left] == [
            "niedokończone 1",
            "niedokończone 2",
            "niedokończone 7",
        ]
        board = [i18n.ngettext("{n} left", "{n} left", n).format(n=n) for n in (1, 2, 5, 22, 25)]
        assert board == ["została 1", "zostały 2", "zostało 5", "zostały 22", "zostało 25"]
    finally:
        i18n.setup("en")
