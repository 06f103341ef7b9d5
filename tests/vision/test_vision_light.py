"""The board reader where the light is the hard part: print in the cubes' own shadows around a grid, a
neighbour's shadow on a cell's footprint, and mixed light turning print pale (which must stay '?').
These test the rules alone (no cell network: see test_vision_cellnet.py).

The photos are full-size (12 MP) renders of the benchmark's own recipe (vision.synth, ordinary conditions,
seed 2026), written as JPEG and decoded as the benchmark and the app do; the old reader left the named
cells '?'."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
import pytest
from vision_photos import benchmark_photo

from vision.colour import lab_to_linear_rgb
from vision.markers import Pose
from vision.reader import (
    _LUMA,
    CUBE_LAB,
    DEFAULT_BOARD_LAB,
    EDGE_SPOT_LONG,
    EDGE_SPOT_MM,
    WHITE_TOP_FILL,
    BoardReading,
    Cell,
    GlareSpot,
    _band_unshaded,
    _BandSample,
    _beyond_umbra,
    _classify,
    _classify_over_light,
    _edges_covered,
    _grid_box,
    _local_reference,
    _local_references,
    _local_shadow_sides,
    _Measure,
    _on_shadow_line,
    _Rectified,
    _spots_glare,
    _white_top,
    load_photo,
    read_board,
)
from vision.synth import Conditions, render_board
from vision.template import GEAR_GRIDS, load_template


def _benchmark_photo(tmp_path: Path, index: int, seed: int = 2026) -> tuple[BoardReading, dict[str, Any]]:
    """Photo ``index`` of the benchmark's ordinary set for ``seed``, rendered, saved and read back."""
    path, truth = benchmark_photo(tmp_path, index, seed)
    return read_board(load_photo(path), load_template(), net=False), truth


def _confident_errors(reading: BoardReading, truth: dict[str, Any]) -> list[str]:
    return [f"{c.grid}[{c.row}][{c.col}] is {truth[c.grid][c.row][c.col]}, read {c.label}"
            for c in reading.cells if c.label != "?" and c.label != truth[c.grid][c.row][c.col]]


def _label(reading: BoardReading, grid: str, row: int, col: int) -> str:
    return reading.grids[grid][row][col]


def test_cubes_beside_a_shadowed_band_are_read_against_the_lit_print(tmp_path: Path) -> None:
    # One lamp low over the top edge: the cubes of the top rows shade the whole band of print above the
    # grids, so against that print their tops look far too bright. Their tops stand above any cube's
    # shadow: read against the lit print (and everything in between), the material is the same.
    reading, truth = _benchmark_photo(tmp_path, 14)
    assert _confident_errors(reading, truth) == []
    for grid, row, col in [("helmet", 0, 1), ("helmet", 0, 2), ("weapon_left", 0, 2), ("weapon_left", 0, 3),
                           ("weapon_left", 0, 4)]:
        assert _label(reading, grid, row, col) == truth[grid][row][col], (grid, row, col)


def test_a_footprint_in_a_neighbours_shadow_under_lit_print_is_empty(tmp_path: Path) -> None:
    # A warm lamp and a cool window: next to each cube the footprint of the empty cell lies in the cube's
    # warm shadow while the place a cube's top would take shows lit print.
    reading, truth = _benchmark_photo(tmp_path, 155)
    assert _confident_errors(reading, truth) == []
    for grid, row, col in [("helmet", 1, 2), ("helmet", 2, 0), ("weapon_left", 0, 1), ("weapon_left", 0, 4),
                           ("weapon_left", 1, 1), ("weapon_left", 2, 1)]:
        assert truth[grid][row][col] == "."
        assert _label(reading, grid, row, col) == ".", (grid, row, col)


def test_print_turned_pale_by_mixed_light_is_never_called_a_tooth(tmp_path: Path) -> None:
    # The lamp's light falls off across the helmet faster than the window's: two empty cells look as pale
    # and as bright as a tooth against the print's reference nearby. They must stay '?', not become T.
    reading, truth = _benchmark_photo(tmp_path, 30)
    assert _confident_errors(reading, truth) == []
    for grid, row, col in [("helmet", 1, 2), ("helmet", 1, 3)]:
        assert truth[grid][row][col] == "."
        assert _label(reading, grid, row, col) == "?", (grid, row, col)
    assert reading.retake is not None and "uncertain cells" in reading.retake


