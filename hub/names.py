"""Text that people type and other people read: names of players, tables and events, colours, reasons.

Every such field goes through :func:`clean_text` before the hub keeps it: NFKC normalisation (a
full-width "Ａｎｎ" is "Ann"), runs of white space folded to one space, and characters refused that would
hide or disguise what a reader sees: control characters (NUL, escape sequences that reach a terminal
or a CSV), format characters (zero-width spaces and joiners, byte-order marks) and the direction
overrides and isolates that turn a leaderboard line around. A refusal names the character, so the
table or the organiser can type the name again.

Names that survive but *look* the same as another name ("Ann" with a Cyrillic "А") are not refused -
people have names in every script - but :func:`lookalike_groups` flags them to the organiser, using the
confusables table of Unicode Technical Standard #39 shipped by ``confusable_homoglyphs``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import lru_cache

#: Unicode general categories never allowed in a name: Cc control, Cf format (zero-width characters,
#: bidirectional overrides and isolates), Cs surrogates, Co private use, Cn unassigned, Zl/Zp line and
#: paragraph separators.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


class TextError(ValueError):
    """A typed text the hub refuses; the message is one sentence naming the character."""


def describe_char(char: str) -> str:
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X}" + (f" {name}" if name else "")


def clean_text(value: str) -> str:
    """The text as the hub keeps it (NFKC, white space folded, trimmed), or :class:`TextError`."""
    normal = unicodedata.normalize("NFKC", value)
    for char in normal:
        if char in "\t\n\r":
            continue  # folded into a space below
        if unicodedata.category(char) in REFUSED_CATEGORIES:
            raise TextError(
                f"contains the invisible or control character {describe_char(char)}; type it again without it"
            )
    return " ".join(normal.split())


@lru_cache(maxsize=1)
def _homoglyphs() -> dict[str, str]:
    """Each confusable character -> one representative of its group (the lowest code point)."""
    from confusable_homoglyphs import confusables

    table: dict[str, str] = {}
    for char, glyphs in confusables.confusables_data.items():
        candidates = {char}
        for glyph in glyphs:
            stripped = glyph["c"].replace("\u200e", "").replace("\u200f", "")
            if len(stripped) == 1:
                candidates.add(stripped)
        table[char] = min(candidates)
    return table


def skeleton(name: str) -> str:
    """What a name looks like: case-folded, and every character replaced by its confusable group."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    table = _homoglyphs()
    text = "".join(table.get(char, char) for char in folded)
    return " ".join(text.split())


def lookalike_groups(names: Iterable[str]) -> list[list[str]]:
    """Groups of two or more *different* names (ignoring case and spaces) that look alike."""
    by_skeleton: dict[str, dict[str, str]] = {}
    for name in names:
        key = " ".join(name.split()).casefold()
        by_skeleton.setdefault(skeleton(name), {}).setdefault(key, name)
    return sorted(
        (sorted(group.values()) for group in by_skeleton.values() if len(group) > 1), key=lambda g: g[0].casefold()
    )
