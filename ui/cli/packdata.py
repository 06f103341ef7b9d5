"""The data verbs of any game with a data pack (``GameModule.data_pack``): ``data show|set|reset|validate``
(``fujikoro data ...``, ``table-companion shogun data ...``).

Corrections go to the game's own override file (:mod:`store.overrides`); the shipped pack is never edited.
Every change is checked against the whole pack, through the game's ``load``, before it is saved, so a typo
cannot break the app and a value the game keeps locked stays as shipped: either is refused in one sentence
with the field's path. ``validate`` checks a corrections file against the game's pack, or a whole pack file
with the parser of the game the file says it is for (its ``meta.game``). A game adds the verbs with
:func:`add_data_verbs`; its other verbs read the group's pack with :func:`current_pack`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ui.cli import CliError


def add_data_verbs(subparsers: Any, *, game: str, command: str, example_key: str, what: str) -> None:
    """Add ``data show|set|reset|validate`` for ``game`` (its registry name); ``command`` is how a user types
    the verb (``fujikoro data``), for the hints in messages; ``example_key`` a value to correct, for the help;
    ``what`` what the data holds ("dragons, dice, countdown ...")."""
    verbs = _DataVerbs(game, command)
    data = subparsers.add_parser("data", help=f"show and correct the game data ({what})")
    sub = data.add_subparsers(dest="data_command", metavar="ACTION", required=True)
    show = sub.add_parser("show", help="list values with their status (confirmed, derived, assumed, unknown)")
    show.add_argument("key", nargs="?", default="",
                      help=f"a dotted key or section, e.g. {example_key.rpartition('.')[0] or example_key}")
    show.add_argument("--assumed", action="store_true",
                      help="only the values to check against your box (assumed or unknown, not yet corrected)")
    show.add_argument("--json", action="store_true", help="print JSON instead of text")
    show.set_defaults(handler=verbs.show)
    set_ = sub.add_parser("set", help="correct one value for your group")
    set_.add_argument("key", help=f"a dotted key, e.g. {example_key}")
    set_.add_argument("value", help="the new value (JSON: 11, [2,2,1,1,0,\"0b\"], true, or text)")
    set_.set_defaults(handler=verbs.set)
    reset = sub.add_parser("reset", help="go back to the shipped value")
    reset.add_argument("key", nargs="?", help="a dotted key or section (all corrections beneath it)")
    reset.add_argument("--all", action="store_true", help="drop every correction")
    reset.set_defaults(handler=verbs.reset)
    validate = sub.add_parser("validate", help="check a data-pack file or a corrections file")
    validate.add_argument("file")
    validate.set_defaults(handler=verbs.validate)


def current_pack(game: str, command: str) -> Any:
    """``game``'s shipped pack with the group's corrections; a broken corrections file is a clear error."""
    from companion.datapack import DataPackError
    from store.overrides import overrides_path, read_overrides

    spec = _spec(game)
    try:
        return spec.load(read_overrides(game))
    except DataPackError as error:
        raise CliError(f"your corrections in {overrides_path(game)} do not fit the data pack ({error}); "
                       f"undo them with `{command} reset KEY`") from None


def _spec(game: str) -> Any:
    from companion import registry

    try:
        spec = registry.game(game).data_pack
    except registry.UnknownGameError as error:
        raise CliError(str(error)) from None
    if spec is None:
        raise CliError(f"{game} has no data pack")
    return spec


def _to_check(leaf: dict[str, Any]) -> bool:
    """A value the group should check against its box: assumed or unknown, and not corrected yet."""
    return leaf["status"] in ("assumed", "unknown") and not leaf.get("user")


class _DataVerbs:
    def __init__(self, game: str, command: str) -> None:
        self.game, self.command = game, command

    def show(self, args: argparse.Namespace) -> int:
        from companion.datapack import DataPackError, find, is_leaf, iter_leaves

        pack = current_pack(self.game, self.command)
        try:
            node = find(pack.raw, args.key) if args.key else pack.raw
        except DataPackError as error:
            raise CliError(f"{error}{self._elsewhere(args.key)}") from None
        rows = [(args.key, node)] if is_leaf(node) else list(iter_leaves(node, args.key))
        if args.assumed:
            rows = [(k, v) for k, v in rows if _to_check(v)]
        if args.json:
            json.dump({k: _leaf_json(v) for k, v in rows}, sys.stdout, ensure_ascii=False, indent=1)
            sys.stdout.write("\n")
            return 0
        for key, leaf in rows:
            print(f"{key} = {json.dumps(leaf['value'], ensure_ascii=False)}  [{_status_text(leaf)}]")
        if not args.assumed:
            left = [v["status"] for _, v in rows if _to_check(v)]
            if left:
                counts = " and ".join(f"{left.count(s)} {s}" for s in ("assumed", "unknown") if s in left)
                print(f"-- {counts} value(s): check them against your copy "
                      f"(`{self.command} show --assumed`, then `{self.command} set KEY VALUE`)")
        return 0

    def set(self, args: argparse.Namespace) -> int:
        from companion.datapack import DataPackError, find, is_leaf, parse_value
        from store.overrides import read_overrides, write_overrides

        spec = _spec(self.game)
        raw = spec.shipped_raw()
        try:
            node = find(raw, args.key)
        except DataPackError as error:
            raise CliError(f"{error}{self._elsewhere(args.key) or f'; see `{self.command} show` for the keys'}") \
                from None
        if not is_leaf(node):
            raise CliError(f"{args.key} is a section; name one value inside it, e.g. {args.key}.{next(iter(node))}")
        value = parse_value(args.value)
        overrides = read_overrides(self.game)
        overrides[args.key] = value
        try:
            spec.load(overrides)
        except DataPackError as error:
            raise CliError(f"not saved: {error}") from None
        path = write_overrides(self.game, overrides)
        print(f"{args.key} = {json.dumps(value, ensure_ascii=False)} (yours; shipped "
              f"{json.dumps(node['value'], ensure_ascii=False)}, {node['status']}) saved in {path}")
        return 0

    def reset(self, args: argparse.Namespace) -> int:
        from store.overrides import read_overrides, write_overrides

        overrides = read_overrides(self.game)
        if args.all:
            dropped = list(overrides)
        elif args.key:
            dropped = [k for k in overrides if k == args.key or k.startswith(args.key + ".")]
        else:
            raise CliError("name the key to reset, or --all")
        if not dropped:
            print("no corrections: the shipped values are in use" if args.all
                  else f"no corrections under {args.key}: the shipped values are in use")
            return 0
        for key in dropped:
            del overrides[key]
        write_overrides(self.game, overrides)
        for key in dropped:
            print(f"{key}: back to the shipped value")
        return 0

    def validate(self, args: argparse.Namespace) -> int:
        """A corrections file (``[values]``) against this game's pack; a whole pack with the parser of the game
        its ``meta.game`` names (this game's when it names none the app knows)."""
        from companion.datapack import DataPackError, parse_toml

        path = Path(args.file)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise CliError(f"cannot read {path}: {getattr(error, 'strerror', None) or error}") from None
        try:
            raw = parse_toml(text, origin=str(path))
            if "values" in raw and "meta" not in raw:
                if not isinstance(raw["values"], dict):
                    raise DataPackError(f"{path}: [values] must be a table of dotted keys")
                pack = _spec(self.game).load(raw["values"])
                print(f"{path}: {len(raw['values'])} correction(s), valid on data pack {pack.version}")
            else:
                title, spec = self._pack_game(raw)
                pack = spec.parse(raw)
                print(f"{path}: valid {title} data pack {pack.version} ({spec.describe(pack)})")
        except DataPackError as error:
            raise CliError(f"{path}: {error}") from None
        return 0

    def _elsewhere(self, key: str) -> str:
        """For a key this game's pack does not have: which other game's pack has it, and its verbs."""
        from companion import registry
        from companion.datapack import DataPackError, find

        for name, module in sorted(registry.games().items()):
            if name == self.game or module.data_pack is None:
                continue
            try:
                find(module.data_pack.shipped_raw(), key)
            except DataPackError:
                continue
            return f"; it is a key of the {module.title} data pack (`table-companion {name} data`)"
        return ""

    def _pack_game(self, raw: dict[str, Any]) -> tuple[str, Any]:
        """The game a whole pack is for: the one whose shipped pack has the same ``meta.game``."""
        from companion import registry

        meta = raw.get("meta")
        said = meta.get("game") if isinstance(meta, dict) else None
        for module in registry.games().values():
            if module.data_pack is not None and said and module.data_pack.meta_game == said:
                return module.title, module.data_pack
        return registry.game(self.game).title, _spec(self.game)


def _leaf_json(leaf: dict[str, Any]) -> dict[str, Any]:
    out = {"value": leaf["value"], "status": leaf["status"], "source": leaf.get("source", "")}
    if leaf.get("user"):
        out["yours"] = True
        out["shipped"] = leaf["shipped"]
    return out


def _status_text(leaf: dict[str, Any]) -> str:
    if leaf.get("user"):
        shipped = leaf["shipped"]
        return f"yours; shipped {json.dumps(shipped['value'], ensure_ascii=False)}, {shipped['status']}"
    if leaf["status"] == "unknown":
        return "unknown: a placeholder the rules do not use until you set it"
    return str(leaf["status"])
