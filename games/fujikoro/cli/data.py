"""``fujikoro data show|set|reset|validate``: see and correct the game-data pack.

Corrections go to the group's override file (see :mod:`store.overrides`); the shipped pack is never
edited. Every change is validated against the whole pack before it is saved, so a typo cannot break
the app: it is refused with the field path and the bad value.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from games.fujikoro.rules import GAME_NAME
from ui.cli import CliError


def register(subparsers: Any) -> None:
    data = subparsers.add_parser("data", help="show and correct the game data (dragons, dice, countdown ...)")
    sub = data.add_subparsers(dest="data_command", metavar="ACTION", required=True)
    show = sub.add_parser("show", help="list values with their status (confirmed, derived, assumed)")
    show.add_argument("key", nargs="?", default="", help="a dotted key or section, e.g. dragons.green_1")
    show.add_argument("--assumed", action="store_true", help="only values marked assumed")
    show.add_argument("--json", action="store_true", help="print JSON instead of text")
    show.set_defaults(handler=run_show)
    set_ = sub.add_parser("set", help="correct one value for your group")
    set_.add_argument("key", help="a dotted key, e.g. dragons.green_2.health")
    set_.add_argument("value", help="the new value (JSON: 11, [2,2,1,1,0,\"0b\"], true, or text)")
    set_.set_defaults(handler=run_set)
    reset = sub.add_parser("reset", help="go back to the shipped value")
    reset.add_argument("key", nargs="?", help="a dotted key or section (all corrections beneath it)")
    reset.add_argument("--all", action="store_true", help="drop every correction")
    reset.set_defaults(handler=run_reset)
    validate = sub.add_parser("validate", help="check a data-pack file or a corrections file")
    validate.add_argument("file")
    validate.set_defaults(handler=run_validate)


def current_pack() -> Any:
    """The shipped pack with the group's corrections; a broken corrections file is a clear error."""
    from games.fujikoro.pack import DataPackError, load
    from store.overrides import overrides_path, read_overrides

    overrides = read_overrides(GAME_NAME)
    try:
        return load(overrides)
    except DataPackError as error:
        raise CliError(f"your corrections in {overrides_path(GAME_NAME)} do not fit the data pack ({error}); "
                       "undo them with `fujikoro data reset KEY`") from None


def run_show(args: argparse.Namespace) -> int:
    from games.fujikoro.pack import DataPackError, find, is_leaf, iter_leaves

    pack = current_pack()
    try:
        node = find(pack.raw, args.key) if args.key else pack.raw
    except DataPackError as error:
        raise CliError(str(error)) from None
    if is_leaf(node):
        rows = [(args.key, node)]
    else:
        rows = list(iter_leaves(node, args.key))
    if args.assumed:
        rows = [(k, v) for k, v in rows if v["status"] == "assumed" and not v.get("user")]
    if args.json:
        json.dump({k: _leaf_json(v) for k, v in rows}, sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
        return 0
    for key, leaf in rows:
        print(f"{key} = {json.dumps(leaf['value'], ensure_ascii=False)}  [{_status_text(leaf)}]")
    if not args.assumed:
        assumed = sum(1 for _, v in rows if v["status"] == "assumed" and not v.get("user"))
        if assumed:
            print(f"-- {assumed} assumed value(s): check them against your copy "
                  "(`fujikoro data show --assumed`, then `fujikoro data set KEY VALUE`)")
    return 0


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
    return leaf["status"]


def run_set(args: argparse.Namespace) -> int:
    from games.fujikoro.pack import (
        DataPackError,
        apply_overrides,
        find,
        is_leaf,
        parse,
        parse_value,
        shipped_raw,
    )
    from store.overrides import read_overrides, write_overrides

    raw = shipped_raw()
    try:
        node = find(raw, args.key)
    except DataPackError as error:
        raise CliError(f"{error}; see `fujikoro data show` for the keys") from None
    if not is_leaf(node):
        raise CliError(f"{args.key} is a section; name one value inside it, e.g. {args.key}.{next(iter(node))}")
    value = parse_value(args.value)
    overrides = read_overrides(GAME_NAME)
    overrides[args.key] = value
    try:
        parse(apply_overrides(raw, overrides))
    except DataPackError as error:
        raise CliError(f"not saved: {error}") from None
    path = write_overrides(GAME_NAME, overrides)
    print(f"{args.key} = {json.dumps(value, ensure_ascii=False)} (yours; shipped "
          f"{json.dumps(node['value'], ensure_ascii=False)}, {node['status']}) saved in {path}")
    return 0


def run_reset(args: argparse.Namespace) -> int:
    from store.overrides import read_overrides, write_overrides

    overrides = read_overrides(GAME_NAME)
    if args.all:
        dropped = list(overrides)
    elif args.key:
        dropped = [k for k in overrides if k == args.key or k.startswith(args.key + ".")]
    else:
        raise CliError("name the key to reset, or --all")
    if not dropped:
        print(f"no corrections under {args.key}: the shipped values are in use")
        return 0
    for key in dropped:
        del overrides[key]
    write_overrides(GAME_NAME, overrides)
    for key in dropped:
        print(f"{key}: back to the shipped value")
    return 0


def run_validate(args: argparse.Namespace) -> int:
    from games.fujikoro.pack import DataPackError, apply_overrides, parse, parse_toml, shipped_raw

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
            pack = parse(apply_overrides(shipped_raw(), raw["values"]))
            print(f"{path}: {len(raw['values'])} correction(s), valid on data pack {pack.version}")
        else:
            pack = parse(raw)
            print(f"{path}: valid data pack {pack.version} ({len(pack.dragons)} dragons, {len(pack.boards)} boards)")
    except DataPackError as error:
        raise CliError(f"{path}: {error}") from None
    return 0
