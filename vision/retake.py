"""Two photos of the same board, read together: a retake keeps what the first photo showed.

When a photo leaves cells ``?`` (glare over a cube's top, a hand over a grid, a cell the reader cannot
tell), the reader asks for another photo ("tilt the board or move the light"). The retake is of the same
board with the same cubes, so its reading is merged with the first, cell by cell:

- a cell read alike in both keeps the reading (the higher confidence of the two);
- a cell read differently in the two photos is ``?`` (:data:`PHOTOS_DISAGREE_REASON`): one of them is wrong,
  or a cube was moved between the photos, and neither may stand alone;
- a cell read in one photo and ``?`` in the other takes the reading where the rules and the cell network of
  its own photo agreed on it, or where nothing in the other photo spoke against it (:func:`leanings`: the rules
  read another label there, or the network found another label the likelier). A reading one reader made
  against the other in its own photo, with the other photo leaning elsewhere, is ``?``: a network that
  misreads a cube tends to misread it in every photo, while the rules beside it see what they saw, so a
  retake must not turn that doubt into a reading;
- a cell ``?`` in both keeps the retake's reason (or that photos disagreed on it, if they did).

A merged ``?`` cell remembers the labels every photo put forward for it, and a cell the photos disagreed on
stays ``?``: a third photo does not outvote a confident misreading.

The merge is a pure function of the two readings (no pixels): any number of retakes fold in one at a time.
"""

from __future__ import annotations

from dataclasses import replace

from vision.cellnet import LABELS
from vision.reader import (
    GLARE_RULES,
    NO_PATCHES_REASON,
    UNFAMILIAR_REASON,
    BoardReading,
    Cell,
    PhotoError,
    retake_reason,
)

UNSURE = "?"
PHOTOS_DISAGREE_REASON = "the photos disagree on this cell (a cube moved between them, or one photo misleads)"
#: A cell network's most likely label speaks in a cell left '?' from this probability on.
NET_LEANS_FROM = 0.5
#: The feature of a merged '?' cell that keeps the labels the photos put forward for it (a bit per cellnet label).
LEANS = "photos_lean"


def leanings(cell: Cell) -> frozenset[str]:
    """The labels the readers put forward for a cell left ``?``: the rules' reading (``rules_read``, or what
    they read past glare, ``glare_rules``) and the cell network's likeliest label when it gave it at least
    NET_LEANS_FROM (``net_best``, ``net_p``). Empty when nothing was said (a hidden board, a cell never read)."""
    f = cell.features
    out = set()
    if "rules_read" in f:
        out.add(LABELS[int(f["rules_read"])])
    if "glare_rules" in f and GLARE_RULES[int(f["glare_rules"])] != UNSURE:
        out.add(GLARE_RULES[int(f["glare_rules"])])
    if "net_best" in f and f.get("net_p", 0.0) >= NET_LEANS_FROM:
        out.add(LABELS[int(f["net_best"])])
    if LEANS in f:
        out.update(label for i, label in enumerate(LABELS) if int(f[LEANS]) >> i & 1)
    return frozenset(out)


def _unsure(cell: Cell, reason: str, leans: frozenset[str]) -> Cell:
    """``cell`` left '?' for ``reason``, remembering every label any photo put forward for it (LEANS)."""
    mask = sum(1 << i for i, label in enumerate(LABELS) if label in leans)
    return replace(cell, label=UNSURE, confidence=0.0, reason=reason, features={**cell.features, LEANS: float(mask)})


def merge_cell(first: Cell, retake: Cell) -> Cell:
    """The cell as the two photos show it together (see the module's rules)."""
    if first.label == UNSURE and retake.label == UNSURE:
        disagreed = PHOTOS_DISAGREE_REASON in (first.reason, retake.reason)
        return _unsure(retake, PHOTOS_DISAGREE_REASON if disagreed else retake.reason,
                       leanings(first) | leanings(retake))
    if first.label == retake.label:
        return first if first.confidence > retake.confidence else retake
    read, unsure = (retake, first) if first.label == UNSURE else (first, retake)
    if (unsure.label == UNSURE and unsure.reason != PHOTOS_DISAGREE_REASON
            and (leanings(read) <= {read.label} or leanings(unsure) <= {read.label})):
        return read
    return _unsure(retake, PHOTOS_DISAGREE_REASON, leanings(unsure) | {read.label, unsure.label} - {UNSURE})


def merge_readings(first: BoardReading, retake: BoardReading) -> BoardReading:
    """The board as the first photo and its retake show it together. Both must be of the same board and
    grids (:class:`~vision.reader.PhotoError` otherwise: a retake of another board is no retake)."""
    if (first.board, first.template) != (retake.board, retake.template):
        raise PhotoError(f"the retake is of the {retake.board} board ({retake.template}), the first photo of the "
                         f"{first.board} board ({first.template}): take the retake of the same board")
    cells_first = {(c.grid, c.row, c.col): c for c in first.cells}
    if set(cells_first) != {(c.grid, c.row, c.col) for c in retake.cells}:
        raise PhotoError("the retake was read with other grids than the first photo; read both with the same "
                         "camera set-up")
    cells = tuple(merge_cell(cells_first[(c.grid, c.row, c.col)], c) for c in retake.cells)
    by_key = {(c.grid, c.row, c.col): c.label for c in cells}
    grids = {name: tuple("".join(by_key[(name, r, col)] for col in range(len(rows[r]))) for r in range(len(rows)))
             for name, rows in retake.grids.items()}
    notes = tuple(dict.fromkeys(first.notes + retake.notes))
    blur = min(first.blur_mm, retake.blur_mm)
    return BoardReading(retake.template, retake.board, grids, cells, retake_reason(None, cells, blur),
                        tuple(sorted(set(first.markers) | set(retake.markers))), blur,
                        f"{first.method}+{retake.method}", notes)


def wants_retake(reading: BoardReading) -> bool:
    """Whether another photo of this board could read more of it: the reader asked for a retake for this photo's
    sake (glare, blur, doubtful cells), not because the board itself must be set up first (unlike its
    calibration, stickers without reference patches: another photo would be refused the same way)."""
    return reading.retake is not None and reading.retake not in (UNFAMILIAR_REASON, NO_PATCHES_REASON)
