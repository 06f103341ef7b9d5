"""The app's message catalogs: complete for Czech and German, placeholders kept, .mo in step with .po."""

from __future__ import annotations

import gettext
import io

import pytest

from ui.i18n import (
    SHELL,
    Catalog,
    CatalogError,
    Language,
    Message,
    catalogs,
    extract,
    mo_bytes,
    parse_po,
    placeholders,
    translations,
)

CATALOGS = catalogs()


def catalog(language: Language, where: Catalog = SHELL) -> dict[str, str]:
    path = where.po(language)
    return {m.msgid: m.msgstr for m in parse_po(path.read_text(encoding="utf-8"), origin=str(path)) if m.msgid}


def test_ui_the_shell_and_each_game_with_screens_have_catalogs() -> None:
    assert [c.domain for c in CATALOGS][:1] == ["companion"] and "fujikoro" in [c.domain for c in CATALOGS]
    assert sum(len(extract(c.root)) for c in CATALOGS) > 300


@pytest.mark.parametrize("where", CATALOGS, ids=lambda c: c.domain)
@pytest.mark.parametrize("language", [Language.CZECH, Language.GERMAN, Language.ENGLISH])
def test_ui_every_message_is_translated_with_its_placeholders(language: Language, where: Catalog) -> None:
    messages = extract(where.root)
    assert len(messages) > 20
    translated = catalog(language, where)
    missing = sorted(m for m in messages if not translated.get(m))
    assert missing == [], f"untranslated in {language.value}: run `python -m ui.i18n update` and fill them in"
    for msgid, msgstr in translated.items():
        assert placeholders(msgid) == placeholders(msgstr), f"{language.value}: {msgid!r} -> {msgstr!r}"


@pytest.mark.parametrize("where", CATALOGS, ids=lambda c: c.domain)
@pytest.mark.parametrize("language", list(Language))
def test_ui_compiled_catalog_matches_its_po(language: Language, where: Catalog) -> None:
    path = where.po(language)
    expected = mo_bytes(parse_po(path.read_text(encoding="utf-8"), origin=str(path)))
    assert where.mo(language).read_bytes() == expected, "run `python -m ui.i18n` to recompile"


def test_ui_a_lookup_reaches_the_shell_and_the_game_catalogs() -> None:
    cs = translations(Language.CZECH)
    assert cs.gettext("Settings") == "Nastavení"  # the shell's
    assert cs.gettext("Table") == "Stůl"  # Fuji Koro's


def test_ui_game_terms_follow_the_rulebooks() -> None:
    fk = next(c for c in CATALOGS if c.domain == "fujikoro")
    cs = {**catalog(Language.CZECH), **catalog(Language.CZECH, fk)}
    de = {**catalog(Language.GERMAN), **catalog(Language.GERMAN, fk)}
    assert cs["Initiative"] == "Iniciativa" and de["Initiative"] == "Initiative"
    assert "hrdinsk" in cs["No Heroic Monk"] and "heroischer Mönch" in de["No Heroic Monk"]
    assert "VB" in cs["The final chapter starts at {n} VP"] and "SP" in de["The final chapter starts at {n} VP"]
    assert cs["Rope"] == "Provaz" and de["Rope"] == "Seil"
    assert de["Rest & Craft"] == "Ausruhen & Herstellen"


def test_ui_mo_round_trips_through_gettext() -> None:
    messages = [Message("", "Content-Type: text/plain; charset=UTF-8\n", 1),
                Message("Table", "Stůl", 3), Message("Undo: {what}", "Zpět: {what}", 5),
                Message("Untranslated", "", 7), Message("Fuzzy", "Nejasné", 9, fuzzy=True)]
    translations = gettext.GNUTranslations(io.BytesIO(mo_bytes(messages)))
    assert translations.gettext("Table") == "Stůl"
    assert translations.gettext("Undo: {what}") == "Zpět: {what}"
    assert translations.gettext("Untranslated") == "Untranslated"
    assert translations.gettext("Fuzzy") == "Fuzzy"


def test_ui_po_parser_reads_continuations_and_escapes() -> None:
    text = 'msgid ""\nmsgstr "X: y\\n"\n\n#, fuzzy\nmsgid "a \\"b\\""\nmsgstr ""\n"c\\n"\n"d"\n'
    messages = parse_po(text)
    assert messages[1] == Message('a "b"', "c\nd", 5, fuzzy=True)
    with pytest.raises(CatalogError, match="line|:"):
        parse_po('msgid "x"\nmsgstr y\n', origin="bad.po")
