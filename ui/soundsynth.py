"""The sound cues' waveforms, synthesised with numpy: no recorded files to license or to lose.

Each cue is a function of a seeded generator, so the same cue sounds the same every time; the
output is 16-bit mono at :data:`SAMPLE_RATE`, normalised to :data:`PEAK` of full scale. Playing them
is :mod:`ui.sounds`'s business.
"""

from __future__ import annotations

import os
import wave
from collections.abc import Callable
from pathlib import Path

import numpy as np

SAMPLE_RATE = 22050
PEAK = 0.6  # of full scale: loud enough across a table, never clipped


def _envelope(n: int, attack_s: float, decay_s: float) -> np.ndarray:
    t = np.arange(n) / SAMPLE_RATE
    rise = np.clip(t / max(attack_s, 1e-4), 0.0, 1.0)
    return rise * np.exp(-t / decay_s)


def _dice(rng: np.random.Generator) -> np.ndarray:
    """Wooden dice on a tray: a cluster of short, resonant clicks that thin out."""
    out = np.zeros(int(0.45 * SAMPLE_RATE))
    click_n = int(0.025 * SAMPLE_RATE)
    t = np.arange(click_n) / SAMPLE_RATE
    starts = np.sort(rng.uniform(0.0, 0.38, size=11) ** 1.3)
    for k, start in enumerate(starts):
        pitch = rng.uniform(1800, 3200)
        click = (np.sin(2 * np.pi * pitch * t) * 0.6 + rng.normal(0, 0.5, click_n)) * np.exp(-t / 0.004)
        i = int(start * SAMPLE_RATE)
        out[i:i + click_n] += click[: len(out) - i] * (1.0 - 0.05 * k)
    return out


def _eruption(rng: np.random.Generator) -> np.ndarray:
    """Lava: a deep thump under brown-noise rumble that swells and dies away."""
    n = int(1.3 * SAMPLE_RATE)
    t = np.arange(n) / SAMPLE_RATE
    brown = np.cumsum(rng.normal(0, 1, n))
    brown -= np.convolve(brown, np.ones(400) / 400, mode="same")  # drop the drift (below ~50 Hz)
    brown = np.convolve(brown, np.ones(60) / 60, mode="same")  # and the hiss (above ~350 Hz)
    brown /= np.max(np.abs(brown)) or 1.0
    thump = np.sin(2 * np.pi * 48 * t) * np.exp(-t / 0.35)
    return (0.7 * brown + 0.8 * thump) * _envelope(n, 0.08, 0.45)


def _gong(_rng: np.random.Generator) -> np.ndarray:
    """The final chapter begins: inharmonic partials of a struck gong, the high ones fading first."""
    n = int(2.0 * SAMPLE_RATE)
    t = np.arange(n) / SAMPLE_RATE
    out = np.zeros(n)
    for ratio, amp, decay in ((1.0, 1.0, 0.9), (2.76, 0.5, 0.5), (5.40, 0.3, 0.3), (8.93, 0.15, 0.18)):
        out += amp * np.sin(2 * np.pi * 98 * ratio * t) * np.exp(-t / decay)
    return out * _envelope(n, 0.005, 10.0)


def _notes(freqs: list[float], length_s: float, last_s: float) -> np.ndarray:
    parts = []
    for k, f in enumerate(freqs):
        n = int((last_s if k == len(freqs) - 1 else length_s) * SAMPLE_RATE)
        t = np.arange(n) / SAMPLE_RATE
        tone = np.sin(2 * np.pi * f * t) + 0.3 * np.sin(4 * np.pi * f * t) + 0.1 * np.sin(6 * np.pi * f * t)
        parts.append(tone * _envelope(n, 0.01, n / SAMPLE_RATE / 2.5))
    return np.concatenate(parts)


def _turn(_rng: np.random.Generator) -> np.ndarray:
    """The next player's turn: two soft rising notes."""
    return 0.5 * _notes([659.3, 880.0], 0.12, 0.25)


def _fanfare(_rng: np.random.Generator) -> np.ndarray:
    """A dragon defeated, a game ended: a rising major arpeggio."""
    return _notes([523.3, 659.3, 784.0, 1046.5], 0.13, 0.6)


CUES: dict[str, Callable[[np.random.Generator], np.ndarray]] = {
    "dice": _dice, "eruption": _eruption, "gong": _gong, "turn": _turn, "fanfare": _fanfare,
}


def synthesize(name: str) -> np.ndarray:
    """The cue as 16-bit samples at :data:`SAMPLE_RATE` (the same every time: a fixed seed per cue)."""
    if name not in CUES:
        raise ValueError(f"there is no sound cue {name!r} (known: {', '.join(sorted(CUES))})")
    rng = np.random.default_rng(sorted(CUES).index(name) + 1)
    signal = CUES[name](rng)
    fade = min(len(signal), int(0.01 * SAMPLE_RATE))
    signal[-fade:] *= np.linspace(1.0, 0.0, fade)  # no click at the end
    peak = float(np.max(np.abs(signal))) or 1.0
    return np.round(signal / peak * PEAK * 32767).astype("<i2")


def write_wav(path: Path, samples: np.ndarray) -> None:
    """Write atomically (a temporary file renamed), so a half-written cue is never played."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(path.name + ".tmp")
    with wave.open(str(temp), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(SAMPLE_RATE)
        out.writeframes(samples.tobytes())
    os.replace(temp, path)
