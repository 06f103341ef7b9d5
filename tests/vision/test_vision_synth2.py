"""The second, independent renderer, and the reader's refusals on boards it cannot vouch for (issue 18):
stickers without their reference patches, and an uncalibrated board printed darker than the template.
Never confidently wrong there: refusing, with the reason, is the right answer."""

from __future__ import annotations

import functools
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from vision_photos import SMALL, board_photo, run_cli

from vision import cellnet, synth, synth2
from vision.reader import (
    NO_PATCHES_REASON,
    UNFAMILIAR_REASON,
    WHOLE_BOARD_REASONS,
    BoardReading,
    Cell,
    load_photo,
    read_board,
)
from vision.template import GEAR_GRIDS, Template, load_template

SIZE = (2000, 1500)


def _confident_errors(truth: dict[str, list[str]], grids: dict[str, tuple[str, ...]]) -> int:
    return sum(1 for g in GEAR_GRIDS for want_row, got_row in zip(truth[g], grids[g], strict=True)
               for want, got in zip(want_row, got_row, strict=True) if got not in ("?", want))


def test_second_renderer_writes_labelled_photos_in_the_benchmark_format(tmp_path: Path) -> None:
    look = synth2.Look(size=SIZE)
    paths = synth2.photo_set(tmp_path / "set", 1, synth2.TUNE_SEEDS[0], look)
    labels = json.loads(paths[0].with_suffix(".json").read_text())
    assert labels["render"]["renderer"] == "second"
    template = load_template()
    for name in GEAR_GRIDS:
        g = template.grids[name]
        assert len(labels[name]) == g.rows and all(len(row) == g.cols for row in labels[name])
    # Same seed, same photo: the test set is fixed by its seed alone.
    again, _ = synth2.render_photo(synth2.TUNE_SEEDS[0], 0, look, template)
    first, _ = synth2.render_photo(synth2.TUNE_SEEDS[0], 0, look, template)
    assert np.array_equal(again, first)


def test_an_overexposed_set_is_the_same_boards_photographed_brighter(tmp_path: Path) -> None:
    # The cell network's glare training photos (vision.train_cellnet, "overexposed" sets): the same boards and
    # gear as the ordinary set of their seed, each shot OVEREXPOSED_STOPS over the automatic exposure.
    look = synth2.Look(size=SIZE)
    seed = synth2.TUNE_SEEDS[0]
    plain = synth2.photo_set(tmp_path / "plain", 2, seed, look)
    over = synth2.photo_set(tmp_path / "over", 2, seed, look, overexposed=True)
    for a, b in zip(plain, over, strict=True):
        assert json.loads(a.with_suffix(".json").read_text())["weapon_left"] == json.loads(
            b.with_suffix(".json").read_text())["weapon_left"]
        light, bright = (np.asarray(cv2.imread(str(p)), np.float32) for p in (a, b))
        assert float(np.median(bright)) > 1.15 * float(np.median(light))
        assert np.mean(bright >= 250) > np.mean(light >= 250)


@pytest.mark.parametrize("index", [0, 1, 2])
def test_stickers_without_reference_patches_are_refused_not_guessed(index: int) -> None:
    template = load_template()
    image, truth = synth2.render_photo(synth2.TUNE_SEEDS[1], index, synth2.Look(size=SIZE, no_patches=1.0), template)
    reading = read_board(image, template)
    assert _confident_errors(truth, dict(reading.grids)) == 0
    assert reading.retake in (NO_PATCHES_REASON, UNFAMILIAR_REASON)
    assert all(c.label == "?" for c in reading.cells)


@pytest.mark.parametrize("seed", [41, 42])
def test_an_uncalibrated_board_printed_darker_than_the_template_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    # The first renderer's board, printed a good deal darker (and the grids with it); the template is the
    # shipped, uncalibrated one.
    monkeypatch.setattr(synth, "BOARD_LAB", (52.0, 4.0, 14.0))
    path, truth = board_photo(tmp_path, seed, fill=0.4, conditions=synth.Conditions(size=SMALL))
    code, out, _ = run_cli(["read-board", str(path)], capsys)
    result = json.loads(out)
    assert code == 0
    assert _confident_errors(truth, result) == 0
    assert result["retake"] == UNFAMILIAR_REASON


def test_dark_printed_grids_give_no_confident_metal(tmp_path: Path) -> None:
    """The issue's report: an empty grid printed dark read as metal cubes. Empty boards of the second
    renderer with dark-printed grids (tuning seeds): no cell is read as a cube."""
    template = look_template = load_template()
    look = synth2.Look(size=SIZE, dark_print=1.0, fill=(0.0, 0.0))
    for index in range(3):
        image, truth = synth2.render_photo(synth2.TUNE_SEEDS[2], index, look, look_template)
        reading = read_board(image, template)
        assert all(c.label in ".?" for c in reading.cells), [c for c in reading.cells if c.label not in ".?"]
        assert _confident_errors(truth, dict(reading.grids)) == 0


