"""The ``fujikoro`` command line.

Each module in this package that defines ``register(subparsers)`` adds one top-level subcommand; the
module owns its arguments and its handler. Handlers return an exit code and report bad input with
:class:`CliError` (one sentence, exit 2) instead of letting a traceback reach the user.
"""

from __future__ import annotations

import json
import sys
from typing import Any


class CliError(Exception):
    """Bad input from the user: printed as one line on stderr, exit status 2."""


def read_json_input(name: str) -> Any:
    """One JSON value from a file or stdin, with a one-line error for every way it can go wrong."""
    try:
        if name == "-":
            text = sys.stdin.read()
        else:
            with open(name, encoding="utf-8") as handle:
                text = handle.read()
    except OSError as error:
        raise CliError(f"cannot read {name}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise CliError(f"{'standard input' if name == '-' else name} is not UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise CliError(f"not JSON: {error.msg} at line {error.lineno} column {error.colno}") from None
    except RecursionError:
        raise CliError("not JSON this app can read: nested too deeply") from None
