"""Message catalogs: the app's languages, reading ``.po`` files and compiling them to ``.mo``.

The shell's catalogs live in ``ui/locale/<lang>/LC_MESSAGES/companion.po`` (the source translators edit)
and ``companion.mo`` (what :mod:`gettext` loads); each game with screens keeps its own beside its code
(``games/<name>/locale/<lang>/LC_MESSAGES/<name>.po``), so adding a game adds its catalogs and touches
no shared one. A lookup tries the shell's catalog, then every game's. The ``.mo`` files are committed
so an installed app needs no build step; ``python -m ui.i18n`` rebuilds them and a test fails when one
is older than its ``.po``.
The compiler is here (not GNU ``msgfmt``) so that neither CI nor a Raspberry Pi needs gettext tools.

Game terms follow the rulebooks in ``shared/rules`` (cs, de): Siegpunkte/vítězné body, Initiative/
iniciativa, heroischer Mönch/hrdinský mnich, Countdown/odpočet, Seil/provaz and so on.

Pure Python: no Kivy here, so the command line and the tests can use it headless.
"""

from __future__ import annotations

import ast
import enum
import gettext
import re
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

DOMAIN = "companion"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"


class Language(enum.StrEnum):
    ENGLISH = "en"
    CZECH = "cs"
    GERMAN = "de"

    @property
    def native_name(self) -> str:
        return {"en": "English", "cs": "Čeština", "de": "Deutsch"}[self.value]


class CatalogError(ValueError):
    """A ``.po`` file that cannot be read; the message names the file and line."""


@dataclass(frozen=True, slots=True)
class Message:
    msgid: str
    msgstr: str
    line: int
    fuzzy: bool = False


def parse_po(text: str, *, origin: str = "<po>") -> list[Message]:
    """The messages of a ``.po`` file (singular messages; the header has msgid "")."""
    messages: list[Message] = []
    msgid: list[str] | None = None
    msgstr: list[str] | None = None
    target: list[str] | None = None
    start = 0
    fuzzy = False
    pending_fuzzy = False

    def flush() -> None:
        nonlocal msgid, msgstr, target, fuzzy
        if msgid is not None:
            if msgstr is None:
                raise CatalogError(f"{origin}:{start}: msgid without msgstr")
            messages.append(Message("".join(msgid), "".join(msgstr), start, fuzzy))
        msgid = msgstr = target = None
        fuzzy = False

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if line.startswith("#,") and "fuzzy" in line:
                pending_fuzzy = True
            continue
        if line.startswith("msgid "):
            flush()
            start = number
            fuzzy, pending_fuzzy = pending_fuzzy, False
            msgid = [_po_string(line[6:], origin, number)]
            target = msgid
        elif line.startswith("msgstr "):
            if msgid is None:
                raise CatalogError(f"{origin}:{number}: msgstr without msgid")
            msgstr = [_po_string(line[7:], origin, number)]
            target = msgstr
        elif line.startswith('"'):
            if target is None:
                raise CatalogError(f"{origin}:{number}: a continued string outside a message")
            target.append(_po_string(line, origin, number))
        else:
            raise CatalogError(f"{origin}:{number}: cannot read {line[:40]!r} (plural forms are not used)")
    flush()
    return messages


def _po_string(token: str, origin: str, number: int) -> str:
    token = token.strip()
    if len(token) < 2 or not (token.startswith('"') and token.endswith('"')):
        raise CatalogError(f"{origin}:{number}: expected a quoted string, got {token[:40]!r}")
    try:
        value = ast.literal_eval(token)
    except (SyntaxError, ValueError):
        raise CatalogError(f"{origin}:{number}: bad escape in {token[:40]!r}") from None
    if not isinstance(value, str):
        raise CatalogError(f"{origin}:{number}: expected a string")
    return value


def mo_bytes(messages: list[Message]) -> bytes:
    """A GNU ``.mo`` file (little endian, no hash table) holding the translated, non-fuzzy messages."""
    pairs = sorted(
        (m.msgid.encode("utf-8"), m.msgstr.encode("utf-8"))
        for m in messages
        if m.msgstr and (not m.fuzzy or m.msgid == "")
    )
    count = len(pairs)
    header_size = 7 * 4
    originals_table = header_size
    translations_table = originals_table + count * 8
    data_start = translations_table + count * 8
    originals = b""
    translations = b""
    original_entries: list[tuple[int, int]] = []
    for key, _ in pairs:
        original_entries.append((len(key), data_start + len(originals)))
        originals += key + b"\0"
    translation_start = data_start + len(originals)
    translation_entries: list[tuple[int, int]] = []
    for _, value in pairs:
        translation_entries.append((len(value), translation_start + len(translations)))
        translations += value + b"\0"
    out = struct.pack("<7I", 0x950412DE, 0, count, originals_table, translations_table, 0, data_start)
    for length, offset in original_entries:
        out += struct.pack("<2I", length, offset)
    for length, offset in translation_entries:
        out += struct.pack("<2I", length, offset)
    return out + originals + translations


@dataclass(frozen=True, slots=True)
class Catalog:
    """One set of catalogs: the sources its messages come from (``root``) and its gettext domain."""

    domain: str
    root: Path

    @property
    def locale_dir(self) -> Path:
        return self.root / "locale"

    def po(self, language: Language | str) -> Path:
        return self.locale_dir / str(language) / "LC_MESSAGES" / f"{self.domain}.po"

    def mo(self, language: Language | str) -> Path:
        return self.po(language).with_suffix(".mo")


#: The shell's own catalog (status bar, settings, games, the log's sentences).
SHELL = Catalog(DOMAIN, LOCALE_DIR.parent)


