"""A second look at the cells the board reader cannot decide: a small convolutional network over a patch of
the rectified board around the cell.

The rule-based reader (``vision.reader``) measures a cell's two regions against the print around it and
says ``?`` when colour alone cannot tell a metal cube from a neighbour's shadow, or a pale tooth from print
in another light's shadow. Those are questions of shape: a cube's top is a sharp square standing 8 mm
above the print, with side faces between it and its footprint; a shadow is flat, joined to the cube that
casts it, and keeps the print's grid lines. The network sees the patch as it is and a quarter turn on
(``VIEWS``) and answers with their mean probability per label; the reader takes its answer only when it is
very sure (``ACCEPT``), and uses it to cross-check the rules' closest calls (``reader.CROSS_CHECK_BELOW``;
on calibrated grids every rule answer, ``reader.CROSS_CHECK_CALIBRATED``).

The patch: ``PATCH_MM`` square of board around the point midway between the cell's footprint and where a
cube's top would appear (so parallax never pushes the top out of view), ``PATCH_PX`` pixels a side, each
pixel's linear RGB divided by the print's light measured next to the cell, on a log scale, plus two
constant planes with the top's parallax shift (which way the side faces show) and three with the print's own
colour (its linear RGB reflectance measured against the stickers' white, on a log scale): a ratio to a print
says which material a top is only together with the print's colour, and boards are printed in every colour.

Inference is plain numpy (no deep-learning runtime on the tablet). The weights (``models/cellnet.npz``)
come from ``python -m vision.train_cellnet``, which renders labelled photos with both renderers on seeds the
benchmark's test sets never use and trains with PyTorch (a development-only dependency).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
from threadpoolctl import ThreadpoolController

from vision.colour import LINEAR_LUT3

F32 = npt.NDArray[np.float32]
U8 = npt.NDArray[np.uint8]

LABELS = ("W", "M", "T", ".")
PATCH_MM = 24.0
PATCH_PX = 64
CHANNELS = 8
#: Ratios to the print's light are clipped to this range before the log: deeper than a shadow, brighter
#: than a tooth in full light on the darkest print (PRINT_RANGE's 1/64: a tooth there is some 50 times the
#: print; clipped at 4, every top on a dark print looked alike and only its outline told them apart).
RATIO_RANGE = (1 / 32, 128.0)
#: The print's reflectance per channel is clipped to this range before the log (a black print to white).
PRINT_RANGE = (1 / 64, 1.0)
#: The input planes: the log ratios to the print's light (R, G, B), the top's parallax (x, y), the print's colour.
RATIO_PLANES, SHIFT_PLANES, PRINT_PLANES = slice(0, 3), slice(3, 5), slice(5, 8)
#: The network's answer replaces a '?' only at this probability or above.
ACCEPT = 0.98
#: The network's probabilities are the mean over the patch as it is and turned a quarter turn (test-time
#: augmentation: it was trained under all eight symmetries of the square, and one view that is wrongly
#: sure is held back by the other). Two views decide as four did on the development seeds (508-511) at half
#: the arithmetic; one view alone was sure and wrong once there.
VIEWS = 2

MODEL_PATH = Path(__file__).with_name("models") / "cellnet.npz"
#: A second network of the same shape, trained on other photos from another initialisation (``python -m
#: vision.train_cellnet --check``). On calibrated grids the reader takes the first network's answer for a cell it
#: would leave '?' where both give the same label (``reader.NET_PAIR_ACCEPT``, ``reader._paired``).
CHECK_PATH = Path(__file__).with_name("models") / "cellnet-check.npz"


def patch(raw: U8, x0: float, y0: float, ppm: float, centre: tuple[float, float], ref_rgb: F32,
          shift: tuple[float, float], cube_mm: float, print_rgb: F32) -> F32:
    """One network input (CHANNELS x PATCH_PX x PATCH_PX) from a rectified BGR image whose pixel (0, 0)
    is board mm (x0, y0) at ``ppm`` pixels per mm; ``centre`` the cell's centre in board mm, ``ref_rgb``
    the print's linear RGB next to it, ``shift`` the parallax of a cube's top (board mm), ``print_rgb`` the
    print's reflectance (linear RGB, white 1)."""
    return patches(raw, x0, y0, ppm, [centre], [ref_rgb], [shift], cube_mm, [print_rgb])[0]


