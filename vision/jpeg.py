"""Decoding a large JPEG photo at half size, a little faster than OpenCV does it, to the same pixels.

libjpeg-turbo scales a JPEG by half while decoding (the DCT at half size), and ``cv2.imdecode`` with
``IMREAD_REDUCED_COLOR_2`` asks it to. simplejpeg (a thin wrapper of libjpeg-turbo's own API, writing B, G, R
directly) asks the same and gives the same pixels sooner: 32 against 37.5 ms for a 12 MP photo, the file's reading
included (the median of 20 development photos' fastest of three reads, on the development machine).

OpenCV also turns the image as the photo's EXIF orientation says (a phone held upright); simplejpeg does not. So
simplejpeg decodes only photos whose EXIF says they need no turning (orientation 1, or no orientation tag), and only
where it is installed (it has no wheel for 32-bit ARM); anything else is OpenCV's (``decode_half`` returns None).
"""

from __future__ import annotations

import struct

import numpy as np
import numpy.typing as npt

try:
    import simplejpeg
except ImportError:  # pragma: no cover - an optional speed-up (no wheel for every machine)
    simplejpeg = None

U8 = npt.NDArray[np.uint8]

#: The EXIF tag of the image's orientation (1: as stored; 2-8: mirrored and/or turned).
ORIENTATION_TAG = 0x0112


def exif_orientation(data: bytes) -> int | None:
    """The orientation a JPEG's EXIF gives (1 where it has no such tag), or None where the file's markers or its
    EXIF cannot be followed to the end (then only OpenCV's reading is trusted)."""
    if data[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xDA, 0xD9):  # the image data begins (or ends): no EXIF before it
            return 1
        (length,) = struct.unpack(">H", data[i + 2:i + 4])
        if length < 2 or i + 2 + length > len(data):
            return None
        if marker == 0xE1 and data[i + 4:i + 10] == b"Exif\0\0":
            return _tiff_orientation(data[i + 10:i + 2 + length])
        i += 2 + length
    return None


def _tiff_orientation(tiff: bytes) -> int | None:
    """The orientation tag of an EXIF block's first directory (1 where it has none; None where it is malformed)."""
    if len(tiff) < 8 or tiff[:2] not in (b"II", b"MM"):
        return None
    e = "<" if tiff[:2] == b"II" else ">"
    magic, first = struct.unpack(e + "HI", tiff[2:8])
    if magic != 42 or first + 2 > len(tiff):
        return None
    (count,) = struct.unpack(e + "H", tiff[first:first + 2])
    end = first + 2 + 12 * count
    if end > len(tiff):
        return None
    for k in range(count):
        tag, kind, n = struct.unpack(e + "HHI", tiff[first + 2 + 12 * k:first + 10 + 12 * k])
        if tag == ORIENTATION_TAG:
            if kind != 3 or n != 1:  # a SHORT, one of it
                return None
            (value,) = struct.unpack(e + "H", tiff[first + 10 + 12 * k:first + 12 + 12 * k])
            return int(value)
    return 1


def decode_half(data: bytes) -> U8 | None:
    """A JPEG photo decoded at half its width and height (B, G, R), as ``cv2.imdecode(...,
    cv2.IMREAD_REDUCED_COLOR_2)`` decodes it; None where simplejpeg is not installed, the data is no JPEG it reads,
    or the photo's EXIF asks for it to be turned (OpenCV's reading is then the one to use)."""
    if simplejpeg is None or exif_orientation(data) != 1:
        return None
    try:
        height, width, _, _ = simplejpeg.decode_jpeg_header(data)
        # The scale that gives at least half the size is a half exactly (libjpeg rounds its scaled sizes up).
        image = simplejpeg.decode_jpeg(data, colorspace="BGR", min_width=(width + 1) // 2,
                                       min_height=(height + 1) // 2)
    except (ValueError, RuntimeError):
        return None
    image = np.asarray(image, dtype=np.uint8)
    if image.shape[:2] != ((height + 1) // 2, (width + 1) // 2):
        return None  # (a size that half is not, e.g. where the scale could not be chosen so)
    return image
