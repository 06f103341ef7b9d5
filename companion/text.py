"""Text as data: English words that remember the message they were made from.

A game's rules say what happened in English (the log file, the command line and the tests read English),
but a screen shows it in the players' language. :func:`say` makes a :class:`Text`: it *is* the English
string, and it also keeps its message key (the English template, which is the catalog's msgid) and the
fields that fill it, so the app translates by key - ``tr.f(key, **fields)``, each field translated in
turn - and never by matching English. The session keeps a record's message beside its description in the
game file (``Record.message``); a record from an older file has none and is shown as its English.

    say("{name} rolls {dice}", name="Aiko", dice=say("{n} dice", n=3))   # == "Aiko rolls 3 dice"
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class Text(str):
    """English text with its message key and fields (fields are plain values or Texts themselves)."""

    key: str
    fields: Mapping[str, Any]

    def __new__(cls, key: str, **fields: Any) -> Text:
        text = super().__new__(cls, key.format(**fields) if fields else key)
        text.key = key
        text.fields = dict(fields)
        return text

    def to_json(self) -> dict[str, Any]:
        """The message as stored in a game file: ``{"key": ..., "fields": {...}}`` (nested Texts too)."""
        return {"key": self.key,
                "fields": {name: value.to_json() if isinstance(value, Text) else value
                           for name, value in self.fields.items()}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Text:
        """A stored message back as text; raises ValueError for one that is not a message."""
        key, fields = data.get("key"), data.get("fields", {})
        if not isinstance(key, str) or not isinstance(fields, Mapping):
            raise ValueError(f"not a message: {dict(data)!r}")
        return cls(key, **{name: cls.from_json(value) if isinstance(value, Mapping) else value
                           for name, value in fields.items()})


def say(key: str, **fields: Any) -> Text:
    """A message: ``key`` is its English template (the catalog's msgid), ``fields`` fill its ``{names}``."""
    return Text(key, **fields)


def message_of(text: str) -> dict[str, Any] | None:
    """The stored form of ``text``'s message, or None for plain English."""
    return text.to_json() if isinstance(text, Text) else None
