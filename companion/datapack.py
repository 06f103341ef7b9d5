"""Data-pack machinery any game uses: values that say how sure we are of them, and a group's corrections.

A game's data pack is TOML whose leaves are ``{value, status, source}`` tables. The status says whether a
number is *confirmed* by the rulebook, *derived* from it, or *assumed* (a guess the group should check).
A group's corrections are a flat mapping of dotted keys to values (``{"dragons.green_2.health": 11}``)
layered on top of the shipped pack; the game's own module turns the merged pack into typed values.
Errors name the field path and the bad value.
"""

from __future__ import annotations

import copy
import enum
import json
import tomllib
from collections.abc import Iterator, Mapping
from importlib import resources
from typing import Any


class DataPackError(ValueError):
    """The pack or an override is malformed; the message names the field path and the bad value."""


class Status(enum.StrEnum):
    CONFIRMED = "confirmed"
    DERIVED = "derived"
    ASSUMED = "assumed"
    UNKNOWN = "unknown"


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
    """Every value of the pack as (dotted key, {value, status, source}), in file order."""
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
    """A copy of the pack with each override's value set; marks the leaf ``user`` with the shipped value."""
    merged = copy.deepcopy(dict(raw))
    for key, value in overrides.items():
        node = find(merged, key)
        if not is_leaf(node):
            raise DataPackError(f"{key}: only single values can be corrected, not a whole section")
        node["shipped"] = {"value": node["value"], "status": node["status"]}
        node["value"] = value
        node["user"] = True
    return merged


def parse_value(text: str) -> Any:
    """A value typed on the command line: JSON if it parses (numbers, lists, true), else the text."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def check_int(path: str, value: Any, minimum: int | None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DataPackError(f"{path}: expected a whole number, got {value!r}")
    if minimum is not None and value < minimum:
        raise DataPackError(f"{path}: must be at least {minimum}, got {value!r}")
    return value
