"""LED states written as text: ``0=801800 5-9=ff3000 bar=3:ff8c00:101010 player=0040ff``.

The language of ``fujikoro bridge monitor --send-leds`` (hardware_docs/emulator.md). Items apply left to
right, a later one overriding an earlier one, on top of a starting state. Colours are six hex digits
``RRGGBB`` and go to the device exactly as written (the LED map's brightness is not applied).
``format_state`` writes a state in the same language, one item per LED.
"""

from __future__ import annotations

import re

from firmware_bridge.ledmap import LedMap
from firmware_bridge.view import LedState

ITEMS = "INDEX=RRGGBB, FIRST-LAST=RRGGBB, all=RRGGBB, bar=LIT_COUNT:RRGGBB:RRGGBB or player=RRGGBB"
_COLOUR = "([0-9a-fA-F]{6})"
_RANGE = re.compile(r"([0-9]+)(?:-([0-9]+))?=" + _COLOUR)
_ALL = re.compile(r"all=" + _COLOUR)
_PLAYER = re.compile(r"player=" + _COLOUR)
_BAR = re.compile(r"bar=([0-9]+):" + _COLOUR + ":" + _COLOUR)


class LedSpecError(ValueError):
    """A state text that is not in the language, or names LEDs the map does not have."""


def dark(ledmap: LedMap) -> LedState:
    """Every LED of the chain and the player LED off."""
    return LedState(bytes(ledmap.chain_length * 3), bytes(3))


def parse(spec: str, ledmap: LedMap, start: LedState | None = None) -> LedState:
    """``start`` (all dark if None) with the items of ``spec`` applied left to right."""
    base = start if start is not None else dark(ledmap)
    chain = bytearray(base.chain)
    player = bytes(base.player)
    n = ledmap.chain_length
    items = spec.replace(",", " ").split()
    if not items:
        raise LedSpecError(f"an LED state needs at least one item: {ITEMS}")
    for item in items:
        if match := _RANGE.fullmatch(item):
            first = int(match.group(1))
            last = int(match.group(2)) if match.group(2) is not None else first
            if last < first:
                raise LedSpecError(f"{item!r}: the range runs backwards")
            if last >= n:
                raise LedSpecError(f"{item!r}: LED {last} is past the chain (the LED map has {n} LEDs, 0..{n - 1})")
            chain[first * 3:(last + 1) * 3] = bytes.fromhex(match.group(3)) * (last + 1 - first)
        elif match := _ALL.fullmatch(item):
            chain[:] = bytes.fromhex(match.group(1)) * n
        elif match := _PLAYER.fullmatch(item):
            player = bytes.fromhex(match.group(1))
        elif match := _BAR.fullmatch(item):
            lit_count = int(match.group(1))
            bar = ledmap.countdown
            if lit_count > len(bar):
                raise LedSpecError(f"{item!r}: the countdown bar has {len(bar)} LEDs")
            lit, unlit = bytes.fromhex(match.group(2)), bytes.fromhex(match.group(3))
            for i, index in enumerate(bar):
                chain[index * 3:index * 3 + 3] = lit if i < lit_count else unlit
        else:
            raise LedSpecError(f"{item!r} is not an LED item; use {ITEMS}")
    return LedState(bytes(chain), player)


def format_state(state: LedState) -> str:
    """``player=RRGGBB 0=RRGGBB 1=RRGGBB ...``: every LED, in the language :func:`parse` reads."""
    leds = " ".join(f"{i}={state.chain[i * 3:i * 3 + 3].hex()}" for i in range(len(state.chain) // 3))
    return f"player={state.player.hex()} {leds}"