def test_a_tooth_clipped_by_bright_light_is_read_not_called_glare(tmp_path: Path) -> None:
    # Bright light clips the top of the tooth at helmet[2][2] to white. It is a square the size of a cube's
    # top where one stands, with no halo around it: the cells around it are read, not refused as glare.
    reading, truth = _benchmark_photo(tmp_path, 57)
    assert _confident_errors(reading, truth) == []
    assert not any(c.reason == "glare" for c in reading.cells)
    assert reading.grids["helmet"] == tuple(truth["helmet"])


def test_only_a_cube_sized_square_where_a_top_stands_may_be_a_clipped_tooth() -> None:
    template = load_template()
    pose = Pose(focal_px=1700.0, centre_mm=(140.0, 90.0), height_mm=400.0, focal_estimated=False)
    x, y = template.grids["helmet"].cell_centre(1, 1)
    dx, dy = pose.top_shift(x, y, template.cube_mm)

    def spot(at_x: float, sides: tuple[float, float], fill: float) -> GlareSpot:
        return GlareSpot(at_x, y + dy, 4.5, sides, fill, min(sides))

    assert _white_top(template, pose, spot(x + dx, (7.9, 8.2), 0.95))
    assert not _white_top(template, pose, spot(x + dx, (7.9, 8.2), 0.79))  # a disc: a glare spot
    assert not _white_top(template, pose, spot(x + dx, (13.0, 14.0), 0.95))  # larger than a cube
    assert not _white_top(template, pose, spot(x + 6.0, (7.9, 8.2), 0.95))  # on a grid line, not a top


def _clipped_board(draw: Callable[[npt.NDArray[np.uint8]], None]) -> list[GlareSpot]:
    """The clipped spots of a mid-grey board, 5 px a mm, with ``draw`` painting white on it."""
    image = np.full((600, 800, 3), 120, np.uint8)
    draw(image)
    return _Rectified(image, np.diag([5.0, 5.0, 1.0]), (0.0, 0.0, 160.0, 120.0), 5.0).glare_spots()


def test_a_clipped_square_is_a_square_at_any_angle_and_a_disc_is_not() -> None:
    # The second renderer's cubes stand turned by a few degrees, as on a real table: a clipped top turned by
    # 20 degrees fills only 61 % of the upright box around it, but nearly all of the smallest box at its angle.
    for angle in (0.0, 20.0, 45.0):
        corners = cv2.boxPoints(((400.0, 300.0), (40.0, 40.0), angle)).astype(np.int32)
        (spot,) = _clipped_board(lambda im, c=corners: cv2.fillConvexPoly(im, c, (255, 255, 255)))
        assert 7.6 <= spot.sides[0] <= spot.sides[1] <= 8.6, (angle, spot)
        assert spot.fill >= WHITE_TOP_FILL, (angle, spot)
    (disc,) = _clipped_board(lambda im: cv2.circle(im, (400, 300), 20, (255, 255, 255), -1))
    assert disc.fill < WHITE_TOP_FILL


def test_a_cube_edge_catching_the_light_is_a_thin_line_not_a_highlight() -> None:
    # Development seed 509, photo 40 (second renderer): cube edges clipped in lines 0.2-0.6 mm wide and up to 54 mm
    # long each left every cell within a cell and a half of them unread, as a glare spot's halo would. A line casts
    # no halo; a spot of glare, even a small one, still does.
    (line,) = _clipped_board(lambda im: cv2.line(im, (300, 300), (500, 320), (255, 255, 255), 2))
    assert line.thickness < EDGE_SPOT_MM and line.sides[1] >= EDGE_SPOT_LONG * line.sides[0]
    (blob,) = _clipped_board(lambda im: cv2.circle(im, (400, 300), 10, (255, 255, 255), -1))
    assert blob.thickness > 3.0
    (dot,) = _clipped_board(lambda im: cv2.rectangle(im, (400, 300), (404, 304), (255, 255, 255), -1))
    assert dot.sides[1] < EDGE_SPOT_LONG * dot.sides[0]

    template = load_template()
    pose = Pose(focal_px=1700.0, centre_mm=(140.0, 90.0), height_mm=400.0, focal_estimated=False)
    keys = [(g, r, c) for g in template.gear_grids for r in range(g.rows) for c in range(g.cols)]
    unread = {(g.name, r, c): _Measure(None, None, 0.0) for g, r, c in keys}
    x, y = template.grids["weapon_left"].cell_centre(1, 2)

    def glared(draw: Callable[[npt.NDArray[np.uint8]], None]) -> set[tuple[str, int, int]]:
        image = np.full((1200, 1500, 3), 120, np.uint8)
        draw(image)
        rect = _Rectified(image, np.diag([5.0, 5.0, 1.0]), _grid_box(template, 7.0), 5.0)
        measures = _spots_glare(rect, template, pose, keys, unread, float(_LUMA @ np.full(3, 0.19)))
        return {k for k, m in measures.items() if m.glare > 0}

    edge = ((int(5 * x) - 30, int(5 * y)), (int(5 * x) + 30, int(5 * y) + 2))
    assert glared(lambda im: cv2.line(im, *edge, (255, 255, 255), 2)) == set()
    # A glare spot 10 mm across: its halo reaches the cells around it, diagonal ones too.
    spot = glared(lambda im: cv2.circle(im, (int(5 * x), int(5 * y)), 25, (255, 255, 255), -1))
    assert {("weapon_left", 1, 2), ("weapon_left", 1, 1), ("weapon_left", 0, 1), ("weapon_left", 2, 3)} <= spot