def patches(raw: U8, x0: float, y0: float, ppm: float, centres: Sequence[tuple[float, float]],
            ref_rgbs: Sequence[Sequence[float]] | F32, shifts: Sequence[tuple[float, float]], cube_mm: float,
            print_rgbs: Sequence[Sequence[float]] | F32) -> F32:
    """``patch`` for many cells of one image at once, (N, CHANNELS, PATCH_PX, PATCH_PX): each cell's pixels are
    cut and scaled on their own, their light turned into ratios for all of them together."""
    n = len(centres)
    out = np.empty((n, CHANNELS, PATCH_PX, PATCH_PX), dtype=np.float32)
    if n == 0:
        return out
    small = np.empty((n, PATCH_PX, PATCH_PX, 3), dtype=np.uint8)
    for i, (centre, shift) in enumerate(zip(centres, shifts, strict=True)):
        small[i] = _scaled_piece(raw, x0, y0, ppm, centre[0] + shift[0] / 2, centre[1] + shift[1] / 2)
    # (In the pixels' B, G, R order until the planes are written: arithmetic on contiguous arrays.) A pixel's log
    # ratio depends only on its 8-bit value and its cell's print light: each cell's 256 values per channel are worked
    # out once (the same float32 steps as on every pixel: linear light, over the print's, clipped, log2) and looked up.
    tables = LINEAR_LUT3 / np.maximum(np.asarray(ref_rgbs, dtype=np.float32).reshape(n, 1, 3), 1e-4)[:, :, ::-1]
    np.clip(tables, *RATIO_RANGE, out=tables)
    np.log2(tables, out=tables)
    ratio = np.empty((n, PATCH_PX, PATCH_PX, 3), dtype=np.float32)
    for i in range(n):
        ratio[i] = cv2.LUT(small[i], tables[i:i + 1])
    out[:, RATIO_PLANES] = ratio[..., ::-1].transpose(0, 3, 1, 2)
    out[:, SHIFT_PLANES] = (np.asarray(shifts, dtype=np.float64).reshape(n, 2) / cube_mm)[:, :, None, None]
    prints = np.asarray(print_rgbs, dtype=np.float32).reshape(n, 3)
    out[:, PRINT_PLANES] = np.log2(np.clip(prints, *PRINT_RANGE))[:, :, None, None]
    return out


def _scaled_piece(raw: U8, x0: float, y0: float, ppm: float, cx: float, cy: float) -> U8:
    """The PATCH_MM square of ``raw`` (see ``patch``) centred on board mm (cx, cy), scaled to PATCH_PX a side;
    its border repeated where it runs out of the image, black where less than half of it is in."""
    half = PATCH_MM / 2
    u0 = int(round((cx - half - x0) * ppm))
    v0 = int(round((cy - half - y0) * ppm))
    n = int(round(PATCH_MM * ppm))
    h, w = raw.shape[:2]
    a0, b0 = max(u0, 0), max(v0, 0)
    a1, b1 = min(u0 + n, w), min(v0 + n, h)
    if a1 - a0 < n // 2 or b1 - b0 < n // 2:
        piece = np.zeros((n, n, 3), dtype=np.uint8)
    else:
        piece = cv2.copyMakeBorder(raw[b0:b1, a0:a1], b0 - v0, v0 + n - b1, a0 - u0, u0 + n - a1,
                                   cv2.BORDER_REPLICATE)
    return np.asarray(cv2.resize(piece, (PATCH_PX, PATCH_PX), interpolation=cv2.INTER_AREA), dtype=np.uint8)


# --------------------------------------------------------------------------------------------
# The network, in numpy. Layout of the weights file: conv{i}.w (out, in, 3, 3) and conv{i}.b with batch
# norm already folded in, then fc{i}.w (out, in) and fc{i}.b. Inside, activations are channels-first over the
# whole batch (C, N, H, W), so each convolution is one wide matrix product (O, 9 C) @ (9 C, N H W) over the 3x3
# neighbourhoods gathered (im2col): a product that wide keeps the BLAS busy where a per-pixel one (N H W, 9 C) @
# (9 C, O) with O of 16 to 64 did not (2.5 times as long on the first layer).


def conv_matrix(w: F32) -> F32:
    """A convolution's weights (O, C, 3, 3) as the (O, 9 C) matrix ``_conv3x3`` multiplies by: columns in the
    order (dy, dx, c)."""
    o, c = w.shape[:2]
    return np.ascontiguousarray(w.transpose(0, 2, 3, 1).reshape(o, 9 * c))


