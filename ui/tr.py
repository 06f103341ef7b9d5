"""Runtime language switching for Kivy: ``tr._("text")`` / ``tr.f("text {x}", x=1)`` in Python and ``.kv``.

``tr`` is an ``EventDispatcher`` whose ``fbind`` also accepts the names ``_`` and ``f``: a kv rule such
as ``text: tr._("New game")`` binds to ``tr._`` and is re-evaluated when :meth:`Translator.switch`
changes the language, so every screen follows the language at once without a restart. Python code
that builds text (view models) listens to ``tr.bind(language=...)`` and rebuilds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.event import EventDispatcher
from kivy.properties import StringProperty

from ui.i18n import Language, translations

_TRANSLATING = frozenset({"_", "f"})


class Translator(EventDispatcher):  # type: ignore[misc]
    language = StringProperty(Language.ENGLISH.value)

    def __init__(self, language: str = Language.ENGLISH.value) -> None:
        super().__init__()
        self._observers: dict[int, tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]] = {}
        self._next_uid = 1
        self._gettext = translations(language).gettext
        self.language = language

    def _(self, text: str) -> str:
        return str(self._gettext(text))

    def f(self, text: str, **values: Any) -> str:
        """Translate, then fill ``{name}`` fields (translators may reorder them)."""
        return self._(text).format(**values)

    def fbind(self, name: str, func: Callable[..., Any], *largs: Any, **kwargs: Any) -> Any:
        if name in _TRANSLATING:
            uid = self._next_uid
            self._next_uid += 1
            self._observers[uid] = (func, largs, kwargs)
            return uid
        return super().fbind(name, func, *largs, **kwargs)

    def funbind(self, name: str, func: Callable[..., Any], *largs: Any, **kwargs: Any) -> Any:
        if name in _TRANSLATING:
            for uid, entry in list(self._observers.items()):
                if entry == (func, largs, kwargs):
                    del self._observers[uid]
            return None
        return super().funbind(name, func, *largs, **kwargs)

    def unbind_uid(self, name: str, uid: int) -> Any:
        if name in _TRANSLATING:
            self._observers.pop(uid, None)
            return None
        return super().unbind_uid(name, uid)

    def switch(self, language: str) -> None:
        if language == self.language:
            return
        self._gettext = translations(language).gettext
        self.language = language
        for uid, (func, largs, _kwargs) in list(self._observers.items()):
            try:
                func(*largs, None, None)
            except ReferenceError:  # the widget of that rule is gone
                self._observers.pop(uid, None)


tr = Translator()
