"""Games: every game this app can host, and the saved games to resume.

The app hosts one game at a time (its screens fill the navigation bar). Picking another game here
hosts it: the open game is closed (it is safe in its file), the navigation shows the new game's
screens, and its own start screen opens. A saved game of any game resumes with its game hosted.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.factory import Factory
from kivy.properties import StringProperty
from kivy.uix.screenmanager import Screen

from companion import registry
from ui.tr import tr


def hostable() -> list[registry.GameModule]:
    """The games that bring screens, by title."""
    return sorted((m for m in registry.games().values() if m.app is not None), key=lambda m: m.title)


def saved_games(limit: int = 8) -> list[tuple[str, str, str]]:
    """The newest saved games as (path, game name, label), newest first; unreadable files are skipped."""
    from store.gamelog import GameFile, StoreError
    from store.games import list_games

    found: list[tuple[str, str, str]] = []
    for path in list_games():
        try:
            with GameFile.open(path) as file:
                game = file.header.game
                when = file.header.created_at
        except (StoreError, OSError, ValueError):
            continue
        try:
            title = registry.game(game).title
        except registry.UnknownGameError:
            continue
        stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(when)) if when else Path(path).stem
        found.append((str(path), game, f"{title} - {stamp}"))
        if len(found) >= limit:
            break
    return found


class GamesScreen(Screen):
    hosting = StringProperty("")

    def on_pre_enter(self, *_: Any) -> None:
        self.refresh()

    def refresh(self) -> None:
        app = App.get_running_app()
        self.hosting = registry.game(app.game_name).title
        box = self.ids.games_box
        box.clear_widgets()
        for module in hostable():
            button = Factory.TouchButton(text=module.title, size_hint_y=None, height=app.theme.touch)
            button.bind(on_release=lambda _b, name=module.name: app.host(name))
            box.add_widget(button)
            self.ids[f"play_{module.name}"] = button
        saved = self.ids.saved_box
        saved.clear_widgets()
        for i, (path, game, label) in enumerate(saved_games()):
            button = Factory.TouchButton(text=label, size_hint_y=None, height=app.theme.touch)
            button.bind(on_release=lambda _b, p=path, g=game: app.host(g, resume=p))
            saved.add_widget(button)
            self.ids[f"resume_{i}"] = button
        if not saved.children:
            saved.add_widget(Factory.FitLabel(text=tr._("No saved games yet"), size_hint_y=None,
                                              height=app.theme.touch))
