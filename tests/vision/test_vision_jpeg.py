"""vision.jpeg: a photo decoded at half size to exactly OpenCV's pixels, and left to OpenCV where it must turn it."""

from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.jpeg import decode_half, exif_orientation
from vision.reader import load_photo

simplejpeg = pytest.importorskip("simplejpeg")


def _photo(height: int = 1501, width: int = 2001, **params: int) -> tuple[np.ndarray, bytes]:
    rng = np.random.default_rng(3)
    image = cv2.GaussianBlur((rng.random((height, width, 3)) * 255).astype(np.uint8), (9, 9), 3)
    ok, buf = cv2.imencode(".jpg", image, [v for kv in params.items() for v in (getattr(cv2, kv[0]), kv[1])])
    assert ok
    return image, buf.tobytes()


def _with_exif(data: bytes, orientation: int | None, order: bytes = b"MM") -> bytes:
    """The JPEG with an EXIF block (APP1) right after its start, holding this orientation (None: another tag only)."""
    e = ">" if order == b"MM" else "<"
    tag = 0x0112 if orientation is not None else 0x010F  # (0x010F: the camera's maker)
    entry = struct.pack(e + "HHI", tag, 3, 1) + struct.pack(e + "HH", orientation or 0, 0)
    tiff = order + struct.pack(e + "HI", 42, 8) + struct.pack(e + "H", 1) + entry + struct.pack(e + "I", 0)
    app1 = b"Exif\0\0" + tiff
    return data[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + data[2:]


def _opencv(data: bytes) -> np.ndarray:
    return np.asarray(cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_REDUCED_COLOR_2))


@pytest.mark.parametrize("params", [{}, {"IMWRITE_JPEG_PROGRESSIVE": 1},
                                    {"IMWRITE_JPEG_SAMPLING_FACTOR": cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444}])
def test_a_photo_decodes_at_half_size_to_opencvs_own_pixels(params: dict[str, int]) -> None:
    _, data = _photo(**params)  # (an odd size: libjpeg rounds the half up)
    got = decode_half(data)
    assert got is not None and got.shape == (751, 1001, 3)
    assert np.array_equal(got, _opencv(data))


@pytest.mark.parametrize("order", [b"MM", b"II"])
def test_the_exif_orientation_is_read_in_either_byte_order(order: bytes) -> None:
    _, data = _photo(64, 96)
    assert exif_orientation(data) == 1  # no EXIF at all
    assert exif_orientation(_with_exif(data, None, order)) == 1  # EXIF without the tag
    for orientation in (1, 3, 6, 8):
        assert exif_orientation(_with_exif(data, orientation, order)) == orientation


def test_a_photo_to_be_turned_is_left_to_opencv_which_turns_it(tmp_path: Path) -> None:
    # A phone held upright says so in the EXIF (6: turned a quarter clockwise); OpenCV turns the image, and so
    # the photo is OpenCV's to decode.
    _, plain = _photo(1600, 3200)
    upright = _with_exif(plain, 6)
    assert decode_half(upright) is None
    path = tmp_path / "upright.jpg"
    path.write_bytes(upright)
    photo = load_photo(path)
    assert photo.shape == (1600, 800, 3) and np.array_equal(photo, _opencv(upright))
    path.write_bytes(_with_exif(plain, 1))
    assert np.array_equal(load_photo(path), _opencv(plain))


def test_what_is_no_whole_jpeg_is_left_to_opencv() -> None:
    _, data = _photo(64, 96)
    assert decode_half(data[: len(data) // 2]) is None  # cut short
    assert exif_orientation(b"\x89PNG\r\n") is None
    assert decode_half(b"\xff\xd8\xff\xe1\x00\x02") is None