def test_metal_beyond_the_deepest_shadow_of_its_colour_is_metal(tmp_path: Path) -> None:
    # A warm lamp and a cool window: the lamp's shadows on the print are bluish, and so is metal. The
    # shadows seen agree where the lamp's umbra lies; these cubes are further along that hue, and darker:
    # blocking the window too would darken the print but turn it back towards its own hue.
    reading, truth = _benchmark_photo(tmp_path, 297)
    assert _confident_errors(reading, truth) == []
    for grid, row, col in [("sandals", 0, 1), ("weapon_left", 0, 2), ("weapon_right", 1, 1)]:
        assert truth[grid][row][col] == "M"
        assert _label(reading, grid, row, col) == "M", (grid, row, col)


def test_metal_in_a_photo_without_long_shadows_is_metal(tmp_path: Path) -> None:
    # One lamp high above: the band of print around the grids is unshaded although cubes stand on every
    # outer edge, so no shadow here reaches a neighbour's top place; the dark grey cubes are metal.
    reading, truth = _benchmark_photo(tmp_path, 7)
    assert _confident_errors(reading, truth) == []
    for grid, row, col in [("helmet", 0, 3), ("weapon_left", 1, 3)]:
        assert truth[grid][row][col] == "M"
        assert _label(reading, grid, row, col) == "M", (grid, row, col)


def test_print_in_a_shadow_that_looks_like_metal_stays_uncertain(tmp_path: Path) -> None:
    # Deep bluish shadows of the lamp fall on empty cells and look exactly like metal: they stay '?'.
    reading, truth = _benchmark_photo(tmp_path, 152)
    assert _confident_errors(reading, truth) == []
    for grid, row, col in [("weapon_left", 1, 0), ("weapon_left", 1, 3), ("weapon_right", 2, 1)]:
        assert truth[grid][row][col] == "."
        assert _label(reading, grid, row, col) == "?", (grid, row, col)


def test_metal_as_dark_as_a_shadow_beside_one_is_never_called_empty(tmp_path: Path) -> None:
    # The old reader called this metal cube empty (confidently wrong): it matched a shadow seen in the photo
    # and was darker than the print in both regions, "too dark for a cube's top" - but metal is that dark.
    reading, truth = _benchmark_photo(tmp_path, 70, seed=55)
    assert _confident_errors(reading, truth) == []
    assert truth["weapon_left"][0][2] == "M"
    assert _label(reading, "weapon_left", 0, 2) in ("M", "?")


def test_a_tooth_under_one_lamp_is_a_tooth_despite_one_tinted_patch(tmp_path: Path) -> None:
    # One lamp: every shadow keeps the print's hue but one dark patch beside a cube (a piece of a cube's
    # side face). Print cannot lose its yellow under one colour of light, so the pale cube is a tooth.
    reading, truth = _benchmark_photo(tmp_path, 243)
    assert _confident_errors(reading, truth) == []
    assert truth["helmet"][0][3] == "T"
    assert _label(reading, "helmet", 0, 3) == "T"


def test_the_umbra_bounds_a_shadows_hue() -> None:
    seen = [(0.56, -3.4, -12.3), (0.61, -3.8, -12.6), (0.67, -2.8, -11.8), (0.74, -1.4, -6.0)]
    assert _beyond_umbra(0.43, -0.7, -18.7, seen)  # further along and darker: not a shadow
    assert not _beyond_umbra(0.43, -0.7, -13.5, seen)  # not clearly beyond the far end
    assert not _beyond_umbra(0.7, -0.7, -18.7, seen)  # not darker than the umbra
    assert not _beyond_umbra(0.43, -0.7, -18.7, seen[:2])  # too few shadows seen to know the umbra
    assert not _beyond_umbra(0.43, -0.7, -18.7, [seen[0], seen[3], (0.9, -0.5, -2.5)])  # no agreed far end


