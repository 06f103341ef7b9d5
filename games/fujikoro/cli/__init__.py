"""Fuji Koro's command-line verbs: ``fujikoro game|combat|gear|odds|data|demo|read-board|read-dice|vision``.

Each module here that defines ``register(subparsers)`` adds one verb; :func:`register` adds them all
(``GameModule.cli``). The ``fujikoro`` command puts them at its top level, as it always has;
``table-companion fujikoro ...`` reaches the same verbs.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any


def register(subparsers: Any) -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        add = getattr(module, "register", None)
        if add is not None:
            add(subparsers)
