"""Sound cues at the table: dice rattling for the dragon, a rumble when lava erupts, a gong for the
final chapter, a soft two-note call for the next turn, a fanfare when a dragon falls or the game ends.

The cues are synthesised with numpy (:mod:`ui.soundsynth`; no recorded files to license or to lose)
and written once as 16-bit mono WAV files into the user cache folder (``~/.cache/fujikoro/sounds`` on
Linux); Kivy's audio provider (SDL2's mixer) plays them. ``Settings.sounds`` switches them off. A
machine without a working audio output (no sound card, no ALSA device) gets one line in the log and
"no audio output" beside the Sounds switch in Settings, never an error: :attr:`SoundBoard.problem`.

:func:`cue_for` maps the session's events (:mod:`companion.events`) to cues; the combat screen plays
``dice`` itself when "Roll for the dragon" starts its animation.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.events import Event, Kind

#: The cues :mod:`ui.soundsynth` makes (kept here so listing them needs no numpy).
CUE_NAMES = frozenset({"dice", "eruption", "gong", "turn", "fanfare"})
VERSION = 1  # bump when a cue's sound changes: the cached files are rebuilt under a new name


def cue_file(name: str, folder: Path) -> Path:
    """The cue's WAV file in ``folder``, written the first time."""
    from ui.soundsynth import synthesize, write_wav  # numpy: only the first time a cue plays

    path = folder / f"{name}-v{VERSION}.wav"
    if not path.exists():
        write_wav(path, synthesize(name))
    return path


def cue_for(event: Event) -> str | None:
    """The sound a session event makes at the table, if any."""
    payload = event.payload
    if event.kind == Kind.COUNTDOWN_ADVANCED:
        return "eruption" if payload.get("event") == "lava" or payload.get("lava") else "turn"
    if event.kind == Kind.FINAL_CHAPTER:
        return "gong"
    if event.kind == Kind.TURN_STARTED:
        return "turn"
    if event.kind == Kind.GAME_ENDED:
        return "fanfare"
    if event.kind == "dragon_defeated":
        return "fanfare"
    return None


def default_folder() -> Path:
    from companion.paths import app_paths

    return app_paths().sounds


class SoundBoard:
    """Plays cues through ``load`` (Kivy's ``SoundLoader.load``), if ``enabled()`` says sounds are on.

    One cue per event burst: a command that both advances the countdown and starts a turn plays the
    most important sound only (``play_events``). ``played`` keeps what was played, for the app's
    scripted tests.
    """

    PRIORITY = ("fanfare", "gong", "eruption", "dice", "turn")

    def __init__(self, enabled: Callable[[], bool], folder: Path | None = None,
                 load: Callable[[str], Any] | None = None) -> None:
        self._enabled = enabled
        self._folder = folder
        self._load = load
        self._sounds: dict[str, Any] = {}
        self.problem = ""
        self.played: list[str] = []

    def play_events(self, events: list[Event]) -> str | None:
        cues = {c for c in (cue_for(e) for e in events) if c is not None}
        best = next((c for c in self.PRIORITY if c in cues), None)
        if best is not None:
            self.play(best)
        return best

    def write_files(self) -> list[Path]:
        """Every cue's file, synthesised if missing (numpy work: call it off the UI thread)."""
        folder = self._folder or default_folder()
        try:
            return [cue_file(name, folder) for name in sorted(CUE_NAMES)]
        except OSError as error:
            self.problem = f"sounds are off: {folder} cannot be written ({error.strerror})"
            return []

    def preload(self) -> None:
        """Open every cue now (on the UI thread), so the first sound is on time and a missing audio
        output shows in Settings before anybody wonders why the table is silent."""
        for name in sorted(CUE_NAMES):
            if self.problem or self._sound(name) is None:
                return

    def _sound(self, name: str) -> Any:
        sound = self._sounds.get(name)
        if sound is None and not self.problem:
            try:
                path = cue_file(name, self._folder or default_folder())
            except OSError as error:
                self.problem = f"sounds are off: the cache folder cannot be written ({error.strerror})"
                return None
            load = self._load or _kivy_loader()
            sound = load(str(path))
            if sound is None or not getattr(sound, "length", 0):
                # SDL's mixer could not open an output (it logs why): say so once, stay quiet after.
                self.problem = "sounds are off: this device has no working audio output"
                return None
            self._sounds[name] = sound
        return sound

    def play(self, name: str) -> bool:
        if not self._enabled() or self.problem:
            return False
        sound = self._sound(name)
        if sound is None:
            return False
        if getattr(sound, "state", "") == "play":
            sound.stop()
        sound.play()
        self.played.append(name)
        return True


def _kivy_loader() -> Callable[[str], Any]:
    from kivy.core.audio import SoundLoader

    return SoundLoader.load  # type: ignore[no-any-return]
