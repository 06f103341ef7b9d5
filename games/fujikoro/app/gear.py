"""Each player's gear, edited by tapping cubes into grids, with the gear rules' verdict live.

:class:`GearModel` keeps one :class:`games.fujikoro.gear.Gear` per player (their board decides the grid
sizes) and, after every tap, the report of :func:`games.fujikoro.gear.inspect`: legality in plain words,
helmet and sandals strength, weapons, initiative, and the gear cards and Magical Blueprints matched.
The combat screen takes the fighters' gear from here. Gear is saved per game in the config dir
(``ui-gear.json``) on a worker thread, so a restart brings it back.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kivy.event import EventDispatcher
from kivy.properties import (
    BooleanProperty,
    DictProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)

from games.fujikoro.gear import Gear, GearError, gear_from_json, grid_shape, inspect, render
from games.fujikoro.pack import DataPack
from store.overrides import config_dir
from ui import coretext
from ui.tr import tr
from ui.worker import Worker

if TYPE_CHECKING:
    from vision.calibrate import Partial

PAINTS = ("W", "M", "T", ".")
GEAR_FILE = "ui-gear.json"


def empty_gear(board: str, pack: DataPack) -> Gear:
    return gear_from_json({"board": board}, pack)


class GearModel(EventDispatcher):  # type: ignore[misc]
    pack = ObjectProperty(None)
    player_names = ListProperty([])
    selected = NumericProperty(0)
    paint = StringProperty("M")
    gear = ObjectProperty(None, allownone=True)  # the selected player's Gear
    grids = DictProperty({})  # grid name -> rows (strings)
    report = DictProperty({})
    summary = ListProperty([])  # lines for the report panel
    problems = ListProperty([])
    legal = BooleanProperty(True)
    weapon_monk = BooleanProperty(False)
    magic = ListProperty([])
    message = StringProperty("")
    photo_busy = BooleanProperty(False)
    uncertain = ListProperty([])  # "grid:row:col" of the selected player's cells a photo could not read
    retake = StringProperty("")  # the photo reader's advice to retake the photo, "" when it was good
    can_retake = BooleanProperty(False)  # another photo could read more of the selected player's board
    camera_ready = BooleanProperty(False)  # the camera was set up (calibrated) for the selected player's board
    camera_partial = BooleanProperty(False)  # the set-up's photos so far set up some of that board's grids
    example_ready = BooleanProperty(False)  # a photo was read for the selected player: it can be kept as an example
    game_path = StringProperty("")

    def __init__(self, game: Any, pack_model: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._game = game
        self._gears: dict[str, Gear] = {}
        self._uncertain: dict[str, set[tuple[str, int, int]]] = {}  # per player, until each cell is tapped
        self._photos: dict[str, Any] = {}  # per player, the last photo read (photos.PhotoGear)
        self._touched: dict[str, set[tuple[str, int, int]]] = {}  # per player, cells set by hand since that photo
        self._setup_partial: dict[str, Partial] = {}  # per board, what the camera set-up's photos showed so far
        self._boards: dict[str, str] = {}
        self._worker = Worker("gear")
        self.pack = pack_model.pack
        pack_model.bind(pack=self._on_pack)
        game.bind(players=self._on_players, path=self._on_game)
        tr.bind(language=lambda *_: self._refresh())
        self._on_players(game, game.players)

    # ---- players and boards -----------------------------------------------------------------
    def _on_game(self, _game: Any, path: str) -> None:
        self.game_path = path
        self._gears = {}
        self._uncertain = {}
        self._photos = {}
        self._touched = {}
        self._load_saved(path)
        self._on_players(self._game, self._game.players)

    def _on_players(self, _game: Any, players: list[dict[str, Any]]) -> None:
        names = [p["name"] for p in players] or ["Samurai"]
        self._boards = {p["name"]: p.get("board") or "symmetric" for p in players}
        if names != list(self.player_names):
            self.player_names = names
            self.selected = min(self.selected, len(names) - 1)
        self._select(self.selected)

    def _on_pack(self, _model: Any, pack: DataPack) -> None:
        self.pack = pack
        self._gears = {n: self._regear(g) for n, g in self._gears.items()}
        self._select(self.selected)

    def _regear(self, gear: Gear) -> Gear:
        try:
            return gear_from_json(gear.to_json(), self.pack)
        except GearError:
            return empty_gear(gear.board, self.pack)

    def gear_of(self, name: str) -> Gear:
        if name not in self._gears:
            self._gears[name] = empty_gear(self._boards.get(name, "symmetric"), self.pack)
        return self._gears[name]

    def select(self, index: int) -> None:
        self._select(index)

    def _select(self, index: int) -> None:
        if not self.player_names:
            return
        index = max(0, min(index, len(self.player_names) - 1))
        self.selected = index
        self.gear = self.gear_of(self.player_names[index])
        self.example_ready = self.player_names[index] in self._photos
        self._show_retake()
        self.refresh_camera()  # the camera set-up (whole or partial) is the selected player's board's
        self._show_uncertain()
        self._refresh()

    # ---- editing ----------------------------------------------------------------------------
    def tap(self, grid: str, row: int, col: int) -> None:
        """Place the chosen cube (tapping the same cube again takes it away)."""
        gear = self.gear
        spec = self.pack.board(gear.board)
        rows, cols = grid_shape(spec, grid)
        cells = [list(r.ljust(cols, ".")) for r in (gear.grid(grid) or ())]
        while len(cells) < rows:
            cells.append(["."] * cols)
        current = cells[row][col]
        name = self.player_names[self.selected]
        unsure = self._uncertain.get(name, set())
        if name in self._photos:
            self._touched.setdefault(name, set()).add((grid, row, col))  # theirs, whatever a retake reads
        if (grid, row, col) in unsure:
            # The player has looked at a cell the photo could not read: it now holds what they chose.
            unsure.discard((grid, row, col))
            cells[row][col] = self.paint
            self._show_uncertain()
            self._show_retake()
        else:
            cells[row][col] = "." if current == self.paint else self.paint
        self._set(replace(gear, **{grid: tuple("".join(r) for r in cells)}))

    def _show_retake(self) -> None:
        """The selected player's last photo's retake advice, and whether another photo could read more."""
        names = self.player_names
        name = names[self.selected] if names else ""
        photo = self._photos.get(name)
        self.retake = (photo.retake or "") if photo is not None else ""
        # (Once the players have tapped every cell marked ?, another photo has nothing left to read.)
        self.can_retake = photo is not None and photo.more_to_read and bool(self._uncertain.get(name))

    def _show_uncertain(self) -> None:
        names = self.player_names
        unsure = self._uncertain.get(names[self.selected], set()) if names else set()
        self.uncertain = sorted(f"{g}:{r}:{c}" for g, r, c in unsure)

    def clear(self) -> None:
        gear = self.gear
        self._uncertain.pop(self.player_names[self.selected], None)
        self._photos.pop(self.player_names[self.selected], None)
        self._touched.pop(self.player_names[self.selected], None)
        self.example_ready = False
        self._show_retake()
        self._show_uncertain()
        self._set(empty_gear(gear.board, self.pack))

    def toggle_weapon_monk(self) -> None:
        gear = self.gear
        monks = set(gear.monks)
        monks ^= {"weapon"}
        self._set(replace(gear, monks=frozenset(monks)))

    def toggle_magic(self, place: str) -> None:
        gear = self.gear
        magic = set(gear.magic)
        magic ^= {place}
        self._set(replace(gear, magic=frozenset(magic)))

    def set_grids(self, grids: dict[str, list[str]]) -> None:
        gear = self.gear
        data = gear.to_json()
        data.update(grids)
        try:
            self._set(gear_from_json(data, self.pack))
        except GearError as error:
            self.message = str(error)

    def _set(self, gear: Gear) -> None:
        name = self.player_names[self.selected]
        self._gears[name] = gear
        self.gear = gear
        self._refresh()
        self._save()

    # ---- derived ----------------------------------------------------------------------------
    def _refresh(self) -> None:
        gear = self.gear
        if gear is None:
            return
        spec = self.pack.board(gear.board)
        grids = {}
        for name in ("helmet", "sandals", "weapon_left", "weapon_right"):
            rows, cols = grid_shape(spec, name)
            cubes = gear.cubes(name)
            grids[name] = list(render(cubes, rows, cols))
        self.grids = grids
        report = inspect(gear, self.pack)
        data = report.to_json()
        self.report = data
        self.legal = report.legal
        self.problems = [coretext.translate(problem) for problem in report.problems]
        self.weapon_monk = "weapon" in gear.monks
        self.magic = sorted(gear.magic)
        helmet, sandals = data["helmet"], data["sandals"]
        lines = [
            tr.f("Helmet: {cubes} cubes, strength {strength}", cubes=helmet["cubes"], strength=helmet["strength"]),
            tr.f("Sandals: {cubes} cubes, strength {strength}", cubes=sandals["cubes"],
                 strength=sandals["strength"]) + (" - " + tr._("complete") if sandals["complete"] else ""),
        ]
        for weapon in data["weapons"]:
            hand = {"left": tr._("left"), "right": tr._("right"), "two": tr._("two-handed")}.get(weapon["hand"],
                                                                                             weapon["hand"])
            state = tr._("usable") if weapon["usable"] else tr._("not usable (needs wood for the hilt)")
            lines.append(tr.f("Weapon ({hand}): {cubes} cubes, length {length}, {state}", hand=hand,
                              cubes=weapon["cubes"], length=weapon["length"], state=state))
        if not data["weapons"]:
            lines.append(tr._("No weapon"))
        lines.append(tr.f("Initiative: {n}", n=data["initiative"]))
        matches = data["matches"]
        cards = ", ".join(matches["gear_cards"]) or "-"
        prints = ", ".join(matches["blueprints"]) or "-"
        lines.append(tr.f("Gear cards matched: {cards}", cards=cards))
        lines.append(tr.f("Blueprints matched: {prints}", prints=prints))
        self.summary = lines

    # ---- saving -----------------------------------------------------------------------------
    def _file(self) -> Path:
        return config_dir() / GEAR_FILE

    def _load_saved(self, path: str) -> None:
        try:
            data = json.loads(self._file().read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        for name, raw in (data.get(path) or {}).items():
            try:
                self._gears[name] = gear_from_json(raw, self.pack)
            except GearError:
                continue

    def _save(self) -> None:
        path = self.game_path
        if not path:
            return
        snapshot = {n: g.to_json() for n, g in self._gears.items()}
        file = self._file()

        def write() -> None:
            try:
                data = json.loads(file.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                data = {}
            data[path] = snapshot
            file.parent.mkdir(parents=True, exist_ok=True)
            tmp = file.with_name(file.name + ".tmp")
            tmp.write_text(json.dumps(data), encoding="utf-8")
            os.replace(tmp, file)

        self._worker.submit(write)

    # ---- photo ------------------------------------------------------------------------------
    def read_photo(self, source: str, retake: bool = False) -> None:
        """Read the gear grids from a photo (a file, or the newest photo in a folder) with vision. ``retake``:
        the photo is another of the same board with the same cubes (the last photo asked for one): the two are
        read together, and what the players set since the last photo stays as they set it."""
        from games.fujikoro.app import photos

        if self.photo_busy:
            return
        name = self.player_names[self.selected]
        earlier = self._photos.get(name) if retake else None
        if retake and earlier is None:
            self.message = tr._("Read a photo first: a retake adds to the photo read before it")
            return
        self.photo_busy = True
        self.message = tr._("Reading the photo...")
        board = self.gear.board if self.gear is not None else "symmetric"

        def done(reading: photos.PhotoGear) -> None:
            self.photo_busy = False
            if self.player_names[self.selected] != name:
                self._select(self.player_names.index(name) if name in self.player_names else 0)
            if earlier is not None:
                gear = self.gear_of(name)
                current = {g: list(gear.grid(g) or ()) for g in reading.grids}
                grids, still = photos.after_retake(reading, current, self._touched.get(name, set()))
                self.set_grids(grids)
                self._uncertain[name] = still
            else:
                self.set_grids(reading.certain_grids())
                self._uncertain[name] = set(reading.uncertain)
                self._touched[name] = set()
            self._photos[name] = reading
            self.example_ready = True
            self._show_uncertain()
            self._show_retake()
            left = len(self._uncertain[name])
            if earlier is not None:
                message = (tr.f("Read with the photo before it: {n} cells still marked ?; tap each to set it", n=left)
                           if left else tr._("Read with the photo before it: check the grids and fix any cube"))
            elif left:
                # Left out of the gear until tapped: an unread cell is not a confident "empty".
                message = tr.f("Read from the photo: {n} cells marked ? could not be read; tap each to set it",
                               n=left)
            else:
                message = tr._("Read from the photo: check the grids and fix any cube")
            if reading.retake:
                message += "\n" + tr.f("Retake the photo: {reason}", reason=reading.retake)
            if self.can_retake:
                message += "\n" + tr._("Another photo of the same board adds to this one: Magic and photo... > "
                                       "Retake, keep what was read")
            for note in reading.notes:
                message += "\n" + note
            self.message = message

        def failed(error: BaseException) -> None:
            self.photo_busy = False
            self.message = str(error)

        self._worker.submit(lambda: photos.read_gear(source, board, self.pack, earlier), done, failed)

    def keep_example(self) -> None:
        """Keep the photo last read for the selected player with the grids as they now stand (the players
        have checked them and settled every cell marked ?) as a labelled example of this group's board."""
        from games.fujikoro.app import photos

        name = self.player_names[self.selected]
        reading = self._photos.get(name)
        if reading is None or self.photo_busy:
            self.message = tr._("Read a photo first: an example is a photo with the grids the players confirmed")
            return
        unsure = self._uncertain.get(name, set())
        if unsure:
            self.message = tr.f("Tap the {n} cells marked ? first: an example holds only cells the players "
                                "confirmed", n=len(unsure))
            return
        spec = self.pack.board(self.gear.board)
        grids = {}
        from vision.template import GEAR_GRIDS

        for grid in GEAR_GRIDS:
            rows, cols = grid_shape(spec, grid)
            have = [r.ljust(cols, ".") for r in (self.gear.grid(grid) or ())]
            grids[grid] = (have + ["." * cols] * rows)[:rows]
        self.photo_busy = True

        def done(path: Path) -> None:
            self.photo_busy = False
            self.message = tr.f("Kept the photo with these grids as an example in {folder} "
                                "(python benchmarks/vision.py --labelled {folder} measures the reader on them)",
                                folder=str(path.parent))

        def failed(error: BaseException) -> None:
            self.photo_busy = False
            self.message = tr.f("The example was not kept: {reason}", reason=str(error))

        self._worker.submit(lambda: photos.keep_example(reading, grids), done, failed)

    # ---- camera set-up ----------------------------------------------------------------------
    def camera_steps(self) -> str:
        """What setting up the camera takes, for the group to follow before the first photo."""
        return tr._("Set up the camera: 1. print the sticker sheet at 100 % (`fujikoro vision stickers`); "
                    "2. stick markers 0-3 on the board's corners as the sheet shows, patches below the marker; "
                    "3. photograph the empty board from above and tap Set up the camera.")

    def refresh_camera(self) -> None:
        from games.fujikoro.app import photos

        board = self.gear.board if self.gear is not None else "symmetric"
        self.camera_ready = photos.calibration_file(board).is_file()
        self.camera_partial = self._partial_done(board)

    def _partial_done(self, board: str) -> bool:
        partial = self._setup_partial.get(board)
        return partial is not None and bool(partial.done)

    def setup_camera(self, source: str) -> None:
        """Fits the board's template to a photo of the empty board (a file, the newest photo in a folder, or
        the camera) and keeps it for this board; without a photo, says what to do first."""
        from games.fujikoro.app import photos

        if self.photo_busy:
            return
        if not source:
            self.message = self.camera_steps()
            return
        self.photo_busy = True
        self.message = tr._("Setting up the camera...")
        board = self.gear.board if self.gear is not None else "symmetric"

        earlier = self._setup_partial.get(board)

        def done(setup: photos.CameraSetup) -> None:
            self._camera_set(board)
            self.message = tr.f("Camera set up for the {board} board: {details}", board=board,
                                details="; ".join(setup.lines))

        def failed(error: BaseException) -> None:
            self.photo_busy = False
            if isinstance(error, photos.CameraSetupIncomplete):
                # A retake only needs to show the grids this photo did not: keep what it did show.
                self._setup_partial[board] = error.partial
                self.camera_partial = self._partial_done(board)
                self.message = tr.f("The camera is not set up yet: {reason}", reason=str(error))
                if self.camera_partial:
                    self.message += "\n" + tr._("Retake the photo, or tap Use what is set up to read the grids "
                                                "set up so far (the others stay unread).")
                return
            self.message = tr.f("The camera is not set up: {reason}", reason=str(error)) + "\n" + self.camera_steps()

        self._worker.submit(lambda: photos.set_up_camera(source, board, self.pack, earlier), done, failed)

    def _camera_set(self, board: str) -> None:
        """The board's camera set-up was kept: the photos that led to it are done with."""
        self.photo_busy = False
        self.camera_ready = True
        self._setup_partial.pop(board, None)
        self.camera_partial = False

    def keep_camera_partial(self) -> None:
        """Keeps the camera set-up as far as its photos so far went: the grids they set up are read, the others
        left unread until the camera is set up again."""
        from games.fujikoro.app import photos

        board = self.gear.board if self.gear is not None else "symmetric"
        partial = self._setup_partial.get(board)
        if self.photo_busy or partial is None:
            return
        self.photo_busy = True

        def done(setup: photos.CameraSetup) -> None:
            self._camera_set(board)
            self.message = tr.f("Camera set up in part for the {board} board: {details}", board=board,
                                details="; ".join(setup.lines))

        def failed(error: BaseException) -> None:
            self.photo_busy = False
            self.message = tr.f("The camera is not set up: {reason}", reason=str(error))

        self._worker.submit(lambda: photos.keep_partial_setup(board, partial, self.pack), done, failed)
