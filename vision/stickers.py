"""The marker stickers: their layout, their pixels, and the printable sheet (``fujikoro vision stickers``).

A sticker is an ArUco marker of ``size_mm`` (S) on white paper with a quiet zone, and below the marker a
strip of three reference patches: paper white, a printed mid grey and printed black. Every length is a
fraction of S, measured from the marker's centre in the sticker's own frame (x right, y down, the patch
strip below the marker). The board reader maps these patches through each detected marker to learn the
light's colour and level at that corner of the board; the renderer draws the same stickers, so both
sides agree by construction rather than by copied numbers.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.template import Template

#: Sticker outline, as fractions of S from the marker centre: x0, y0, x1, y1.
STICKER_BOX = (-0.75, -0.75, 0.75, 1.25)
#: Reference patches (fractions of S): name -> (x0, y0, x1, y1), and their printed sRGB grey level.
PATCHES: dict[str, tuple[float, float, float, float]] = {
    "white": (-0.70, 0.70, -0.25, 1.15),
    "grey": (-0.225, 0.70, 0.225, 1.15),
    "black": (0.25, 0.70, 0.70, 1.15),
}
PATCH_LEVEL = {"white": 255, "grey": 119, "black": 0}
#: Reflectance of plain office paper and of a printed black, as the reader assumes them.
PAPER_REFLECTANCE = 0.85
BLACK_REFLECTANCE = 0.035
#: The marker id the dice tray's sticker carries.
DICE_TRAY_MARKER_ID = 10
DICE_TRAY_MARKER_MM = 16.0


class StickerError(ValueError):
    """A sticker sheet cannot be made (unknown dictionary, unwritable file, unknown format)."""


@dataclass(frozen=True, slots=True)
class StickerSpec:
    marker_id: int
    size_mm: float
    dictionary: str
    label: str


def aruco_dictionary(name: str) -> cv2.aruco.Dictionary:
    code = getattr(cv2.aruco, name, None)
    if code is None:
        raise StickerError(f"OpenCV has no ArUco dictionary {name}")
    return cv2.aruco.getPredefinedDictionary(code)


def marker_bits(dictionary: str, marker_id: int) -> npt.NDArray[np.uint8]:
    """The marker as a small image with one pixel per bit, its black border included (0 black, 255 white)."""
    d = aruco_dictionary(dictionary)
    side = int(d.markerSize) + 2
    return np.asarray(cv2.aruco.generateImageMarker(d, marker_id, side, borderBits=1), dtype=np.uint8)


def patch_box_mm(name: str, size_mm: float) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = PATCHES[name]
    return (x0 * size_mm, y0 * size_mm, x1 * size_mm, y1 * size_mm)


def render_sticker(spec: StickerSpec, px_per_mm: float) -> npt.NDArray[np.uint8]:
    """The sticker as an 8-bit grey image (sRGB levels), its top-left at the sticker's top-left corner."""
    s = spec.size_mm
    bx0, by0, bx1, by1 = (v * s for v in STICKER_BOX)
    w = int(round((bx1 - bx0) * px_per_mm))
    h = int(round((by1 - by0) * px_per_mm))
    img = np.full((h, w), 255, np.uint8)

    def to_px(x: float, y: float) -> tuple[int, int]:
        return int(round((x - bx0) * px_per_mm)), int(round((y - by0) * px_per_mm))

    bits = marker_bits(spec.dictionary, spec.marker_id)
    x0, y0 = to_px(-s / 2, -s / 2)
    x1, y1 = to_px(s / 2, s / 2)
    img[y0:y1, x0:x1] = cv2.resize(bits, (x1 - x0, y1 - y0), interpolation=cv2.INTER_NEAREST)
    for name, level in PATCH_LEVEL.items():
        px0, py0 = to_px(*patch_box_mm(name, s)[:2])
        px1, py1 = to_px(*patch_box_mm(name, s)[2:])
        img[py0:py1, px0:px1] = level
        cv2.rectangle(img, (px0, py0), (px1 - 1, py1 - 1), 150, max(1, int(px_per_mm * 0.2)))
    return img


def template_stickers(template: Template) -> list[StickerSpec]:
    corners = ("top-left", "top-right", "bottom-right", "bottom-left")
    specs = [
        StickerSpec(mid, template.markers.size_mm, template.markers.dictionary,
                    f"{template.name} {corners[i] if i < 4 else ''} (id {mid})")
        for i, mid in enumerate(template.markers.ids)
    ]
    specs.append(StickerSpec(DICE_TRAY_MARKER_ID, DICE_TRAY_MARKER_MM, template.markers.dictionary,
                             f"dice tray (id {DICE_TRAY_MARKER_ID})"))
    return specs


_SHEET_MM = (210.0, 297.0)
_SLOT_MM = (60.0, 70.0)


