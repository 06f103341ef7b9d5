"""Data-pack machinery any game uses: every value knows how sure we are of it.

A data pack (any game's) is TOML whose leaves are tables ``{ value = ..., status = ..., source = ... }``.
This module is the game-neutral machinery: the status words, walking the leaves, a group's corrections
layered on top (a flat mapping of dotted keys to values), and a reader that names the dotted path in
every error. A game's pack module (``games/<name>/pack.py``) turns the checked raw pack into its own typed
model.

Status words:

* ``confirmed`` - stated in a rulebook (``source`` says where);
* ``derived`` - follows from stated rules by counting or logic;
* ``assumed`` - our default where the rules are silent; shipped editable and shown as such;
* ``unknown`` - printed only on the board or cards we do not have: the shipped value is a placeholder that
  the rules never use (:meth:`Reader.known` gives ``None``) until the group enters its own value.

A value the group corrected is ``corrected`` whatever its shipped status was.
"""

from __future__ import annotations

import copy
import enum
import json
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any


class DataPackError(ValueError):
    """The pack or a correction is malformed; the message is one sentence naming the field."""


@dataclass(frozen=True, slots=True)
class PackSpec:
    """A game's data pack as the shared data verbs meet it (``GameModule.data_pack``; ``data show|set|reset|
    validate``). Each function raises :class:`DataPackError` in one sentence; a checked pack has ``raw`` (the
    leaves, a group's corrections marked) and ``version``.

    ``load`` is the one place a game says which corrections it takes: the shipped pack with a group's
    corrections, checked, refusing a correction of a value the game keeps locked (Shogun's supply-table rows
    the rulebook gives). ``parse`` checks a whole pack (a file); ``summary`` says a checked pack in a few words
    ("12 dragons, 3 boards"; by default how many values have each status)."""

    shipped_raw: Callable[[], dict[str, Any]]
    load: Callable[[Mapping[str, Any]], Any]
    parse: Callable[[Mapping[str, Any]], Any]
    summary: Callable[[Any], str] | None = None

    def describe(self, pack: Any) -> str:
        if self.summary is not None:
            return self.summary(pack)
        return ", ".join(f"{n} {status}" for status, n in status_counts(pack.raw).items())

    @property
    def meta_game(self) -> str:
        """The game the shipped pack says it is for (its ``meta.game``), "" when it does not say."""
        meta = self.shipped_raw().get("meta")
        return str(meta.get("game", "")) if isinstance(meta, dict) else ""


class Status(enum.StrEnum):
    CONFIRMED = "confirmed"
    DERIVED = "derived"
    ASSUMED = "assumed"
    UNKNOWN = "unknown"
    #: Entered by the group from its own box (an override); not a status the shipped file uses.
    CORRECTED = "corrected"


SHIPPED_STATUSES = frozenset({Status.CONFIRMED, Status.DERIVED, Status.ASSUMED, Status.UNKNOWN})


def read_toml_resource(package: str, resource: str, *, origin: str) -> dict[str, Any]:
    """A pack shipped inside a package (read from the installed package, never written)."""
    text = resources.files(package).joinpath(resource).read_text(encoding="utf-8")
    return parse_toml(text, origin=origin)