def catalogs() -> list[Catalog]:
    """The shell's catalog, then one per installed game whose screens have text to translate (found
    through the registry)."""
    import importlib

    from companion import registry

    found = [SHELL]
    for name, module in sorted(registry.games().items()):
        if module.app is None or not module.package:
            continue
        package = importlib.import_module(module.package)
        if package.__file__:
            catalog = Catalog(name, Path(package.__file__).resolve().parent)
            # A game whose screens translate nothing (the tests' counter game) needs no catalogs.
            if catalog.locale_dir.is_dir() or extract(catalog.root):
                found.append(catalog)
    return found


def po_path(language: Language | str, catalog: Catalog = SHELL) -> Path:
    return catalog.po(language)


def mo_path(language: Language | str, catalog: Catalog = SHELL) -> Path:
    return catalog.mo(language)


def compile_catalog(language: Language | str, catalog: Catalog = SHELL) -> Path:
    """Compile one language's ``.po`` next to it; returns the ``.mo`` path."""
    source = catalog.po(language)
    messages = parse_po(source.read_text(encoding="utf-8"), origin=str(source))
    target = catalog.mo(language)
    target.write_bytes(mo_bytes(messages))
    return target


def _one(catalog: Catalog, language: Language) -> gettext.NullTranslations:
    try:
        return gettext.translation(catalog.domain, localedir=str(catalog.locale_dir), languages=[language.value])
    except OSError:
        return gettext.NullTranslations()


def translations(language: Language | str) -> gettext.NullTranslations:
    """The catalogs for a language (the shell's, then each game's); English source strings where a
    catalog is missing."""
    lang = Language(str(language)) if str(language) in {x.value for x in Language} else Language.ENGLISH
    first, *rest = catalogs()
    chain = _one(first, lang)
    for catalog in rest:
        chain.add_fallback(_one(catalog, lang))
    return chain


def N_(text: str) -> str:
    """Marks a message for the catalogs where it is translated later (``tr._(variable)``)."""
    return text


_KV_CALL = re.compile(r"""\btr\.(?:_|f)\(\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""")
_MARKERS = {"_", "f", "N_"}


def extract(root: Path | None = None) -> dict[str, list[str]]:
    """Every message a catalog holds: ``tr._``/``tr.f``/``N_`` calls and the rules' messages
    (``companion.text.say``) in ``root``'s .py and .kv files
    (the shell's: ui/; a game's: its package). The command line is English and is not scanned."""
    root = root or SHELL.root
    found: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        if "cli" in path.relative_to(root).parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            is_tr = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "tr"
            if (is_tr and name in {"_", "f"}) or (isinstance(func, ast.Name) and name in {"N_", "say"}):
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found.setdefault(arg.value, []).append(f"{path.relative_to(root)}:{node.lineno}")
    for path in sorted(root.rglob("*.kv")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for match in _KV_CALL.finditer(line):
                found.setdefault(ast.literal_eval(match.group(1)), []).append(f"{path.relative_to(root)}:{number}")
    return found


def placeholders(text: str) -> set[str]:
    """The ``{name}`` fields of a message (a translation must keep exactly these)."""
    return {m.split(":")[0].split("!")[0] for m in re.findall(r"(?<!\{)\{([^{}]*)\}", text)}


def po_text(language: Language | str, messages: dict[str, list[str]], translated: dict[str, str]) -> str:
    """A complete ``.po`` file for the extracted messages (English: msgstr = msgid)."""
    header = {
        "Project-Id-Version": "fujikoro-companion",
        "Language": str(language),
        "MIME-Version": "1.0",
        "Content-Type": "text/plain; charset=UTF-8",
        "Content-Transfer-Encoding": "8bit",
    }
    out = [f"# Fuji Koro companion, {Language(str(language)).native_name} catalog.",
           "# Game terms follow the rulebooks in shared/rules (EN, CS, DE).",
           'msgid ""', 'msgstr ""']
    out += [f'"{key}: {value}\\n"' for key, value in header.items()]
    for msgid in sorted(messages):
        out.append("")
        out += [f"#: {where}" for where in messages[msgid][:3]]
        out.append(f"msgid {_quote(msgid)}")
        out.append(f"msgstr {_quote(translated.get(msgid, ''))}")
    return "\n".join(out) + "\n"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _read(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    return {m.msgid: m.msgstr for m in parse_po(path.read_text(encoding="utf-8"), origin=str(path))}


def update_catalogs() -> dict[str, list[str]]:
    """Re-extract every catalog's messages, keep every existing translation (a message that moved from
    one catalog to another keeps its translation), rewrite the ``.po`` files, compile.

    Returns, per catalog and language, the messages still untranslated (a translator fills them in).
    """
    every = catalogs()
    untranslated: dict[str, list[str]] = {}
    for language in Language:
        pool: dict[str, str] = {}
        for catalog in every:
            pool.update({k: v for k, v in _read(catalog.po(language)).items() if v})
        for catalog in every:
            messages = extract(catalog.root)
            known = {**pool, **{k: v for k, v in _read(catalog.po(language)).items() if v}}
            if language is Language.ENGLISH:
                known = {m: m for m in messages}
            path = catalog.po(language)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(po_text(language, messages, known), encoding="utf-8")
            compile_catalog(language, catalog)
            untranslated[f"{catalog.domain} {language.value}"] = sorted(m for m in messages if not known.get(m))
    return untranslated


def main(argv: list[str] | None = None) -> int:
    """``python -m ui.i18n [update]``: compile every catalog, or first re-extract and merge (update)."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["update"]:
        for language, missing in update_catalogs().items():
            print(f"{language}: {len(missing)} untranslated" + (": " + "; ".join(missing) if missing else ""))
        return 0
    for catalog in catalogs():
        for language in Language:
            print(compile_catalog(language, catalog))
    return 0


if __name__ == "__main__":
    sys.exit(main())