def _conv3x3(x: F32, w: F32) -> F32:
    """3x3 cross-correlation with zero padding 1, without the bias: x (C, N, H, W), w from ``conv_matrix``;
    (O, N, H, W)."""
    c, n, h, wd = x.shape
    pad = np.zeros((c, n, h + 2, wd + 2), dtype=np.float32)
    pad[:, :, 1:-1, 1:-1] = x
    cols = np.empty((3, 3, c, n, h, wd), dtype=np.float32)
    for dy in range(3):
        for dx in range(3):
            cols[dy, dx] = pad[:, :, dy:dy + h, dx:dx + wd]
    return (w @ cols.reshape(9 * c, n * h * wd)).reshape(-1, n, h, wd)


#: The input planes from this one on are constant over a patch (the parallax and the print's colour, ``patches``).
FLAT_FROM = SHIFT_PLANES.start


def _flat_maps(w: F32, flat_from: int, h: int, wd: int) -> F32:
    """What planes of ones from ``flat_from`` on add to the first convolution's outputs over an h x wd input,
    (O, planes, h wd): at each output pixel the sum of the weights of the taps that land inside the input (zero
    padding outside). A plane constant at v adds v times its map, so those planes need no 3x3 neighbourhoods."""
    o, c = w.shape[0], w.shape[1] // 9
    inside = np.zeros((3, 3, h, wd), dtype=np.float32)
    for dy in range(3):
        for dx in range(3):
            inside[dy, dx, max(0, 1 - dy):min(h, h + 1 - dy), max(0, 1 - dx):min(wd, wd + 1 - dx)] = 1.0
    taps = w.reshape(o, 3, 3, c)[..., flat_from:]
    return np.ascontiguousarray(np.einsum("oyxc,yxhw->ochw", taps, inside).reshape(o, c - flat_from, h * wd),
                                dtype=np.float32)


def _first_layer(x: F32, w: F32, b: F32, varying: F32, maps: F32, flat_from: int) -> F32:
    """The first layer (``_conv_relu_pool``) where the planes from ``flat_from`` on are constant over each patch:
    the 3x3 neighbourhoods of the others (``varying``: their columns of ``w``), plus each constant plane's value
    times its ``_flat_maps``; the same sums in another order (within 1e-5 of the plain convolution)."""
    n, h, wd = x.shape[1:]
    out = _conv3x3(x[:flat_from], varying)
    consts = np.ascontiguousarray(x[flat_from:, :, 0, 0].T)  # (N, planes)
    out += np.matmul(consts[None], maps).reshape(w.shape[0], n, h, wd)
    out = _pool2(out)
    out += b[:, None, None, None]
    np.maximum(out, 0.0, out=out)
    return out


def _pool2(x: F32) -> F32:
    """2x2 max pooling, stride 2, over the last two axes (the four corners' maximum: faster than a reduction
    over a reshaped view)."""
    return np.maximum(np.maximum(x[..., 0::2, 0::2], x[..., 0::2, 1::2]),
                      np.maximum(x[..., 1::2, 0::2], x[..., 1::2, 1::2]))


def _conv_relu_pool(x: F32, w: F32, b: F32) -> F32:
    """One layer: the convolution, its bias, ReLU and 2x2 max pooling, channels-first (x (C, N, H, W)). The
    bias and ReLU come after the pooling, on a quarter of the values: a bias the same over the four pooled
    values and ReLU both keep their order, so the result is the same to the bit."""
    out = _pool2(_conv3x3(x, w))
    out += b[:, None, None, None]
    np.maximum(out, 0.0, out=out)
    return out


def _mean_pool(x: F32, k: int) -> F32:
    """k x k average pooling, stride k, over the last two axes."""
    out = np.zeros_like(x[..., 0::k, 0::k])
    for dy in range(k):
        for dx in range(k):
            out += x[..., dy::k, dx::k]
    out *= 1.0 / (k * k)
    return out


