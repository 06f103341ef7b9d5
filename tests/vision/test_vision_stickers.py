"""The printable sticker sheet: exact size, all five markers detectable, bad names refused."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest
from vision_photos import run_cli

from vision.stickers import DICE_TRAY_MARKER_ID, aruco_dictionary


def test_png_sheet_has_every_marker(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "stickers.png"
    code, text, _ = run_cli(["vision", "stickers", "--out", str(out), "--dpi", "150"], capsys)
    assert code == 0 and "print at 100 %" in text
    sheet = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
    assert sheet.shape == (1754, 1240)  # A4 at 150 dpi
    _, ids, _ = cv2.aruco.ArucoDetector(aruco_dictionary("DICT_4X4_50")).detectMarkers(sheet)
    assert sorted(ids.ravel().tolist()) == [0, 1, 2, 3, DICE_TRAY_MARKER_ID]
    assert b"pHYs" in out.read_bytes()[:100]


def test_svg_sheet_is_a4_in_millimetres(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "stickers.svg"
    code, _, _ = run_cli(["vision", "stickers", "--out", str(out)], capsys)
    text = out.read_text(encoding="utf-8")
    assert code == 0 and 'width="210.0mm"' in text and 'height="297.0mm"' in text


def test_unknown_format_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["vision", "stickers", "--out", str(tmp_path / "s.pdf")], capsys)
    assert code == 2 and "use a .svg or .png" in err
