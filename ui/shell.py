"""The app object and its frame: status bar, screen manager, navigation bar, language switch.

Imported only by :func:`ui.app.run_from_args` after Kivy has been configured. The app builds the
view models (``ui.viewmodels``), loads every ``.kv`` file at build time, and opens the last game
from the store when it starts, so a restart or a crash lands the table where it was.
"""

from __future__ import annotations

import time
import traceback
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.base import ExceptionHandler, ExceptionManager
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.factory import Factory
from kivy.lang import Builder
from kivy.logger import Logger
from kivy.properties import BooleanProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import NoTransition, ScreenManager

from companion import registry
from ui import (
    coretext,
    widgets,  # noqa: F401 - registers the shared widgets with the kv Factory
)
from ui import session as session_port
from ui import settings as settings_store
from ui.hosting import GameApp, GameScreen, hosted
from ui.options import LAUNCHED_AT, AppOptions
from ui.screens import SCREENS, screen_class
from ui.sounds import SoundBoard
from ui.theme import Theme
from ui.tr import tr
from ui.viewmodels.convention import ConventionModel
from ui.viewmodels.game import GameModel
from ui.viewmodels.status import StatusModel
from ui.worker import Worker

HERE = Path(__file__).resolve().parent


class AppRoot(BoxLayout):
    """Status bar on top, the screens in the middle, navigation at the bottom."""


class KeepRunning(ExceptionHandler):  # type: ignore[misc]
    """A bug in one callback must not close the app in the middle of a game: log it and go on.

    The game itself is safe either way (every command is durable before the UI shows it); the
    scripted test driver reports these errors, so tests still fail on them.
    """

    def __init__(self, app: FujiKoroApp) -> None:
        super().__init__()
        self.app = app

    def handle_exception(self, inst: BaseException) -> int:
        if isinstance(inst, (KeyboardInterrupt, SystemExit)):
            return int(ExceptionManager.RAISE)
        text = "".join(traceback.format_exception(inst))
        Logger.error(f"FujiKoro: {text}")
        self.app.errors.append(text)
        return int(ExceptionManager.PASS)