def symmetry(x: F32, k: int) -> F32:
    """One of the eight symmetries of the square applied to patches (N, CHANNELS, H, W): ``k % 4`` quarter
    turns counter-clockwise, then a left-right mirror when ``k >= 4``. The parallax planes (the top's shift
    along x and y, image axes with y down) turn with the image."""
    out = np.array(x, dtype=np.float32, copy=True)
    for _ in range(k % 4):
        # A quarter turn counter-clockwise takes a vector (dx, dy) to (dy, -dx).
        out = np.rot90(out, 1, axes=(2, 3))
        dx, dy = out[:, 3].copy(), out[:, 4].copy()
        out[:, 3], out[:, 4] = dy, -dx
    if k >= 4:
        out = out[:, :, :, ::-1]
        out[:, 3] = -out[:, 3]
    return np.ascontiguousarray(out)


@lru_cache(maxsize=1)
def _thread_pools() -> ThreadpoolController:
    """The native thread pools loaded in this process (found once: a look through every loaded library)."""
    return ThreadpoolController()


#: Batches of this many patches or more are read in two halves on two threads where the process has two cores or
#: more: on the 2-core development machine, 12 patches (two views each) took 3.7 ms in halves against 5.3 ms on one
#: thread, 36 took 9.5 against 15.2 ms; 6 took longer (3.1 against 2.8 ms).
SPLIT_FROM = 12
#: Whether large batches go to the helper thread at all (``benchmarks/vision.py --helper-ab`` reads each photo with
#: and without it).
USE_HELPER = True


class _HelperFlag(threading.local):
    """Whether this thread is running the helper's half of a batch (per thread)."""

    active = False


_ON_HELPER = _HelperFlag()


