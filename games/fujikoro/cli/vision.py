"""Photo commands: ``read-board``, ``read-dice`` and ``vision`` (``stickers``, ``calibrate``, ``render``,
``collect``).

The readers live in :mod:`vision`; this module only turns files and flags into calls and results into
JSON on stdout. OpenCV is imported inside the handlers so ``fujikoro --help`` stays fast.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from games.fujikoro.pack import default_pack
from ui.cli import CliError


def register(subparsers: Any) -> None:
    rb = subparsers.add_parser(
        "read-board", help="read the gear grids off a photo of a player board (JSON for `gear inspect`)",
        description="Reads helmet, sandals and both weapon grids from a photo of a player board with the "
                    "four stickers from `fujikoro vision stickers`. Prints JSON: rows of W/M/T/./?, a "
                    "confidence per grid, the uncertain cells and a retake reason (or null). Retakes of the "
                    "same board (when the first photo asked for one) are read with it: each cell takes what the "
                    "photos show together, and is '?' where they disagree.")
    rb.add_argument("photo", type=Path, help="JPEG or PNG photo")
    rb.add_argument("retakes", type=Path, nargs="*", metavar="retake",
                    help="more photos of the same board with the same cubes (the board tilted or the light moved)")
    rb.add_argument("--template", type=Path, default=None, help="board template JSON (default: symmetric)")
    rb.add_argument("--timing", action="store_true", help="also print the time taken (ms) to stderr")
    rb.set_defaults(handler=_read_board)

    rd = subparsers.add_parser(
        "read-dice", help="read Fuji Koro dice from a photo of the dice tray",
        description="Reads each die's kind (from its colour) and face (hit marks, broken icon) from a photo "
                    "of the tray with its sticker. Prints JSON compatible with companion.dice (DiceRoll), "
                    "plus cocked and uncertain dice and a retake reason.")
    rd.add_argument("photo", type=Path)
    rd.set_defaults(handler=_read_dice)

    vis = subparsers.add_parser("vision", help="stickers, calibration and synthetic photos for the readers")
    sub = vis.add_subparsers(dest="vision_command", metavar="ACTION", required=True)
    st = sub.add_parser("stickers", help="write the printable sticker sheet (SVG or PNG)")
    st.add_argument("--out", type=Path, required=True, help="stickers.svg or stickers.png")
    st.add_argument("--template", type=Path, default=None)
    st.add_argument("--dpi", type=int, default=300, help="PNG resolution (default 300)")
    st.set_defaults(handler=_stickers)

    ca = sub.add_parser("calibrate", help="fit a template's grids to a photo of the empty board")
    ca.add_argument("photo", type=Path, nargs="+",
                    help="the empty board's photo, then any retakes: a retake is used only when the photos "
                         "before it left a grid unmeasured (glare), and fills in just that grid")
    ca.add_argument("--out", type=Path, required=True, help="where to write the fitted template JSON")
    ca.add_argument("--template", type=Path, default=None, help="starting template (default: symmetric)")
    ca.add_argument("--keep-partial", action="store_true",
                    help="if the last photo still leaves a grid not set up, write the grids that are (the others "
                         "are left unread)")
    ca.set_defaults(handler=_calibrate)

    re = sub.add_parser("render", help="render labelled synthetic photos (a JSON label next to each)")
    re.add_argument("--out", type=Path, required=True, help="folder for the photos")
    re.add_argument("--count", type=int, default=1)
    re.add_argument("--seed", type=int, default=1)
    re.add_argument("--size", default="4000x3000", help="WxH in pixels")
    re.add_argument("--template", type=Path, default=None)
    re.add_argument("--dice", action="store_true", help="render the dice tray instead of the board")
    re.add_argument("--empty", action="store_true", help="an empty board (for calibration)")
    re.set_defaults(handler=_render)

    co = sub.add_parser("collect", help="save a photo with the grids the players confirmed, as a labelled example")
    co.add_argument("photo", type=Path)
    co.add_argument("--grids", required=True,
                    help="the confirmed grids: a JSON file or JSON text in `gear inspect` form (no '?')")
    co.add_argument("--out", type=Path, required=True, help="the folder of labelled photos (benchmark --labelled)")
    co.add_argument("--template", type=Path, default=None)
    co.set_defaults(handler=_collect)


def _template(path: Path | None) -> Any:
    from vision.template import TemplateError, load_template

    try:
        return load_template(path, default_pack())
    except TemplateError as error:
        raise CliError(str(error)) from None


def _photo(path: Path) -> Any:
    from vision.reader import PhotoError, load_photo

    try:
        return load_photo(path)
    except PhotoError as error:
        raise CliError(str(error)) from None


def _read_board(args: argparse.Namespace) -> int:
    import time

    from vision.reader import PhotoError, read_board
    from vision.retake import merge_readings

    template = _template(args.template)
    start = time.perf_counter()
    try:
        reading = read_board(_photo(args.photo), template)
    except PhotoError as error:
        raise CliError(f"{args.photo}: {error}" if args.retakes else str(error)) from None
    for path in args.retakes:
        image = _photo(path)
        try:
            reading = merge_readings(reading, read_board(image, template))
        except PhotoError as error:
            # The photos read so far stand: a retake that cannot be read adds nothing.
            print(f"read-board: {path} left out: {error}", file=sys.stderr)
    if args.timing:
        print(f"read-board: {1000 * (time.perf_counter() - start):.0f} ms", file=sys.stderr)
    print(json.dumps(reading.to_json(), indent=2))
    return 0


def _read_dice(args: argparse.Namespace) -> int:
    from vision.dice import DiceReadError, read_dice

    image = _photo(args.photo)
    try:
        reading = read_dice(image, default_pack().dice)
    except DiceReadError as error:
        raise CliError(str(error)) from None
    print(json.dumps(reading.to_json(), indent=2))
    return 0


def _stickers(args: argparse.Namespace) -> int:
    from vision.stickers import StickerError, write_sheet

    template = _template(args.template)
    if not 72 <= args.dpi <= 1200:
        raise CliError(f"--dpi must be between 72 and 1200, got {args.dpi}")
    try:
        write_sheet(template, args.out, args.dpi)
    except StickerError as error:
        raise CliError(str(error)) from None
    print(f"wrote {args.out}: stickers {list(template.markers.ids)} for {template.name} and the dice tray; "
          "print at 100 %")
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    from vision.calibrate import CalibrationError, calibrate, calibration_notes, keep_partial

    base = _template(args.template)
    partial = None
    for i, path in enumerate(args.photo):
        try:
            fitted = calibrate(_photo(path), base, photo_name=path.name, earlier=partial)
            break
        except CalibrationError as error:
            last = i == len(args.photo) - 1
            if last and args.keep_partial and error.partial is not None and error.partial.done:
                print(f"{path.name}: {error}")
                fitted = keep_partial(error.partial, base)
                break
            if error.partial is None or last:
                hint = ("; or add --keep-partial to read the grids set up so far"
                        if error.partial is not None and error.partial.done else "")
                raise CliError(f"{path.name}: {error}{hint}") from None
            print(f"{path.name}: {error}; trying {args.photo[i + 1].name}")
            partial = error.partial
    try:
        args.out.write_text(json.dumps(fitted.to_json(), indent=2) + "\n", encoding="utf-8")
    except OSError as error:
        raise CliError(f"cannot write {args.out}: {error.strerror or error}") from None
    for name, grid in fitted.grids.items():
        old = base.grids[name]
        print(f"{name}: origin {grid.origin_mm[0]:.1f}, {grid.origin_mm[1]:.1f} mm (was {old.origin_mm[0]:.1f}, "
              f"{old.origin_mm[1]:.1f}), cell {grid.cell_mm:.2f} mm (was {old.cell_mm:.2f})")
    for note in calibration_notes(fitted, "calibrate again"):
        print(note)
    print(f"wrote {args.out}")
    return 0


def _render(args: argparse.Namespace) -> int:
    import numpy as np

    from vision.synth import Conditions, random_gear, render_board, render_dice, write_rendered
    from vision.template import GEAR_GRIDS

    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        raise CliError(f"--size must look like 4000x3000, got {args.size!r}") from None
    if not (320 <= w <= 8000 and 240 <= h <= 6000):
        raise CliError(f"--size {w}x{h} is out of range (320x240 to 8000x6000)")
    if args.count < 1:
        raise CliError("--count must be at least 1")
    template = _template(args.template)
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise CliError(f"cannot create {args.out}: {error.strerror or error}") from None
    for i in range(args.count):
        seed = args.seed * 100_000 + i
        rng = np.random.default_rng(seed)
        if args.dice:
            kinds = ["wood", "metal", "tooth", "magic"]
            faces = {"wood": ["1", "0", "0b"], "metal": ["2", "1", "0", "0b"], "tooth": ["3", "2", "1", "0b"],
                     "magic": ["4", "2", "0"]}
            dice = []
            for _ in range(int(rng.integers(2, 7))):
                kind = str(rng.choice(kinds))
                dice.append((kind, str(rng.choice(faces[kind]))))
            rendered = render_dice(dice, seed=seed, conditions=Conditions(
                size=(w, h), tilt_deg=(0.0, 10.0), board_fraction=(0.6, 0.85), occluder_shadow=0.0, glare=0.0,
                clutter=0))
        else:
            if args.empty:
                gear = {g: ["." * template.grids[g].cols] * template.grids[g].rows for g in GEAR_GRIDS}
            else:
                gear = random_gear(rng, template, float(rng.uniform(0.1, 0.9)))
            rendered = render_board(template, gear, seed=seed, conditions=Conditions(size=(w, h)))
        path = args.out / f"{'dice' if args.dice else 'board'}-{seed}.jpg"
        write_rendered(rendered, path)
        print(path)
    return 0


def _collect(args: argparse.Namespace) -> int:
    """Copies the photo into the folder and writes its labels next to it (:mod:`vision.examples`), so
    ``python benchmarks/vision.py --labelled FOLDER`` measures the reader on the group's photos."""
    from vision.examples import ExampleError, save_example

    template = _template(args.template)
    _photo(args.photo)  # refuse files that are not photos before saving anything
    text = args.grids
    if not text.lstrip().startswith("{"):
        try:
            text = Path(text).read_text(encoding="utf-8")
        except OSError as error:
            raise CliError(f"cannot read --grids {args.grids}: {error.strerror or error}") from None
    try:
        grids = json.loads(text)
    except json.JSONDecodeError as error:
        raise CliError(f"--grids is not JSON: {error.msg} at line {error.lineno}") from None
    if not isinstance(grids, dict):
        raise CliError("--grids must be a JSON object with the grids helmet, sandals, weapon_left, weapon_right")
    try:
        target = save_example(args.out, args.photo.read_bytes(), args.photo.suffix, grids, template,
                              original=args.photo.name)
    except ExampleError as error:
        raise CliError(f"--grids {error}") from None
    except OSError as error:
        raise CliError(f"cannot write to {args.out}: {error.strerror or error}") from None
    print(target)
    return 0