def test_collect_saves_a_labelled_photo_the_benchmark_reads(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    path, truth = board_photo(tmp_path, 43, fill=0.3, conditions=synth.Conditions(size=SMALL))
    grids = json.dumps({g: truth[g] for g in GEAR_GRIDS})
    code, out, _ = run_cli(["vision", "collect", str(path), "--grids", grids, "--out", str(tmp_path / "mine")], capsys)
    assert code == 0
    saved = Path(out.strip())
    labels = json.loads(saved.with_suffix(".json").read_text())
    assert saved.exists() and all(labels[g] == truth[g] for g in GEAR_GRIDS)
    assert labels["render"]["source"] == "collected"
    # The training script takes the folder too, each photo with the template it was read with.
    from vision.train_cellnet import labelled

    own = labelled(tmp_path / "mine", load_template())
    assert list(own) == [saved] and own[saved].to_json() == load_template().to_json()
    # A grid with a '?' is not a confirmed grid.
    unsure = json.dumps({**{g: truth[g] for g in GEAR_GRIDS}, "sandals": ["?.."]})
    code, _, err = run_cli(["vision", "collect", str(path), "--grids", unsure, "--out", str(tmp_path / "x")], capsys)
    assert code == 2 and "only W, M, T and ." in err


def test_a_calibrated_board_unlike_the_template_is_read_not_refused() -> None:
    # The user flow: one photo of the same board, empty, in another scene (camera, lights), fits the template
    # and measures the print around each grid against the grid's own; the photo with cubes is then read.
    from vision.calibrate import calibrate

    template = load_template()
    look = synth2.Look(size=SIZE)
    index = 3
    empty, _ = synth2.render_calibration(synth2.TUNE_SEEDS[0], index, look, template)
    fitted = calibrate(empty, template)
    assert fitted.grid_lab is not None and fitted.band_ratio is not None
    assert set(fitted.band_ratio) == set(GEAR_GRIDS)
    image, truth = synth2.render_photo(synth2.TUNE_SEEDS[0], index, look, template)
    uncalibrated = read_board(image, template)
    assert uncalibrated.retake == UNFAMILIAR_REASON
    reading = read_board(image, fitted)
    assert _confident_errors(truth, dict(reading.grids)) == 0
    assert reading.retake not in WHOLE_BOARD_REASONS
    assert sum(c.label != "?" for c in reading.cells) >= 20


def test_a_photo_of_another_board_than_the_calibrated_one_is_refused() -> None:
    # Calibrated on one board's art, shown another board (other print): refused, never guessed.
    from vision.calibrate import calibrate

    template = load_template()
    look = synth2.Look(size=SIZE)
    empty, _ = synth2.render_calibration(synth2.TUNE_SEEDS[0], 3, look, template)
    fitted = calibrate(empty, template)
    image, truth = synth2.render_photo(synth2.TUNE_SEEDS[0], 0, look, template)
    reading = read_board(image, fitted)
    assert _confident_errors(truth, dict(reading.grids)) == 0
    assert reading.retake == UNFAMILIAR_REASON


def test_a_material_must_hold_in_the_light_the_stickers_show() -> None:
    # Tuning seed 503, photo 69: metal cubes on a dark brown print under one lamp. Against the light's colour
    # the brown print suggests, their pale blue-grey tops look like teeth (they were read T with confidence);
    # against the light's colour the stickers' white patches give they are metal. On a calibrated board the
    # material must hold against both, or the cell stays '?'.
    image, truth, fitted = _calibrated_photo(503, 69)
    assert truth["weapon_left"][1][2] == truth["weapon_left"][2][2] == "M"
    reading = read_board(image, fitted)
    assert reading.grids["weapon_left"][1][2] in "M?" and reading.grids["weapon_left"][2][2] in "M?"
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_a_shaded_empty_reading_that_differs_in_hue_is_cross_checked() -> None:
    # Tuning seed 501, photo 12, read with the shipped template (its board passes as the template's): a pale
    # tooth on a pale print, its top a little off the print's hue and its faces shaded, was read empty with
    # confidence 1.0. An empty reading darker than the print's light whose hue still differs from the print's
    # is shown to the cell network, which finds it unlikely: the two readers disagree and the cell is '?'.
    template = load_template()
    image, truth = synth2.render_photo(synth2.TUNE_SEEDS[0], 12, synth2.Look(size=SIZE), template)
    assert truth["weapon_left"][0][3] == "T"
    cell = next(c for c in read_board(image, template).cells if (c.grid, c.row, c.col) == ("weapon_left", 0, 3))
    assert cell.label in ("T", "?") and cell.features.get("shaded_empty") == 1.0
    rules = next(c for c in read_board(image, template, net=False).cells
                 if (c.grid, c.row, c.col) == ("weapon_left", 0, 3))
    assert rules.label == "." and rules.confidence >= 0.9  # what the rules alone say: why the check is needed


def _cell(reading: BoardReading, key: tuple[str, int, int]) -> Cell:
    """The reading's cell at (grid, row, column)."""
    return next(c for c in reading.cells if (c.grid, c.row, c.col) == key)


@functools.cache
def _first_net_before() -> cellnet.CellNet:
    """The first cell network as shipped before it was trained on overexposed photos (sixteenth session), kept for
    the tests of the guards it met: those guards are for a network that is sure and wrong, and on these photos this
    one was (the network shipped now is not, or less sure, so it would not exercise them)."""
    return cellnet.CellNet.from_file(Path(__file__).with_name("data") / "cellnet-before-glare-sets.npz")


def _calibrated_photo(seed: int, index: int, size: tuple[int, int] = SIZE, stored: bool = False
                      ) -> tuple[np.ndarray, dict[str, Any], Template]:
    """A second-renderer photo, its labels and its board's template calibrated as the app does (up to three
    photos of the empty board; ``stored``: each photo written as the benchmark's cache keeps it, JPEG at 98, and
    loaded as the benchmark loads it, where a test needs the very readings the benchmark made)."""
    from vision.calibrate import CalibrationError, calibrate

    template = load_template()
    look = synth2.Look(size=size)
    partial = fitted = None
    for attempt in range(3):
        try:
            empty, _ = synth2.render_calibration(seed, index, look, template, attempt)
            empty = _as_stored(empty) if stored else empty
            fitted = calibrate(empty, template, earlier=partial)
            break
        except CalibrationError as error:
            partial = error.partial
    assert fitted is not None and fitted.band_ratio is not None
    image, truth = synth2.render_photo(seed, index, look, template)
    return _as_stored(image) if stored else image, truth, fitted


def _with_another_calibration(seed: int, index: int, other: int, stored: bool = True
                              ) -> tuple[np.ndarray, dict[str, Any], Template]:
    """Photo ``index`` of a development seed at 12 MP, its labels, and photo ``other``'s board's calibration (another
    board), as ``benchmarks/vision.py --other-boards`` reads them (``stored``: as its cache keeps them)."""
    size = (4000, 3000)
    _, _, fitted = _calibrated_photo(seed, other, size, stored=stored)
    image, truth = synth2.render_photo(seed, index, synth2.Look(size=size), load_template())
    return (_as_stored(image) if stored else image), truth, fitted


def _as_stored(image: np.ndarray) -> np.ndarray:
    """A rendered photo as the benchmark reads it from its cache: written as JPEG at 98, loaded with load_photo."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "photo.jpg"
        cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 98])
        return load_photo(path)


def test_a_calibrated_grid_is_read_against_its_calibrated_print_not_the_strips_beside_each_cell() -> None:
    # Development seed 506, photo 15: coloured grids calibrated from their empty board, under a close lamp. The
    # check of each cell against its own print strips (for grids nobody calibrated, where the print is a guess)
    # sent 9 plainly empty cells and 3 cubes to '?' here: the strips lie in the cubes' shadows or in the lamp's
    # fall-off, the middle does not. Across 280 development photos that check caught no wrong reading on a
    # calibrated grid and lost over 300 right ones, so a calibrated grid is read against its calibrated print.
    image, truth, fitted = _calibrated_photo(506, 15)
    reading = read_board(image, fitted)
    were_vetoed = [("helmet", 0, 3), ("helmet", 1, 1), ("helmet", 1, 3), ("helmet", 2, 0), ("sandals", 0, 0),
                   ("sandals", 0, 1), ("sandals", 0, 2), ("weapon_left", 0, 4), ("weapon_left", 1, 0),
                   ("weapon_left", 1, 1), ("weapon_left", 1, 4), ("weapon_right", 1, 0), ("weapon_right", 2, 2)]
    read = sum(reading.grids[g][r][c] == truth[g][r][c] for g, r, c in were_vetoed)
    assert read >= 11, f"{read} of the {len(were_vetoed)} cells read"
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_a_shaded_wood_cube_on_a_wood_coloured_calibrated_print_is_not_read_empty() -> None:
    # Development seed 510, photo 6: a grid printed in wood's own colour, calibrated; the wood cube at
    # weapon_left (0, 4) stands in its neighbours' shade, its top as dark and as coloured as the print beside
    # it, and was read empty with confidence 1.0 (the cell network agreeing at 0.99). On a print of wood's
    # colour an empty reading darker than the print's light cannot be vouched for: '?', with the reason.
    from vision.reader import WOOD_PRINT_SHADE_REASON

    image, truth, fitted = _calibrated_photo(510, 6)
    assert truth["weapon_left"][0][4] == "W"
    reading = read_board(image, fitted)
    cell = _cell(reading, ("weapon_left", 0, 4))
    assert cell.label in ("W", "?")
    assert cell.label == "W" or cell.reason == WOOD_PRINT_SHADE_REASON
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_a_hand_right_at_the_lens_is_left_out_not_a_crash() -> None:
    # Seed 511, photo 66: the hand drawn reaching in projected thousands of pixels thick (it lay at the lens),
    # and OpenCV refused to draw it, so the whole photo set failed to render. Such a hand is left out.
    image, truth = synth2.render_photo(511, 66, synth2.Look(size=SIZE), load_template())
    assert image.shape[:2] == (SIZE[1], SIZE[0])
    assert truth["render"]["hand"] is False


def test_glare_on_a_calibrated_grid_is_read_where_the_rules_and_the_network_agree() -> None:
    # Development seed 509 (never trained on), photo 67: teeth in a lamp's full light clip white, and the
    # rules leave every cell near a clipped spot '?' for glare, though each cube is plainly there. On a
    # calibrated grid the network reads such a cell at p >= GLARE_ACCEPT where the rules, reading past the
    # glare, read the same, or at GLARE_ALONE_ACCEPT where they cannot tell and the top is not clipped white.
    # Photo 40: a pale print clipped by the exposure, where an earlier network alone was sure and wrong on
    # three cells; none is wrong. (Since the tenth session a glare cell the rules read the same may also be read
    # where both networks give it NET_PAIR_ACCEPT, and since the twenty-ninth not as a tooth: _glare_pair. Since the
    # thirty-second, where no pixel of its top's place is clipped, the pair reads it whatever the rules read.)
    from vision.reader import (
        GLARE_ACCEPT,
        GLARE_ALONE_ACCEPT,
        GLARE_CLEAR_TOP,
        GLARE_RULES,
        GLARE_WHITE_MAX,
        NET_PAIR_ACCEPT,
    )

    for index in (67, 40):
        image, truth, fitted = _calibrated_photo(509, index)
        rules = {(c.grid, c.row, c.col): c for c in read_board(image, fitted, net=False).cells}
        reading = read_board(image, fitted)
        read_past_glare = [c for c in reading.cells if rules[(c.grid, c.row, c.col)].reason == "glare"
                           and c.label != "?"]
        assert read_past_glare, index
        for cell in read_past_glare:
            rules_read = GLARE_RULES[int(cell.features["glare_rules"])]
            if "edges" in cell.features:  # an empty cell of a pale print, the network's and geometry's (_flat_on_pale)
                continue
            # On a calibrated grid every answer of the second look has the second network's word (_confirmed,
            # _paired).
            assert cell.features["check_p"] >= NET_PAIR_ACCEPT
            net_p = cell.features["net_p"]
            if net_p >= GLARE_ACCEPT and (rules_read == cell.label or (
                    rules_read == "?" and net_p >= GLARE_ALONE_ACCEPT and cell.features["white"] < GLARE_WHITE_MAX)):
                continue  # the first network's own thresholds, with the second's word (_glare_allows)
            # Else the pair (_glare_pair): no tooth, with the rules past the glare, or with a top not clipped at all.
            assert cell.label != "T" and net_p >= NET_PAIR_ACCEPT
            assert rules_read == cell.label or cell.features["clipped"] <= GLARE_CLEAR_TOP
        assert _confident_errors(truth, dict(reading.grids)) == 0, index


def test_on_a_calibrated_grid_every_rule_answer_needs_the_networks_assent() -> None:
    # Development seed 509, photo 67, weapon_left[2][4]: a metal cube the rules read as a tooth (at 0.83, sure
    # enough to pass unchecked on the template's board, until band pieces were measured by a trimmed mean; 0.78
    # since). On a calibrated grid (a board neither reader was tuned on) every rule answer is cross-checked and
    # needs the network's CALIBRATED_DISAGREE_BELOW; the network gives a tooth there about 0.5: '?'.
    # The same photo's weapon_left[2][2] is empty with a board's own texture inside it: the edge check doubts
    # it, and the network, sure it is empty, lifts the doubt.
    from vision.reader import CALIBRATED_DISAGREE_BELOW, DISAGREE_REASON, EDGES_REASON

    image, truth, fitted = _calibrated_photo(509, 67)
    rules = {(c.grid, c.row, c.col): c for c in read_board(image, fitted, net=False).cells}
    both = {(c.grid, c.row, c.col): c for c in read_board(image, fitted).cells}
    key = ("weapon_left", 2, 4)
    assert truth["weapon_left"][2][4] == "M" and rules[key].label == "T" and rules[key].confidence >= 0.75
    assert both[key].label == "?" and both[key].reason == DISAGREE_REASON
    assert both[key].features["net_agree"] < CALIBRATED_DISAGREE_BELOW
    key = ("weapon_left", 2, 2)
    assert truth["weapon_left"][2][2] == "." and rules[key].reason == EDGES_REASON
    assert both[key].label == "." and both[key].features["net_p"] >= 0.98


def test_a_glare_cell_whose_top_is_clipped_white_is_not_read_by_the_network() -> None:
    # Development seed 510, photo 81 at 12 MP: a red lamp over a deep green print clips the teeth's tops white in
    # every channel. The rules, reading past the glare, cannot tell weapon_left[1][2]; the network takes the
    # white top for wood (at p >= GLARE_ALONE_ACCEPT before it was trained on overexposed photos, 0.986 since). A
    # top with no colour left says nothing of its material: '?'.
    from vision.reader import GLARE_RULES, GLARE_WHITE_MAX

    image, truth, fitted = _calibrated_photo(510, 81, (4000, 3000))
    reading = read_board(image, fitted)
    cell = _cell(reading, ("weapon_left", 1, 2))
    assert truth["weapon_left"][1][2] == "T"
    assert cell.reason == "glare" and GLARE_RULES[int(cell.features["glare_rules"])] == "?"
    assert cellnet.LABELS[int(cell.features["net_best"])] == "W" and cell.features["white"] >= GLARE_WHITE_MAX
    assert cell.label == "?"
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_on_a_print_calibration_kept_as_clipped_white_the_network_reads_the_glare_cells() -> None:
    # Development seed 509, photo 94 at 12 MP: every grid's print is too pale for the exposure and clips white in
    # each photo of the empty board; calibration keeps it as a lower bound (Template.clipped_print). Every empty
    # cell and tooth there is glare to the rules; the network, sure at GLARE_PALE_ACCEPT where the rules cannot
    # tell, reads them, white tops too (a tooth's top on that print is as white as the print).
    from vision.reader import GLARE_ALONE_ACCEPT, GLARE_PALE_ACCEPT, GLARE_WHITE_MAX

    image, truth, fitted = _calibrated_photo(509, 94, (4000, 3000))
    assert set(fitted.clipped_print) == set(GEAR_GRIDS)
    reading = read_board(image, fitted)
    decided = [c for c in reading.cells if "glare_rules" in c.features and c.label != "?"]
    assert len(decided) >= 15
    assert all(c.label == truth[c.grid][c.row][c.col] for c in decided)
    # Most of them the network alone could not have read on a print not clipped white.
    assert sum(c.features["white"] >= GLARE_WHITE_MAX or c.confidence < GLARE_ALONE_ACCEPT for c in decided) >= 10
    assert all(c.confidence >= GLARE_PALE_ACCEPT for c in decided)
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_a_pale_frame_clipped_across_the_band_does_not_leave_its_grids_unread() -> None:
    # Development seed 510, photo 2: a pale frame printed around the helmet and the left weapon grid clips white
    # in this light, across every piece of the band around them (5-15 % of each piece). Band pieces with any
    # clipped pixel were left out, so both grids had no print to read against (all '?'). A band piece's light is
    # now a trimmed mean (BAND_TRIM), in the photo of the empty board as here, and a thin line does not count.
    from vision.reader import BAND_CLIPPED_MAX, BAND_HIDDEN_REASON, BAND_TRIM

    assert BAND_TRIM >= 0.15 and BAND_CLIPPED_MAX >= 0.15
    image, truth, fitted = _calibrated_photo(510, 2)
    reading = read_board(image, fitted)
    framed = [c for c in reading.cells if c.grid in ("helmet", "weapon_left")]
    assert sum(c.label == truth[c.grid][c.row][c.col] for c in framed) >= 15
    assert not any(c.reason == BAND_HIDDEN_REASON for c in reading.cells)
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_stickers_lit_unlike_the_board_are_a_warning_not_another_board() -> None:
    # Development seed 510, photo 55: a board read with its own calibration, the stickers in other light than
    # the grids, so the print measured against them is 15-25 Lab units off its calibration. The checks that do
    # not depend on the light (the calibrated grids' cells against the print around them) say it is the
    # calibrated board: it is read with its calibrated print, with a note, not refused as another board.
    from vision.reader import STICKER_LIGHT_NOTE

    image, truth, fitted = _calibrated_photo(510, 55)
    reading = read_board(image, fitted)
    assert STICKER_LIGHT_NOTE in reading.notes
    assert reading.retake not in WHOLE_BOARD_REASONS
    assert sum(c.label != "?" for c in reading.cells) >= 20
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_on_a_calibrated_grid_the_network_sure_at_net_alone_accept_decides_past_the_rules() -> None:
    # Development seed 509, photo 73 at 12 MP: metal and wood cubes whose tops the rules' colours rank nearest a
    # tooth. The rules read some of them as teeth, which the network finds unlikely (the cross-check), and leave
    # others '?' (colour unclear), where their leaning kept the network's answer out. Outside glare, on the
    # development seeds' calibrated grids, the network was never wrong at 0.98 or above but on a board refused as
    # another; at NET_ALONE_ACCEPT its answer stands, the rules' label kept as the rules_label feature.
    from vision.reader import NET_ALONE_ACCEPT, _leaning_allows

    image, truth, fitted = _calibrated_photo(509, 73, (4000, 3000))
    rules = {(c.grid, c.row, c.col): c for c in read_board(image, fitted, net=False).cells}
    reading = read_board(image, fitted)
    overruled = [c for c in reading.cells if "rules_label" in c.features and c.label != "?"]
    assert len(overruled) >= 2
    for cell in overruled:
        key = (cell.grid, cell.row, cell.col)
        assert rules[key].label not in ("?", cell.label) and cell.confidence >= NET_ALONE_ACCEPT
        assert cell.label == truth[cell.grid][cell.row][cell.col]
    past_leaning = [c for c in reading.cells if c.label != "?" and rules[(c.grid, c.row, c.col)].label == "?"
                    and not _leaning_allows(rules[(c.grid, c.row, c.col)], c.label, calibrated=True)]
    assert len(past_leaning) >= 2
    assert all(c.label == truth[c.grid][c.row][c.col] and c.confidence >= NET_ALONE_ACCEPT for c in past_leaning)
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_glare_the_rules_cannot_tell_is_read_by_a_network_sure_at_glare_alone_accept() -> None:
    # Development seed 510, photo 46 at 12 MP: a lamp's glare over most of the board; the rules, reading past it,
    # cannot tell most cells. The network reads those whose tops are not clipped white at GLARE_ALONE_ACCEPT
    # (0.999 before, which left several it was right about at 0.995-0.999 '?'), each with the second network's word
    # (_confirmed: its confidence the lower of the two).
    from vision.reader import GLARE_ALONE_ACCEPT, GLARE_RULES, GLARE_WHITE_MAX, NET_PAIR_ACCEPT

    image, truth, fitted = _calibrated_photo(510, 46, (4000, 3000))
    reading = read_board(image, fitted)
    alone = [c for c in reading.cells if c.label != "?" and "glare_rules" in c.features
             and GLARE_RULES[int(c.features["glare_rules"])] == "?"]
    assert sum(c.features["net_p"] < 0.999 for c in alone) >= 3
    assert all(c.features["net_p"] >= GLARE_ALONE_ACCEPT and c.features["white"] < GLARE_WHITE_MAX for c in alone)
    assert all(c.confidence == min(c.features["net_p"], c.features["check_p"]) >= NET_PAIR_ACCEPT for c in alone)
    assert all(c.label == truth[c.grid][c.row][c.col] for c in alone)
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_on_a_print_kept_as_clipped_white_the_rules_tooth_under_glare_is_no_answer() -> None:
    # Development seed 509, photo 49 at 12 MP: every grid's print is too pale for the exposure (kept as clipped
    # white by calibration). An empty cell there is as white as a tooth's top, and the rules, reading past the
    # glare, call many empty cells teeth. That is no answer on such a print: the network decides them at
    # GLARE_PALE_ACCEPT, and reads them empty (with the second network's word, _confirmed), or they are found
    # flat (_flat_on_pale). With the grids fitted on their inner lines (INNER_FIT; the weapon grids' outline fit
    # had been 3.3 mm off) a metal cube whose top was not clipped white was empty to both networks at 0.997 and
    # more: an empty reading on such a print needs the cell found flat, and that one stays '?'.
    from vision.reader import GLARE_PALE_ACCEPT, GLARE_RULES, NET_PAIR_ACCEPT

    image, truth, fitted = _calibrated_photo(509, 49, (4000, 3000))
    assert fitted.clipped_print
    reading = read_board(image, fitted, net=_first_net_before())
    past_tooth = [c for c in reading.cells if c.label not in ("?", "T") and c.grid in fitted.clipped_print
                  and "glare_rules" in c.features and GLARE_RULES[int(c.features["glare_rules"])] == "T"]
    assert len(past_tooth) >= 10
    assert all(c.label == truth[c.grid][c.row][c.col] for c in past_tooth)
    assert all(c.features["net_p"] >= GLARE_PALE_ACCEPT and c.features["check_p"] >= NET_PAIR_ACCEPT
               for c in past_tooth if "edges" not in c.features)  # (else decided flat by _flat_on_pale)
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_a_deep_print_keeps_its_calibration_whatever_the_flare_does_to_its_hue() -> None:
    # Development seed 511, photo 47 at 12 MP: the sandals grid printed at about 3 % reflectance. Flare adds a
    # little of each scene's light to every channel, so against its calibration (another scene) that print's hue
    # was 8.7-9.8 chroma units off (OWN_CHROMA 8), while every other grid matched within 2: the whole board was
    # refused as another board. Compared with DEEP_FLOOR's light added to both, it is the calibrated board.
    from vision.reader import DEEP_FLOOR, OWN_CHROMA, _print_offset

    seen = np.array([0.034, 0.017, 0.005], dtype=np.float32)  # the sandals print in the photo (linear RGB)
    calibrated = np.array([0.033, 0.017, 0.007], dtype=np.float32)  # and as its calibration gives it there
    raw, floored = _print_offset(seen, calibrated), _print_offset(seen, calibrated, DEEP_FLOOR)
    assert raw is not None and floored is not None and raw[1] > OWN_CHROMA >= floored[1]
    image, truth, fitted = _calibrated_photo(511, 47, (4000, 3000))
    reading = read_board(image, fitted)
    assert reading.retake not in WHOLE_BOARD_REASONS
    assert sum(c.label == truth[c.grid][c.row][c.col] for c in reading.cells) >= 35
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_on_a_print_kept_as_clipped_white_a_flat_cell_the_network_finds_empty_is_empty() -> None:
    # Development seed 512, photo 14 at 12 MP: every grid's print kept as clipped white. Its empty cells are glare
    # to the rules, and the network found them empty at 0.945-0.993, under GLARE_PALE_ACCEPT: 19 cells were '?'.
    # Geometry tells: an empty cell whose middle is not clipped is flat inside, a cube shows its outline and side
    # faces (_flat_on_pale).
    from vision.reader import GLARE_PALE_FLAT_ACCEPT, GLARE_WHITE_MAX, PALE_FLAT_EDGES

    image, truth, fitted = _calibrated_photo(512, 14, (4000, 3000))
    assert fitted.clipped_print
    reading = read_board(image, fitted)
    flat = [c for c in reading.cells if "edges" in c.features and c.label == "." and "glare_rules" in c.features]
    assert len(flat) >= 12
    assert all(c.features["edges"] <= PALE_FLAT_EDGES and c.confidence >= GLARE_PALE_FLAT_ACCEPT
               and c.features["white"] < GLARE_WHITE_MAX for c in flat)
    assert all(truth[c.grid][c.row][c.col] == "." for c in flat)
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_on_a_print_kept_as_clipped_white_teeth_clipped_white_are_not_read_empty() -> None:
    # Seed 535, photo 12 at 12 MP (a development seed first read in the fifteenth session): a print calibration kept
    # as clipped white, overexposed again, with teeth whose tops clip white too. Both networks found three of them
    # empty (0.996-0.998; the second 0.98-0.995), and GLARE_PALE_ACCEPT read them so: three confident errors. A top
    # clipped white there is read empty only where geometry finds the cell flat (_flat_on_pale: the teeth measured
    # 0.23-0.79 against PALE_FLAT_EDGES), and the empty cells the networks found flat still are.
    from vision.reader import GLARE_WHITE_MAX, PALE_FLAT_EDGES

    image, truth, fitted = _calibrated_photo(535, 12, (4000, 3000), stored=True)
    reading = read_board(image, fitted)
    cells = {(c.grid, c.row, c.col): c for c in reading.cells}
    for key in (("weapon_left", 2, 4), ("weapon_right", 1, 1), ("weapon_right", 2, 0)):
        assert truth[key[0]][key[1]][key[2]] == "T" and key[0] in fitted.clipped_print
        assert cells[key].label == "?" and cells[key].features["white"] >= GLARE_WHITE_MAX
    white_empty = [c for c in reading.cells if c.label == "." and "glare_rules" in c.features
                   and c.features["white"] >= GLARE_WHITE_MAX and c.grid in fitted.clipped_print]
    assert len(white_empty) >= 3
    assert all(c.features.get("edges", 0.0) <= PALE_FLAT_EDGES for c in white_empty)
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_on_a_print_kept_as_clipped_white_a_tooth_the_network_finds_empty_stays_unread() -> None:
    # Development seed 509, photo 94 at 12 MP: a tooth on a print kept as clipped white, all of it as white as the
    # print (inside the cell, edges 0.06 against PALE_FLAT_EDGES 0.1), which the network found empty at 0.99.
    # Its top is clipped white: geometry cannot vouch for an empty cell there (GLARE_WHITE_MAX).
    image, truth, fitted = _calibrated_photo(509, 94, (4000, 3000))
    assert "weapon_left" in fitted.clipped_print and truth["weapon_left"][1][2] == "T"
    reading = read_board(image, fitted)
    assert reading.grids["weapon_left"][1][2] in "T?"
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_calibration_measures_the_whole_band_so_another_view_finds_its_ratios() -> None:
    # Development seed 515, photo 25 at 12 MP. Calibration left out the band pieces a cube's top would lean over
    # in the empty board's view, though no cube stands there; the photo with cubes, from another view, kept other
    # pieces, and around the right weapon grid none of its 11 had a calibrated ratio. That grid's print was then
    # compared with the print around the other grids, 46 Lab units off, and the whole board refused as another.
    image, truth, fitted = _calibrated_photo(515, 25, (4000, 3000))
    reading = read_board(image, fitted)
    assert reading.retake not in WHOLE_BOARD_REASONS
    assert sum(c.label == truth[c.grid][c.row][c.col] for c in reading.cells) >= 25
    assert sum(c.label == truth[c.grid][c.row][c.col] for c in reading.cells if c.grid == "weapon_right") >= 3
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_a_calibrated_grid_whose_band_is_out_of_view_is_unread_not_the_board_refused() -> None:
    # A grid calibration measured, but none of the band pieces it measured around it is seen in this photo (here:
    # its ratios moved 100 mm away, as if that part of the board were out of view). The print around the other
    # grids says nothing of its print: that grid is unread, the others are read.
    from dataclasses import replace as replaced

    from vision.reader import BAND_HIDDEN_REASON

    image, truth, fitted = _calibrated_photo(synth2.TUNE_SEEDS[0], 3)
    assert fitted.band_ratio is not None
    away = {**fitted.band_ratio,
            "sandals": tuple((x + 100.0, y + 100.0, *k) for x, y, *k in fitted.band_ratio["sandals"])}
    reading = read_board(image, replaced(fitted, band_ratio=away))
    assert all(c.label == "?" and c.reason == BAND_HIDDEN_REASON for c in reading.cells if c.grid == "sandals")
    assert reading.retake not in WHOLE_BOARD_REASONS
    assert sum(c.label != "?" for c in reading.cells if c.grid != "sandals") >= 20
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_two_networks_that_agree_decide_cells_the_first_alone_may_not() -> None:
    # Development seed 515, photo 29 at 12 MP: a grid printed in wood's own colour. Its empty cells in the cubes'
    # shade are darker than the print's light, which on such a print a shaded wood cube's top is too, so the rules
    # leave them '?' and the first network alone may not decide them (_calibrated_doubts). Both networks, which
    # learnt from different photos, find them empty at 0.99 or more (NET_PAIR_ACCEPT): they are.
    from vision.reader import NET_PAIR_ACCEPT, WOOD_PRINT_SHADE_REASON

    image, truth, fitted = _calibrated_photo(515, 29, (4000, 3000))
    shaded = [("helmet", 1, 1), ("helmet", 1, 2), ("helmet", 1, 3), ("helmet", 2, 0)]
    alone = {(c.grid, c.row, c.col): c for c in read_board(image, fitted, check=False).cells}
    assert all(alone[k].label == "?" and alone[k].reason == WOOD_PRINT_SHADE_REASON for k in shaded)
    reading = read_board(image, fitted)
    paired = {(c.grid, c.row, c.col): c for c in reading.cells}
    for g, r, c in shaded:
        assert truth[g][r][c] == "."
        assert paired[(g, r, c)].label == "." and paired[(g, r, c)].features["check_p"] >= NET_PAIR_ACCEPT
    assert _confident_errors(truth, dict(reading.grids)) == 0


@functools.cache
def _deep_blue_photo() -> tuple[np.ndarray, dict[str, Any], Template]:
    """Development seed 510, photo 43 at 12 MP: its grids printed deep blue (almost no red). Read-only: the tests
    that share it must not change it."""
    image, truth, fitted = _calibrated_photo(510, 43, (4000, 3000))
    image.flags.writeable = False
    return image, truth, fitted


def test_teeth_on_a_deep_print_are_read_by_the_stickers_light_and_pale_wood_is_not() -> None:
    # Development seed 510, photo 43 at 12 MP. On the deep blue print the rules read four teeth and a pale wood cube
    # all as teeth, their red extrapolated from a print with almost none (DEEP_PRINT_REASON), and left them to the
    # two networks, which read three of the teeth and left weapon_left (1, 4) '?'. In the light the stickers' white
    # patches give, the teeth are white (L* 92-101, chroma <= 5) and the wood is not (chroma 16): the rules alone
    # read the four teeth, and the wood stays '?'.
    from vision.reader import DEEP_PRINT_REASON

    image, truth, fitted = _deep_blue_photo()
    rules = {(c.grid, c.row, c.col): c for c in read_board(image, fitted, net=False).cells}
    reading = read_board(image, fitted)
    cells = {(c.grid, c.row, c.col): c for c in reading.cells}
    for key in [("helmet", 0, 2), ("weapon_left", 1, 4), ("weapon_left", 2, 1), ("weapon_left", 2, 3)]:
        g, r, c = key
        assert truth[g][r][c] == "T"
        assert rules[key].label == "T" and rules[key].features.get("tooth_sticker") == 1.0
        assert cells[key].label == "T"
    wood = ("weapon_left", 1, 3)
    assert truth["weapon_left"][1][3] == "W"
    assert rules[wood].label == "?" and rules[wood].reason == DEEP_PRINT_REASON
    assert cells[wood].label == "?"
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_an_empty_reading_with_a_cubes_edges_needs_both_networks() -> None:
    # Development seed 539, photo 58 at 12 MP (read as the benchmark reads it): a grey metal cube at weapon_right
    # (1, 2) whose top looks like the grey print around it. The rules read it empty by its colour; the edge check
    # finds its outline (EMPTY_EDGES_MAX) and leaves it to the network, which called it empty at 0.98, and it stood:
    # a confident error. The second network does not agree (0.83, under NET_PAIR_ACCEPT): '?'.
    from vision.reader import EDGES_REASON, EMPTY_EDGES_MAX, NET_PAIR_ACCEPT

    image, truth, fitted = _calibrated_photo(539, 58, (4000, 3000), stored=True)
    key = ("weapon_right", 1, 2)
    assert truth["weapon_right"][1][2] == "M"
    rules = {(c.grid, c.row, c.col): c for c in read_board(image, fitted, net=False).cells}
    assert rules[key].label == "?" and rules[key].reason == EDGES_REASON
    assert rules[key].features["edges"] > EMPTY_EDGES_MAX
    first = {(c.grid, c.row, c.col): c for c in read_board(image, fitted, check=False).cells}
    assert first[key].label == "."
    reading = read_board(image, fitted)
    cell = _cell(reading, key)
    assert cell.label == "?" and cell.reason == EDGES_REASON
    assert cell.features["net_p"] >= cellnet.ACCEPT and cell.features["check_p"] < NET_PAIR_ACCEPT
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_an_empty_reading_with_a_cubes_edges_and_the_rules_cube_is_not_the_networks_alone() -> None:
    # Development seed 549, photo 13 at 12 MP (read as the benchmark reads it): a metal cube at sandals (0, 0), seen
    # at a steep angle. The rules read metal (its top nearest metal by far), the edge check finds a cube's outline in
    # the cell, and both networks call it empty (0.988 and 0.98, each over its threshold): it was read empty, a
    # confident error. Two readers that measure different things (colour, edges) see a cube there: the networks'
    # empty does not stand against both, and the cell is '?' for its edges.
    from vision.reader import EDGES_REASON, NET_PAIR_ACCEPT

    image, truth, fitted = _calibrated_photo(549, 13, (4000, 3000), stored=True)
    key = ("sandals", 0, 0)
    assert truth["sandals"][0][0] == "M"
    reading = read_board(image, fitted)
    cell = _cell(reading, key)
    assert cell.label == "?" and cell.reason == EDGES_REASON
    assert cellnet.LABELS[int(cell.features["rules_read"])] == "M"
    assert cell.features["net_p"] >= cellnet.ACCEPT and cell.features["check_p"] >= NET_PAIR_ACCEPT
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_an_empty_reading_over_a_flat_top_unlike_the_print_and_a_cubes_edges_is_not_the_networks_alone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Development seed 548, photo 23 (a confident error since the twenty-sixth session): a metal cube on the sandals
    # whose footprint looked like the print, so the rules could not tell, though where its top belongs they measured
    # one flat face (halves 0.007 apart, under UNEVEN_MIN) as unlike the print as an occupied cell's top (over
    # OCCUPIED_MIN). The edge check found a cube's outline; both networks called it empty, each over its threshold,
    # and it was read empty. The rules' top and the edges, two measures of different things, see a cube: the
    # networks' empty does not stand against them (reader._rules_saw_a_top).
    from vision import reader
    from vision.reader import EDGES_REASON, OCCUPIED_MIN, UNEVEN_MIN

    image, truth, fitted = _calibrated_photo(548, 23)
    assert truth["sandals"][0][2] == "M"
    reading = read_board(image, fitted)
    cell = _cell(reading, ("sandals", 0, 2))
    assert cell.label == "?" and cell.reason == EDGES_REASON and "rules_read" not in cell.features
    assert cell.features["e_top"] > OCCUPIED_MIN and cell.features["u_top"] < UNEVEN_MIN
    assert _confident_errors(truth, dict(reading.grids)) == 0
    monkeypatch.setattr(reader, "_rules_saw_a_top", lambda _cell: False)
    before = read_board(image, fitted)
    assert before.grids["sandals"][0][2] == "."


def test_a_cube_the_networks_read_against_the_rules_and_this_photos_own_cubes_is_unread(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Development seed 553, photo 47 (read once, before the rule): three teeth on a reddish print under a bluish
    # light. The rules read two of them as teeth; the third, a little darker, they left '?' leaning to a tooth (its
    # colour nearest a tooth's, by too small a margin), and both networks read it as metal (1.0 and 0.998): a
    # confident error. Its top lies within PHOTO_COLOUR_MAX of the two teeth the photo shows, and the photo shows no
    # metal to be nearer: the photo's own cubes side with the rules, and the cell is '?'
    # (reader._against_photo_colours).
    from vision import reader
    from vision.reader import PHOTO_LEANING_REASON

    image, truth, fitted = _calibrated_photo(553, 47)
    assert [truth["weapon_right"][r][c] for r, c in ((1, 2), (2, 1), (2, 2))] == ["T", "T", "T"]
    reading = read_board(image, fitted)
    cell = _cell(reading, ("weapon_right", 2, 2))
    assert cell.label == "?" and cell.reason == PHOTO_LEANING_REASON
    assert "WMT"[int(cell.features["best"])] == "T" and cellnet.LABELS[int(cell.features["net_best"])] == "M"
    assert reading.grids["weapon_right"][1][2] == "T" and reading.grids["weapon_right"][2][1] == "T"
    assert _confident_errors(truth, dict(reading.grids)) == 0
    monkeypatch.setattr(reader, "_against_photo_colours", lambda cells, _read: dict(cells))
    assert read_board(image, fitted).grids["weapon_right"][2][2] == "M"


def test_the_second_network_keeps_a_mistake_the_first_is_sure_of_unread() -> None:
    # Development seed 510, photo 43 at 12 MP: on a deep print the tooth at weapon_right (0, 1) is wood to the first
    # network at 0.97, above NET_PAIR_ACCEPT; the second gives wood 0.01. The cell stays '?'.
    from vision.reader import DEEP_PRINT_REASON, NET_PAIR_ACCEPT

    image, truth, fitted = _deep_blue_photo()
    assert truth["weapon_right"][0][1] == "T"
    reading = read_board(image, fitted, net=_first_net_before())
    cell = _cell(reading, ("weapon_right", 0, 1))
    assert cell.label == "?" and cell.reason == DEEP_PRINT_REASON
    assert cell.features["net_best"] == cellnet.LABELS.index("W") and cell.features["net_p"] >= NET_PAIR_ACCEPT
    assert cell.features["check_p"] < NET_PAIR_ACCEPT
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_under_glare_the_rules_tooth_and_both_networks_do_not_read_a_tooth() -> None:
    # Development seed 515, photo 40 at 12 MP: five teeth whose cells the rules leave to glare, though reading past
    # it they read teeth; the first network gives them 0.989-0.994, under GLARE_ACCEPT (0.995), and the second agrees
    # at NET_PAIR_ACCEPT or more. From the tenth to the twenty-eighth session that agreement read them
    # (_glare_pair). It no longer does: glare makes any top lighter and greyer, so past it a brightened wood or metal
    # top reads as a tooth to the rules and to both networks alike (the next test). They stay '?' for glare, and a
    # photo taken darker, as the reader asks, reads them.
    from vision.reader import GLARE_ACCEPT, GLARE_REASON, GLARE_RULES, NET_PAIR_ACCEPT

    image, truth, fitted = _calibrated_photo(515, 40, (4000, 3000))
    teeth = [("helmet", 1, 2), ("sandals", 0, 0), ("weapon_left", 0, 1), ("weapon_left", 1, 4), ("weapon_left", 2, 0)]
    reading = read_board(image, fitted, net=_first_net_before())
    cells = {(c.grid, c.row, c.col): c for c in reading.cells}
    for key in teeth:
        g, r, c = key
        assert truth[g][r][c] == "T"
        cell = cells[key]
        assert cell.label == "?" and cell.reason == GLARE_REASON
        assert GLARE_RULES[int(cell.features["glare_rules"])] == "T"
        assert cellnet.LABELS[int(cell.features["net_best"])] == "T"
        assert NET_PAIR_ACCEPT <= cell.features["net_p"] < GLARE_ACCEPT
    assert reading.retake is not None and "glare" in reading.retake
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_wood_in_a_highlights_halo_that_the_rules_and_both_networks_call_a_tooth_stays_unread(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Development seed 556, photo 40 at 12 MP, as the benchmark stores it (read once, before the change): a wood cube
    # in a highlight's halo, its top not clipped white. Past the glare the rules read a tooth, the first network
    # agrees at 0.964 and the second at 0.975: both over NET_PAIR_ACCEPT, and the pair read a tooth, a confident
    # error. Past glare the rules' tooth is no evidence for the pair (reader._glare_pair): the cell is '?' for glare.
    # (The first network alone at GLARE_ACCEPT may still read a tooth there, with the second's word: it gave 0.964.)
    from vision import reader
    from vision.reader import GLARE_ACCEPT, GLARE_REASON, GLARE_RULES, NET_PAIR_ACCEPT

    image, truth, fitted = _calibrated_photo(556, 40, (4000, 3000), stored=True)
    assert truth["weapon_left"][0][1] == "W"
    reading = read_board(image, fitted)
    cell = _cell(reading, ("weapon_left", 0, 1))
    assert cell.label == "?" and cell.reason == GLARE_REASON
    assert GLARE_RULES[int(cell.features["glare_rules"])] == "T" and cell.features["white"] < 0.2
    assert cellnet.LABELS[int(cell.features["net_best"])] == "T"
    assert NET_PAIR_ACCEPT <= cell.features["net_p"] < GLARE_ACCEPT
    assert _confident_errors(truth, dict(reading.grids)) == 0
    original = reader._glare_pair
    monkeypatch.setattr(reader, "_glare_pair", lambda c, pale: original(c, pale) or (
        c.reason == GLARE_REASON and not pale and "net_best" in c.features
        and GLARE_RULES[int(c.features.get("glare_rules", 4))] == "T" == cellnet.LABELS[int(c.features["net_best"])]))
    assert read_board(image, fitted).grids["weapon_left"][0][1] == "T"


def test_a_tooth_in_a_halo_measured_whole_as_ivory_is_read_by_the_pair(monkeypatch: pytest.MonkeyPatch) -> None:
    # Development seed 577, photo 4 at 12 MP, as the benchmark stores it: teeth in a highlight's halo, their tops not
    # clipped at all. Past the glare the rules read teeth; the cell network says tooth at 0.961 on weapon_left[2][0]
    # (under GLARE_ACCEPT, so only the pair may read it) and the second network agrees. A halo adds the same light to
    # every channel, so it cannot make a grey metal top less blue than red, nor take away a wood top's excess of red:
    # a top measured whole, lighter than GLARE_TOOTH_LIGHT and redder than blue by no more than ivory may be, is a
    # tooth (reader._tooth_past_glare). The halo'd metal top of seed 535, photo 9, measured whole, was 0.70-0.75 and
    # bluer than red; the wood of 556/40 (the test above) had its top's place clipped.
    from vision import reader
    from vision.reader import (
        GLARE_ACCEPT,
        GLARE_CLEAR_TOP,
        GLARE_REASON,
        GLARE_RULES,
        GLARE_TOOTH_LIGHT,
        GLARE_TOOTH_WARM_MAX,
        NET_PAIR_ACCEPT,
    )

    image, truth, fitted = _calibrated_photo(577, 4, (4000, 3000), stored=True)
    key = ("weapon_left", 2, 0)
    assert truth["weapon_left"][2][0] == "T"
    rules = _cell(read_board(image, fitted, net=False), key)
    assert rules.reason == GLARE_REASON and GLARE_RULES[int(rules.features["glare_rules"])] == "T"
    assert rules.features["clipped"] <= GLARE_CLEAR_TOP
    assert rules.features["glare_top_min"] >= GLARE_TOOTH_LIGHT
    assert 0.0 <= rules.features["glare_top_warm"] <= GLARE_TOOTH_WARM_MAX
    reading = read_board(image, fitted)
    cell = _cell(reading, key)
    assert cell.label == "T" and NET_PAIR_ACCEPT <= cell.features["net_p"] < GLARE_ACCEPT
    assert cell.features["check_p"] >= NET_PAIR_ACCEPT
    assert _confident_errors(truth, dict(reading.grids)) == 0
    # A top a little bluer than red (as grey metal's), or as red over blue as wood, would not be taken for ivory, nor
    # one darker than GLARE_TOOTH_LIGHT: the cell stays '?' for glare.
    original = reader._tooth_past_glare
    for changed in ({"glare_top_warm": -0.01}, {"glare_top_warm": 0.44}, {"glare_top_min": GLARE_TOOTH_LIGHT - 0.01}):
        monkeypatch.setattr(reader, "_tooth_past_glare", lambda c, pale, changed=changed: original(
            replace(c, features={**c.features, **changed}), pale))
        assert _cell(read_board(image, fitted), key).reason == GLARE_REASON, changed


def test_a_top_clipped_white_under_glare_is_not_read_as_metal_or_wood(monkeypatch: pytest.MonkeyPatch) -> None:
    # Development seed 578, photo 9 at 12 MP, as the benchmark stores it: a tooth on a yellow print, its top clipped
    # white under a highlight, its sides in shade. Past the glare the rules measure the clipped white against the
    # print's light, a white bluer than the print, and read metal; both networks agreed (0.987, 0.99), and the pair
    # read metal: a confident error. A top clipped white shows no colour: wood or metal is never read on it
    # (reader._material_on_white); the cell stays '?' for glare.
    from vision import reader
    from vision.reader import GLARE_REASON, GLARE_RULES, GLARE_WHITE_MAX

    image, fitted, _reading, cell = _left_unsure(578, 9, ("weapon_left", 2, 4), "T", GLARE_REASON)
    assert GLARE_RULES[int(cell.features["glare_rules"])] == "M" and cell.features["white"] >= GLARE_WHITE_MAX
    assert cellnet.LABELS[int(cell.features["net_best"])] == "M"
    monkeypatch.setattr(reader, "_material_on_white", lambda c, label: False)
    assert read_board(image, fitted).grids["weapon_left"][2][4] == "M"


def test_networks_do_not_overrule_the_rules_on_a_cube_whose_print_lies_in_a_shadow(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Development seed 581, photo 23 at 12 MP, as the benchmark stores it: a metal cube at the edge of a large shadow
    # under a warm lamp, the print beside it in the shadow (its reference under half its grid's). Normalised by that
    # bluish, dim print the lit top turns warm and bright: the rules' colours leaned to a tooth, unsure, and both
    # networks read wood at 0.999 - a confident error. Where the print's reference lies in a shadow
    # (reader.SHADED_REFERENCE), the networks' answer does not overrule the rules' leaning; the cell stays '?'.
    from vision import reader

    image, fitted, reading, cell = _left_unsure(581, 23, ("weapon_left", 0, 0), "M", "cube colour unclear")
    assert "WMT"[int(cell.features["best"])] == "T" and cellnet.LABELS[int(cell.features["net_best"])] == "W"
    assert reader._shaded_reference(cell, reader._grid_light({(c.grid, c.row, c.col): c for c in reading.cells}))
    # Without the guard, both networks' wood stands (the first alone at NET_ALONE_ACCEPT, the second confirming).
    monkeypatch.setattr(reader, "SHADED_REFERENCE", 0.0)
    assert read_board(image, fitted).grids["weapon_left"][0][0] == "W"


def test_a_cube_of_its_prints_colour_seen_from_above_shows_its_outline(monkeypatch: pytest.MonkeyPatch) -> None:
    # Development seed 582, photo 18 at 12 MP, as the benchmark stores it: a metal cube of its lavender print's colour,
    # the camera nearly above it (no side face), its top as light as the print. The rules read it empty (0.83), the
    # first network too (0.94); its interior's edges (its outline) measured 0.53, under the edge check's bound of then
    # (0.6): a confident error. At reader.EMPTY_EDGES_MAX (0.5) the edge check doubts the empty reading, the networks'
    # second look does not confirm it, and the cell is '?'.
    from vision import reader
    from vision.reader import EDGES_REASON, EMPTY_EDGES_MAX

    image, fitted, _reading, cell = _left_unsure(582, 18, ("weapon_left", 1, 4), "M", EDGES_REASON)
    assert EMPTY_EDGES_MAX < cell.features["edges"] < 0.6
    monkeypatch.setattr(reader, "EMPTY_EDGES_MAX", 0.6)
    assert read_board(image, fitted).grids["weapon_left"][1][4] == "."


def test_wood_under_glare_that_the_rules_and_the_first_network_call_teeth_stays_unread(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Development seed 511, photo 0 at 12 MP (GLARE_ALONE_ACCEPT's case): two wood cubes under glare, teeth to the
    # rules reading past it and to the first network at 0.99. The second network did not give that agreement (0.44 and
    # 0.73 on the benchmark's JPEG), so they stayed '?'; since the twenty-ninth session the pair reads no tooth under
    # glare (_glare_pair), and the second network is not even asked.
    import vision.reader
    from vision.reader import NET_PAIR_ACCEPT

    image, truth, fitted = _calibrated_photo(511, 0, (4000, 3000))
    # The board is overexposed and its stickers disagree with it; with only 5 cells like its calibrated print it is
    # refused since the fourteenth session (LIKE_PRINT_SHIFTED). Read as it was, the pair must still keep them '?'.
    assert read_board(image, fitted, net=_first_net_before()).retake == UNFAMILIAR_REASON
    monkeypatch.setattr(vision.reader, "LIKE_PRINT_SHIFTED", 0)
    reading = read_board(image, fitted, net=_first_net_before())
    cells = {(c.grid, c.row, c.col): c for c in reading.cells}
    for g, r, c in [("weapon_left", 2, 1), ("weapon_right", 1, 0)]:
        assert truth[g][r][c] == "W"
        assert cells[(g, r, c)].label == "?"
        assert cells[(g, r, c)].reason == "glare" and "check_p" not in cells[(g, r, c)].features
        assert cells[(g, r, c)].features["net_p"] >= NET_PAIR_ACCEPT
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_on_a_print_of_woods_colour_the_networks_empty_needs_more_over_a_cubes_outline(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Development seed 558, photo 56 at 12 MP, as the benchmark stores it (read once, before the change): a wood cube
    # on a pale wood-coloured print, its top and footprint within 1 of the print, so the rules read it empty. The edge
    # check found its outline (0.74, over EMPTY_EDGES_MAX), and the networks' empty (0.984 and 0.992) stood over it: a
    # confident error. On a print of wood's colour the outline is the one sign of a wood cube, and the first network's
    # empty stands over it only at EDGES_WOOD_PRINT_ACCEPT (reader._edges_second_look).
    from vision import reader
    from vision.reader import EDGES_REASON, EDGES_WOOD_PRINT_ACCEPT, EMPTY_EDGES_MAX

    image, truth, fitted = _calibrated_photo(558, 56, (4000, 3000), stored=True)
    assert truth["sandals"][0][2] == "W"
    reading = read_board(image, fitted)
    cell = _cell(reading, ("sandals", 0, 2))
    assert cell.label == "?" and cell.reason == EDGES_REASON
    assert cell.features["edges"] > EMPTY_EDGES_MAX and cell.features["e_top"] < 1.0 and cell.features["e_core"] < 1.0
    assert cellnet.ACCEPT <= cell.features["net_p"] < EDGES_WOOD_PRINT_ACCEPT
    assert _confident_errors(truth, dict(reading.grids)) == 0
    monkeypatch.setattr(reader, "EDGES_WOOD_PRINT_ACCEPT", cellnet.ACCEPT)
    assert read_board(image, fitted).grids["sandals"][0][2] == "."


@pytest.mark.parametrize(("seed", "index", "cell", "truth_label", "first_label"), [
    (530, 49, ("helmet", 1, 0), "M", "W"),
    (531, 40, ("weapon_left", 1, 4), "M", "T"),
])
def test_on_a_calibrated_grid_no_cell_is_the_first_networks_alone(
        seed: int, index: int, cell: tuple[str, int, int], truth_label: str, first_label: str) -> None:
    # New development seeds 530 and 531 at 12 MP: a metal cube under glare that the first network reads as wood at
    # 0.998 where the rules cannot tell (GLARE_ALONE_ACCEPT), and a metal cube it reads as a tooth at 0.987 where the
    # rules leave the colour unclear (cellnet.ACCEPT). Without the second network each is a confident error; the
    # second does not confirm them (_confirmed), so they stay '?'.
    from vision.reader import NET_PAIR_ACCEPT

    image, truth, fitted = _calibrated_photo(seed, index, (4000, 3000))
    g, r, c = cell
    assert truth[g][r][c] == truth_label
    first = _first_net_before()
    alone = next(x for x in read_board(image, fitted, net=first, check=False).cells if (x.grid, x.row, x.col) == cell)
    assert alone.label == first_label
    read = next(x for x in read_board(image, fitted, net=first).cells if (x.grid, x.row, x.col) == cell)
    assert read.label == "?" and read.reason
    assert read.features["net_best"] == cellnet.LABELS.index(first_label)
    assert read.features["check_p"] < NET_PAIR_ACCEPT


def test_a_hand_over_a_grid_is_no_cube() -> None:
    # New development seed 531, photo 40 at 12 MP: a hand (an arm and a palm, brown) lies over most of the helmet
    # grid. Under it the rules read cubes, and at the palm's edge (helmet (1, 2), an empty cell) wood at 0.7 that
    # every network agreed with: a confident error. A cube is smaller than its cell, so its cell's printed outline
    # shows somewhere; here the outline is the cover's colour all round: '?' (COVERED_REASON), not a cube.
    from vision.reader import COVERED_REASON

    image, truth, fitted = _calibrated_photo(531, 40, (4000, 3000))
    reading = read_board(image, fitted)
    helmet = {(c.row, c.col): c for c in reading.cells if c.grid == "helmet"}
    assert helmet[(1, 2)].label == "?" and helmet[(1, 2)].reason == COVERED_REASON
    assert sum(c.reason == COVERED_REASON for c in helmet.values()) >= 4
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_a_retake_is_the_same_board_and_cubes_in_another_scene() -> None:
    template = load_template()
    look = synth2.Look(size=(800, 600))
    photo, labels = synth2.render_photo(synth2.TUNE_SEEDS[0], 2, look, template)
    retake, again = synth2.render_retake(synth2.TUNE_SEEDS[0], 2, look, template)
    assert {g: again[g] for g in GEAR_GRIDS} == {g: labels[g] for g in GEAR_GRIDS}
    assert again["render"]["camera_centre_mm"] != labels["render"]["camera_centre_mm"]
    assert not np.array_equal(photo, retake)
    second, _ = synth2.render_retake(synth2.TUNE_SEEDS[0], 2, look, template, attempt=1)
    assert not np.array_equal(second, retake)


def test_the_benchmark_reads_retakes_where_the_reader_asks(tmp_path: Path) -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    run = subprocess.run([sys.executable, str(root / "benchmarks" / "vision.py"), "--renderer", "second",
                          "--seed", str(synth2.TUNE_SEEDS[0]), "--count", "4", "--size", "1000x750", "--bad", "0",
                          "--dice", "0", "--calibrated", "--retakes", "1", "--quiet", "--cache", str(tmp_path)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "one photo each" in run.stdout and "with up to 1 retake(s)" in run.stdout
    # Each section reports its per-cell error over the same 4 photos (156 cells); two of them asked for a
    # retake (glare, a doubtful cell), and each took one: for the glare the same photo a stop darker, as the
    # reader's advice says, for the doubt the board in another scene.
    assert run.stdout.count("PER-CELL ERROR (wrong or ?):   ") == 2 and run.stdout.count("/156 = ") == 2
    assert "merged with it: 2; retakes the reader could not read (the photos before them stand): 0" in run.stdout
    assert "calibrated grids against where they are printed (16 grids, each by its farthest cell)" in run.stdout
    assert len(list(tmp_path.glob("*/darker-x0.5/*.jpg"))) == 1 and len(list(tmp_path.glob("*/retake/*.jpg"))) == 1


def test_the_benchmark_measures_calibrated_grids_against_their_print() -> None:
    # The second renderer prints the shipped template's grids, so a calibrated grid's distance from them is
    # calibration's error: each grid by its farthest cell (a cell size 1 mm too wide puts the far cell of a
    # five-cell row 5 mm out), a grid the group left unset not counted.
    import importlib.util

    spec = importlib.util.spec_from_file_location("vision_benchmark", Path(__file__).resolve().parents[2]
                                                  / "benchmarks" / "vision.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    printed = load_template()
    grids = dict(printed.grids)
    helmet, left = grids["helmet"], grids["weapon_left"]
    grids["helmet"] = replace(helmet, origin_mm=(helmet.origin_mm[0] + 1.5, helmet.origin_mm[1]))
    grids["weapon_left"] = replace(left, cell_mm=left.cell_mm + 0.6)
    shifted = replace(printed, grids=grids)
    unset = replace(shifted, unset_grids=("helmet",))
    line = bench.calibration_geometry({Path("a"): shifted, Path("b"): printed, Path("c"): unset,
                                       Path("d"): "calibration failed"}, printed)
    # 11 grids: helmet 1.5 mm off once (not counted where unset); weapon_left's far cell (row 2, col 4) 0.6 x
    # hypot(4.5, 2.5) = 3.1 mm off, twice.
    assert line.startswith("calibrated grids against where they are printed (11 grids, each by its farthest cell)")
    assert line.endswith("3 over 1 mm, 2 over 2 mm, 2 over 3 mm")


def test_a_print_the_exposure_clips_reads_in_photos_taken_darker_as_the_reader_asks() -> None:
    # Development seed 509, photo 40: a pale print clipped white by the camera's automatic exposure, glare on 21
    # cells at 2000x1500. The reader's advice for glare starts with a lower exposure (reader.GLARE_ADVICE): the
    # print clips wherever the board stands, so tilting would not help. Taken again from where it was a stop
    # darker (synth2.render_photo with stops=1: another shot, its own sensor noise) the photo shows no glare;
    # merged with the first (vision.retake) cells glare hid are read but wait for a second photo's word, which
    # the photo two stops darker gives to some of them; none is read wrong.
    from vision.reader import GLARE_ADVICE, GLARE_REASON, UNCONFIRMED_REASON
    from vision.retake import merge_readings

    look, template = synth2.Look(size=SIZE), load_template()
    image, truth, fitted = _calibrated_photo(509, 40)
    first = read_board(image, fitted)
    glared = {(c.grid, c.row, c.col) for c in first.cells if c.reason == GLARE_REASON}
    assert len(glared) >= 10 and first.retake is not None and GLARE_ADVICE in first.retake
    once = merge_readings(first, read_board(synth2.render_photo(509, 40, look, template, stops=1)[0], fitted))
    assert not any(c.reason == GLARE_REASON for c in once.cells)
    waiting = [c for c in once.cells if (c.grid, c.row, c.col) in glared and c.reason == UNCONFIRMED_REASON]
    # 3 of 11 when measured (7 of 21 until glare beside a top with no clipped pixel was left to both networks, which
    # read the others in the first photo: reader.GLARE_CLEAR_TOP).
    assert len(waiting) >= 2
    twice = merge_readings(once, read_board(synth2.render_photo(509, 40, look, template, stops=2)[0], fitted))
    read = [c for c in twice.cells if (c.grid, c.row, c.col) in glared and c.label != "?"]
    assert len(read) >= 2  # 3 when measured
    # No more '?' than the first photo left (as many when measured: three metal cubes the first photo read beside the
    # glare, whose rules in the darker photos read otherwise, are '?' as the photos disagreeing).
    assert sum(c.label == "?" for c in twice.cells) <= sum(c.label == "?" for c in first.cells)
    assert _confident_errors(truth, dict(twice.grids)) == 0


def test_a_hand_over_two_grids_hides_those_grids_not_the_board() -> None:
    # Development seed 530, photo 16 at 12 MP: a hand lies over both weapon grids. Their flat cells (the hand's
    # skin) looked unlike the calibrated print, and the whole board was refused as another board. A hand hides the
    # printed outlines with the cells (another board's grid still shows its lines): those grids are '?' as covered
    # (COVERED_GRID_REASON), and the helmet and sandals, in full view, are read.
    from vision.reader import COVERED_GRID_REASON

    image, truth, fitted = _calibrated_photo(530, 16, (4000, 3000))
    reading = read_board(image, fitted)
    assert reading.retake not in WHOLE_BOARD_REASONS
    by_grid = {g: [c for c in reading.cells if c.grid == g] for g in GEAR_GRIDS}
    assert all(c.reason == COVERED_GRID_REASON for g in ("weapon_left", "weapon_right") for c in by_grid[g])
    assert sum(c.label != "?" for g in ("helmet", "sandals") for c in by_grid[g]) >= 12
    assert _confident_errors(truth, dict(reading.grids)) == 0
    # The advice names the covered grids once, not their cells one by one.
    assert reading.retake is not None and "covers the weapon_left, weapon_right grids" in reading.retake
    assert "weapon_left[0][0]" not in reading.retake


def test_the_print_around_a_covered_grid_does_not_refuse_the_board() -> None:
    # Development seed 571, photo 5 at 12 MP, as the benchmark stores it, with its own calibration: a hand over the
    # sandals grid and the print around it. That grid is '?' as covered, but its print, measured from the band around
    # it (the hand's skin), lay 56 Lab units from its calibration against the stickers, and that alone refused the
    # whole board as unlike its calibration, while the other grids measured 2.2-8.3 units from theirs. A covered
    # grid's print is no evidence of another board (thirty-seventh session).
    from vision.reader import COVERED_GRID_REASON

    image, truth, fitted = _calibrated_photo(571, 5, (4000, 3000), stored=True)
    reading = read_board(image, fitted)
    assert reading.retake not in WHOLE_BOARD_REASONS
    assert all(c.reason == COVERED_GRID_REASON for c in reading.cells if c.grid == "sandals")
    assert sum(c.label != "?" for c in reading.cells) >= 30
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_a_board_set_up_nearly_full_is_its_calibration() -> None:
    # Development seed 531, photo 8 at 12 MP: one empty cell on the whole board, so no two empty cells' middles
    # could show the calibrated print and the board was refused as another board. The print beside the cubes in
    # their cells shows it (LIKE_PRINT_STRIPS): the board is read.
    image, truth, fitted = _calibrated_photo(531, 8, (4000, 3000))
    assert sum(row.count(".") for g in GEAR_GRIDS for row in truth[g]) == 1
    reading = read_board(image, fitted)
    assert reading.retake not in WHOLE_BOARD_REASONS
    assert sum(c.label != "?" for c in reading.cells) >= 35
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_another_light_on_the_board_around_a_grid_leaves_that_grid_unread_not_the_board() -> None:
    # Development seed 567, photo 39 at 12 MP, its own calibration: measured against the stickers, the weapon_right's
    # print is 31.8 Lab units off its calibration (lighter and bluer: another light falls there than on the
    # stickers), the helmet's and weapon_left's within 1.5, and at least LIKE_PRINT_SHIFTED cells' middles look like
    # the calibrated print; an arm lies over the sandals (its skin measured 27.8 off). The whole board was refused as
    # another board (39 cells '?'). Now the weapon_right is left unread with LIT_BAND_REASON, the sandals with the
    # covered grid's reason (a hand is no light), and the other two grids are read.
    from vision.reader import COVERED_GRID_REASON, LIT_BAND_ADVICE, LIT_BAND_REASON

    image, truth, fitted = _calibrated_photo(567, 39, (4000, 3000), stored=True)  # as the benchmark keeps it
    reading = read_board(image, fitted)
    assert reading.retake is not None and LIT_BAND_ADVICE in reading.retake
    assert "the board around the weapon_right grid measures unlike its calibration" in reading.retake
    assert not any(c.reason in WHOLE_BOARD_REASONS for c in reading.cells)
    assert {c.grid for c in reading.cells if c.reason == LIT_BAND_REASON} == {"weapon_right"}
    assert {c.grid for c in reading.cells if c.reason == COVERED_GRID_REASON} == {"sandals"}
    assert sum(c.label != "?" for c in reading.cells) >= 20
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_a_shadow_over_the_board_around_one_grid_leaves_that_grid_unread_not_the_board() -> None:
    # Development seed 534, photo 14 at 12 MP: a hand out of the photo casts its shadow over the board around the
    # sandals. Measured against the stickers, the sandals' print is 28 Lab units darker than calibrated (the band's
    # light it is scaled from lies in the shadow), the other grids' within PRINT_UNLIKE, and most cells' middles look
    # like the calibrated print: the board was refused as another board (39 cells). Now only the sandals are '?'
    # (with glare cells: since the twenty-ninth session a tooth under glare the pair used to read among them).
    from vision.reader import GLARE_RULES, NET_PAIR_ACCEPT, SHADED_BAND_ADVICE, SHADED_BAND_REASON

    image, truth, fitted = _calibrated_photo(534, 14, (4000, 3000))
    reading = read_board(image, fitted)
    assert reading.retake is not None and SHADED_BAND_ADVICE in reading.retake
    assert {c.grid for c in reading.cells if c.reason == SHADED_BAND_REASON} == {"sandals"}
    assert sum(c.label != "?" for c in reading.cells) >= 29
    assert any(c.reason == "glare" and GLARE_RULES[int(c.features.get("glare_rules", 4))] == "T"
               and c.features.get("net_best") == cellnet.LABELS.index("T") and c.features["net_p"] >= NET_PAIR_ACCEPT
               for c in reading.cells)
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_a_cube_standing_off_the_middle_of_its_cell_is_not_read_by_its_side_face(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Development seed 538, photo 16 at 12 MP (the seed read once, before any change): in the helmet's top row a
    # tooth stood off the middle of where the grid was placed, so where its top belongs the photo shows its grey side
    # face and, beside it, the top's edge (the place's halves differ by half their light). Both networks called it
    # metal at 0.99; a cube's top is one flat face, so no network's cube label is taken for a place split like this
    # (SPLIT_TOP). (The tooth was off the middle because calibration had fitted the helmet's outline too wide, cells
    # 13.4 mm for 12: fitted on its inner lines, INNER_FIT, the place is right and the cell is read without a split.
    # The guard is still tested on the place as it was.)
    from vision import calibrate as calibration
    from vision.reader import SPLIT_TOP

    image, truth, fitted = _calibrated_photo(538, 16, (4000, 3000), stored=True)
    assert truth["helmet"][0][3] == "T"
    assert abs(fitted.grids["helmet"].cell_mm - 12.0) < 0.1
    assert _confident_errors(truth, dict(read_board(image, fitted).grids)) == 0
    monkeypatch.setattr(calibration, "INNER_FIT", False)
    image, truth, fitted = _calibrated_photo(538, 16, (4000, 3000), stored=True)
    assert fitted.grids["helmet"].cell_mm > 13.0
    reading = read_board(image, fitted)
    cell = _cell(reading, ("helmet", 0, 3))
    assert cell.features["u_top"] >= SPLIT_TOP
    assert cell.label in "T?"
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_a_print_calibration_saw_clipped_is_its_calibration_where_it_clips_again() -> None:
    # Development seed 533, photo 34 at 12 MP: a pale pink print that clipped white in the calibration photos (every
    # grid in Template.clipped_print: its calibrated light is a floor) and clips again in red here. Against that
    # floor the empty cells' red was 1.5 times the calibrated print's, no cell's middle looked like it, and the board
    # was refused as another board (39 cells). A channel clipped here, at or above the floor, is no evidence either
    # way (_print_like): the board is read.
    image, truth, fitted = _calibrated_photo(533, 34, (4000, 3000), stored=True)
    assert set(fitted.clipped_print) == set(GEAR_GRIDS)
    reading = read_board(image, fitted)
    assert reading.retake not in WHOLE_BOARD_REASONS
    assert sum(c.label != "?" for c in reading.cells) >= 25
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_a_grid_without_lines_does_not_excuse_another_board() -> None:
    # Development seed 531: photo 43's board read with photo 44's calibration (another board). Its pale pink
    # weapon_left grid shows no lines against its cells, as a hand's cover would, and its sandals grid is printed
    # like the calibrated board. With a grid excused as covered, only empty cells' middles vouch for the board, not
    # the print beside cubes: refused.
    image, truth, other = _with_another_calibration(531, 43, 44, stored=False)
    reading = read_board(image, other)
    assert reading.retake == UNFAMILIAR_REASON
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_the_rules_and_both_networks_leaning_the_same_way_read_a_cell() -> None:
    # Development seed 530, photo 54 at 12 MP: teeth the rules read plainly (T, with a wide margin) that the first
    # network finds likeliest a tooth too, but at 0.70, under CALIBRATED_DISAGREE_BELOW: '?' as the readers'
    # disagreement. On seeds 530-533 the rules' reading was right in every one of 52 such cells. The second network
    # settles it: at RULES_LEAD_CHECK or more for the rules' label the cell is read (weapon_left (1, 3): 0.95), below
    # it it stays '?' (weapon_left (2, 0): 0.78).
    from vision.reader import CALIBRATED_DISAGREE_BELOW, DISAGREE_REASON, RULES_LEAD_CHECK

    image, truth, fitted = _calibrated_photo(530, 54, (4000, 3000))
    reading = read_board(image, fitted, net=_first_net_before())
    cells = {(c.grid, c.row, c.col): c for c in reading.cells}
    read, left = cells[("weapon_left", 1, 3)], cells[("weapon_left", 2, 0)]
    assert truth["weapon_left"][1][3] == truth["weapon_left"][2][0] == "T"
    tooth = float(cellnet.LABELS.index("T"))
    for cell in (read, left):
        assert cell.features["rules_read"] == cell.features["net_best"] == tooth
        assert cell.features["net_p"] < CALIBRATED_DISAGREE_BELOW
    assert read.label == "T" and read.confidence >= 0.5 and read.features["check_p"] >= RULES_LEAD_CHECK
    assert left.label == "?" and left.reason == DISAGREE_REASON and left.features["check_p"] < RULES_LEAD_CHECK
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_a_network_leaning_elsewhere_leaves_the_rules_no_lead() -> None:
    from vision.reader import DISAGREE_REASON, Cell, _rules_lead

    tooth, metal = float(cellnet.LABELS.index("T")), float(cellnet.LABELS.index("M"))
    leaning = {"rules_read": tooth, "net_best": tooth, "net_p": 0.6}
    assert _rules_lead(Cell("helmet", 0, 0, "?", 0.6, DISAGREE_REASON, leaning))
    assert not _rules_lead(Cell("helmet", 0, 0, "?", 0.6, DISAGREE_REASON, {**leaning, "net_best": metal}))
    assert not _rules_lead(Cell("helmet", 0, 0, "?", 0.4, DISAGREE_REASON, {**leaning, "net_p": 0.4}))
    assert not _rules_lead(Cell("helmet", 0, 0, "?", 0.6, "glare", leaning))


def test_grid_lines_printed_in_another_hue_at_the_fills_lightness_are_fitted() -> None:
    # Development seed 533, photo 24 at 12 MP: the weapon grids are printed pale violet with pale yellow lines, of
    # about the same grey. Calibration searched for the lines in grey only, found none in three photos of the empty
    # board, and the group could read the helmet and sandals alone. In the colour channel where they differ most the
    # lines stand out, inner lines too (a card's edges alone would not): fitted from the first photo.
    from vision.calibrate import calibrate

    template = load_template()
    empty, _ = synth2.render_calibration(533, 24, synth2.Look(size=(4000, 3000)), template)
    fitted = calibrate(empty, template)
    assert fitted.faint_lines == () and fitted.unset_grids == ()
    for name in ("weapon_left", "weapon_right"):
        got, want = fitted.grids[name], template.grids[name]
        assert all(abs(a - b) < 1.5 for a, b in zip(got.origin_mm, want.origin_mm, strict=True))
        assert abs(got.cell_mm - want.cell_mm) < 0.3


def test_a_calibration_photo_a_stop_darker_is_the_same_shot_darker() -> None:
    template, look = load_template(), synth2.Look(size=(800, 600))
    photo, _ = synth2.render_calibration(533, 1, look, template)
    darker, _ = synth2.render_calibration(533, 1, look, template, stops=1)
    assert np.array_equal(photo, synth2.render_calibration(533, 1, look, template, stops=0)[0])
    ratio = float(darker.mean()) / float(photo.mean())
    assert 0.5 < ratio < 0.9  # a stop in linear light, less after the tone curve


def test_an_overexposed_photo_is_not_another_board() -> None:
    # Development seed 533, photo 1 at 12 MP: white grids on a brown board, overexposed so that the stickers' white
    # patches clip too. Calibrated from a photo of the empty board taken a stop darker (as calibration advises when
    # the print clips: "move the light or lower the exposure"), its print measures L* 94; against the photo's
    # clipped white it measures L* 116-120, lighter than it is: that is no sign of another board. Read with the
    # calibrated print and a note to lower the exposure; before, the board was refused as unlike its calibration.
    from vision.calibrate import calibrate
    from vision.reader import STICKERS_CLIPPED_NOTE

    empty, _ = synth2.render_calibration(533, 1, synth2.Look(size=(4000, 3000)), load_template(), stops=1)
    fitted = calibrate(empty, load_template())
    assert fitted.clipped_print == ()
    image, truth = synth2.render_photo(533, 1, synth2.Look(size=(4000, 3000)), load_template())
    reading = read_board(image, fitted)
    assert reading.retake not in WHOLE_BOARD_REASONS
    assert STICKERS_CLIPPED_NOTE in reading.notes
    assert sum(c.label != "?" for c in reading.cells) >= 5  # the rest is glare: the photo is overexposed
    assert _confident_errors(truth, dict(reading.grids)) == 0


def test_a_photo_overexposed_further_still_is_not_another_board() -> None:
    # Development seed 549, photo 49 at 12 MP: a pale print calibrated at L* 82; the photo clips the stickers' white
    # in every channel, and against it the print measures L* 114-118, 33-36 lighter (OVEREXPOSED_L_MAX was 30 from
    # seed 533's 22-26, and the board was refused as unlike its calibration, all 39 cells '?'). Its hue matches the
    # calibration's and 10 cells look like the calibrated print: the same board, overexposed.
    from vision.reader import STICKERS_CLIPPED_NOTE

    image, truth, fitted = _calibrated_photo(549, 49, (4000, 3000), stored=True)
    reading = read_board(image, fitted)
    assert reading.retake not in WHOLE_BOARD_REASONS
    assert STICKERS_CLIPPED_NOTE in reading.notes
    assert sum(c.label != "?" for c in reading.cells) >= 5  # 6 at the time of writing; the rest is glare
    assert _confident_errors(truth, dict(reading.grids)) == 0


@pytest.mark.parametrize(("seed", "index"), [(530, 16), (534, 27)])
def test_another_board_whose_print_is_near_the_calibrations_is_refused(seed: int, index: int,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # Development seeds 530 and 534: photo 16 (a hand over the weapon grids) and photo 27 (dark grids in several
    # colours), each read with the next photo's calibration, another board. The print measured against the stickers
    # lay 15-25 Lab units from the calibration's, which is how stickers lit unlike the board look, and the checks that
    # do not depend on the light passed on a few cells (a hand the colour of a grey print; dark prints whose hues
    # differ little): both were read with the calibrated print, with 13 and 6 confident errors. Read so, the board
    # must have many cells like its calibrated print (LIKE_PRINT_SHIFTED); these had 2 to 6 of 39: refused.
    image, truth = synth2.render_photo(seed, index, synth2.Look(size=(4000, 3000)), load_template())
    _, _, other = _calibrated_photo(seed, index + 1, (4000, 3000))
    reading = read_board(image, other)
    assert reading.retake == UNFAMILIAR_REASON
    assert _confident_errors(truth, dict(reading.grids)) == 0
    # It is that check which refuses it: without it the board is read, and wrongly.
    import vision.reader

    monkeypatch.setattr(vision.reader, "LIKE_PRINT_SHIFTED", 0)
    unchecked = read_board(image, other)
    assert unchecked.retake not in WHOLE_BOARD_REASONS and _confident_errors(truth, dict(unchecked.grids)) > 0


def test_a_cube_whose_colour_the_rules_find_unclear_is_read_against_the_photos_own_cubes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Development seed 533, photo 24 at 12 MP (the benchmark's stored JPEG): two teeth in the helmet grid whose tops
    # the rules leave '?' with the cube colour unclear against the colours they were tuned with. The teeth and wood
    # read surely elsewhere in the same photo show this camera's and this light's colours; against those the two
    # tops are plainly teeth, and both networks lean that way (_photo_colours). Without that pass they stay '?'.
    import vision.reader
    from vision.reader import RULES_LEAD_CHECK

    image, truth, fitted = _calibrated_photo(533, 24, (4000, 3000), stored=True)
    reading = read_board(image, fitted)
    cells = {(c.grid, c.row, c.col): c for c in reading.cells}
    for key in [("helmet", 0, 0), ("helmet", 1, 0)]:
        assert truth[key[0]][key[1]][key[2]] == "T"
        assert cells[key].label == "T" and cells[key].features["photo_colour"] == 1.0
        assert cells[key].features["check_p"] >= RULES_LEAD_CHECK
    assert _confident_errors(truth, dict(reading.grids)) == 0
    monkeypatch.setattr(vision.reader, "PHOTO_COLOUR_MAX", 0.0)
    without = {(c.grid, c.row, c.col): c for c in read_board(image, fitted).cells}
    for key in [("helmet", 0, 0), ("helmet", 1, 0)]:
        assert without[key].label == "?" and without[key].reason == "cube colour unclear"


@pytest.mark.parametrize(("seed", "index", "rule", "without", "read_at_change"), [
    # A warm lamp clipped the red and green of every sticker's white patch, not its blue. Measured against that white
    # the print was 25-28 Lab units redder and yellower than its calibration (over STICKER_LIGHT_MAX). Estimated past
    # the clipping from the black patch beside it (reader._white_past_clipping), it lies within PRINT_UNLIKE. The 19
    # cells not read lie under glare, for which a darker photo is asked.
    (559, 51, "_white_past_clipping", lambda white, _black: white, 20),
    # The helmet's two flat cells (a pale pink print; 8 of its 12 cells hold cubes) were 28-36 % lighter and 8-10
    # units off in hue from what the band around it (the board's dark grey and a green disc) predicts through
    # calibration's ratio. Against the stickers they measure 11 Lab units from the calibrated print, within
    # PRINT_UNLIKE, and 5 cells' middles elsewhere look like their calibrated print (reader._flat_as_calibrated).
    (560, 41, "_flat_as_calibrated", lambda *_args: False, 32),
])
def test_a_board_refused_as_unlike_its_own_calibration_is_read(
        monkeypatch: pytest.MonkeyPatch, seed: int, index: int, rule: str, without: Any, read_at_change: int) -> None:
    # Development seeds 559 and 560 at 12 MP, as the benchmark stores them (each read once, before the change): a
    # board refused as unlike its calibration, all 39 cells '?', though it was its own. Read now, with no confident
    # error (``read_at_change``: cells read when the rule was made, none wrong); with the rule patched out, refused.
    from vision import reader

    image, truth, fitted = _calibrated_photo(seed, index, (4000, 3000), stored=True)
    reading = read_board(image, fitted)
    assert reading.retake not in WHOLE_BOARD_REASONS
    assert sum(c.label != "?" for c in reading.cells) >= read_at_change - 5
    assert _confident_errors(truth, dict(reading.grids)) == 0
    monkeypatch.setattr(reader, rule, without)
    assert read_board(image, fitted).retake == UNFAMILIAR_REASON


def test_another_boards_grid_measured_near_its_calibration_is_not_vouched_for_without_cells_like_its_print(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Development seed 558, photo 2 read with photo 3's calibration (another board, its print around the grids 5-10
    # Lab units from this one's): the helmet's flat cells measure 14.8 units from that calibration's helmet print
    # against the stickers, within PRINT_UNLIKE, but no cell's middle looks like the calibrated print. The stickers'
    # word on flat cells (reader._flat_as_calibrated) is taken only where LIKE_PRINT_MIN cells do: refused. (The cells'
    # own strips look like the calibrated print here, so LIKE_PRINT_MIN's refusal of a board does not apply; at 0 it
    # only lifts that condition, and the board is read.)
    from vision import reader

    image, _, other = _with_another_calibration(558, 2, 3)
    assert read_board(image, other).retake == UNFAMILIAR_REASON
    monkeypatch.setattr(reader, "LIKE_PRINT_MIN", 0)
    assert read_board(image, other).retake not in WHOLE_BOARD_REASONS


@pytest.mark.parametrize(("seed", "index", "wrong_unchecked"), [
    # Photo 9 read with photo 10's calibration: another board, whose grids are all one pale cream print where this
    # board's are blue, orange and ochre. The print around the grids measured 9-10 Lab units from that
    # calibration's, no grid had two flat cells to compare, and six cells' middles looked like the calibrated print:
    # all six were teeth, whose cream tops look like it. On that evidence the board was read, and an empty cell in a
    # shadow was read as wood (the first network at 0.88): a confident error.
    (557, 9, True),
    # Photo 55 read with photo 56's calibration: prints 3-7 units apart around the grids. Of the ten cells like the
    # calibrated print, eight were teeth and one wood, and on their word the helmet's flat cells were taken as its
    # calibrated print against the stickers (reader._flat_as_calibrated). It was read, 29 cells, none wrong.
    (558, 55, False),
    # Photo 31 read with photo 32's calibration: this board's grids are a wood-coloured print, the other's a pale
    # grey. Two cells' middles looked like that grey, both teeth; the rules' first pass left one as "cannot tell empty
    # from occupied" and the other as "cube colour unclear" (occupied, of no clear colour). Both vouched, and five
    # empty cells were read as wood at 0.7-0.8. A cell the rules found occupied no longer vouches: refused.
    (568, 31, True),
])
def test_cells_like_the_calibrated_print_that_the_rules_read_as_cubes_do_not_vouch_for_the_board(
        monkeypatch: pytest.MonkeyPatch, seed: int, index: int, wrong_unchecked: bool) -> None:
    # Development seeds 557, 558 and 568 at 12 MP, each photo read with the next photo's calibration (another board),
    # as `benchmarks/vision.py --other-boards` reads them. A cell the rules read as a cube is no evidence of the print
    # (reader._vouching_cells), and then too few cells vouch for the board: refused.
    from vision import reader

    image, truth, other = _with_another_calibration(seed, index, index + 1)
    reading = read_board(image, other)
    assert reading.retake == UNFAMILIAR_REASON
    assert _confident_errors(truth, dict(reading.grids)) == 0
    monkeypatch.setattr(reader, "_vouching_cells", lambda *_args: True)
    unchecked = read_board(image, other)
    assert unchecked.retake not in WHOLE_BOARD_REASONS
    assert (_confident_errors(truth, dict(unchecked.grids)) > 0) == wrong_unchecked


def test_cells_that_vouched_for_the_board_and_are_read_as_cubes_in_the_end_no_longer_vouch(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Development seed 570, photo 34 read with photo 35's calibration (another board), as `benchmarks/vision.py
    # --other-boards` reads it: that board's print is orange, this one's blue. Two cells' middles looked like the
    # orange print: both wood cubes, which the rules' first pass could not tell from empty ("cannot tell empty from
    # occupied"), so they still vouched there. Read as wood at 1.0 in the end, and the board was read: an empty cell
    # as metal at 0.996. The vouching is asked again of the final reading (reader._still_vouched): refused.
    from vision import reader

    image, truth, other = _with_another_calibration(570, 34, 35)
    reading = read_board(image, other)
    assert reading.retake == UNFAMILIAR_REASON
    assert reader.UNLIKE_NOTE_CALIBRATED in reading.notes
    monkeypatch.setattr(reader, "_still_vouched", lambda *_args: True)
    unchecked = read_board(image, other)
    assert unchecked.retake not in WHOLE_BOARD_REASONS
    assert _confident_errors(truth, dict(unchecked.grids)) > 0
    assert {(c.grid, c.row, c.col): c.label for c in unchecked.cells}[("helmet", 0, 2)] == "W"


def test_a_cube_is_not_read_by_the_networks_where_its_top_would_show_lit_print(monkeypatch: pytest.MonkeyPatch
                                                                               ) -> None:
    # Development seed 561, photo 5 at 12 MP, as the benchmark stores it: the helmet's cells [1][1] and [2][2] are
    # empty, each beside a cube (wood, a tooth) whose shadow lies over the cell's footprint, on a mauve-grey print
    # where the metal cubes are slate grey. The rules read both empty: where a cube's top would be, lit print (within
    # 0.08 and 0.15 of its colour). Both networks read metal at 0.97-0.998, and the cells were read so: two confident
    # errors. A cube would stand there with its own top face above the shadow (reader.TOP_IS_PRINT): now '?'.
    from vision import reader

    image, truth, fitted = _calibrated_photo(561, 5, (4000, 3000), stored=True)
    assert truth["helmet"][1][1] == truth["helmet"][2][2] == "."
    reading = read_board(image, fitted)
    cells = {(c.grid, c.row, c.col): c for c in reading.cells}
    for key in [("helmet", 1, 1), ("helmet", 2, 2)]:
        assert cells[key].label == "?"
        assert cells[key].features["e_top"] <= reader.TOP_IS_PRINT and cells[key].features["net_best"] == 1.0
    assert _confident_errors(truth, dict(reading.grids)) == 0
    monkeypatch.setattr(reader, "TOP_IS_PRINT", -1.0)
    without = {(c.grid, c.row, c.col): c for c in read_board(image, fitted).cells}
    assert without[("helmet", 1, 1)].label == without[("helmet", 2, 2)].label == "M"


def test_an_empty_reading_is_not_taken_from_the_networks_where_a_lit_top_looks_like_a_cube(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Development seed 566, photo 12 at 12 MP, as the benchmark stores it: weapon_right[1][1] is a cream tooth on a
    # mauve print, as light as the print around it. The rules found its top unlike the print and ranked a tooth first
    # (3.8 from the tooth's colour, 17 from the next), but a tooth is lighter than its print, so their reading was
    # capped ("cube colour unclear"). Both networks read it empty (0.997, 0.967): a confident error. An empty reading
    # is not taken where a lit top looks like the cube the rules ranked first (reader.TOP_IS_CUBE): '?'.
    from vision import reader

    image, truth, fitted = _calibrated_photo(566, 12, (4000, 3000), stored=True)
    assert truth["weapon_right"][1][1] == "T"
    reading = read_board(image, fitted)
    cell = next(c for c in reading.cells if (c.grid, c.row, c.col) == ("weapon_right", 1, 1))
    assert cell.label == "?" and cell.features["best"] == 2.0 and cell.features["d_best"] <= reader.TOP_IS_CUBE
    assert cell.features["net_best"] == float(cellnet.LABELS.index("."))
    assert _confident_errors(truth, dict(reading.grids)) == 0
    monkeypatch.setattr(reader, "TOP_IS_CUBE", -1.0)
    without = next(c for c in read_board(image, fitted).cells if (c.grid, c.row, c.col) == ("weapon_right", 1, 1))
    assert without.label == "."


def test_strips_in_the_cubes_shadows_do_not_vouch_for_another_boards_dark_print(monkeypatch: pytest.MonkeyPatch
                                                                               ) -> None:
    # Development seed 562, photo 25 read with photo 26's calibration (another board), as `benchmarks/vision.py
    # --other-boards` reads it: this board's grids are a pale blue with bluish shadows beside the cubes, the other's
    # dark green, blue-grey and teal, set up nearly full. One cell's middle looked like the calibrated print, so the
    # strips of print beside the cubes were asked (reader._strips_like_print), and six of them, all in the cubes'
    # shadows, looked like the dark blue-grey print: the board was read, an empty cell as a tooth at 1.0. Only a
    # cell's lit strips count (reader.STRIP_LIT): refused.
    from vision import reader

    image, truth, other = _with_another_calibration(562, 25, 26)
    reading = read_board(image, other)
    # (Set up nearly full, it shows too few flat cells to check: refused with that reason, which names another board.)
    assert reading.retake == reader.UNVOUCHED_REASON
    assert _confident_errors(truth, dict(reading.grids)) == 0
    monkeypatch.setattr(reader, "STRIP_LIT", float("inf"))
    unchecked = read_board(image, other)
    assert unchecked.retake not in WHOLE_BOARD_REASONS and _confident_errors(truth, dict(unchecked.grids)) > 0


def _left_unsure(seed: int, index: int, key: tuple[str, int, int], truth_label: str, reason: str
                 ) -> tuple[np.ndarray, Template, BoardReading, Cell]:
    """A development photo at 12 MP as the benchmark stores it, its board's calibration, its reading and the cell
    ``key`` (truly ``truth_label``), checked '?' for ``reason`` on a board read without a confident error."""
    image, truth, fitted = _calibrated_photo(seed, index, (4000, 3000), stored=True)
    g, r, c = key
    assert truth[g][r][c] == truth_label
    reading = read_board(image, fitted)
    cell = _cell(reading, key)
    assert cell.label == "?" and cell.reason == reason
    assert _confident_errors(truth, dict(reading.grids)) == 0
    return image, fitted, reading, cell


def _a_tooth_left_unsure(seed: int, index: int, key: tuple[str, int, int], truth_label: str
                         ) -> tuple[np.ndarray, Template, Cell]:
    """A development photo at 12 MP as the benchmark stores it, its board's calibration, and the cell ``key`` (a
    ``truth_label`` cube the rules read as a tooth), checked '?' as the readers disagreeing, on a board read without a
    confident error."""
    from vision import reader

    image, fitted, _reading, cell = _left_unsure(seed, index, key, truth_label, reader.DISAGREE_REASON)
    return image, fitted, cell


@pytest.mark.parametrize(("seed", "index", "key"), [(564, 8, ("weapon_right", 1, 0)), (565, 39, ("weapon_left", 2, 3))])
def test_a_tooth_the_rules_read_with_little_margin_needs_the_second_networks_word(
        monkeypatch: pytest.MonkeyPatch, seed: int, index: int, key: tuple[str, int, int]) -> None:
    # Development seeds 564 (photo 8) and 565 (photo 39) at 12 MP, as the benchmark stores them: a pale wood cube the
    # rules read as a tooth with little margin (0.573, 0.561: its top hardly nearer a tooth's colour than wood's), the
    # first network agreeing at 0.943 and 0.819, over CALIBRATED_DISAGREE_BELOW: two confident errors. Such a tooth
    # now needs the first network at NET_PAIR_ACCEPT (reader.NARROW_TOOTH), else the second network settles it as
    # where the rules lead; it gives the tooth 0.678 and 0.467, under RULES_LEAD_CHECK: '?'.
    from vision import reader

    image, fitted, cell = _a_tooth_left_unsure(seed, index, key, "W")
    g, r, c = key
    assert cell.features["rules_read"] == cell.features["net_best"] == float(cellnet.LABELS.index("T"))
    assert reader.CALIBRATED_DISAGREE_BELOW <= cell.features["net_agree"] < reader.NET_PAIR_ACCEPT
    assert cell.features["check_p"] < reader.RULES_LEAD_CHECK
    # (Without NARROW_TOOTH the tooth, confirmed by the first network under NET_PAIR_ACCEPT, goes to the second network
    # at TOOTH_CHECK, which 565/39's 0.467 fails too: without both, the tooth is read.)
    monkeypatch.setattr(reader, "NARROW_TOOTH", 0.0)
    monkeypatch.setattr(reader, "TOOTH_CHECK", 0.0)
    assert read_board(image, fitted).grids[g][r][c] == "T"


def test_a_full_board_seen_from_low_down_asks_for_a_photo_from_higher_not_for_the_camera_set_up() -> None:
    # Development seed 574, photo 53 at 12 MP, as the benchmark stores it, with its own calibration: the camera 272 mm
    # over the board's plane and beyond its edge, 32 of the 39 cells holding cubes. Every empty cell has a neighbour's
    # cube or shadow across it, so no cell vouches for the print (reader.LIKE_PRINT_MIN) and the board stays refused,
    # but it had been refused as unlike its calibration, asking the group to set up the camera again.
    from vision import reader

    image, truth, fitted = _calibrated_photo(574, 53, (4000, 3000), stored=True)
    assert sum(row.count(".") for g in GEAR_GRIDS for row in truth[g]) == 7
    reading = read_board(image, fitted)
    assert reading.retake == reader.UNVOUCHED_REASON and reader.UNVOUCHED_REASON in reader.WHOLE_BOARD_REASONS
    assert reader.UNVOUCHED_NOTE in reading.notes and reader.UNLIKE_NOTE_CALIBRATED not in reading.notes
    assert all(c.label == "?" and c.reason == reader.UNVOUCHED_REASON for c in reading.cells)
    assert "higher up" in reading.retake and "another board" in reading.retake
    # The same reason goes to another board seen so, which it names too (development seed 531, photo 8, one empty
    # cell, read with photo 9's calibration): no cell is read.
    image, _, other = _with_another_calibration(531, 8, 9)
    reading = read_board(image, other)
    assert reading.retake == reader.UNVOUCHED_REASON and all(c.label == "?" for c in reading.cells)


def test_an_overexposed_nearly_full_board_too_few_cells_confirm_is_refused_for_too_little_print() -> None:
    # Development seed 566, photo 42 at 12 MP, its own calibration: the stickers' white clipped, so the board's print
    # measures lighter than calibrated against them and is read with its calibrated print, which LIKE_PRINT_SHIFTED
    # cells like that print must confirm; 9 of the 39 cells are empty, and once the cubes are read too few of them
    # remain. The board stays refused, but no longer as another board's print (its stickers measured it as its own):
    # for too little print to check it, a reason that names the board set up and another board.
    from vision import reader

    image, truth, fitted = _calibrated_photo(566, 42, (4000, 3000), stored=True)
    assert sum(row.count(".") for g in GEAR_GRIDS for row in truth[g]) == 9
    reading = read_board(image, fitted)
    assert reading.retake == reader.UNVOUCHED_REASON
    assert reader.UNVOUCHED_NOTE in reading.notes and reader.UNLIKE_NOTE_CALIBRATED not in reading.notes
    assert reader.STICKERS_CLIPPED_NOTE not in reading.notes
    assert all(c.label == "?" and c.reason == reader.UNVOUCHED_REASON for c in reading.cells)


@pytest.mark.parametrize(("seed", "index", "key"), [(571, 32, ("weapon_right", 1, 0)), (575, 52, ("helmet", 1, 1))])
def test_a_tooth_the_first_network_confirms_with_little_margin_needs_the_second_networks_word(
        monkeypatch: pytest.MonkeyPatch, seed: int, index: int, key: tuple[str, int, int]) -> None:
    # Development seeds 571 (photo 32) and 575 (photo 52) at 12 MP, as the benchmark stores them: a pale metal cube
    # (silver on a dark olive print; pale grey on a lavender one, lighter than the photo's other metal cubes) that the
    # rules read as a tooth (1.0; 0.85) and the first network confirmed at 0.94 and 0.88, over what the rules' reading
    # needed: two confident errors. A tooth the first network confirms under NET_PAIR_ACCEPT now needs the second
    # network's word at reader.TOOTH_CHECK; it gives these teeth 0.62 and 0.61: '?'.
    from vision import reader

    image, fitted, cell = _a_tooth_left_unsure(seed, index, key, "M")
    g, r, c = key
    assert cell.features["rules_read"] == float(cellnet.LABELS.index("T"))
    assert reader.CALIBRATED_DISAGREE_BELOW <= cell.features["net_agree"] < reader.NET_PAIR_ACCEPT
    assert cell.features["check_p"] < reader.TOOTH_CHECK
    assert reader.tooth_doubted(cell)  # (so no word for a tooth in a retake: vision.retake.support)
    monkeypatch.setattr(reader, "TOOTH_CHECK", 0.0)
    assert read_board(image, fitted).grids[g][r][c] == "T"


def test_only_a_tooth_read_with_little_margin_on_a_calibrated_grid_needs_more_agreement() -> None:
    from vision import reader

    narrow = Cell("helmet", 0, 0, "T", reader.NARROW_TOOTH - 0.01, "")
    assert reader._agreement_needed(narrow, calibrated=True) == reader.NET_PAIR_ACCEPT
    for other in (replace(narrow, confidence=reader.NARROW_TOOTH), replace(narrow, label="W")):
        assert reader._agreement_needed(other, calibrated=True) == reader.CALIBRATED_DISAGREE_BELOW
    assert reader._agreement_needed(narrow, calibrated=False) == reader.DISAGREE_BELOW


def test_glare_beside_a_cell_whose_top_shows_no_clipped_pixel_is_left_to_both_networks(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Development seed 559, photo 11 at 12 MP, as the benchmark stores it: six metal cubes near clipped patches (glare
    # to the rules) with no clipped pixel where their tops are. The rules past the glare could not tell or read them
    # otherwise, and the cells were '?'. Both networks agree on metal at NET_PAIR_ACCEPT or more: read
    # (reader.GLARE_CLEAR_TOP).
    from vision import reader

    image, truth, fitted = _calibrated_photo(559, 11, (4000, 3000), stored=True)
    keys = [("helmet", 0, 0), ("helmet", 0, 1), ("helmet", 1, 2), ("helmet", 2, 1), ("sandals", 0, 1),
            ("weapon_left", 2, 4)]
    assert all(truth[g][r][c] == "M" for g, r, c in keys)
    reading = read_board(image, fitted)
    cells = {(c.grid, c.row, c.col): c for c in reading.cells}
    for key in keys:
        f = cells[key].features
        assert cells[key].label == "M" and f["clipped"] <= reader.GLARE_CLEAR_TOP
        assert min(f["net_p"], f["check_p"]) >= reader.NET_PAIR_ACCEPT
    assert _confident_errors(truth, dict(reading.grids)) == 0
    monkeypatch.setattr(reader, "GLARE_CLEAR_TOP", -1.0)
    without = read_board(image, fitted).grids
    assert all(without[g][r][c] == "?" for g, r, c in keys)


def test_which_glare_cells_the_pair_may_read() -> None:
    # reader._glare_pair: no tooth unless its top is measured whole as one (_tooth_past_glare), no empty cell over the
    # rules' cube or on a print kept as clipped white, no wood or metal on a top clipped white (_material_on_white).
    from vision.reader import GLARE_REASON, GLARE_RULES, GLARE_WHITE_MAX, _glare_pair

    def cell(net: str, rules: str, clipped: float, white: float = 0.0, **top: float) -> Cell:
        return Cell("helmet", 0, 0, "?", 0.0, GLARE_REASON, {
            "net_best": float(cellnet.LABELS.index(net)), "glare_rules": float(GLARE_RULES.index(rules)),
            "clipped": clipped, "white": white, **top})

    assert _glare_pair(cell("M", "?", 0.0), pale=False) and _glare_pair(cell("M", ".", 0.0), pale=True)
    assert _glare_pair(cell(".", "?", 0.0), pale=False) and not _glare_pair(cell(".", "?", 0.0), pale=True)
    # No empty cell where the rules past the glare read a cube (the edge check's guard does not see their reading).
    assert not _glare_pair(cell(".", "M", 0.0), pale=False) and _glare_pair(cell(".", ".", 0.0), pale=False)
    # A tooth only with its top measured whole as a tooth's, and with the rules' tooth past the glare.
    assert not _glare_pair(cell("T", "T", 0.0), pale=False)
    ivory = {"glare_top_min": 0.8, "glare_top_warm": 0.1}
    assert _glare_pair(cell("T", "T", 0.0, **ivory), pale=False)
    assert not _glare_pair(cell("T", "?", 0.0, **ivory), pale=False)
    assert not _glare_pair(cell("T", "T", 0.0, **ivory), pale=True)
    assert not _glare_pair(cell("T", "T", 0.0, glare_top_min=0.8, glare_top_warm=-0.02), pale=False)
    assert not _glare_pair(cell("T", "T", 0.0, glare_top_min=0.8, glare_top_warm=0.44), pale=False)
    assert not _glare_pair(cell("T", "T", 0.0, glare_top_min=0.6, glare_top_warm=0.1), pale=False)
    # A top with clipped pixels: only where the rules past the glare read the same, on a print not clipped white.
    assert not _glare_pair(cell("M", "?", 0.02), pale=False) and _glare_pair(cell("M", "M", 0.02), pale=False)
    assert not _glare_pair(cell("M", "M", 0.02), pale=True)
    # ... and never wood or metal on a top clipped white.
    assert not _glare_pair(cell("M", "M", 0.9, white=GLARE_WHITE_MAX), pale=False)
    assert not _glare_pair(cell("W", "W", 0.9, white=0.9), pale=False)


def test_cubes_the_colour_of_another_boards_print_do_not_vouch_for_it_with_their_own_print_beside_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Development seed 565, photo 41 read with photo 42's calibration (another board), as `benchmarks/vision.py
    # --other-boards` reads it: this board's grids are pale, set up nearly full, its metal cubes slate grey like the
    # other board's dark print. Six metal cubes looked like that print in their middles, the rules read them empty, and
    # so they vouched for the board: read, with five confident errors. The print beside where a cube stands, lit,
    # is this board's pale print (reader._ring_like_print): refused. (Read as metal in the end, those cubes no longer
    # vouch either (reader._still_vouched): without the ring's word the board is refused there.)
    from vision import reader

    image, truth, other = _with_another_calibration(565, 41, 42)
    reading = read_board(image, other)
    # (Set up nearly full, it shows too few flat cells to check: refused with that reason, which names another board.)
    assert reading.retake == reader.UNVOUCHED_REASON
    assert _confident_errors(truth, dict(reading.grids)) == 0
    monkeypatch.setattr(reader, "_ring_like_print", lambda ring, ref, pale: True)
    assert read_board(image, other).retake == UNFAMILIAR_REASON
    monkeypatch.setattr(reader, "_still_vouched", lambda *_args: True)
    unchecked = read_board(image, other)
    assert unchecked.retake not in WHOLE_BOARD_REASONS and _confident_errors(truth, dict(unchecked.grids)) > 0


def test_only_a_lit_strip_of_a_cells_own_print_says_it_is_another_print() -> None:
    from vision import reader

    ref = (np.array([0.1, 0.1, 0.1], dtype=np.float32), 0.0)
    grey, pale, dark = (np.array([v, v, v], dtype=np.float32) for v in (0.1, 0.5, 0.03))
    assert reader._ring_like_print([], ref, pale=False)  # nothing measured: no word against it
    # One lit strip like the print is enough, beside another of as much light in another hue.
    assert reader._ring_like_print([np.array([0.14, 0.095, 0.06], dtype=np.float32), grey], ref, pale=False)
    assert not reader._ring_like_print([pale], ref, pale=False)  # lit, and a print five times as light
    # A strip like the print in the shadow beside a lit strip of a lighter print is not counted.
    assert not reader._ring_like_print([pale, grey], ref, pale=False)
    assert reader._ring_like_print([dark], ref, pale=False)  # darker than the print allows: in a shadow, no word
    assert not reader._ring_like_print([grey], None, pale=False)