def parse_toml(text: str, *, origin: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise DataPackError(f"{origin} is not valid TOML: {error}") from None


def is_leaf(node: object) -> bool:
    return isinstance(node, dict) and "value" in node and "status" in node


def iter_leaves(raw: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every value of a pack as (dotted key, leaf table), in file order."""
    for key, node in raw.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if is_leaf(node):
            yield path, node
        elif isinstance(node, dict):
            yield from iter_leaves(node, path)


def find(raw: Mapping[str, Any], key: str) -> Any:
    """The node at a dotted key: a leaf, or a section of leaves."""
    node: Any = raw
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            raise DataPackError(f"no such key {key!r} in the data pack")
        node = node[part]
    return node


def apply_overrides(raw: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of the pack with each correction set; the leaf keeps what was shipped under ``shipped``."""
    merged = copy.deepcopy(dict(raw))
    for key, value in overrides.items():
        node = find(merged, key)
        if not is_leaf(node):
            raise DataPackError(f"{key}: only single values can be corrected, not a whole section")
        node["shipped"] = {"value": node["value"], "status": node["status"]}
        node["value"] = value
        node["user"] = True
    return merged


def leaf_status(node: Mapping[str, Any]) -> Status:
    """The status of a leaf as the rules see it (a group's correction makes it ``corrected``)."""
    if node.get("user"):
        return Status.CORRECTED
    return Status(node["status"])


def status_counts(raw: Mapping[str, Any]) -> dict[str, int]:
    """How many values of each status a pack holds (for "what to check first")."""
    counts: dict[str, int] = {}
    for _, node in iter_leaves(raw):
        status = leaf_status(node).value
        counts[status] = counts.get(status, 0) + 1
    return counts


def parse_value(text: str) -> Any:
    """A value typed on a command line: JSON if it parses (numbers, lists, true), else the text."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


class Reader:
    """Typed values out of a raw pack; every error names the dotted path and the bad value.

    ``statuses``: the statuses this game's shipped pack may use (a game without unknown values leaves
    ``unknown`` out, so a placeholder can never slip into its rules)."""

    def __init__(self, raw: Mapping[str, Any], statuses: frozenset[Status] = SHIPPED_STATUSES) -> None:
        self.raw = raw
        self.statuses = statuses

    def section(self, path: str) -> dict[str, Any]:
        node: Any = self.raw
        for part in path.split("."):
            if not isinstance(node, dict) or part not in node:
                raise DataPackError(f"{path}: the section is missing")
            node = node[part]
        if not isinstance(node, dict) or is_leaf(node):
            raise DataPackError(f"{path}: expected a section of values")
        return node

    def node(self, path: str) -> dict[str, Any]:
        parent, _, name = path.rpartition(".")
        section = self.section(parent) if parent else dict(self.raw)
        if name not in section:
            raise DataPackError(f"{path}: the value is missing")
        node = section[name]
        if not is_leaf(node):
            raise DataPackError(f"{path}: expected {{ value = ..., status = ... }}, got {node!r}")
        status = node["status"]
        allowed = [s.value for s in Status if s in self.statuses]
        if status not in allowed:
            words = ", ".join(allowed[:-1]) + f" or {allowed[-1]}"
            raise DataPackError(f"{path}.status: must be {words}, got {status!r}")
        return dict(node)

    def has(self, path: str) -> bool:
        """Whether the pack holds a value at ``path`` (for values a pack may leave out)."""
        parent, _, name = path.rpartition(".")
        return name in (self.section(parent) if parent else self.raw)

    def status(self, path: str) -> Status:
        return leaf_status(self.node(path))

    def leaf(self, path: str) -> Any:
        return self.node(path)["value"]

    def integer(self, path: str, *, minimum: int | None = 0, maximum: int | None = None) -> int:
        return check_int(path, self.leaf(path), minimum, maximum)

    def number(self, path: str, *, low: float, high: float) -> float:
        value = self.leaf(path)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise DataPackError(f"{path}: expected a number, got {value!r}")
        if not low <= value <= high:
            raise DataPackError(f"{path}: must lie between {low} and {high}, got {value!r}")
        return float(value)

    def boolean(self, path: str) -> bool:
        value = self.leaf(path)
        if not isinstance(value, bool):
            raise DataPackError(f"{path}: expected true or false, got {value!r}")
        return value

    def text(self, path: str, choices: tuple[str, ...] | None = None) -> str:
        value = self.leaf(path)
        if not isinstance(value, str) or not value:
            raise DataPackError(f"{path}: expected text, got {value!r}")
        if choices is not None and value not in choices:
            raise DataPackError(f"{path}: expected one of {', '.join(choices)}, got {value!r}")
        return value

    def text_list(self, path: str) -> tuple[str, ...]:
        value = self.leaf(path)
        if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
            raise DataPackError(f"{path}: expected a list of names, got {value!r}")
        return tuple(value)

    def int_list(self, path: str, *, minimum: int | None = 0) -> tuple[int, ...]:
        value = self.leaf(path)
        if not isinstance(value, list):
            raise DataPackError(f"{path}: expected a list of whole numbers, got {value!r}")
        return tuple(check_int(f"{path}[{i}]", item, minimum, None) for i, item in enumerate(value))

    def known_integer(self, path: str, *, minimum: int | None = 0) -> int | None:
        """The value, or None when the pack marks it unknown (a placeholder the rules must not use)."""
        if self.status(path) is Status.UNKNOWN:
            return None
        return self.integer(path, minimum=minimum)


def check_int(path: str, value: Any, minimum: int | None = 0, maximum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DataPackError(f"{path}: expected a whole number, got {value!r}")
    if minimum is not None and value < minimum:
        raise DataPackError(f"{path}: must be at least {minimum}, got {value!r}")
    if maximum is not None and value > maximum:
        raise DataPackError(f"{path}: must be at most {maximum}, got {value!r}")
    return value
