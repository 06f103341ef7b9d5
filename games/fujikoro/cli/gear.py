"""``fujikoro gear inspect [FILE|-]``: one gear JSON object in, its report as one JSON object out."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ui.cli import CliError, read_json_input


def register(subparsers: Any) -> None:
    gear = subparsers.add_parser("gear", help="check a player board's gear")
    sub = gear.add_subparsers(dest="gear_command", metavar="ACTION", required=True)
    inspect = sub.add_parser(
        "inspect",
        help="legality, strength, weapons, initiative and matching cards of one board",
        description="Reads one JSON object (the board's grids as rows of W, M, T and .) and prints one JSON report.",
    )
    inspect.add_argument("file", nargs="?", default="-", help="a JSON file, or - for standard input (default)")
    inspect.set_defaults(handler=run_inspect)


def run_inspect(args: argparse.Namespace) -> int:
    from games.fujikoro.cli.data import current_pack
    from games.fujikoro.gear import GearError, gear_from_json, inspect
    from games.fujikoro.pack import DataPackError

    data = read_json_input(args.file)
    try:
        pack = current_pack()
        report = inspect(gear_from_json(data, pack), pack)
    except (GearError, DataPackError) as error:
        raise CliError(str(error)) from None
    json.dump(report.to_json(), sys.stdout)
    sys.stdout.write("\n")
    return 0