def test_long_shadows_show_on_the_band_around_the_grids() -> None:
    lit = np.array([0.5, 0.4, 0.3], dtype=np.float32)
    band = [_BandSample(float(x), float(y), lit) for x in range(30, 260, 8) for y in (20.0, 130.0)]
    assert _band_unshaded(band)
    band[5] = _BandSample(band[5].x, band[5].y, lit * 0.6)
    assert not _band_unshaded(band)
    assert not _band_unshaded(band[:5])  # too little print seen to tell
    template = load_template()
    empty = {(g, r, c): Cell(g, r, c, ".", 1.0) for g in GEAR_GRIDS
             for r in range(template.grids[g].rows) for c in range(template.grids[g].cols)}
    full = {k: Cell(*k, "M", 1.0) for k in empty}
    assert _edges_covered(template, full)
    assert not _edges_covered(template, empty)
    # Only the seam between the weapon grids is no outer edge.
    seam = {**empty, ("weapon_left", 1, 4): Cell("weapon_left", 1, 4, "M", 1.0),
            ("weapon_right", 1, 0): Cell("weapon_right", 1, 0, "M", 1.0)}
    assert not _edges_covered(template, seam)


BOARD_LAB = np.asarray(DEFAULT_BOARD_LAB, dtype=np.float32)
BOARD_RGB = np.asarray(lab_to_linear_rgb(BOARD_LAB), dtype=np.float32)
REFS = {k: np.asarray(v, dtype=np.float64) for k, v in CUBE_LAB.items()}


@pytest.mark.parametrize(("letter", "shade"), [("W", 0.5), ("W", 0.6), ("T", 0.5), ("T", 0.6)])
def test_a_material_that_holds_over_the_whole_light_interval_is_read(letter: str, shade: float) -> None:
    light = 0.8
    top = np.asarray(lab_to_linear_rgb(CUBE_LAB[letter]), dtype=np.float32) * light
    measure = _Measure(top, top, 0.0)
    local = BOARD_RGB * light * shade  # the print beside it lies in other cubes' shadows
    label, _, reason, _ = _classify(measure, local, BOARD_LAB, BOARD_RGB, REFS)
    assert (label, reason) == ("?", "cube colour unclear")
    assert _classify_over_light(measure, local, BOARD_RGB * light, BOARD_LAB, BOARD_RGB, REFS) == (letter, 1.0)


def test_a_material_that_changes_over_the_light_interval_stays_unread() -> None:
    # Metal at half the light looks like something else: which light the top really gets decides the
    # material, so it is not read.
    top = np.asarray(lab_to_linear_rgb(CUBE_LAB["M"]), dtype=np.float32) * 0.8
    measure = _Measure(top, top, 0.0)
    local = BOARD_RGB * 0.4
    assert _classify(measure, local, BOARD_LAB, BOARD_RGB, REFS)[0] == "?"
    assert _classify_over_light(measure, local, BOARD_RGB * 0.8, BOARD_LAB, BOARD_RGB, REFS) is None
    # No brighter print nearby: nothing to reason over.
    assert _classify_over_light(measure, local, local, BOARD_LAB, BOARD_RGB, REFS) is None


def test_shadow_hues_lie_on_the_line_between_the_lights() -> None:
    cool_shadow = [(0.5, -3.0, -16.0)]  # the warm lamp blocked: the print turns bluish
    assert _on_shadow_line(-1.5, -8.0, cool_shadow)  # a partial shadow of the same light
    assert _on_shadow_line(1.8, 9.7, cool_shadow)  # the window blocked instead: warmer, the other way
    assert not _on_shadow_line(9.0, -2.0, cool_shadow)  # across the line: no shadow takes that colour
    assert not _on_shadow_line(-1.5, -8.0, [(0.5, 0.3, -0.5)])  # one colour of light: shadows keep the hue
    assert not _on_shadow_line(-1.5, -8.0, [])


def test_ordinary_photos_have_no_glare_and_the_glare_set_has() -> None:
    template = load_template()
    assert Conditions().glare == 0.0
    gear = {g: ["." * template.grids[g].cols] * template.grids[g].rows for g in GEAR_GRIDS}
    plain = render_board(template, gear, seed=5, conditions=Conditions(size=(800, 600)))
    glare = render_board(template, gear, seed=5, conditions=Conditions(size=(800, 600), glare=1.0))
    assert plain.labels["render"]["glare_mm"] is None
    assert glare.labels["render"]["glare_mm"] is not None