@lru_cache(maxsize=1)
def _helper() -> ThreadPoolExecutor | None:
    """The thread that reads the second half of a large batch, or None on a single core (started once)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="cellnet") if cores > 1 else None


if hasattr(os, "register_at_fork"):
    # A process forked after the helper started has no such thread (its executor would wait for it for ever): the
    # child starts its own on first use.
    os.register_at_fork(after_in_child=_helper.cache_clear)


@dataclass(frozen=True)
class CellNet:
    """Convolutions as (``conv_matrix``, bias) pairs, then dense layers as (weights (in, out), bias): the file's
    (out, in) weights transposed once, contiguous (a product with a transposed view took several times as long)."""

    convs: tuple[tuple[F32, F32], ...]
    fcs: tuple[tuple[F32, F32], ...]
    #: The patch is first averaged over pre_pool x pre_pool pixels (1: not at all): a quarter of the work.
    pre_pool: int = 1
    #: For patches whose planes from FLAT_FROM on are constant (every patch ``patches`` cuts): the first
    #: convolution's columns for the other planes, and the constant planes' _flat_maps; None: not used.
    flat: tuple[F32, F32] | None = None

    def probabilities(self, patches: F32, views: int = 1) -> F32:
        """(N, CHANNELS, PATCH_PX, PATCH_PX) -> (N, len(LABELS)) probabilities, averaged over the first
        ``views`` symmetries of the square (1: the patch as it is; 4: its quarter turns)."""
        return self.probabilities_of(lambda i, j: patches[i:j], len(patches), views)

    def probabilities_of(self, cut: Callable[[int, int], F32], n: int, views: int = 1) -> F32:
        """``probabilities(cut(0, n), views)``, where ``cut(i, j)`` gives the patches of items i to j - 1 (each
        patch its own item's alone): a batch of SPLIT_FROM or more is cut and read in two halves at once, the
        second on a helper thread (``_helper``)."""
        # One BLAS thread per product: the products here are a few megaflops each, too small to share. With the
        # second core's BLAS thread the reads took as long or longer and half as much CPU again (on the 2-core
        # machine the benchmark runs on), the thread spinning for work after each product. The second core is
        # better used on the other half of the batch: each patch's probabilities are its own (the same to about
        # 1e-7 whatever else is in the batch), and numpy and OpenCV let go of the interpreter for the products, the
        # copies and the scaling.
        with _thread_pools().limit(limits=1, user_api="blas"):
            # (On the helper thread itself a batch is read there: it would otherwise wait for itself.)
            helper = _helper() if n >= SPLIT_FROM and USE_HELPER and not _ON_HELPER.active else None
            if helper is None:
                return self._probabilities(cut(0, n), views)
            half = n // 2
            later = helper.submit(self._second_half, cut, half, n, views)
            try:
                first = self._probabilities(cut(0, half), views)
            finally:
                rest = later.result()
            return np.concatenate([first, rest])

    def _second_half(self, cut: Callable[[int, int], F32], half: int, n: int, views: int) -> F32:
        """The helper thread's part of ``probabilities_of``. The BLAS limit is entered here too: with an OpenMP
        BLAS a thread's limit is its own (with a pthreads one, as numpy's wheels ship, the caller's holds already)."""
        _ON_HELPER.active = True
        try:
            with _thread_pools().limit(limits=1, user_api="blas"):
                return self._probabilities(cut(half, n), views)
        finally:
            _ON_HELPER.active = False

    def _probabilities(self, patches: F32, views: int) -> F32:
        x = np.asarray(patches, dtype=np.float32)
        n = len(x)
        if self.pre_pool > 1:
            # Averaging k x k blocks commutes with the square's symmetries (PATCH_PX is a multiple of k), so
            # the views are taken of the smaller patch.
            x = _mean_pool(x, self.pre_pool)
        if views > 1:
            x = np.concatenate([symmetry(x, k) for k in range(views)])
        x = np.ascontiguousarray(x.transpose(1, 0, 2, 3))
        convs = self.convs
        if (self.flat is not None and self.flat[1].shape[2] == x.shape[2] * x.shape[3]
                and np.array_equal(x[FLAT_FROM:], np.broadcast_to(x[FLAT_FROM:, :, :1, :1], x[FLAT_FROM:].shape))):
            x = _first_layer(x, *convs[0], *self.flat, FLAT_FROM)
            convs = convs[1:]
        for w, b in convs:
            x = _conv_relu_pool(x, w, b)
        # The dense layer was trained on (C, H, W) order.
        x = x.transpose(1, 0, 2, 3).reshape(x.shape[1], -1)
        for i, (w, b) in enumerate(self.fcs):
            x = x @ w + b
            if i < len(self.fcs) - 1:
                np.maximum(x, 0.0, out=x)
        x = x - x.max(axis=1, keepdims=True)
        e = np.exp(x)
        p = e / e.sum(axis=1, keepdims=True)
        return np.asarray(p.reshape(views, n, -1).mean(axis=0) if views > 1 else p, dtype=np.float32)

    @classmethod
    def from_file(cls, path: Path) -> CellNet:
        with np.load(path) as data:
            arrays = {k: np.asarray(data[k], dtype=np.float32) for k in data.files}
        raw = [(arrays[f"conv{i}.w"], arrays[f"conv{i}.b"]) for i in range(_count(arrays, "conv"))]
        fcs = tuple((arrays[f"fc{i}.w"], arrays[f"fc{i}.b"]) for i in range(_count(arrays, "fc")))
        if not raw or not fcs or raw[0][0].shape[1] != CHANNELS or fcs[-1][0].shape[0] != len(LABELS):
            raise ValueError(f"{path} is not a cell network for this reader")
        pre_pool = int(arrays["pre_pool"][0]) if "pre_pool" in arrays else 1
        side = PATCH_PX // pre_pool // 2 ** len(raw)
        if fcs[0][0].shape[1] != raw[-1][0].shape[0] * side * side:
            raise ValueError(f"{path} was trained for another patch size")
        first = conv_matrix(raw[0][0])
        varying = np.ascontiguousarray(first.reshape(len(first), 9, CHANNELS)[:, :, :FLAT_FROM].reshape(len(first), -1))
        size = PATCH_PX // pre_pool
        return cls(tuple((conv_matrix(w), b) for w, b in raw),
                   tuple((np.ascontiguousarray(w.T), b) for w, b in fcs), pre_pool,
                   (varying, _flat_maps(first, FLAT_FROM, size, size)))


def _count(arrays: dict[str, F32], prefix: str) -> int:
    n = 0
    while f"{prefix}{n}.w" in arrays:
        n += 1
    return n


def default_check() -> CellNet | None:
    """The shipped second network (CHECK_PATH), or None when its weights are missing (no cell is then decided
    by the two networks' agreement)."""
    return _shipped(CHECK_PATH)


def default_net() -> CellNet | None:
    """The shipped network, or None when its weights are missing (the reader then keeps its '?')."""
    return _shipped(MODEL_PATH)


@lru_cache(maxsize=2)
def _shipped(path: Path) -> CellNet | None:
    """A shipped network's weights, loaded once; None when the file is missing."""
    return CellNet.from_file(path) if path.exists() else None
