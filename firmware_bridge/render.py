"""Pictures of the LED chain: a dependency-free PNG (zlib + struct) and a terminal rendering.

Layout, one row each: the LEDs of lava number 1, 2, ... (in map order), the countdown bar, the player
LED. Both renderers take the colours a chain shows (a sequence of RGB tuples) and the LED map.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence

from firmware_bridge.ledmap import LedMap

RGB = tuple[int, int, int]
DIM = 32  # below this (brightest channel) an LED reads as "dim" in the plain-text picture


def rows(chain: Sequence[RGB], player: RGB, ledmap: LedMap) -> list[tuple[str, list[RGB]]]:
    """(label, colours) per row of the picture."""
    dark: RGB = (0, 0, 0)

    def at(i: int) -> RGB:
        return chain[i] if i < len(chain) else dark

    out = [(f"lava {n}", [at(i) for i in ledmap.lava[n]]) for n in sorted(ledmap.lava)]
    out.append(("countdown", [at(i) for i in ledmap.countdown]))
    out.append(("player", [player]))
    return out


def png(chain: Sequence[RGB], player: RGB, ledmap: LedMap, *, cell: int = 20, gap: int = 4) -> bytes:
    """A PNG picture: one round-ish dot per LED on a dark board."""
    table = rows(chain, player, ledmap)
    columns = max(len(colours) for _, colours in table)
    width = gap + columns * (cell + gap)
    height = gap + len(table) * (cell + gap)
    background = bytes((24, 20, 20))
    pixels = [bytearray(background * width) for _ in range(height)]
    radius2 = (cell / 2) ** 2
    for r, (_, colours) in enumerate(table):
        for c, (red, green, blue) in enumerate(colours):
            x0, y0 = gap + c * (cell + gap), gap + r * (cell + gap)
            for dy in range(cell):
                for dx in range(cell):
                    if (dx - cell / 2 + 0.5) ** 2 + (dy - cell / 2 + 0.5) ** 2 <= radius2:
                        at = (x0 + dx) * 3
                        pixels[y0 + dy][at:at + 3] = bytes((red, green, blue))
    raw = b"".join(b"\x00" + bytes(line) for line in pixels)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")


def text(chain: Sequence[RGB], player: RGB, ledmap: LedMap, *, colour: bool = True) -> str:
    """The chain as terminal lines: 24-bit colour dots, or '#' lit, '-' dim, '.' dark without colour."""
    lines = []
    for label, colours in rows(chain, player, ledmap):
        if colour:
            dots = "".join(f"\x1b[38;2;{r};{g};{b}m\u25cf\x1b[0m" if (r, g, b) != (0, 0, 0) else "\u00b7"
                           for r, g, b in colours)
        else:
            dots = "".join("#" if max(rgb) >= DIM else "-" if max(rgb) else "." for rgb in colours)
        lines.append(f"{label:>10} {dots}")
    return "\n".join(lines)