class FujiKoroApp(App):
    theme = ObjectProperty(None)
    status = ObjectProperty(None)
    game = ObjectProperty(None)
    convention = ObjectProperty(None)
    current_screen = StringProperty("start")
    first_frame_at = ObjectProperty(None, allownone=True)
    ready = BooleanProperty(False)
    sound_problem = StringProperty("")  # why sounds cannot play here ("" when they can)

    def __init__(self, options: AppOptions | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.options = options or AppOptions()
        self.settings = settings_store.load()
        # Host the game asked for (--play), else the game of the file the app resumes, else the last one
        # played; the saved game resumes when it is of the hosted game. A first start opens on Games.
        last = session_port.last_path(self.settings.last_game or None)
        last_kind = session_port.game_of(last)
        wanted = self.options.play or last_kind or self.settings.last_played or None
        self.game_name, self.parts = hosted(wanted)
        self.resume_path = last if last_kind == self.game_name else None
        self.first_screen = "games" if wanted is None else ""
        self.title = registry.game(self.game_name).title
        self.exit_code = 0
        self.theme = Theme()
        language = self.options.language or self.settings.language
        tr.switch(language)
        self.tr = tr
        self.status = StatusModel(settings=self.settings)
        self.game = GameModel()
        self._install_models()
        self.convention = ConventionModel(self.game)
        self.driver: Any = None
        self.errors: list[str] = []
        ExceptionManager.add_handler(KeepRunning(self))
        self.first_frame_wall = 0.0
        self.sounds = SoundBoard(enabled=lambda: self.settings.sounds)
        self._event_burst: list[Any] = []
        self.panel: Any = None

    # ---- building ---------------------------------------------------------------------------
    def build(self) -> AppRoot:
        Builder.load_file(str(HERE / "widgets.kv"))
        Builder.load_file(str(HERE / "app.kv"))
        Window.clearcolor = self.theme.background
        Window.bind(size=self._on_window_size)
        self.theme.update_for(*Window.size)
        root = AppRoot()
        manager: ScreenManager = root.ids.screens
        manager.transition = NoTransition()
        # Kivy's ScreenManager clips its screens with a stencil (two full-area draws and a stencil test
        # on every pixel after them, each frame). Without sliding transitions there is nothing to clip,
        # and on a software renderer that clip is a large share of every frame (benchmarks/ui.py).
        manager.canvas.before.clear()
        manager.canvas.after.clear()
        self.screens = self._screen_list(self.parts)
        self._screens = {screen.name: (screen.module, screen.cls) for screen in self.screens}
        self._build_nav(root)
        self._ensure_screen(self.first_screen or self.screens[0].name, manager)
        self.current_screen = manager.current  # the rest are built after the first frame, one per frame
        manager.bind(current=self._on_current)
        return root

    def _ensure_screen(self, name: str, manager: ScreenManager | None = None) -> bool:
        """Build a screen the first time it is needed (its .py and .kv are loaded then)."""
        manager = manager or self.root.ids.screens
        if name not in self._screens:
            return False
        if name not in manager.screen_names:
            module, cls_name = self._screens[name]
            manager.add_widget(screen_class(module, cls_name)(name=name))
        return True

    def _build_next_screen(self, _dt: float) -> None:
        manager: ScreenManager = self.root.ids.screens
        missing = [screen.name for screen in self.screens if screen.name not in manager.screen_names]
        if missing:
            self._ensure_screen(missing[0])
            Clock.schedule_once(self._build_next_screen, 0.05)

    def _install_models(self) -> None:
        """The hosted game's view models, as app properties its .kv rules read (app.gear, app.pack ...),
        and its sentences for the log's translation."""
        coretext.use(self.parts.sentences, self.parts.words)
        for name, model in self.parts.models(self).items():
            if self.property(name, quiet=True) is None:
                self.create_property(name, model, allownone=True)
            else:
                setattr(self, name, model)

    def host(self, name: str, resume: str | None = None) -> None:
        """Host the game ``name`` (its screens fill the navigation) and open its start screen, or resume
        the saved game at ``resume``. The open game is closed first: it is safe in its file."""
        if name != self.game_name:
            manager: ScreenManager = self.root.ids.screens
            self.parts.close(self)
            self.game.forget()
            for screen in self.screens[: len(self.parts.screens)]:
                if screen.name in manager.screen_names:
                    manager.remove_widget(manager.get_screen(screen.name))
            self.game_name, self.parts = hosted(name)
            self.title = registry.game(self.game_name).title
            self._install_models()
            self.screens = self._screen_list(self.parts)
            self._screens = {screen.name: (screen.module, screen.cls) for screen in self.screens}
            self.root.ids.nav_bar.clear_widgets()
            self._build_nav(self.root)
            self._use_table_script()
            self.save_settings(last_played=self.game_name)
        if resume:
            self.game.open_path(resume)
        else:
            self.go(self.screens[0].name)

    def _use_table_script(self) -> None:
        parts = self.parts
        self.status.table_parts = (lambda: parts.table(self)) if parts.table is not None else None
        table = self.status.table
        if table is not None:
            script, dice = self.status.table_parts() if self.status.table_parts is not None else (None, None)
            table.use(script, dice)

    @staticmethod
    def _screen_list(parts: GameApp) -> tuple[GameScreen, ...]:
        """The game's screens, then the shell's own (Games, Settings)."""
        own = tuple(GameScreen(name, label, module, cls) for name, label, module, cls in SCREENS)
        return (*parts.screens, *own)

    def _build_nav(self, root: AppRoot) -> None:
        """One navigation button per screen (id ``nav_<screen>``), labelled in the current language."""
        bar = root.ids.nav_bar
        for screen in self.screens:
            button = Factory.NavButton()
            button.screen_name, button.label = screen.name, screen.label
            bar.add_widget(button)
            root.ids[f"nav_{screen.name}"] = button

    def on_start(self) -> None:
        Clock.schedule_once(self._first_frame, 0)
        self._use_table_script()
        self.status.initial_state = self._state_event
        self.status.bind(on_device_event=self._on_device_event)
        self.game.bind(on_game_event=lambda _m, event: self.status.forward(event))
        self.game.bind(on_game_event=self._on_game_event_sound)
        if self.settings.sounds:
            Worker("sounds", settle=False).submit(self.sounds.write_files, lambda _files: self._preload_sounds())
        self.status.start()
        self._start_panel()
        self._configure_convention()
        self.game.bind(on_opened=self._on_game_opened, phase=self._on_phase)
        if self.resume_path:
            self.game.resume_last(self.resume_path)
        if self.options.script:
            from ui.testdriver import Driver

            self.driver = Driver(self, Path(self.options.script), self.options.report)
            self.driver.start()

    def _first_frame(self, _dt: float) -> None:
        self.first_frame_at = time.perf_counter() - LAUNCHED_AT
        self.first_frame_wall = time.time()
        Clock.schedule_once(self._build_next_screen, 0.05)
        self.ready = True

    def on_stop(self) -> None:
        if self.panel is not None:
            self.panel.close()
        self.parts.close(self)
        self.status.stop()
        self.convention.close()
        self.game.close()
        Worker.stop_all()

    # ---- navigation -------------------------------------------------------------------------
    def go(self, name: str) -> None:
        if self._ensure_screen(name):
            self.root.ids.screens.current = name

    def _on_current(self, _manager: Any, name: str) -> None:
        self.current_screen = name

    # ---- the table hardware -----------------------------------------------------------------
    def _state_event(self) -> Any:
        """The whole state as one event, for a table that just connected (or a resumed game)."""
        from companion.events import Event, Kind

        if not self.game.loaded:
            return None
        return Event(Kind.STATE_RESET, int(self.game.state.get("state_id", 0)), {"state": dict(self.game.state)})

    def _on_device_event(self, _status: Any, event: Any) -> None:
        kind = type(event).__name__
        if kind == "ButtonPressed":
            self.button_pressed(getattr(event.button, "name", str(event.button)), int(event.state_id))
        elif kind == "DiceRolled" and self.combat is not None:
            self.combat.tray_roll(event.roll, int(event.state_id))

    def _start_panel(self) -> None:
        """The GPIO buttons of this host (``gpio_panel = true`` in app.toml): each press reaches
        :meth:`button_pressed` on the Kivy thread; a panel that cannot start is one sentence in the log."""
        if not self.settings.gpio_panel:
            return
        from firmware_bridge.panel import Panel, PanelError, load_pins, pin_factory

        def pressed(button: Any) -> None:
            Clock.schedule_once(lambda _dt: self.button_pressed(button.name))

        try:
            self.panel = Panel(load_pins(), factory=pin_factory(), when_pressed=pressed).start()
        except (PanelError, OSError) as error:
            Logger.warning("GPIO panel: not started: %s", error)
            self.errors.append(f"GPIO panel: {error}")

    def button_pressed(self, name: str, state_id: int = -1) -> None:
        """A table button (over the link) or a GPIO button on this host: what it means now. ``state_id`` is
        the state the table showed (-1: none, as for the host's own GPIO buttons); the engine refuses a
        press that answered an older state."""
        expected = state_id if state_id >= 0 else None
        if name == "UNDO":
            self.game.undo(expected_state_id=expected)
        else:
            self.parts.button(self, name, expected)

    def _on_game_opened(self, _model: Any) -> None:
        event = self._state_event()
        if event is not None:
            self.status.forward(event)
        if self.game.path and self.game.path != self.settings.last_game:
            self.save_settings(last_game=self.game.path)
        if self.game_name != self.settings.last_played:
            self.save_settings(last_played=self.game_name)
        if self.current_screen in (self.screens[0].name, "games"):
            self.go(self.parts.landing(self.game.phase) or self.screens[0].name)

    def _on_phase(self, _model: Any, phase: str) -> None:
        self.parts.on_phase(self, phase)

    def _on_window_size(self, _window: Any, size: tuple[int, int]) -> None:
        self.theme.update_for(*size)

    # ---- settings ---------------------------------------------------------------------------
    def _on_game_event_sound(self, _model: Any, event: Any) -> None:
        """One command's events arrive together: the most important one makes the sound."""
        if not self._event_burst:
            Clock.schedule_once(self._play_burst, 0)
        self._event_burst.append(event)

    def _play_burst(self, _dt: float) -> None:
        events, self._event_burst = self._event_burst, []
        self.sounds.play_events(events)
        self._note_sound_problem()

    def _preload_sounds(self) -> None:
        self.sounds.preload()
        self._note_sound_problem()

    def play_sound(self, name: str) -> None:
        self.sounds.play(name)
        self._note_sound_problem()

    def _note_sound_problem(self) -> None:
        if self.sounds.problem and not self.sound_problem:
            Logger.warning(f"FujiKoro: {self.sounds.problem}")
            self.sound_problem = self.sounds.problem

    def save_settings(self, **changes: Any) -> None:
        self.settings = self.settings.replace(**changes)
        settings_store.save(self.settings)
        self.status.settings = self.settings
        if "language" in changes:
            tr.switch(self.settings.language)
        if {"hardware_url", "camera"} & set(changes):
            self.status.restart()
        if {"hub_url", "event_code", "table_name", "join_secret"} & set(changes):
            self._configure_convention()

    def _configure_convention(self) -> None:
        s = self.settings
        self.convention.configure(s.hub_url, s.event_code, s.table_name, s.join_secret)

    def set_language(self, language: str) -> None:
        self.save_settings(language=language)
