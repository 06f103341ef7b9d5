"""Fields a JSON object does not know are refused, not ignored: the one rule for every game's input.

A misspelt field read as absent answers a question nobody asked (a tower throw's ``fell_out`` for ``out``
reads as "nothing fell out"; a samurai's ``helmet`` beside its gear as "no helmet"). :func:`unknown_field`
says so in one sentence; the caller raises it as its own error (a command error, a command-line error).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any


def unknown_field(data: Mapping[str, Any], known: Collection[str], *, what: str = "",
                  has: str = "the fields are", note: str = "") -> str | None:
    """One sentence naming a field of ``data`` that is not in ``known`` (the first in sorted order) and listing
    the known ones, or None when every field is known. ``what`` names the object ("seed_tower"), ``has`` leads
    the list, ``note`` is added in brackets ("see fujikoro odds --help")."""
    extra = sorted(str(key) for key in data if key not in known)
    if not extra:
        return None
    prefix = f"{what}: " if what else ""
    listed = ", ".join(sorted(known)) or "none"
    return f"{prefix}unknown field {extra[0]!r}; {has} {listed}{f' ({note})' if note else ''}"