@pytest.mark.parametrize(("seed", "index", "cell"), [(31, 34, ("weapon_left", 1, 4)),
                                                      (91, 119, ("weapon_right", 0, 0))])
def test_a_tooth_that_looks_like_the_print_is_never_called_empty(tmp_path: Path, seed: int, index: int,
                                                                 cell: tuple[str, int, int]) -> None:
    # A warm lamp, a cool window and a hand's shadow: the tooth's top looks just like the print beside it
    # (the old reader called it empty with full confidence). It casts its own shadow on the print beside
    # it, where no other cube could: flat print casts none, so the cell must not be confidently empty.
    reading, truth = _benchmark_photo(tmp_path, index, seed=seed)
    grid, row, col = cell
    assert truth[grid][row][col] == "T"
    assert _confident_errors(reading, truth) == []
    assert _label(reading, grid, row, col) in ("T", "?")


def test_shadows_may_fall_on_every_side_the_cubes_nearby_do_not_show_lit() -> None:
    template = load_template()
    here = ("weapon_right", 0, 0)
    lit_up = {("weapon_right", 1, 2): {(0, -1): 0.94, (-1, 0): 0.42}, ("weapon_right", 2, 1): {(0, -1): 0.98},
              ("helmet", 0, 0): {(1, 0): 0.95}, ("helmet", 0, 1): {(1, 0): 0.97}}  # the helmet is far away
    sides = _local_shadow_sides(template, lit_up, here)
    assert (0, -1) not in sides  # two lit rings nearby: shadows do not fall upwards here
    assert {(1, 0), (-1, 0), (0, 1)} <= sides  # dark, or not seen nearby: may be a shadow side
    one = {("weapon_right", 1, 2): {(0, -1): 0.94}}
    assert (0, -1) in _local_shadow_sides(template, one, here)  # one lit ring is not enough evidence


def test_the_print_s_light_is_the_lit_pieces_nearby_and_many_places_ask_as_each_would_alone() -> None:
    # The print's light next to a cell is the upper envelope of the nearest band pieces (a cube's shadow only
    # darkens the print): pieces in a shadow near the point do not pull it down.
    rng = np.random.default_rng(7)
    lit = np.array([0.40, 0.35, 0.30], np.float32)
    samples = [_BandSample(float(x), float(y), (lit * rng.uniform(0.99, 1.01)).astype(np.float32))
               for x, y in rng.uniform(0.0, 60.0, size=(40, 2))]
    samples += [_BandSample(30.0 + dx, 30.0, (lit * 0.4).astype(np.float32)) for dx in (-1.0, 0.0, 1.0)]
    found = _local_reference(samples, 30.0, 30.0)
    assert found is not None
    assert np.allclose(found[0], lit, rtol=0.02)
    assert found[1] > 2.0  # the shadowed pieces are seen as a spread
    # Asked at many places at once, each leaving out one piece (its own), each answer is the one the place
    # would get alone from the other pieces.
    places = [(s.x, s.y) for s in samples]
    together = _local_references(samples, places, range(len(samples)))
    for i, (x, y) in enumerate(places):
        alone = _local_reference(samples[:i] + samples[i + 1:], x, y)
        got = together[i]
        assert alone is not None and got is not None
        assert np.array_equal(got[0], alone[0]) and got[1] == alone[1]
    assert _local_references(samples[:3], [(0.0, 0.0)], [0]) == [None]  # two pieces left: no reference


def test_a_region_s_clipped_and_outside_pixels_are_counted_exactly() -> None:
    image = np.full((300, 400, 3), 120, np.uint8)
    image[50:60, 100:130] = 255  # 300 clipped pixels (fewer once warped: the edges blur)
    rect = _Rectified(image, np.diag([5.0, 5.0, 1.0]), (-10.0, 0.0, 70.0, 60.0), 5.0)  # 10 mm left of the photo
    for sl in [(slice(40, 70), slice(140, 200)), (slice(0, 300), slice(0, 60)), (slice(55, 56), slice(160, 161))]:
        peak = rect.peak[sl]
        want = (int(np.count_nonzero(peak >= 250)), int(np.count_nonzero(peak == 0)), int(peak.size))
        assert rect.counts(sl) == want
        _light, clipped, inside = rect.stats(sl)
        assert clipped == want[0] / want[2] and inside == (want[1] == 0)
    assert 200 < rect.counts((slice(40, 70), slice(140, 200)))[0] <= 300
    assert rect.counts((slice(0, 300), slice(0, 60)))[1] > 0
