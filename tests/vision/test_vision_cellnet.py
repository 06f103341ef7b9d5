"""The cell network's second look: its numpy arithmetic, its inputs, the shipped weights, and what it
decides on full-size benchmark-recipe photos where the rules alone say '?'."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from vision_photos import benchmark_photo

from vision import cellnet
from vision.cellnet import CellNet, _conv_relu_pool, _pool2, conv_matrix, default_net, symmetry
from vision.colour import LINEAR_LUT
from vision.reader import CROSS_CHECK_BELOW, DISAGREE_REASON, BoardReading, load_photo, read_board
from vision.synth import Conditions, random_gear, render_board
from vision.template import load_template


@pytest.mark.parametrize(("channels", "h", "w"), [(3, 6, 4), (8, 16, 10)])
def test_a_layer_is_a_padded_3x3_cross_correlation_then_relu_then_2x2_max_pooling(channels: int, h: int,
                                                                                   w: int) -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, channels, h, w)).astype(np.float32)
    weights = rng.normal(size=(4, channels, 3, 3)).astype(np.float32)
    b = rng.normal(size=4).astype(np.float32)
    pad = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    want = np.zeros((2, 4, h, w), np.float32)
    for n in range(2):
        for o in range(4):
            for i in range(h):
                for j in range(w):
                    want[n, o, i, j] = max(0.0, float((pad[n, :, i:i + 3, j:j + 3] * weights[o]).sum() + b[o]))
    pooled = want.reshape(2, 4, h // 2, 2, w // 2, 2).max(axis=(3, 5))
    got = _conv_relu_pool(np.ascontiguousarray(x.transpose(1, 0, 2, 3)), conv_matrix(weights), b)  # (C, N, H, W)
    assert np.allclose(got.transpose(1, 0, 2, 3), pooled, atol=1e-5)
    assert np.array_equal(_pool2(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)),
                          np.array([[[[5, 7], [13, 15]]]], dtype=np.float32))


def test_constant_planes_taken_as_maps_give_the_plain_convolution_s_probabilities() -> None:
    net = default_net()
    assert net is not None and net.flat is not None
    rng = np.random.default_rng(5)
    x = rng.normal(0, 0.5, size=(6, cellnet.CHANNELS, cellnet.PATCH_PX, cellnet.PATCH_PX)).astype(np.float32)
    x[:, cellnet.FLAT_FROM:] = rng.normal(0, 0.5, size=(6, cellnet.CHANNELS - cellnet.FLAT_FROM, 1, 1))
    plain = replace(net, flat=None)
    assert np.allclose(net.probabilities(x, views=2), plain.probabilities(x, views=2), atol=1e-5)
    # Planes that are not constant (not a patch cut by cellnet.patches) take the plain convolution.
    x[0, cellnet.FLAT_FROM, 0, 0] += 1.0
    assert np.array_equal(net.probabilities(x, views=2), plain.probabilities(x, views=2))


def test_the_quarter_turned_views_average_to_one_probability_each() -> None:
    net = default_net()
    assert net is not None
    x = np.random.default_rng(3).normal(0, 0.5, size=(2, cellnet.CHANNELS, 64, 64)).astype(np.float32)
    each = [net.probabilities(symmetry(x, k)) for k in range(4)]
    assert np.allclose(net.probabilities(x, views=4), np.mean(each, axis=0), atol=1e-6)


def test_the_shipped_weights_load_and_give_probabilities() -> None:
    net = default_net()
    assert net is not None, "vision/models/cellnet.npz is missing: run python -m vision.train_cellnet"
    p = net.probabilities(np.zeros((3, cellnet.CHANNELS, cellnet.PATCH_PX, cellnet.PATCH_PX), np.float32))
    assert p.shape == (3, len(cellnet.LABELS))
    assert np.allclose(p.sum(axis=1), 1.0, atol=1e-5)
    # Lit print all over the patch, no parallax: an empty cell.
    assert cellnet.LABELS[int(np.argmax(p[0]))] == "."


def test_the_network_multiplies_on_one_blas_thread_and_gives_the_threads_back(monkeypatch: pytest.MonkeyPatch) -> None:
    # Measured in benchmarks/vision.py's timing run: the second BLAS thread made reads no faster and used half
    # as much CPU again; the app's other work keeps the library's own setting.
    from threadpoolctl import threadpool_info

    def blas_threads() -> set[int]:
        return {int(lib["num_threads"]) for lib in threadpool_info() if lib["user_api"] == "blas"}

    net = default_net()
    assert net is not None
    seen: list[set[int]] = []
    inner = CellNet._probabilities

    def spy(self: CellNet, patches: Any, views: int) -> Any:
        seen.append(blas_threads())
        return inner(self, patches, views)

    monkeypatch.setattr(CellNet, "_probabilities", spy)
    before = blas_threads()
    net.probabilities(np.zeros((2, cellnet.CHANNELS, cellnet.PATCH_PX, cellnet.PATCH_PX), np.float32))
    assert seen == [{1}]
    assert blas_threads() == before


def test_a_large_batch_is_read_in_two_halves_at_once_each_patch_as_it_reads_alone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import threading
    from concurrent.futures import ThreadPoolExecutor

    net = default_net()
    assert net is not None
    rng = np.random.default_rng(11)
    n = cellnet.SPLIT_FROM + 3
    x = rng.normal(0, 0.5, size=(n, cellnet.CHANNELS, cellnet.PATCH_PX, cellnet.PATCH_PX)).astype(np.float32)
    x[:, cellnet.FLAT_FROM:] = rng.normal(0, 0.5, size=(n, cellnet.CHANNELS - cellnet.FLAT_FROM, 1, 1))
    alone = np.concatenate([net.probabilities(x[i:i + 1], views=2) for i in range(n)])
    threads: list[tuple[str, int]] = []
    inner = CellNet._probabilities

    def spy(self: CellNet, patches: Any, views: int) -> Any:
        threads.append((threading.current_thread().name, len(patches)))
        return inner(self, patches, views)

    monkeypatch.setattr(CellNet, "_probabilities", spy)
    helper = ThreadPoolExecutor(1, thread_name_prefix="half")
    monkeypatch.setattr(cellnet, "_helper", lambda: helper)
    try:
        cuts: list[tuple[str, int, int]] = []

        def cut(i: int, j: int) -> Any:
            cuts.append((threading.current_thread().name, i, j))
            return x[i:j]

        together = net.probabilities_of(cut, n, views=2)
        # Row i is patch i's, whichever thread cut and read it, and to 1e-6 what it gives read alone.
        assert np.allclose(together, alone, atol=1e-6)
        assert sorted(size for _, size in threads) == [n // 2, n - n // 2]
        assert len({name for name, _ in threads}) == 2
        assert sorted((i, j) for _, i, j in cuts) == [(0, n // 2), (n // 2, n)]
        assert sorted((name, j - i) for name, i, j in cuts) == sorted(threads)  # each half cut where it is read
        assert np.allclose(net.probabilities(x, views=2), alone, atol=1e-6)
        # A batch smaller than SPLIT_FROM is read on this thread alone, and so is any batch on a single core.
        here = threading.current_thread().name
        threads.clear()
        net.probabilities(x[:cellnet.SPLIT_FROM - 1], views=2)
        assert threads == [(here, cellnet.SPLIT_FROM - 1)]
    finally:
        helper.shutdown()
    threads.clear()
    monkeypatch.setattr(cellnet, "_helper", lambda: None)
    assert np.allclose(net.probabilities(x, views=2), alone, atol=1e-6)
    assert threads == [(here, n)]


def test_a_large_batch_asked_for_on_the_helper_thread_is_read_there(monkeypatch: pytest.MonkeyPatch) -> None:
    # The helper is one thread: a batch it asked to split would wait for itself.
    import threading
    from concurrent.futures import ThreadPoolExecutor

    net = default_net()
    assert net is not None
    n = cellnet.SPLIT_FROM
    x = np.zeros((n, cellnet.CHANNELS, cellnet.PATCH_PX, cellnet.PATCH_PX), np.float32)
    helper = ThreadPoolExecutor(1, thread_name_prefix="half")  # its own, so a hang leaves the shared one alone
    monkeypatch.setattr(cellnet, "_helper", lambda: helper)
    nested: list[Any] = []

    def cut(i: int, j: int) -> Any:
        if threading.current_thread().name.startswith("half"):
            nested.append(net.probabilities(x, views=2))
        return x[i:j]

    done: list[Any] = []
    caller = threading.Thread(target=lambda: done.append(net.probabilities_of(cut, n, views=2)), daemon=True)
    caller.start()
    caller.join(timeout=60)
    assert not caller.is_alive(), "the helper thread waited for itself"
    helper.shutdown()
    assert len(nested) == 1 and nested[0].shape == (n, len(cellnet.LABELS)) and done[0].shape == nested[0].shape


def _read_large_batch_in_child(out: Any) -> None:
    net = default_net()
    assert net is not None
    x = np.zeros((cellnet.SPLIT_FROM, cellnet.CHANNELS, cellnet.PATCH_PX, cellnet.PATCH_PX), np.float32)
    out.put(net.probabilities(x, views=2).shape)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this system")
def test_a_process_forked_after_the_helper_started_reads_large_batches_too() -> None:
    import multiprocessing

    net = default_net()
    assert net is not None
    x = np.zeros((cellnet.SPLIT_FROM, cellnet.CHANNELS, cellnet.PATCH_PX, cellnet.PATCH_PX), np.float32)
    net.probabilities(x, views=2)  # the helper thread runs in this process now
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    child = context.Process(target=_read_large_batch_in_child, args=(out,))
    child.start()
    child.join(timeout=120)
    if child.is_alive():
        child.kill()
        pytest.fail("the forked process waited for a helper thread it does not have")
    assert child.exitcode == 0 and out.get(timeout=5) == (cellnet.SPLIT_FROM, len(cellnet.LABELS))


def test_weights_for_another_shape_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.npz"
    np.savez(path, **{"conv0.w": np.zeros((8, 3, 3, 3), np.float32), "conv0.b": np.zeros(8, np.float32),
                      "fc0.w": np.zeros((4, 8 * 32 * 32), np.float32), "fc0.b": np.zeros(4, np.float32)})
    with pytest.raises(ValueError, match="not a cell network"):
        CellNet.from_file(path)


def test_a_patch_is_the_light_relative_to_the_print_with_the_parallax_and_print_colour_planes() -> None:
    ppm = 6.0
    raw = np.full((400, 400, 3), 180, np.uint8)
    raw[170:230, 170:230] = (90, 90, 90)  # a dark 10 mm square around mm (33.3, 33.3)
    ref = LINEAR_LUT[np.array([180, 180, 180])]
    print_rgb = np.array([0.5, 0.25, 2.0], np.float32)  # a print's reflectance (clipped at white)
    x = cellnet.patch(raw, 0.0, 0.0, ppm, (33.3, 33.3), ref, (1.6, -0.8), 8.0, print_rgb)
    assert x.shape == (cellnet.CHANNELS, cellnet.PATCH_PX, cellnet.PATCH_PX)
    assert [float(v) for v in x[5:8, 9, 40]] == pytest.approx([-1.0, -2.0, 0.0])
    assert abs(float(x[0, 2, 2])) < 1e-6  # print: ratio 1
    middle = float(x[1, 32, 31])
    assert middle == pytest.approx(float(np.log2(LINEAR_LUT[90] / LINEAR_LUT[180])), abs=0.05)
    assert np.all(x[3] == pytest.approx(0.2)) and np.all(x[4] == pytest.approx(-0.1))
    # Near the rectified image's edge the border is repeated, never read outside the array.
    edge = cellnet.patch(raw, 0.0, 0.0, ppm, (5.0, 5.0), ref, (0.0, 0.0), 8.0, print_rgb)
    assert np.isfinite(edge).all()


def test_each_cells_ratio_planes_are_every_pixels_log_ratio_to_its_own_print_light_to_the_bit() -> None:
    # (patches looks each pixel up in a table made per cell: the same float32 steps as on the pixels themselves.)
    rng = np.random.default_rng(7)
    raw = rng.integers(0, 256, (300, 300, 3), dtype=np.uint8)
    centres = [(10.0, 12.0), (30.0, 25.0), (2.0, 45.0)]
    refs = np.array([[0.2, 0.3, 0.1], [0.9, 0.05, 0.5], [0.0, 0.4, 1e-5]], np.float32)
    shifts = [(1.0, -0.5), (0.0, 0.0), (-2.0, 1.0)]
    x = cellnet.patches(raw, 0.0, 0.0, 6.0, centres, refs, shifts, 8.0, [np.ones(3, np.float32)] * 3)
    for i, ((cx, cy), (dx, dy)) in enumerate(zip(centres, shifts, strict=True)):
        piece = cellnet._scaled_piece(raw, 0.0, 0.0, 6.0, cx + dx / 2, cy + dy / 2)
        lin = LINEAR_LUT[piece[..., ::-1]].astype(np.float32)  # R, G, B
        want = np.log2(np.clip(lin / np.maximum(refs[i], np.float32(1e-4)), *cellnet.RATIO_RANGE))
        assert np.array_equal(x[i, cellnet.RATIO_PLANES], want.transpose(2, 0, 1))


def test_on_a_dark_print_a_white_top_and_a_grey_one_stay_apart() -> None:
    # A deep print (sRGB 30: about 1.3 % reflectance) under the same light as a tooth's top (230) and a metal
    # cube's (160): some 60 and 27 times the print's light. Clipped at 4 times, as the patch once was, both
    # tops were one flat colour to the network.
    ppm = 6.0
    raw = np.full((400, 400, 3), 30, np.uint8)
    raw[100:160, 100:160] = 230
    raw[240:300, 240:300] = 160
    ref = LINEAR_LUT[np.array([30, 30, 30])]
    dark = np.full(3, 0.013, np.float32)
    tooth = cellnet.patch(raw, 0.0, 0.0, ppm, (21.7, 21.7), ref, (0.0, 0.0), 8.0, dark)
    metal = cellnet.patch(raw, 0.0, 0.0, ppm, (45.0, 45.0), ref, (0.0, 0.0), 8.0, dark)
    t, m = float(tooth[1, 32, 32]), float(metal[1, 32, 32])
    assert t == pytest.approx(float(np.log2(LINEAR_LUT[230] / LINEAR_LUT[30])), abs=0.05)
    assert m == pytest.approx(float(np.log2(LINEAR_LUT[160] / LINEAR_LUT[30])), abs=0.05)
    assert t - m > 1.0 and m > 2.0


def test_the_training_symmetries_turn_the_parallax_with_the_image() -> None:
    x = np.zeros((1, cellnet.CHANNELS, 64, 64), np.float32)
    x[0, 0, 20, 40] = 1.0  # 8.5 px right of the centre, 11.5 px up: the parallax points there too
    x[0, 3], x[0, 4] = 8.5, -11.5
    for k in range(8):
        out = symmetry(x, k)
        row, col = np.argwhere(out[0, 0] == 1.0)[0]
        assert (col - 31.5, row - 31.5) == pytest.approx((float(out[0, 3, 0, 0]), float(out[0, 4, 0, 0])))


def _confident_errors(reading: BoardReading, truth: dict[str, Any]) -> list[str]:
    return [f"{c.grid}[{c.row}][{c.col}] is {truth[c.grid][c.row][c.col]}, read {c.label}"
            for c in reading.cells if c.label != "?" and c.label != truth[c.grid][c.row][c.col]]


@pytest.mark.parametrize(("index", "cells", "all_read", "rules_open"), [
    # Deep bluish lamp shadows on empty cells that look exactly like metal, beside a metal cube (the network
    # trained on both renderers leaves two more such cells, weapon_left[1][0] and [1][3], '?').
    (152, [("helmet", 1, 3), ("helmet", 2, 2)], False, True),
    # Wood cubes under a warm lamp, as dark as the shadows around them. (Since the grids are placed where the
    # photo's printed lines put them, the rules read these themselves; they must still be read right.)
    (242, [("helmet", 0, 0), ("helmet", 0, 2), ("weapon_left", 1, 4), ("weapon_left", 2, 4),
           ("weapon_right", 0, 0), ("weapon_right", 2, 0)], True, False),
])
def test_the_second_look_reads_what_the_rules_leave_undecided(tmp_path: Path, index: int,
                                                              cells: list[tuple[str, int, int]],
                                                              all_read: bool, rules_open: bool) -> None:
    path, truth = benchmark_photo(tmp_path, index)
    template = load_template()
    image = load_photo(path)
    rules = read_board(image, template, net=False)
    both = read_board(image, template)
    assert _confident_errors(both, truth) == []
    by_key = {(c.grid, c.row, c.col): c for c in both.cells}
    # Each of these cells the rules leave '?' and the network reads (a cell the rules themselves now read,
    # e.g. once the grid sits where the photo's printed lines put it, must still be read right).
    left_open = [key for key in cells if rules.grids[key[0]][key[1]][key[2]] == "?"]
    assert left_open == (cells if rules_open else [])
    for key in cells:
        cell = by_key[key]
        assert cell.label == truth[key[0]][key[1]][key[2]], key
        if key in left_open:
            assert cell.confidence >= cellnet.ACCEPT and cell.features["net_p"] >= cellnet.ACCEPT
    assert (both.retake is None) == all_read


def test_a_rule_answer_the_network_finds_unlikely_becomes_a_question(tmp_path: Path) -> None:
    # An empty cell in a warm lamp's light that the rules call wood with little margin: the network is
    # sure it is print, so neither answer is given and the photo asks for a retake.
    path, truth = benchmark_photo(tmp_path, 287)
    template = load_template()
    image = load_photo(path)
    rules = read_board(image, template, net=False)
    assert rules.grids["helmet"][2][1] == "W" and truth["helmet"][2][1] == "."
    both = read_board(image, template)
    cell = next(c for c in both.cells if (c.grid, c.row, c.col) == ("helmet", 2, 1))
    assert cell.label == "?" and cell.reason == DISAGREE_REASON and cell.features["net_agree"] < 0.5
    assert both.retake is not None and "helmet[2][1]" in both.retake
    assert _confident_errors(both, truth) == []
    # Cells the rules decided with a wide margin are never shown to the network (but for shaded empty
    # readings whose hue differs from the print's: see test_a_shaded_empty_reading_that_differs_in_hue...).
    sure = {(c.grid, c.row, c.col) for c in rules.cells if c.label != "?" and c.confidence >= CROSS_CHECK_BELOW
            and not c.features.get("shaded_empty")}
    assert sure and all("net_p" not in c.features for c in both.cells if (c.grid, c.row, c.col) in sure)


def test_glare_is_never_given_a_second_look(tmp_path: Path) -> None:
    template = load_template()
    rng = np.random.default_rng(5)
    gear = random_gear(rng, template, 0.5)
    rendered = render_board(template, gear, seed=5, conditions=Conditions(size=(2000, 1500), glare=1.0))
    path = tmp_path / "glare.jpg"
    assert cv2.imwrite(str(path), rendered.image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    reading = read_board(load_photo(path), template)
    glared = [c for c in reading.cells if c.reason == "glare"]
    assert glared and all(c.label == "?" and "net_p" not in c.features for c in glared)
    assert reading.retake is not None
