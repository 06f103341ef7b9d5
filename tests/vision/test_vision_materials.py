"""Materials read by their own light-independent signs where the rules' reference colours leave a cube
unclear (issue 18: readers that generalise beyond the renderer they were tuned on).

Wood is the one material with a hue: a top of any shade of wood, light or dark, pale or saturated, is warm
and clearly coloured, and a hue does not change with how much light falls on it. Metal and tooth are near
grey; a tooth is the light one. These tests build the measured light of a cube's top from a reflectance and
an illuminant, as a camera sees it, and ask the reader's rules with the light it assumes taken as the true
light, a fifth darker and a quarter lighter (``UNFAMILIAR_LIGHT``)."""

from __future__ import annotations

import numpy as np

from vision.colour import lab_to_linear_rgb
from vision.reader import UNFAMILIAR_LIGHT, _Measure, _tooth_by_lightness, _wood_by_hue

PALE_GREEN_PRINT = np.array([86.0, -18.0, 22.0])  # a coloured grid print (CIE Lab), neither wood nor white
WARM_LIGHT = np.array([1.0, 0.86, 0.66], dtype=np.float32)  # a 3000 K lamp, linear RGB
OCCUPIED = {"e_top": 20.0, "r_top": 1.0}


def _seen(top_lab: tuple[float, float, float], print_lab: np.ndarray, light: np.ndarray = WARM_LIGHT,
          level: float = 0.6) -> tuple[_Measure, list[np.ndarray], np.ndarray, np.ndarray]:
    """The cube's top as measured under ``light``, the print's light as the reader assumes it (true, darker,
    lighter), and the print's Lab and linear RGB."""
    board_rgb = lab_to_linear_rgb(print_lab).astype(np.float32)
    top = (lab_to_linear_rgb(np.array(top_lab)) * light * level).astype(np.float32)
    ref = (board_rgb * light * level).astype(np.float32)
    return _Measure(None, top, 0.0), [ref * k for k in (1.0, *UNFAMILIAR_LIGHT)], print_lab, board_rgb


def test_any_shade_of_wood_is_wood_by_its_hue() -> None:
    # Beech, pine, a reddish stain and a dark oiled wood: none is the rules' reference wood (66, 11, 34).
    for wood in ((75.0, 8.0, 28.0), (80.0, 4.0, 22.0), (62.0, 16.0, 26.0), (55.0, 10.0, 30.0)):
        measure, refs, print_lab, board_rgb = _seen(wood, PALE_GREEN_PRINT)
        assert _wood_by_hue(measure, refs, print_lab, board_rgb, OCCUPIED), wood


def test_grey_or_white_tops_and_wood_coloured_prints_are_not_wood_by_hue() -> None:
    for other in ((69.0, 0.5, -6.0), (93.0, 0.0, 5.0), (57.0, 0.0, -2.0)):  # metal, tooth, metal
        measure, refs, print_lab, board_rgb = _seen(other, PALE_GREEN_PRINT)
        assert not _wood_by_hue(measure, refs, print_lab, board_rgb, OCCUPIED), other
    # On a print of wood's own hue, hue cannot tell a wood cube from the print: not decided this way.
    measure, refs, print_lab, board_rgb = _seen((70.0, 9.0, 30.0), np.array([84.0, 4.0, 24.0]))
    assert not _wood_by_hue(measure, refs, print_lab, board_rgb, OCCUPIED)
    # A cell the rules did not find clearly unlike the print is not a cube to name.
    measure, refs, print_lab, board_rgb = _seen((70.0, 9.0, 30.0), PALE_GREEN_PRINT)
    assert not _wood_by_hue(measure, refs, print_lab, board_rgb, {"e_top": 3.0})


def test_a_tooth_on_a_coloured_print_is_a_tooth_but_metal_never_is() -> None:
    measure, refs, print_lab, board_rgb = _seen((93.0, 0.0, 4.0), PALE_GREEN_PRINT)
    assert _tooth_by_lightness(measure, refs, print_lab, board_rgb, OCCUPIED)
    # The lightest metal cube, seen in light a quarter brighter than assumed, is still too dark for a tooth.
    measure, refs, print_lab, board_rgb = _seen((76.0, 0.0, -4.0), PALE_GREEN_PRINT)
    assert not _tooth_by_lightness(measure, refs, print_lab, board_rgb, OCCUPIED)
    # Darker than the print beside it: possibly a shadow on a pale patch, not read as a tooth this way.
    measure, refs, print_lab, board_rgb = _seen((93.0, 0.0, 4.0), PALE_GREEN_PRINT)
    assert not _tooth_by_lightness(measure, refs, print_lab, board_rgb, {"e_top": 20.0, "r_top": 0.8})
    # On a white print a tooth's light is the print's: never decided by lightness.
    measure, refs, print_lab, board_rgb = _seen((93.0, 0.0, 4.0), np.array([92.0, 0.0, 3.0]))
    assert not _tooth_by_lightness(measure, refs, print_lab, board_rgb, OCCUPIED)


def test_a_tooth_in_warm_light_beside_print_in_cool_light_is_not_wood() -> None:
    # Mixed light: the cube's top is lit by a warm lamp, the print beside it mostly by a cool window. Against
    # that print's light a white tooth looks warm, as wood does; against the light's colour the stickers' white
    # patches give, it is grey. The hue must hold against both estimates of the light's colour.
    from vision.reader import _LUMA

    cool = np.array([0.78, 0.9, 1.0], dtype=np.float32)
    measure, _, print_lab, board_rgb = _seen((93.0, 0.0, 4.0), PALE_GREEN_PRINT, light=WARM_LIGHT)
    local = (board_rgb * cool * 0.6).astype(np.float32)
    beside = [local * k for k in (1.0, *UNFAMILIAR_LIGHT)]
    assert _wood_by_hue(measure, beside, print_lab, board_rgb, OCCUPIED)  # the print beside it alone misleads
    sticker = (board_rgb * WARM_LIGHT).astype(np.float32)
    sticker *= float(local @ _LUMA) / float(sticker @ _LUMA)
    assert not _wood_by_hue(measure, [*beside, sticker], print_lab, board_rgb, OCCUPIED)
    # Real wood keeps its hue against either light.
    wood, _, _, _ = _seen((70.0, 9.0, 30.0), PALE_GREEN_PRINT, light=WARM_LIGHT)
    assert _wood_by_hue(wood, [*[(board_rgb * WARM_LIGHT * 0.6).astype(np.float32) * k
                                 for k in (1.0, *UNFAMILIAR_LIGHT)], sticker], print_lab, board_rgb, OCCUPIED)
