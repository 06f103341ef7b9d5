"""The data pack as the app sees it: shipped values plus the group's corrections, editable in place.

One :class:`PackModel` per app. ``pack`` is the validated :class:`~games.fujikoro.pack.DataPack` every
other view model reads (they bind to it, so a correction shows at once). Edits are checked against the
whole pack before they are written to the override file (:mod:`store.overrides`), exactly as
``fujikoro data set`` does; the file is written on a worker thread.
"""

from __future__ import annotations

import json
from typing import Any

from kivy.event import EventDispatcher
from kivy.properties import BooleanProperty, DictProperty, ListProperty, ObjectProperty, StringProperty

from games.fujikoro.pack import (
    DataPack,
    DataPackError,
    apply_overrides,
    find,
    is_leaf,
    iter_leaves,
    parse,
    parse_value,
    shipped_raw,
)
from games.fujikoro.rules import GAME_NAME
from store.overrides import read_overrides, write_overrides
from ui.i18n import N_
from ui.tr import tr
from ui.worker import Worker

STATUS_WORDS = (N_("confirmed"), N_("derived"), N_("assumed"))


class PackModel(EventDispatcher):  # type: ignore[misc]
    pack = ObjectProperty(None)
    overrides = DictProperty({})
    rows = ListProperty([])
    only_assumed = BooleanProperty(False)
    query = StringProperty("")
    selected_key = StringProperty("")
    selected_value = StringProperty("")
    selected_info = StringProperty("")
    selected_is_yours = BooleanProperty(False)
    message = StringProperty("")
    message_ok = BooleanProperty(True)
    assumed_count = ObjectProperty(0)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._worker = Worker("pack")
        self._shipped = shipped_raw()
        self.load()
        self.bind(only_assumed=lambda *_: self._rebuild_rows(), query=lambda *_: self._rebuild_rows())
        tr.bind(language=lambda *_: self._rebuild_rows())

    def load(self) -> None:
        """Read the corrections (quick, small file) and validate; a broken file falls back to shipped."""
        try:
            overrides = read_overrides(GAME_NAME)
            self.pack = parse(apply_overrides(self._shipped, overrides))
            self.overrides = overrides
        except DataPackError as error:
            self.pack = parse(self._shipped)
            self.overrides = {}
            self._say(tr.f("Your corrections were not used: {error}", error=str(error)), ok=False)
        self._rebuild_rows()

    def _rebuild_rows(self) -> None:
        query = self.query.strip().lower()
        rows: list[dict[str, Any]] = []
        assumed = 0
        for key, leaf in iter_leaves(self.pack.raw):
            yours = bool(leaf.get("user"))
            status = leaf["status"]
            if status == "assumed" and not yours:
                assumed += 1
            if self.only_assumed and (status != "assumed" or yours):
                continue
            value = json.dumps(leaf["value"], ensure_ascii=False)
            if query and query not in key.lower() and query not in value.lower():
                continue
            rows.append({
                "key": key,
                "value_text": value if len(value) <= 60 else value[:57] + "...",
                "status_text": tr._("yours") if yours else tr._(status),
                "status": "yours" if yours else status,
                "selected": key == self.selected_key,
            })
        self.assumed_count = assumed
        self.rows = rows

    def select(self, key: str) -> None:
        node = find(self.pack.raw, key)
        if not is_leaf(node):
            return
        self.selected_key = key
        self.selected_value = json.dumps(node["value"], ensure_ascii=False)
        shipped = find(self._shipped, key)
        source = shipped.get("source", "")
        if node.get("user"):
            self.selected_info = tr.f("Yours. Shipped: {value} ({status}). {source}",
                                      value=json.dumps(shipped["value"], ensure_ascii=False),
                                      status=tr._(shipped["status"]), source=source)
        else:
            self.selected_info = f"{tr._(node['status'])}. {source}"
        self.selected_is_yours = bool(node.get("user"))
        self.message = ""
        self._rebuild_rows()

    def save_value(self, text: str) -> None:
        key = self.selected_key
        if not key:
            return
        value = parse_value(text.strip())
        overrides = dict(self.overrides)
        overrides[key] = value
        try:
            pack = parse(apply_overrides(self._shipped, overrides))
        except DataPackError as error:
            self._say(tr.f("Not saved: {error}", error=str(error)), ok=False)
            return
        self._write(overrides, pack, tr.f("Saved {key}", key=key))

    def reset(self, key: str | None = None) -> None:
        key = key or self.selected_key
        overrides = {k: v for k, v in self.overrides.items() if k != key}
        if overrides == dict(self.overrides):
            self._say(tr._("Already the shipped value"), ok=True)
            return
        self._write(overrides, parse(apply_overrides(self._shipped, overrides)),
                    tr.f("{key} is back to the shipped value", key=key))

    def reset_all(self) -> None:
        self._write({}, parse(self._shipped), tr._("All values are back to the shipped ones"))

    def _write(self, overrides: dict[str, Any], pack: DataPack, done_text: str) -> None:
        def done(_path: Any) -> None:
            self.overrides = overrides
            self.pack = pack
            if self.selected_key:
                self.select(self.selected_key)
            else:
                self._rebuild_rows()
            self._say(done_text, ok=True)

        def failed(error: BaseException) -> None:
            self._say(tr.f("Could not save: {error}", error=str(error)), ok=False)

        self._worker.submit(lambda: write_overrides(GAME_NAME, overrides), done, failed)

    def _say(self, text: str, *, ok: bool) -> None:
        self.message = text
        self.message_ok = ok
