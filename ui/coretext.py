"""The rules' own sentences in the app's language: the game log, "Undo: ...", a game's fight log, what
makes gear illegal, setup checklists, why the game ended.

A line that is a :class:`~companion.text.Text` (a message key and its fields, as the rules say it now) is
translated by its key: the key's translation from the catalogs, each field translated in turn.
Plain English - the game log of a file written before records kept their messages, or a sentence not
yet written as a message - is matched against sentence shapes: the shell's own below, then the hosted
game's (``GameApp.sentences``, given to :func:`use`); each field's text is itself translated (a dragon's
name, a dice result, a cube list) and the shape's translation is filled in. A line nothing knows is
shown as it is, in English.

``tests/ui/test_ui_coretext.py`` plays whole Fuji Koro games and fights through the rules and checks
that every line they produce is known, so a sentence changed in the rules cannot silently fall back.
"""

from __future__ import annotations

import re
from functools import lru_cache

from companion.text import Text
from ui.i18n import N_
from ui.tr import tr

#: The shell's own sentence shapes (the session's undo and redo records); each hosted game adds its own
#: (``GameApp.sentences``, :func:`use`), most specific first.
TEMPLATES: tuple[str, ...] = (
    N_("Undo: {what}"),
    N_("Redo: {what}"),
)


_FIELD = re.compile(r"\{(\w+)\}")


_hosted: tuple[tuple[str, ...], frozenset[str]] = ((), frozenset())


def use(sentences: tuple[str, ...], words: tuple[str, ...] = ()) -> None:
    """The hosted game's sentence shapes and field words (``GameApp.sentences``/``words``): matched after
    the shell's own, so one game's shapes never catch another game's lines."""
    global _hosted
    _hosted = (tuple(sentences), frozenset(words))
    _translated.cache_clear()


def _compiled() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return _compile((*TEMPLATES, *_hosted[0]))


@lru_cache(maxsize=4)
def _compile(templates: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    compiled = []
    for template in templates:
        pattern, last = "", 0
        for match in _FIELD.finditer(template):
            pattern += re.escape(template[last:match.start()]) + f"(?P<{match.group(1)}>.+?)"
            last = match.end()
        pattern += re.escape(template[last:])
        compiled.append((template, re.compile(f"^{pattern}$", re.DOTALL)))
    return tuple(compiled)




def match(text: str) -> tuple[str, dict[str, str]] | None:
    """The template a core sentence was made from and its fields, or None."""
    for template, pattern in _compiled():
        found = pattern.match(text)
        if found is not None:
            return template, found.groupdict()
    return None


def translate(text: str) -> str:
    """``text`` from the core in the app's current language (unchanged in English or if unknown).

    A :class:`~companion.text.Text` is translated by its message key (its fields in turn); plain English
    (a record from an older game file) is matched against the sentence shapes below."""
    if not text or tr.language == "en":
        return text
    if isinstance(text, Text):
        return _by_key(text, 0)
    return _translated(text, tr.language)


def _by_key(text: Text, depth: int) -> str:
    fields: dict[str, object] = {}
    for name, value in text.fields.items():
        if isinstance(value, Text) and depth < 40:
            fields[name] = _by_key(value, depth + 1)
        elif isinstance(value, str):
            fields[name] = _translated(value, tr.language)
        else:
            fields[name] = value
    return tr.f(text.key, **fields)


@lru_cache(maxsize=8192)
def _translated(text: str, language: str) -> str:
    # ``language`` is part of the cache key: the game log is shown again after every command, and each line
    # is matched once per language rather than on every redraw of the log (35 ms for 200 lines on this machine).
    return _translate(text, 0)


def _translate(text: str, depth: int) -> str:
    if text in _hosted[1]:
        return tr._(text)
    if depth > 40:  # fields are always shorter than their line, so this only guards the stack
        return text
    found = match(text)
    if found is None:
        return text
    template, fields = found
    return tr.f(template, **{name: _translate(value, depth + 1) for name, value in fields.items()})


def known(text: str) -> bool:
    """True if the core sentence (or word) is one this module translates (used by the tests)."""
    return text in _hosted[1] or match(text) is not None