def _slots(count: int) -> list[tuple[float, float]]:
    cols = 3
    return [(15 + (i % cols) * _SLOT_MM[0], 40 + (i // cols) * _SLOT_MM[1]) for i in range(count)]


def sheet_svg(template: Template) -> str:
    """An A4 sheet of the template's four stickers and the dice-tray sticker, exact size in SVG."""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_SHEET_MM[0]}mm" height="{_SHEET_MM[1]}mm" '
        f'viewBox="0 0 {_SHEET_MM[0]} {_SHEET_MM[1]}">',
        '<rect width="100%" height="100%" fill="white"/>',
        f'<text x="15" y="18" font-family="sans-serif" font-size="5">Fuji Koro stickers: {template.name}</text>',
        '<text x="15" y="26" font-family="sans-serif" font-size="3.2">Print at 100 % (no scaling). '
        'The bar below must measure 50 mm. Stick each marker upright near its board corner, '
        'patches below the marker.</text>',
        '<rect x="15" y="30" width="50" height="2" fill="black"/>',
    ]
    for spec, (sx, sy) in zip(template_stickers(template), _slots(5), strict=True):
        s = spec.size_mm
        bx0, by0, bx1, by1 = (v * s for v in STICKER_BOX)
        cx, cy = sx - bx0, sy - by0
        parts.append(f'<rect x="{sx}" y="{sy}" width="{bx1 - bx0}" height="{by1 - by0}" fill="white" '
                     'stroke="#bbbbbb" stroke-width="0.2" stroke-dasharray="1,1"/>')
        bits = marker_bits(spec.dictionary, spec.marker_id)
        cell = s / bits.shape[0]
        for r in range(bits.shape[0]):
            for c in range(bits.shape[1]):
                if bits[r, c] < 128:
                    parts.append(f'<rect x="{cx - s / 2 + c * cell:.3f}" y="{cy - s / 2 + r * cell:.3f}" '
                                 f'width="{cell + 0.01:.3f}" height="{cell + 0.01:.3f}" fill="black"/>')
        for name, level in PATCH_LEVEL.items():
            x0, y0, x1, y1 = patch_box_mm(name, s)
            parts.append(f'<rect x="{cx + x0:.3f}" y="{cy + y0:.3f}" width="{x1 - x0:.3f}" height="{y1 - y0:.3f}" '
                         f'fill="rgb({level},{level},{level})" stroke="#969696" stroke-width="0.2"/>')
        parts.append(f'<text x="{sx}" y="{sy + by1 - by0 + 5}" font-family="sans-serif" font-size="3">'
                     f'{spec.label}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def sheet_png(template: Template, dpi: int = 300) -> npt.NDArray[np.uint8]:
    ppm = dpi / 25.4
    w, h = int(round(_SHEET_MM[0] * ppm)), int(round(_SHEET_MM[1] * ppm))
    sheet = np.full((h, w), 255, np.uint8)
    cv2.putText(sheet, f"Fuji Koro stickers: {template.name} - print at 100 %, the bar is 50 mm",
                (int(15 * ppm), int(20 * ppm)), cv2.FONT_HERSHEY_SIMPLEX, ppm * 0.12, 0, max(1, int(ppm * 0.2)))
    sheet[int(30 * ppm):int(32 * ppm), int(15 * ppm):int(65 * ppm)] = 0
    for spec, (sx, sy) in zip(template_stickers(template), _slots(5), strict=True):
        img = render_sticker(spec, ppm)
        x, y = int(round(sx * ppm)), int(round(sy * ppm))
        sheet[y:y + img.shape[0], x:x + img.shape[1]] = img
        cv2.rectangle(sheet, (x - 1, y - 1), (x + img.shape[1], y + img.shape[0]), 190, 1)
        cv2.putText(sheet, spec.label, (x, y + img.shape[0] + int(5 * ppm)), cv2.FONT_HERSHEY_SIMPLEX,
                    ppm * 0.09, 0, max(1, int(ppm * 0.15)))
    return sheet


def _png_with_dpi(encoded: bytes, dpi: int) -> bytes:
    """Inserts a pHYs chunk so printers and viewers know the physical size."""
    ppm = int(round(dpi / 0.0254))
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    ihdr_end = 8 + 8 + 13 + 4
    return encoded[:ihdr_end] + chunk + encoded[ihdr_end:]


def write_sheet(template: Template, out: Path, dpi: int = 300) -> None:
    suffix = out.suffix.lower()
    try:
        if suffix == ".svg":
            out.write_text(sheet_svg(template), encoding="utf-8")
        elif suffix == ".png":
            ok, buf = cv2.imencode(".png", sheet_png(template, dpi))
            if not ok:
                raise StickerError("OpenCV could not encode the sticker sheet")
            out.write_bytes(_png_with_dpi(buf.tobytes(), dpi))
        else:
            raise StickerError(f"unknown sheet format {suffix or '(none)'}; use a .svg or .png file name")
    except OSError as error:
        raise StickerError(f"cannot write {out}: {error.strerror or error}") from None
