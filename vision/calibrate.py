"""Calibration: fit a template's grids to a photo of the real, empty board (``fujikoro vision calibrate``).

The stickers fix the board's frame; the printed grid lines are then found in the rectified photo. For
each grid the search is over its origin and cell size around the starting template's values: the score
is how dark the board is along the grid's lines, from line-darkness profiles (columns for the vertical
lines, rows for the horizontal ones), so the search is a few numpy operations, not an image loop. Where a second
fit, with the grid's strongest line counted as its next strongest, lies over half a cell from the first, one
decoration edge across the grid's place carried the first, and the second is kept. A grid found
so is fitted again on its inner lines alone (a frame printed around a grid fits its outline as well as its own
outer lines do), and that fit is kept where its inner lines stand out more. The board's printed colour around
the grids (``board_lab``) and each grid's own print (``grid_lab``: a grid may be printed unlike the board around
it) are measured against the stickers' paper white and black, as the reader measures them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np
import numpy.typing as npt

from vision.reader import NO_PATCHES_REASON, PhotoError, locate, measure_print
from vision.template import Grid, Template

F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[np.uint8]

PPM = 8.0
#: How far (mm) a grid's origin is searched around its current place, each of three rounds: under half a
#: cell, or a grid of evenly printed lines could slide a whole cell (it did, on a board with pale lines).
SEARCH_MM = 12.0
SEARCH_CELLS = 0.45
CELL_RANGE = 0.12
#: A grid's lines are found when they are this much darker (or lighter) than their surroundings on average.
LINE_SCORE_MIN = 0.04
#: A grid whose printed lines two photos of the empty board, in their two lights, did not show well enough to
#: fit (while other grids' lines showed), but whose inner lines do stand out faintly where its place is, is
#: printed with lines too faint to fit: it keeps that place (the template's, unless an earlier photo fitted
#: it), and the reader places it by its lines in each photo as it does an uncalibrated grid. On the second
#: renderer's development seed 510 (photo 89) such grids (line scores 0.03) failed the board's calibration in
#: every photo; their fits landed within 0.5 mm of the template's place.
FAINT_LINES = True
#: ... "stand out": the print on its inner lines at least this many times as far from its surroundings as the
#: print half a cell away (faint grids of seeds 510, 511, 513: 2.0-4.9; a card laid over a grid, or a grid with
#: no line left to see, 0.1-1.1, and so are grids of 511/56 and 513/23 whose lines the renderer left invisible:
#: those boards still fail). A card's edges fit a grid's outline too, so the line score alone cannot tell.
FAINT_CONTRAST_MIN = 1.8
#: Where a grid's lines are found, its place and cell size are then fitted again on its inner lines alone
#: (``_by_inner_lines``), and that fit is kept where its inner lines stand out more than at the first. A grid's
#: outline has other lines beside it (a frame printed a few mm around it, the edge of its fill against the board)
#: that fit an outline up to 12 % too wide as well as its own does, and where the inner lines are faint the outline
#: decides the fit. On the second renderer's development seeds 530 and 548-552 (300 boards, one photo of the empty
#: board each, 1,200 grids) the grids fitted more than 2 mm off where they are printed fell from 37 to 24, those
#: more than 3 mm off from 13 to 8; two such boards had read 3 cubes wrong with confidence (549/54, 552/45).
INNER_FIT = True
#: ... unless it moves the grid this many cells or more from the first fit.
INNER_SHIFT_MAX = 0.35
#: A grid is fitted twice: by the mean over its lines, and by that mean with its strongest line counted as its next
#: strongest, so that one line of decoration printed across the grid's place (a dark outline far stronger than the
#: grid's own faint lines) cannot carry the fit of a grid whose other lines are not there. Where the two fits lie more
#: than CAPPED_APART cells apart (farthest cell), one line carried the first: the second is kept; else the first, which
#: the readers were tuned and tested on. On the second renderer's development seed 567 (photo 21) the edge of a drawn
#: triangle pulled the weapon grids 8.5 mm down, onto no line of their own, and the sandals grid onto the triangle;
#: the two fits lay 8.6 and 15 mm apart. Taking the second fit everywhere moved many grids by 1-3 mm, better and worse
#: about as often, and changed the readings of nine development photos the tests pin down (one to a confident error,
#: 509/40); taking it from 3 mm apart still changed one (534/14, refused as another board with its sandals placed
#: nearer their print, 1.2 mm off rather than 5.3).
ONE_LINE_CAPPED = True
CAPPED_APART = 0.5


@dataclass(frozen=True)
class Partial:
    """What the photos of the empty board so far have fitted and measured, for the next photo to complete: a
    retake asked for because of glare on one grid keeps the grids the earlier photo did show. ``template``
    has every grid's best geometry so far; ``done`` names the grids fitted and (with reference patches)
    measured."""

    template: Template
    done: frozenset[str]
    #: Grids an earlier photo saw clipped white all over (PrintCalibration.clipped): a retake that clips them
    #: all over too keeps them as a print too pale for the exposure (Template.clipped_print).
    clipped: frozenset[str] = frozenset()
    #: Grids whose printed lines an earlier photo did not show: a retake in which they do not show either keeps
    #: them where the template puts them (lines printed too faint to fit, FAINT_LINES).
    faint: frozenset[str] = frozenset()


class CalibrationError(ValueError):
    """The photo does not let the grids be fitted (no board, grid lines not found, a grid's print not seen).
    ``partial``: what this photo and the earlier ones did fit and measure (pass it as ``earlier`` with the
    next photo), or None when there is nothing to keep."""

    def __init__(self, message: str, partial: Partial | None = None) -> None:
        super().__init__(message)
        self.partial = partial


def _profile_score(profile: F64, start: F64, step: F64, count: int, inner: bool = False, capped: bool = False
                   ) -> F64:
    """Mean of the profile at start + k * step for k in 0..count (``inner``: 1..count - 1, the inner lines, where
    there are any), for arrays of starts and steps (px); ``capped``: the largest of those values counts as the next
    largest."""
    k = np.arange(1, count) if inner and count > 1 else np.arange(count + 1)
    pos = start[..., None] + step[..., None] * k
    at = np.interp(pos, np.arange(len(profile)), profile, left=0, right=0)
    if capped and len(k) > 1:
        top = np.partition(at, len(k) - 2, axis=-1)[..., -2:]
        return np.asarray((at.sum(axis=-1) - top[..., 1] + top[..., 0]) / len(k))
    return np.asarray(at.sum(axis=-1) / len(k))


def _profiles(dark: F64, grid: Grid, x0: float, y0: float, cell: float) -> tuple[F64, F64]:
    """Line-darkness profiles across the columns (vertical lines) and rows (horizontal lines) of a grid at
    (x0, y0) with cells of ``cell`` mm, over its extent trimmed so a misplaced end does not matter much."""
    w, h = grid.cols * cell, grid.rows * cell
    ys = slice(max(0, int((y0 + 0.15 * h) * PPM)), int((y0 + 0.85 * h) * PPM))
    xs = slice(max(0, int((x0 + 0.15 * w) * PPM)), int((x0 + 0.85 * w) * PPM))
    return dark[ys, :].mean(axis=0), dark[:, xs].mean(axis=1)


def _inner_line_contrast(dark: F64, grid: Grid) -> float:
    """How far the print on the grid's inner lines is from its surroundings, over how far the print half a cell
    away is (the mean of ``dark`` along each; 0 for a grid without inner lines)."""
    x0, y0 = grid.origin_mm
    cell = grid.cell_mm
    prof_v, prof_h = _profiles(dark, grid, x0, y0, cell)
    on, off = [], []
    for profile, start, count in ((prof_v, x0, grid.cols), (prof_h, y0, grid.rows)):
        at = np.arange(len(profile))
        on += [float(np.interp((start + k * cell) * PPM, at, profile)) for k in range(1, count)]
        off += [float(np.interp((start + (k - 0.5) * cell) * PPM, at, profile)) for k in range(1, count + 1)]
    if not on:
        return 0.0
    return float(np.mean(on)) / max(float(np.mean(off)), 1e-6)


def _hue_lines(rect: U8, dark: F64) -> F64:
    """How far each pixel of the rectified board is from its surroundings in the colour channel where it is
    farthest (a line printed pale yellow on pale violet hardly differs in grey), with the same mask as ``dark``
    (pixels ``dark`` has zeroed stay zero)."""
    out = np.zeros(rect.shape[:2], dtype=np.float64)
    for ch in range(3):
        np.maximum(out, _off_surroundings(rect[:, :, ch].astype(np.float64)), out=out)
    out[dark == 0] = 0.0
    return out


def _off_surroundings(plane: F64) -> F64:
    """How far each pixel is from its surroundings (a blur over a few mm), either way, relative to them: lines may
    be printed darker or lighter than the cells' fill."""
    background = cv2.GaussianBlur(plane, (0, 0), 3 * PPM)
    return np.asarray(np.abs(background - plane) / (background + 1.0), dtype=np.float64)


def _inside(profile: F64, start: float, size: float, cell: float) -> F64:
    """The profile (px at PPM) with everything outside [start, start + size] mm, and the half cell inside each end,
    set to 0: only a grid's inner lines are left, not its outline nor anything around it."""
    out = np.zeros_like(profile)
    a, b = max(0, int((start + cell / 2) * PPM)), max(0, int((start + size - cell / 2) * PPM))
    out[a:b] = profile[a:b]
    return out


def _fit_grid(dark: F64, grid: Grid, board_mm: tuple[float, float], inner: bool = False) -> tuple[Grid, float]:
    """The grid's origin and cell size where its lines score best on ``dark``, searched around where ``grid`` puts
    it; and that score (the mean over its lines). ``inner``: its inner lines alone, inside the outline ``grid`` gives
    (``_inside``); an axis without inner lines has no say in the cell size then. With ONE_LINE_CAPPED, where the fit
    by the score with its strongest line capped lies more than CAPPED_APART cells from the plain one, it is that fit."""
    plain = _fit_grid_by(dark, grid, board_mm, inner, capped=False)
    if not ONE_LINE_CAPPED:
        return plain
    capped = _fit_grid_by(dark, grid, board_mm, inner, capped=True)
    return capped if capped[0].farthest_cell_from(plain[0]) > CAPPED_APART * grid.cell_mm else plain


def _fit_grid_by(dark: F64, grid: Grid, board_mm: tuple[float, float], inner: bool, capped: bool
                 ) -> tuple[Grid, float]:
    """_fit_grid by one score: the plain mean over the grid's lines, or (``capped``) with its strongest line capped."""
    x0, y0 = grid.origin_mm
    cell = grid.cell_mm
    # The cell size stays within CELL_RANGE of the template's over all rounds (each round searching around the
    # last one's let it drift by 20 %, onto the lines of decorations around a grid whose own lines were faint).
    low, high = cell * (1 - CELL_RANGE), cell * (1 + CELL_RANGE)
    # The axes whose lines have a say in the cell size.
    has_v, has_h = not inner or grid.cols > 1, not inner or grid.rows > 1
    for _ in range(3):
        prof_v, prof_h = _profiles(dark, grid, x0, y0, cell)
        if inner:
            prof_v = _inside(prof_v, grid.origin_mm[0], grid.cols * grid.cell_mm, grid.cell_mm)
            prof_h = _inside(prof_h, grid.origin_mm[1], grid.rows * grid.cell_mm, grid.cell_mm)
        cells = np.linspace(max(cell * (1 - CELL_RANGE), low), min(cell * (1 + CELL_RANGE), high), 61)
        reach = min(SEARCH_MM, SEARCH_CELLS * cell)
        starts_x = np.arange((x0 - reach) * PPM, (x0 + reach) * PPM, 0.5)
        starts_y = np.arange((y0 - reach) * PPM, (y0 + reach) * PPM, 0.5)
        sv = _profile_score(prof_v, starts_x[None, :], cells[:, None] * PPM, grid.cols, inner, capped)
        sh = _profile_score(prof_h, starts_y[None, :], cells[:, None] * PPM, grid.rows, inner, capped)
        total = (sv.max(axis=1) if has_v else 0.0) + (sh.max(axis=1) if has_h else 0.0)
        best = int(np.argmax(total))
        cell = float(cells[best])
        x0 = float(starts_x[int(np.argmax(sv[best]))] / PPM)
        y0 = float(starts_y[int(np.argmax(sh[best]))] / PPM)
    # The score LINE_SCORE_MIN bounds stays the plain mean over the lines, where they were placed (as it was tuned).
    at_v = _profile_score(prof_v, np.array(x0 * PPM), np.array(cell * PPM), grid.cols, inner)
    at_h = _profile_score(prof_h, np.array(y0 * PPM), np.array(cell * PPM), grid.rows, inner)
    score = ((float(at_v) if has_v else 0.0) + (float(at_h) if has_h else 0.0)) / 2
    x0 = min(max(x0, 0.0), board_mm[0] - grid.cols * cell)
    y0 = min(max(y0, 0.0), board_mm[1] - grid.rows * cell)
    return replace(grid, origin_mm=(x0, y0), cell_mm=cell), score


def _by_inner_lines(lines: F64, start: Grid, outline: Grid, board_mm: tuple[float, float]) -> Grid:
    """The grid ``outline`` (fitted on all its lines, from ``start``) fitted again on its inner lines (INNER_FIT),
    where they stand out at the new fit (FAINT_CONTRAST_MIN), and more than at the outline fit; an axis without
    inner lines keeps the outline fit's middle (a frame printed around the grid widens that fit alike on both
    sides)."""
    refit, _score = _fit_grid(lines, start, board_mm, inner=True)
    contrast = _inner_line_contrast(lines, refit)
    # (A grid slid a cell or more along its own lines, or one with no inner line to see, keeps the outline fit.)
    if (contrast < FAINT_CONTRAST_MIN or contrast <= _inner_line_contrast(lines, outline)
            or max(abs(a - b) for a, b in zip(refit.origin_mm, outline.origin_mm, strict=True))
            >= INNER_SHIFT_MAX * outline.cell_mm):
        return outline
    x0, y0 = refit.origin_mm
    if start.cols <= 1:
        x0 = outline.origin_mm[0] + start.cols * (outline.cell_mm - refit.cell_mm) / 2
    if start.rows <= 1:
        y0 = outline.origin_mm[1] + start.rows * (outline.cell_mm - refit.cell_mm) / 2
    return replace(refit, origin_mm=(x0, y0))


def calibration_notes(fitted: Template, again: str) -> tuple[str, ...]:
    """What a calibration kept that the group should know, one line each (``again``: how to calibrate again,
    in the words of the screen or command showing them)."""
    notes: tuple[str, ...] = ()
    if fitted.clipped_print:
        notes += (f"the {', '.join(fitted.clipped_print)} print clipped white in two photos: kept as at least that "
                  f"light (lower the camera's exposure and {again} for a surer reading there)",)
    if fitted.faint_lines:
        notes += (f"the {', '.join(fitted.faint_lines)} grid lines too faint to fit in two photos: kept where the "
                  "template puts them",)
    if fitted.unset_grids:
        notes += (f"the {', '.join(fitted.unset_grids)} grid(s) not set up: their cells are left unread ({again} "
                  "with a photo that shows them to read them)",)
    return notes


def keep_partial(partial: Partial, base: Template) -> Template:
    """The board as far as the photos so far set it up, for a group that would rather read the grids they did
    show than take another photo: the grids not set up are named in ``Template.unset_grids`` (the reader leaves
    their cells unread) and keep ``base``'s place (a fit the photos did not bear out is no place to keep).
    Raises CalibrationError when no grid was both fitted and measured."""
    fitted = partial.template
    unset = tuple(name for name in fitted.grids if name not in partial.done)
    if not partial.done or fitted.band_ratio is None or fitted.grid_lab is None:
        raise CalibrationError("no grid is set up yet: take a photo of the empty board with the stickers' patches "
                               "in view")
    # (A partial's print, clipped and faint lists hold the grids it set up only: calibrate keeps them so.)
    return replace(fitted, unset_grids=unset,
                   grids={name: base.grids.get(name, grid) if name in unset else grid
                          for name, grid in fitted.grids.items()},
                   status=fitted.status + (f"; the {', '.join(unset)} grid(s) not set up: left unread"
                                           if unset else ""))


def calibrate(image: U8, base: Template, *, photo_name: str = "photo", earlier: Partial | None = None) -> Template:
    """A copy of ``base`` with every grid's origin and cell size fitted to this photo of the empty board, and
    the print measured. ``earlier``: what earlier photos of the same board left (``CalibrationError.partial``);
    a grid this photo does not show well is taken from there."""
    kept = earlier.done if earlier is not None else frozenset()
    try:
        loc = locate(image, base)
    except PhotoError as error:
        raise CalibrationError(str(error), earlier) from None
    if loc.method != "markers" or len(loc.markers) < 3:
        raise CalibrationError("calibration needs at least three of the template's stickers in the photo", earlier)
    bw, bh = base.board_mm
    w, h = int(math.ceil(bw * PPM)), int(math.ceil(bh * PPM))
    s = 1 / PPM
    from_px = np.array([[s, 0, 0.5 * s], [0, s, 0.5 * s], [0, 0, 1]])
    rect = cv2.warpPerspective(image, loc.hom @ from_px, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    dark = _off_surroundings(cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY).astype(np.float64))
    hued: F64 | None = None
    # The stickers are the darkest print on the board; keep them out of the line search.
    for i, _ in enumerate(base.markers.ids):
        cx, cy = base.markers.centres_mm[i]
        half = base.markers.size_mm
        dark[max(0, int((cy - half) * PPM)):int((cy + 1.4 * half) * PPM),
             max(0, int((cx - half) * PPM)):int((cx + half) * PPM)] = 0
    fits: dict[str, Grid] = {}
    missing: dict[str, str] = {}
    unfound: set[str] = set()  # lines not fitted, yet standing out faintly where the grid is (FAINT_LINES)
    before = earlier.template.grids if earlier is not None else base.grids
    left, right = base.grids["weapon_left"], base.grids["weapon_right"]
    # The left weapon grid's last column touches the right grid's first column (the rules say so): fit
    # them as one grid, else either could slide a cell along the other's lines.
    weapons = replace(left, name="weapons", cols=left.cols + right.cols)
    for name, grid in [*((n, g) for n, g in base.grids.items() if n not in ("weapon_left", "weapon_right")),
                       ("weapons", weapons)]:
        members = ("weapon_left", "weapon_right") if name == "weapons" else (name,)
        lines = dark
        fitted, score = _fit_grid(lines, grid, base.board_mm)
        if score < LINE_SCORE_MIN:
            # Lines printed in another hue at about the fill's lightness show in a colour channel, not in grey;
            # the inner lines must stand out there too (a card's edges alone fit a grid's outline).
            if hued is None:
                hued = _hue_lines(rect, dark)
            lines = hued
            fitted, score = _fit_grid(lines, grid, base.board_mm)
            if _inner_line_contrast(hued, fitted) < FAINT_CONTRAST_MIN:
                score = 0.0
        if score < LINE_SCORE_MIN:
            for member in members:
                if member not in kept:
                    if _inner_line_contrast(dark, before[member]) >= FAINT_CONTRAST_MIN:
                        unfound.add(member)
                    missing[member] = (f"the printed lines of the {member} grid were not found near where template "
                                       f"{base.name!r} puts them (is the empty board fully in view?)")
            continue
        if INNER_FIT:
            fitted = _by_inner_lines(lines, grid, fitted, base.board_mm)
        if name == "weapons":
            fits["weapon_left"] = replace(left, origin_mm=fitted.origin_mm, cell_mm=fitted.cell_mm)
            fits["weapon_right"] = replace(right, origin_mm=(fitted.origin_mm[0] + left.cols * fitted.cell_mm,
                                                             fitted.origin_mm[1]), cell_mm=fitted.cell_mm)
        else:
            fits[name] = fitted
    faint_before = earlier.faint if earlier is not None else frozenset()
    faint = {name for name in unfound if name in faint_before} if FAINT_LINES and (fits or kept) else set()
    for name in faint:
        # Not fitted in this photo nor in the one before it, yet there: lines too faint to fit; kept in place.
        fits[name] = before[name]
        del missing[name]
    here = replace(base, grids={name: fits.get(name, before[name]) for name in base.grids},
                   status=f"calibrated from {photo_name}")
    try:
        measured = measure_print(image, here)
    except PhotoError as error:
        if str(error) != NO_PATCHES_REASON or earlier is not None:
            raise CalibrationError(str(error), earlier) from None
        if missing:
            raise CalibrationError(next(iter(missing.values())) + "; retake the photo of the empty board") from None
        # No reference patches on the stickers: the geometry is still fitted, the print is not measured.
        return replace(here, board_lab=None, grid_lab=None, band_ratio=None)
    grid_lab = dict(earlier.template.grid_lab or {}) if earlier is not None else {}
    band_ratio = dict(earlier.template.band_ratio or {}) if earlier is not None else {}
    clipped_before = earlier.clipped if earlier is not None else frozenset()
    pale = set(earlier.template.clipped_print) if earlier is not None else set()
    faint_kept = set(earlier.template.faint_lines) if earlier is not None else set()
    grids, done = {}, set()
    for name in base.grids:
        if name in fits and name not in measured.unseen:
            # Fitted and measured in this photo (a grid's print is measured where its lines were found).
            grids[name] = fits[name]
            if name in faint:
                faint_kept.add(name)
            else:
                faint_kept.discard(name)
            if name in measured.grid_lab:
                grid_lab[name], band_ratio[name] = measured.grid_lab[name], measured.band_ratio[name]
            pale.discard(name)
            done.add(name)
        elif name in kept:
            grids[name] = before[name]  # as an earlier photo fitted and measured it
            done.add(name)
        elif name in fits and name in measured.clipped and name in clipped_before:
            # Clipped all over in two photos of the empty board, in their two lights: a print too pale for the
            # camera's exposure, not glare. Its print is kept as the clipped pixels give it, a lower bound.
            grids[name] = fits[name]
            grid_lab[name], band_ratio[name] = measured.clipped[name]
            pale.add(name)
            done.add(name)
        else:
            grids[name] = fits.get(name, before[name])
            # Where the print is not seen (glare on it, a hand), that is why its lines were not found either: the
            # advice to follow is the print's.
            missing[name] = measured.unseen.get(name) or missing.get(name, "")
    # Only a grid kept where the template puts it is named (one an earlier photo fitted is where its lines were).
    faint_kept = {n for n in faint_kept if n in done and grids[n] == base.grids[n]}
    status = f"calibrated from {photo_name}"
    if faint_kept:
        status += (f"; the lines of the {', '.join(n for n in base.grids if n in faint_kept)} grid(s) were too faint "
                   "to fit in two photos, and the template's place is kept")
    if pale:
        status += (f"; the print of the {', '.join(n for n in base.grids if n in pale)} grid(s) was clipped white in "
                   "two photos and is kept as at least that bright")
    out = replace(base, grids=grids, status=status, board_lab=measured.board_lab, grid_lab=grid_lab,
                  band_ratio=band_ratio, clipped_print=tuple(n for n in base.grids if n in pale),
                  faint_lines=tuple(n for n in base.grids if n in faint_kept))
    if missing:
        reason = next(iter(missing.values()))
        kept_note = (f" (the {', '.join(n for n in base.grids if n in done)} grids are kept: the next photo "
                     "only needs to show the others)" if done else "")
        clipped_now = frozenset(n for n in measured.clipped if n in missing)
        pale_note = (" (a print clipped all over again in the retake is kept as a print too pale for the camera)"
                     if clipped_now - clipped_before else "")
        faint_note = (" (lines not found again in the retake are taken as printed too faint, and the template's "
                      "place is kept)" if FAINT_LINES and unfound - faint_before and (fits or kept) else "")
        raise CalibrationError(f"{reason}; retake the photo of the empty board{kept_note}{pale_note}{faint_note}",
                               Partial(out, frozenset(done), clipped_before | clipped_now, frozenset(unfound)))
    return out
