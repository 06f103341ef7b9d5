"""The sound cues: real WAV files that sound like something, the events that trigger them, and a
board that stays quiet (and says why) when sounds are off or the device has no output."""

from __future__ import annotations

import wave
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from companion.events import Event, Kind
from ui.sounds import SoundBoard, cue_file, cue_for
from ui.soundsynth import CUES, PEAK, SAMPLE_RATE, synthesize


@pytest.mark.parametrize("name", sorted(CUES))
def test_each_cue_is_a_readable_audible_unclipped_wav(tmp_path: Path, name: str) -> None:
    path = cue_file(name, tmp_path)
    with wave.open(str(path)) as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, SAMPLE_RATE)
        samples = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2").astype(float) / 32767
    seconds = len(samples) / SAMPLE_RATE
    assert 0.2 <= seconds <= 2.5, seconds  # a cue, not a song
    assert np.max(np.abs(samples)) == pytest.approx(PEAK, abs=0.01)
    assert np.sqrt(np.mean(samples ** 2)) > 0.02  # audible, not a click in silence
    assert abs(samples[-1]) < 0.01  # faded out: no click at the end
    assert np.array_equal(synthesize(name), synthesize(name))  # the same cue every time


def test_cues_differ_in_pitch() -> None:
    def centroid(name: str) -> float:
        x = synthesize(name).astype(float)
        spectrum = np.abs(np.fft.rfft(x))
        freqs = np.fft.rfftfreq(len(x), 1 / SAMPLE_RATE)
        return float(np.sum(freqs * spectrum) / np.sum(spectrum))

    assert centroid("eruption") < 300 < centroid("fanfare") < centroid("dice")


def test_unknown_cue_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match="no sound cue 'boom'"):
        synthesize("boom")


def test_events_map_to_cues() -> None:
    assert cue_for(Event(Kind.COUNTDOWN_ADVANCED, 1, {"position": 2, "event": "lava", "lava": [3]})) == "eruption"
    assert cue_for(Event(Kind.COUNTDOWN_ADVANCED, 1, {"position": 1, "event": "none", "lava": []})) == "turn"
    assert cue_for(Event(Kind.FINAL_CHAPTER, 1, {"player": "Aiko"})) == "gong"
    assert cue_for(Event(Kind.GAME_ENDED, 1, {})) == "fanfare"
    assert cue_for(Event("dragon_defeated", 1, {"dragon": "green_2"})) == "fanfare"
    assert cue_for(Event(Kind.VP_CHANGED, 1, {"points": 3})) is None


class FakeSound:
    def __init__(self, length: float) -> None:
        self.length = length
        self.state = "stop"
        self.plays = 0

    def play(self) -> None:
        self.plays += 1
        self.state = "play"

    def stop(self) -> None:
        self.state = "stop"


def test_board_plays_the_most_important_cue_of_a_burst(tmp_path: Path) -> None:
    loaded: dict[str, FakeSound] = {}

    def load(path: str) -> Any:
        assert Path(path).exists()
        return loaded.setdefault(Path(path).name, FakeSound(0.5))

    board = SoundBoard(enabled=lambda: True, folder=tmp_path, load=load)
    burst = [Event(Kind.TURN_STARTED, 2, {"player": "Botan"}),
             Event(Kind.COUNTDOWN_ADVANCED, 2, {"position": 3, "event": "lava", "lava": [1, 2]})]
    assert board.play_events(burst) == "eruption"
    assert board.play_events([Event(Kind.VP_CHANGED, 3, {})]) is None
    board.play("eruption")
    assert board.played == ["eruption", "eruption"]
    assert loaded["eruption-v1.wav"].plays == 2


def test_board_is_quiet_when_switched_off(tmp_path: Path) -> None:
    board = SoundBoard(enabled=lambda: False, folder=tmp_path, load=lambda _p: FakeSound(0.5))
    assert board.play("dice") is False
    assert board.played == [] and not list(tmp_path.iterdir())


def test_board_without_audio_output_says_why_once(tmp_path: Path) -> None:
    calls: list[str] = []

    def load(path: str) -> Any:
        calls.append(path)
        return FakeSound(0.0)  # what Kivy's SDL2 provider returns when the mixer could not open

    board = SoundBoard(enabled=lambda: True, folder=tmp_path, load=load)
    assert board.play("dice") is False
    assert board.play("gong") is False
    assert "no working audio output" in board.problem
    assert len(calls) == 1 and board.played == []


def test_cue_names_match_the_synthesiser() -> None:
    from ui.sounds import CUE_NAMES

    assert set(CUES) == CUE_NAMES


def test_preload_opens_every_cue_or_stops_at_the_first_failure(tmp_path: Path) -> None:
    opened: list[str] = []

    def load(path: str) -> Any:
        opened.append(Path(path).name)
        return FakeSound(0.3)

    board = SoundBoard(enabled=lambda: True, folder=tmp_path, load=load)
    assert len(board.write_files()) == len(CUES)
    board.preload()
    assert len(opened) == len(CUES) and board.problem == ""
    board.play("gong")
    assert len(opened) == len(CUES)  # already open: no second load

    silent = SoundBoard(enabled=lambda: True, folder=tmp_path, load=lambda _p: None)
    silent.preload()
    assert "no working audio output" in silent.problem
