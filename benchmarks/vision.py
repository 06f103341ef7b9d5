"""Benchmark of the board reader on a fixed-seed set of rendered 12 MP photos.

    python benchmarks/vision.py                 # 300 photos, 4000x3000, seed 2026 (rendered once, cached)
    python benchmarks/vision.py --count 40 --size 2000x1500
    python benchmarks/vision.py --renderer second   # 100 photos of the independent renderer's test seed
    python benchmarks/vision.py --renderer second --calibrated --retakes 2   # the app's flow: set up, retakes
    python benchmarks/vision.py --renderer second --calibrated --other-boards   # + each photo, another board's set-up
    python benchmarks/vision.py --labelled FOLDER   # photos saved by `fujikoro vision collect`
    python benchmarks/vision.py --renderer second --seed 568 --count 30 --calibrated --bad 0 --dice 0 --helper-ab
                                                    # each photo with and without the networks' helper thread

The photos are rendered by vision.synth (``--renderer second``: vision.synth2, an independent renderer the
reader is never tuned on; its test seed is synth2.TEST_SEED, tuning may only use synth2.TUNE_SEEDS) into a
cache directory (not in the repository) the first time;
later runs only read them. Each set's folder name carries a short hash of its render conditions, seed and
the renderer's version, so a changed renderer or changed conditions never read a stale cache.

The headline is the per-cell error (wrong or '?') over the ordinary photos: the conditions the issue lists
(perspective, 2700-6500 K light, mixed light, cast shadows, blur, noise, JPEG, cluttered tables), no
deliberate defect. Then confident errors (wrong and not '?'), the error over the photos the reader
accepted, whole-board accuracy, the confusion matrix, retake reasons, and median / p95 wall time per
photo (decode included) plus the median CPU time. Sets of deliberately bad photos (heavy blur, a glare
spot on the grids, markers covered) check that the reader asks for a retake instead of guessing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

# This file is called vision.py: put the repository, not benchmarks/, first on the path.
sys.path[0] = str(Path(__file__).resolve().parents[1])

from games.fujikoro.pack import default_pack  # noqa: E402
from vision.reader import CONFIRM_ADVICE, GLARE_ADVICE, BoardReading, PhotoError, load_photo, read_board  # noqa: E402
from vision.retake import merge_readings, wants_retake  # noqa: E402
from vision.synth import (  # noqa: E402
    BAD_BLUR,
    STRONG_GLARE,
    Conditions,
    photo_cache_dir,
    photo_set,
    photo_set_folder,
)
from vision.template import GEAR_GRIDS, Template, load_template  # noqa: E402

LETTERS = ["W", "M", "T", "."]


#: Beyond this (px at 4000 px wide) a rendered photo is deliberately blurred, not an ordinary phone photo.
HEAVY_BLUR_PX = 6.0


def has_defect(truth: dict[str, object]) -> bool:
    """A deliberate defect the reader must refuse: glare rendered on the grids, or heavy blur (only the
    bad-photo sets have it). The ordinary conditions the issue lists (including ordinary blur and motion
    blur) are not defects."""
    render: dict[str, object] = truth.get("render", {})  # type: ignore[assignment]
    width = float(render.get("size", [4000])[0])  # type: ignore[index, arg-type]
    blur = float(render.get("blur_px", 0.0)) * 4000 / width  # type: ignore[arg-type]
    return render.get("glare_mm") is not None or blur > HEAVY_BLUR_PX


READ_UNFAMILIAR = False


def evaluate(paths: list[Path], verbose: bool, net: bool = True,
             templates: dict[Path, Template | str] | None = None,
             retake: Callable[[Path, int, BoardReading], Path] | None = None, most_retakes: int = 0
             ) -> dict[str, object]:
    """``templates``: per photo, the calibrated template to read it with, or why calibration failed (the
    photo then counts as refused: every cell '?'). ``retake(path, attempt, reading)``: while a photo's reading asks for
    another photo (vision.retake.wants_retake), at most ``most_retakes`` times, the path of that retake, read with the
    same template and merged with the reading so far as the app does (the time per photo stays the first's); the
    reading so far says what the group was told to do."""
    default_template = load_template()
    times, cpu_times, cells, wrong, confident_wrong, boards_ok = [], [], 0, 0, 0, 0
    confusion: Counter[tuple[str, str]] = Counter()
    retakes: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    clean_cells = clean_wrong = 0
    # Photos with a deliberate defect (a clipped highlight on the grids): the reader must ask for a
    # retake there, so their '?' cells are right answers to a bad photo, but they still count in the total.
    defect_photos = defect_cells = defect_wrong = 0
    failures: list[str] = []
    refused = asked = retaken = retakes_refused = 0
    for path in paths:
        truth = json.loads(path.with_suffix(".json").read_text())
        template = (templates or {}).get(path, default_template)
        start, cpu_start = time.perf_counter(), time.process_time()
        try:
            if isinstance(template, str):
                raise PhotoError(f"calibration failed: {template}")
            reading = read_board(load_photo(path), template, net=net, read_unfamiliar=READ_UNFAMILIAR)
        except PhotoError as error:
            times.append(time.perf_counter() - start)
            cpu_times.append(time.process_time() - cpu_start)
            failures.append(f"{path.name}: {error}")
            refused += 1
            n = sum(len(row) for g in GEAR_GRIDS for row in truth[g])
            cells += n
            wrong += n
            continue
        times.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - cpu_start)
        for attempt in range(most_retakes if retake is not None else 0):
            if not wants_retake(reading):
                break
            assert retake is not None
            try:
                again = load_photo(retake(path, attempt, reading))
                reading = merge_readings(reading, read_board(again, template, net=net, read_unfamiliar=READ_UNFAMILIAR))
                retaken += 1
            except PhotoError as error:
                retakes_refused += 1
                failures.append(f"{path.name}: retake {attempt + 1} left out, the photos before it stand: {error}")
        board_ok = True
        photo_wrong = photo_cells = 0
        for g in GEAR_GRIDS:
            for r, (want_row, got_row) in enumerate(zip(truth[g], reading.grids[g], strict=True)):
                for c, (want, got) in enumerate(zip(want_row, got_row, strict=True)):
                    cells += 1
                    photo_cells += 1
                    confusion[(want, got)] += 1
                    if want != got:
                        wrong += 1
                        photo_wrong += 1
                        board_ok = False
                        if got != "?":
                            confident_wrong += 1
                            failures.append(f"{path.name}: {g}[{r}][{c}] is {want}, read {got} (confident)")
                        elif verbose:
                            cell = next(x for x in reading.cells if (x.grid, x.row, x.col) == (g, r, c))
                            failures.append(f"{path.name}: {g}[{r}][{c}] is {want}, read ? ({cell.reason}) "
                                            f"{ {k: round(v, 1) for k, v in cell.features.items()} }")
        boards_ok += board_ok
        if has_defect(truth):
            defect_photos += 1
            defect_cells += photo_cells
            defect_wrong += photo_wrong
        for cell in reading.uncertain:
            reasons[cell.reason] += 1
        if not reading.retake:
            clean_cells += photo_cells
            clean_wrong += photo_wrong
        if reading.retake:
            asked += 1
            retakes[advice_kind(reading.retake)] += 1
    times_ms = sorted(t * 1000 for t in times)
    return {
        "photos": len(paths), "cells": cells, "wrong_or_uncertain": wrong, "confident_errors": confident_wrong,
        "boards_ok": boards_ok, "confusion": confusion, "retakes": retakes, "failures": failures,
        "refused": refused, "asked": asked, "retaken": retaken,
        "retakes_refused": retakes_refused, "reasons": reasons, "clean_cells": clean_cells,
        "clean_wrong": clean_wrong,
        "defect_photos": defect_photos, "defect_cells": defect_cells, "defect_wrong": defect_wrong,
        "median_ms": statistics.median(times_ms) if times_ms else 0.0,
        "p95_ms": times_ms[int(0.95 * (len(times_ms) - 1))] if times_ms else 0.0,
        "cpu_median_ms": 1000 * statistics.median(cpu_times) if cpu_times else 0.0,
    }


def advice_kind(retake: str) -> str:
    """A retake advice's kind, for the report: its first words, or what it asks for where cells are named."""
    if retake.startswith("cells ") and CONFIRM_ADVICE in retake:
        return "cells to confirm"
    return " ".join(retake.split(" ")[:2])


def report(title: str, res: dict[str, object]) -> None:
    cells = int(res["cells"])  # type: ignore[call-overload]
    wrong = int(res["wrong_or_uncertain"])  # type: ignore[call-overload]
    photos = int(res["photos"])  # type: ignore[call-overload]
    print(f"== {title}: {photos} photos, {cells} cells")
    print(f"PER-CELL ERROR (wrong or ?):   {wrong}/{cells} = {100 * wrong / max(cells, 1):.3f} %")
    dp, dc, dw = (int(res[k]) for k in ("defect_photos", "defect_cells", "defect_wrong"))  # type: ignore[call-overload]
    if dp:
        print(f"  of which {dp} photos WITH a deliberate defect (glare, heavy blur): {dw}/{dc} = "
              f"{100 * dw / max(dc, 1):.3f} %; the other {photos - dp}: {wrong - dw}/{cells - dc} = "
              f"{100 * (wrong - dw) / max(cells - dc, 1):.3f} %")
    print(f"confident errors:            {res['confident_errors']}")
    clean, clean_wrong = int(res["clean_cells"]), int(res["clean_wrong"])  # type: ignore[call-overload]
    print(f"per-cell error on photos the reader accepted (no retake): {clean_wrong}/{clean} = "
          f"{100 * clean_wrong / max(clean, 1):.3f} %")
    boards_ok = int(res["boards_ok"])  # type: ignore[call-overload]
    print(f"whole-board accuracy:        {boards_ok}/{photos} = {100 * boards_ok / max(photos, 1):.1f} %")
    print(f"time per photo (decode + read): median {res['median_ms']:.0f} ms, p95 {res['p95_ms']:.0f} ms wall; "
          f"median {res['cpu_median_ms']:.0f} ms CPU (all threads; a check when the machine is busy)")
    confusion: Counter[tuple[str, str]] = res["confusion"]  # type: ignore[assignment]
    print("confusion (rows: truth, columns: read)")
    print("      " + "".join(f"{c:>7}" for c in [*LETTERS, "?"]))
    for t in LETTERS:
        print(f"  {t:>3} " + "".join(f"{confusion[(t, g)]:>7}" for g in [*LETTERS, "?"]))
    retakes: Counter[str] = res["retakes"]  # type: ignore[assignment]
    print(f"retake asked on {res['asked']} photos: {dict(retakes)}; photo refused (no board read) {res['refused']}")
    if res["retaken"] or res["retakes_refused"]:
        print(f"retakes taken where the reading so far asked for one (vision.retake.wants_retake) and merged with "
              f"it: {res['retaken']}; retakes the reader could not read (the photos before them stand): "
              f"{res['retakes_refused']}. The figures above are of the merged readings; the time is the first "
              f"photo's, and each retake costs about as much again. Photos refused as a whole are not retaken.")
    print(f"'?' cells by reason: {dict(res['reasons'])}")
    failures: list[str] = res["failures"]  # type: ignore[assignment]
    if QUIET:
        return
    for line in sorted(failures, key=lambda f: "(confident)" not in f)[:500]:
        print("  " + line)


DIE_FACES = {"wood": ["1", "1", "1", "1", "0", "0b"], "metal": ["2", "2", "1", "1", "0", "0b"],
             "tooth": ["3", "3", "2", "1", "0", "0b"], "magic": ["4", "4", "2", "2", "0", "0"]}


def dice_benchmark(count: int, seed: int) -> None:
    """Tray photos (2000x1500, rendered in memory): faces read, confident errors, cocked dice caught."""
    from vision.dice import read_dice
    from vision.synth import render_dice

    cond = Conditions(size=(2000, 1500), tilt_deg=(0.0, 10.0), board_fraction=(0.6, 0.85), occluder_shadow=0.0,
                      glare=0.0, clutter=0)
    total = right = wrong = unread = cocked = caught = false_cocked = photos_ok = 0
    times = []
    why_unread: Counter[str] = Counter()
    for i in range(count):
        rng = np.random.default_rng(seed * 1000 + i)
        dice = []
        for _ in range(int(rng.integers(2, 8))):
            kind = str(rng.choice(list(DIE_FACES)))
            dice.append((kind, str(rng.choice(DIE_FACES[kind]))))
        leaning = [0] if rng.random() < 0.3 else []
        rendered = render_dice(dice, seed=seed * 1000 + i, cocked=leaning, conditions=cond)
        start = time.perf_counter()
        reading = read_dice(rendered.image, default_pack().dice)
        times.append(time.perf_counter() - start)
        want = Counter((k, f) for j, (k, f) in enumerate(dice) if j not in leaning)
        got = Counter((d.kind, d.face) for d in reading.dice if d.is_read)
        total += sum(want.values())
        right += sum((want & got).values())
        wrong += sum((got - want).values())
        unread += sum((want - got).values())
        flagged = sum(1 for d in reading.dice if d.cocked)
        cocked += len(leaning)
        caught += min(flagged, len(leaning))
        false_cocked += max(0, flagged - len(leaning))
        photos_ok += got == want and flagged == len(leaning)
        why_unread.update(d.reason or "low confidence" for d in reading.dice if not d.cocked and not d.is_read)
    print(f"== dice: {count} tray photos, {total} flat dice: read right {right}, confident errors {wrong} "
          f"(a cocked die read as flat counts here), flat dice not read {unread}; "
          f"cocked dice {cocked}, flagged {caught}, flat dice flagged cocked {false_cocked}; "
          f"photos entirely right {photos_ok}/{count}; median {1000 * statistics.median(times):.0f} ms")
    if why_unread:
        print(f"   dice not read (not cocked), by reason: {dict(why_unread)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--renderer", choices=["first", "second"], default="first",
                        help="first: vision.synth (tuned and trained on); second: vision.synth2 (never tuned on)")
    parser.add_argument("--labelled", type=Path, default=None,
                        help="a folder of labelled photos (PHOTO.jpg + PHOTO.json) instead of rendered ones")
    parser.add_argument("--count", type=int, default=None, help="photos (default 300, 100 with --renderer second)")
    parser.add_argument("--bad", type=int, default=20, help="deliberately bad photos (0 to skip)")
    parser.add_argument("--seed", type=int, default=None, help="default 2026 (first), synth2.TEST_SEED (second)")
    parser.add_argument("--size", default="4000x3000")
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--quiet", action="store_true", help="figures only, no per-cell failures (for test sets)")
    parser.add_argument("--no-net", action="store_true", help="the rules alone, without the cell network's second look")
    parser.add_argument("--read-unfamiliar", action="store_true",
                        help="read boards unlike the template instead of refusing them (development)")
    parser.add_argument("--calibrated", action="store_true",
                        help="second renderer: read each board with the template calibrated from a photo of the "
                             "same board, empty, in another scene (the app's set-up step)")
    parser.add_argument("--retakes", type=int, default=0, metavar="N",
                        help="second renderer: also read the ordinary photos as a group does when the reader asks "
                             "for another photo: up to N retakes (for glare first the same photo a stop darker, as "
                             "the reader asks; else the board tilted or the light moved), each merged with the reading "
                             "so far (vision.retake)")
    parser.add_argument("--other-boards", action="store_true",
                        help="second renderer, with --calibrated: also read each photo with the next photo's "
                             "calibration (another board), to check such boards are refused or read without a "
                             "confident error")
    parser.add_argument("--helper-ab", action="store_true",
                        help="second renderer: instead of the figures, read each photo alternately with the cell "
                             "networks' helper thread and without it (vision.cellnet.USE_HELPER), twice each, and "
                             "print both medians of each photo's faster read and the median per-photo ratio (within "
                             "one process, so the machine's drift from run to run cancels); the readings must match")
    parser.add_argument("--dice", type=int, default=60, help="dice-tray photos to render and read (0 to skip)")
    parser.add_argument("--rows", type=int, default=0,
                        help="White Castle dice-row photos to render and read (0 to skip)")
    parser.add_argument("--tray", type=int, default=0,
                        help="Shogun tray photos of plain cubes to render and count (0 to skip)")
    args = parser.parse_args()
    global QUIET, READ_UNFAMILIAR
    QUIET, READ_UNFAMILIAR = args.quiet, args.read_unfamiliar
    w, h = (int(v) for v in args.size.split("x"))
    root = args.cache or photo_cache_dir()
    print(f"photo cache: {root}", file=sys.stderr)
    if args.labelled is not None:
        from vision.examples import example_template, labelled_photos
        from vision.template import template_from_json

        paths = labelled_photos(args.labelled)
        if not paths:
            print(f"no labelled photos (PHOTO.jpg with PHOTO.json) in {args.labelled}", file=sys.stderr)
            return 2
        # A collected example is read with the template the app read it with (the board's camera set-up).
        own: dict[Path, Template | str] = {}
        for path in paths:
            data = example_template(path)
            if data is not None:
                own[path] = template_from_json(data)
        report(f"labelled photos in {args.labelled}", evaluate(paths, args.verbose, not args.no_net, own))
        return 0
    if args.renderer == "second":
        return main_second(args, w, h, root)
    seed = 2026 if args.seed is None else args.seed
    count = 300 if args.count is None else args.count
    cond = Conditions(size=(w, h))
    paths = photo_set(photo_set_folder(root, "ordinary", seed, cond), count, seed, cond)
    report("ordinary photos (no deliberate defect)", evaluate(paths, args.verbose, not args.no_net))
    if args.bad:
        bad_sets = [("blurred", BAD_BLUR, max(1, args.bad // 3)), ("glare", STRONG_GLARE, args.bad),
                    ("one-marker", Conditions(hide_markers=3), max(1, args.bad // 3))]
        for name, bad, n in bad_sets:
            bad = Conditions(**{**{f: getattr(bad, f) for f in bad.__dataclass_fields__}, "size": (w, h)})
            bad_paths = photo_set(photo_set_folder(root, name, seed + 7, bad), n, seed + 7, bad, prefix=name)
            report_bad(name, evaluate(bad_paths, args.verbose, not args.no_net), len(bad_paths))
    if args.dice:
        dice_benchmark(args.dice, seed)
    if args.tray:
        tray_benchmark(args.tray, seed, "first")
    if args.rows:
        rows_benchmark(args.rows, seed, "first")
    return 0


QUIET = False


def _flat_photo(kind: str, renderer: str, seed: int) -> tuple[Any, dict[str, Any]]:
    """A tray or dice-row photo and its labels from either renderer (``kind`` "tray" or "dice_rows")."""
    from vision import synth, synth2

    if renderer == "first":
        rendered = getattr(synth, f"render_{kind}")(seed=seed)
        return rendered.image, rendered.labels
    image, labels = getattr(synth2, f"render_{kind}")(seed)
    return image, labels


def rows_benchmark(count: int, seed: int, renderer: str) -> None:
    """Dice-row photos (The White Castle's bridges, 2000x1500, rendered in memory): dice read right (colour and
    value in their place), '?', confident errors; a photo whose rows the reader splits differently counts
    all its dice as '?' (the app shows the reason and the group reads them)."""
    from vision.dicerow import DiceReadError, read_dice_rows

    t: Counter[str] = Counter()
    times = []
    for i in range(count):
        photo_seed = seed * 1000 + i
        image, labels = _flat_photo("dice_rows", renderer, photo_seed)
        want = labels["rows"]
        start = time.perf_counter()
        try:
            got = read_dice_rows(image).to_json()["rows"]
        except DiceReadError:
            t["refused"] += sum(len(r) for r in want)
            continue
        finally:
            times.append(time.perf_counter() - start)
        if [len(r) for r in got] != [len(r) for r in want]:
            t["?"] += sum(len(r) for r in want)
            t["rows split differently (photos)"] += 1
            continue
        for want_row, got_row in zip(want, got, strict=True):
            for w, g in zip(want_row, got_row, strict=True):
                t["?" if "?" in g else "right" if list(g) == list(w) else "wrong"] += 1
    print(f"== dice rows ({renderer} renderer): {count} photos, {t['right'] + t['?'] + t['wrong'] + t['refused']} "
          f"dice: right {t['right']}, '?' {t['?']} (rows split differently on "
          f"{t['rows split differently (photos)']} photos), refused {t['refused']}, CONFIDENT ERRORS {t['wrong']}; "
          f"median {1000 * statistics.median(times) if times else 0:.0f} ms")


def tray_benchmark(count: int, seed: int, renderer: str) -> None:
    """Tray photos (2000x1500, rendered in memory) of plain cubes: colour counts right, confident errors
    (a wrong count that is not '?'), split by whether the photo has a stacked cube (the reader's blind spot)."""
    from vision.tray import TrayReadError, count_tray

    tally = {True: Counter(), False: Counter()}
    times = []
    for i in range(count):
        photo_seed = seed * 1000 + i
        image, labels = _flat_photo("tray", renderer, photo_seed)
        stacked = labels["stacked"] > 0
        start = time.perf_counter()
        try:
            reading = count_tray(image)
        except TrayReadError:
            tally[stacked]["refused"] += len(labels["counts"])
            continue
        finally:
            times.append(time.perf_counter() - start)
        for colour, want in labels["counts"].items():
            got = reading.counts.get(colour)
            tally[stacked]["?" if got is None else "right" if got == want else "wrong"] += 1
    for stacked in (False, True):
        t = tally[stacked]
        n = sum(t.values())
        print(f"== tray ({renderer} renderer), photos {'with' if stacked else 'without'} a stacked cube: {n} colour "
              f"counts: right {t['right']}, '?' {t['?']}, refused {t['refused']}, CONFIDENT ERRORS {t['wrong']}")
    if times:
        print(f"   median {1000 * statistics.median(times):.0f} ms per tray photo")


def report_bad(name: str, res: dict[str, object], n: int) -> None:
    asked, refused = int(res["asked"]), int(res["refused"])  # type: ignore[call-overload]
    cells, wrong = int(res["cells"]), int(res["wrong_or_uncertain"])  # type: ignore[call-overload]
    print(f"== bad photos ({name}): {n} photos; retake asked on {asked}, refused (no board "
          f"read) on {refused}, read without a retake on {n - asked - refused}; per-cell error "
          f"{100 * wrong / max(cells, 1):.2f} %; confident errors {res['confident_errors']}")
    if not QUIET:
        for line in sorted(res["failures"], key=lambda f: "(confident)" not in f)[:10]:  # type: ignore[arg-type]
            print("  " + line)


def calibrated_templates(paths: list[Path], seed: int, look: Any) -> dict[Path, Template | str]:
    """The user flow's set-up for each photo's board: one photo of the same board, empty, in another scene
    (another camera, other lights; rendered once, cached beside the set), fitted with vision.calibrate.
    After the last photo a group uses the grids set up so far, as the Gear screen offers (vision.calibrate.
    keep_partial: the others are left unread); calibration failing on every grid is that board's refusal (its
    reason kept)."""
    from vision import synth2
    from vision.calibrate import CalibrationError, calibrate, keep_partial

    base = load_template()
    out: dict[Path, Template | str] = {}
    retakes = kept = 0
    for i, path in enumerate(paths):
        partial = None  # a retake keeps the grids the earlier photos showed well, as the app does
        for attempt in range(CALIBRATION_TRIES):
            empty = synth2.calibration_photo(path, seed, i, look, base, attempt)
            try:
                out[path] = calibrate(load_photo(empty), base, photo_name=empty.name, earlier=partial)
                break
            except CalibrationError as error:
                out[path], partial = str(error), error.partial
                retakes += attempt + 1 < CALIBRATION_TRIES
        if isinstance(out[path], str) and partial is not None and partial.done:
            out[path] = keep_partial(partial, base)
            kept += 1
    failed = sum(isinstance(t, str) for t in out.values())
    print(f"calibrated {len(paths) - failed}/{len(paths)} boards from an empty-board photo each "
          f"({retakes} calibration photos retaken when calibration asked for it, at most {CALIBRATION_TRIES} "
          f"photos a board)" + (f"; {kept} of them only in part (the grids set up in those photos)" if kept else "")
          + (f"; calibration failed on {failed}" if failed else ""), flush=True)
    return out


#: Photos of the empty board a group takes at most when calibration asks for a retake (glare, hidden grid).
CALIBRATION_TRIES = 3


def calibration_geometry(templates: dict[Path, Template | str], printed: Template) -> str:
    """How far the calibrated grids lie from where the second renderer printed them (it prints ``printed``'s
    grids, the shipped template's): per grid, the largest distance between a cell's centre as calibrated and as
    printed. A grid set up off its print is read in the wrong places; the reader places each photo's cells by its
    printed lines again, but only within a few mm of calibration's place."""
    offs = []
    for template in templates.values():
        if isinstance(template, str):
            continue
        for name in GEAR_GRIDS:
            if name in template.unset_grids:
                continue
            offs.append(template.grids[name].farthest_cell_from(printed.grids[name]))
    if not offs:
        return "calibrated grids against their print: none set up"
    over = ", ".join(f"{sum(d > mm for d in offs)} over {mm} mm" for mm in (1, 2, 3))
    return (f"calibrated grids against where they are printed ({len(offs)} grids, each by its farthest cell): median "
            f"{statistics.median(offs):.2f} mm, {over}")


def helper_ab(paths: list[Path], templates: dict[Path, Template | str] | None) -> int:
    """Each photo read four times, decode included, alternating with the cell networks' helper thread (the second
    core) and without it, in the order with, without, without, with; per photo the faster read of each kind. Prints
    the medians and the median of the per-photo ratios; exit status 1 if the four reads of a photo did not all give
    every cell the same label and reason."""
    from vision import cellnet

    default_template = load_template()
    best: dict[bool, list[float]] = {True: [], False: []}
    differ = 0
    for path in paths:
        template = (templates or {}).get(path, default_template)
        if isinstance(template, str):
            continue
        fastest = {True: float("inf"), False: float("inf")}
        readings: set[tuple[str, ...]] = set()
        try:
            for on in (True, False, False, True):
                cellnet.USE_HELPER = on
                start = time.perf_counter()
                try:
                    cells = read_board(load_photo(path), template).cells
                    readings.add(tuple(f"{c.label} {c.reason}" for c in cells))
                except PhotoError as error:
                    readings.add((str(error),))
                fastest[on] = min(fastest[on], time.perf_counter() - start)
        finally:
            cellnet.USE_HELPER = True
        differ += len(readings) > 1
        for on in (True, False):
            best[on].append(fastest[on])
    if not best[True]:
        print("no photo to read")
        return 1
    ratio = statistics.median(a / b for a, b in zip(best[True], best[False], strict=True))
    with_, without = (1000 * statistics.median(best[on]) for on in (True, False))
    print(f"{len(best[True])} photos, each photo's faster of two reads: median {with_:.0f} ms with the helper thread, "
          f"{without:.0f} ms without; median per-photo ratio {ratio:.3f}; photos read differently: {differ}")
    return 1 if differ else 0


def main_second(args: argparse.Namespace, w: int, h: int, root: Path) -> int:
    """The independent renderer's photos: ordinary ones, then stickers without reference patches and
    dark-printed grids (an uncalibrated board printed darker than the template)."""
    from vision import synth2

    seed = synth2.TEST_SEED if args.seed is None else args.seed
    count = 100 if args.count is None else args.count
    split = "TEST set (never tuned on)" if seed == synth2.TEST_SEED else (
        "tuning split" if seed in synth2.TUNE_SEEDS else "undeclared seed")
    print(f"second renderer, seed {seed}: {split}")
    look = synth2.Look(size=(w, h))
    paths = synth2.photo_set(synth2.set_folder(root, "ordinary", seed, look), count, seed, look)
    cal = " (each board calibrated from its own empty-board photo)" if args.calibrated else " (uncalibrated)"
    templates = calibrated_templates(paths, seed, look) if args.calibrated else None
    if templates is not None:
        print(calibration_geometry(templates, load_template()), flush=True)
    if args.helper_ab:
        return helper_ab(paths, templates)
    result = evaluate(paths, args.verbose, not args.no_net, templates)
    report("second renderer, ordinary photos, one photo each" + cal, result)
    if args.other_boards and templates is not None and len(paths) > 1:
        # A group that reads a board with another board's calibration: each photo with the next photo's (another
        # board, its own art and prints). The reader should refuse such a board or read it without a confident error.
        others = {path: templates[paths[(i + 1) % len(paths)]] for i, path in enumerate(paths)}
        report("second renderer, ordinary photos, each read with the next photo's calibration (another board)",
               evaluate(paths, args.verbose, not args.no_net, others))
    if args.retakes:
        template = load_template()

        # Per photo: the scene of the group's latest photo (-1: the photo's own, N: retake scene N) and whether they
        # slid the exposure down.
        scene: dict[Path, int] = {}
        darker: set[Path] = set()

        def retake_of(path: Path, attempt: int, reading: BoardReading) -> Path:
            # The group does what the reader says: for glare, the latest photo again from where they stood, the
            # exposure a stop lower; if the glare stays, and for any other cell left '?', the board tilted or the
            # light moved (the next scene), the exposure left where they slid it.
            index, latest = paths.index(path), scene.get(path, -1)
            if GLARE_ADVICE in (reading.retake or "") and path not in darker:
                darker.add(path)
                if latest < 0:
                    return synth2.darker_photo(path, seed, index, look, template)
                return synth2.retake_photo(path, seed, index, look, template, latest, stops=1)
            scene[path] = latest + 1
            return synth2.retake_photo(path, seed, index, look, template, latest + 1, stops=int(path in darker))

        report(f"second renderer, ordinary photos with up to {args.retakes} retake(s) while the reader asks for one"
               + cal, evaluate(paths, args.verbose, not args.no_net, templates, retake_of, args.retakes))
    if args.bad:
        for name, bad in (("no-patches", synth2.Look(size=(w, h), no_patches=1.0)),
                          ("dark-print", synth2.Look(size=(w, h), dark_print=1.0))):
            bad_paths = synth2.photo_set(synth2.set_folder(root, name, seed + 1, bad), args.bad, seed + 1, bad)
            bad_templates = calibrated_templates(bad_paths, seed + 1, bad) if args.calibrated else None
            report_bad(name + cal, evaluate(bad_paths, args.verbose, not args.no_net, bad_templates), len(bad_paths))
    if args.tray:
        tray_benchmark(args.tray, seed, "second")
    if args.rows:
        rows_benchmark(args.rows, seed, "second")
    return 0


if __name__ == "__main__":
    sys.exit(main())
