"""Benchmark of the board reader on a fixed-seed set of rendered 12 MP photos.

    python benchmarks/vision.py                 # 300 photos, 4000x3000, seed 2026 (rendered once, cached)
    python benchmarks/vision.py --count 40 --size 2000x1500

The photos are rendered by vision.synth into a cache directory (not in the repository) the first time;
later runs only read them. Prints the per-cell error (wrong or '?') over all photos and, labelled
separately, over the photos without a deliberate defect (a rendered glare spot, or heavy blur) and over
those with one (the reader must refuse those cells; their '?' still count as errors in the total);
confident errors (wrong and not '?'), whole-board accuracy, the confusion matrix, retake reasons, and
median / p95 wall time per photo (decode included) plus the median CPU time. A second, small set of
deliberately bad photos (blurred, glare, markers covered) checks that the reader asks for a retake
instead of guessing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

# This file is called vision.py: put the repository, not benchmarks/, first on the path.
sys.path[0] = str(Path(__file__).resolve().parents[1])

from vision.reader import PhotoError, load_photo, read_board  # noqa: E402
from vision.synth import BAD_BLUR, STRONG_GLARE, Conditions, random_gear, render_board, write_rendered  # noqa: E402
from vision.template import GEAR_GRIDS, load_template  # noqa: E402

LETTERS = ["W", "M", "T", "."]


def cache_dir() -> Path:
    from platformdirs import user_cache_dir

    return Path(os.environ.get("FUJIKORO_VISION_CACHE", user_cache_dir("fujikoro"))) / "vision-bench"


def ensure_set(folder: Path, count: int, seed: int, cond: Conditions, prefix: str = "photo") -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    template = load_template()
    paths = []
    for i in range(count):
        path = folder / f"{prefix}-{i:04d}.jpg"
        paths.append(path)
        if path.exists() and path.with_suffix(".json").exists():
            continue
        photo_seed = seed * 100_000 + i
        rng = np.random.default_rng(photo_seed)
        gear = random_gear(rng, template, float(rng.uniform(*cond.fill)))
        rendered = render_board(template, gear, seed=photo_seed, conditions=cond)
        write_rendered(rendered, path, quality=97)
        if (i + 1) % 25 == 0:
            print(f"  rendered {i + 1}/{count}", file=sys.stderr)
    return paths


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


def evaluate(paths: list[Path], verbose: bool) -> dict[str, object]:
    template = load_template()
    times, cpu_times, cells, wrong, confident_wrong, boards_ok = [], [], 0, 0, 0, 0
    confusion: Counter[tuple[str, str]] = Counter()
    retakes: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    clean_cells = clean_wrong = 0
    # Photos with a deliberate defect (a clipped highlight on the grids): the reader must ask for a
    # retake there, so their '?' cells are right answers to a bad photo, but they still count in the total.
    defect_photos = defect_cells = defect_wrong = 0
    failures: list[str] = []
    for path in paths:
        truth = json.loads(path.with_suffix(".json").read_text())
        start, cpu_start = time.perf_counter(), time.process_time()
        try:
            reading = read_board(load_photo(path), template)
        except PhotoError as error:
            times.append(time.perf_counter() - start)
            cpu_times.append(time.process_time() - cpu_start)
            failures.append(f"{path.name}: {error}")
            n = sum(len(row) for g in GEAR_GRIDS for row in truth[g])
            cells += n
            wrong += n
            continue
        times.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - cpu_start)
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
            retakes[reading.retake.split(" ")[0] + " " + reading.retake.split(" ")[1]] += 1
    times_ms = sorted(t * 1000 for t in times)
    return {
        "photos": len(paths), "cells": cells, "wrong_or_uncertain": wrong, "confident_errors": confident_wrong,
        "boards_ok": boards_ok, "confusion": confusion, "retakes": retakes, "failures": failures,
        "reasons": reasons, "clean_cells": clean_cells, "clean_wrong": clean_wrong,
        "defect_photos": defect_photos, "defect_cells": defect_cells, "defect_wrong": defect_wrong,
        "median_ms": statistics.median(times_ms) if times_ms else 0.0,
        "p95_ms": times_ms[int(0.95 * (len(times_ms) - 1))] if times_ms else 0.0,
        "cpu_median_ms": 1000 * statistics.median(cpu_times) if cpu_times else 0.0,
    }


def report(title: str, res: dict[str, object]) -> None:
    cells = int(res["cells"])  # type: ignore[call-overload]
    wrong = int(res["wrong_or_uncertain"])  # type: ignore[call-overload]
    photos = int(res["photos"])  # type: ignore[call-overload]
    print(f"== {title}: {photos} photos, {cells} cells")
    print(f"per-cell error (wrong or ?), ALL photos:               {wrong}/{cells} = "
          f"{100 * wrong / max(cells, 1):.3f} %")
    dp, dc, dw = (int(res[k]) for k in ("defect_photos", "defect_cells", "defect_wrong"))  # type: ignore[call-overload]
    print(f"per-cell error (wrong or ?), {photos - dp} photos WITHOUT deliberate defects (glare, heavy blur): "
          f"{wrong - dw}/{cells - dc} = {100 * (wrong - dw) / max(cells - dc, 1):.3f} %")
    print(f"per-cell error (wrong or ?), {dp} photos WITH deliberate defects (glare, heavy blur): "
          f"{dw}/{dc} = {100 * dw / max(dc, 1):.3f} %")
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
    print(f"retake asked on {sum(retakes.values())} photos: {dict(retakes)}")
    print(f"'?' cells by reason: {dict(res['reasons'])}")
    failures: list[str] = res["failures"]  # type: ignore[assignment]
    for line in sorted(failures, key=lambda f: "(confident)" not in f)[:40]:
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
    for i in range(count):
        rng = np.random.default_rng(seed * 1000 + i)
        dice = []
        for _ in range(int(rng.integers(2, 8))):
            kind = str(rng.choice(list(DIE_FACES)))
            dice.append((kind, str(rng.choice(DIE_FACES[kind]))))
        leaning = [0] if rng.random() < 0.3 else []
        rendered = render_dice(dice, seed=seed * 1000 + i, cocked=leaning, conditions=cond)
        start = time.perf_counter()
        reading = read_dice(rendered.image)
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
    print(f"== dice: {count} tray photos, {total} flat dice: read right {right}, confident errors {wrong} "
          f"(a cocked die read as flat counts here), flat dice not read {unread}; "
          f"cocked dice {cocked}, flagged {caught}, flat dice flagged cocked {false_cocked}; "
          f"photos entirely right {photos_ok}/{count}; median {1000 * statistics.median(times):.0f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--bad", type=int, default=20, help="deliberately bad photos (0 to skip)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--size", default="4000x3000")
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--dice", type=int, default=60, help="dice-tray photos to render and read (0 to skip)")
    args = parser.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    root = (args.cache or cache_dir()) / f"seed{args.seed}-{w}x{h}"
    print(f"photo cache: {root}", file=sys.stderr)
    paths = ensure_set(root / "ordinary", args.count, args.seed, Conditions(size=(w, h)))
    report("ordinary photos", evaluate(paths, args.verbose))
    if args.bad:
        bad_sets = [("blurred", BAD_BLUR), ("glare", STRONG_GLARE), ("one-marker", Conditions(hide_markers=3))]
        n = max(1, args.bad // len(bad_sets))
        for name, cond in bad_sets:
            cond = Conditions(**{**{f: getattr(cond, f) for f in cond.__dataclass_fields__}, "size": (w, h)})
            bad_paths = ensure_set(root / name, n, args.seed + 7, cond, prefix=name)
            res = evaluate(bad_paths, args.verbose)
            asked = sum(dict(res["retakes"]).values()) + len(res["failures"]) - int(res["confident_errors"])  # type: ignore[call-overload, arg-type]
            print(f"== bad photos ({name}): {len(bad_paths)} photos, retake asked or refused on {asked}, "
                  f"confident errors {res['confident_errors']}")
            for line in res["failures"][:10]:  # type: ignore[index]
                print("  " + line)
    if args.dice:
        dice_benchmark(args.dice, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
