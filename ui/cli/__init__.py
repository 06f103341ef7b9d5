"""The ``fujikoro`` command line.

Each module in this package that defines ``register(subparsers)`` adds one top-level subcommand; the
module owns its arguments and its handler. Handlers return an exit code and report bad input with
:class:`CliError` (one sentence, exit 2) instead of letting a traceback reach the user.
"""

from __future__ import annotations


class CliError(Exception):
    """Bad input from the user: printed as one line on stderr, exit status 2."""
