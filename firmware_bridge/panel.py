"""The GPIO panel for a Raspberry Pi host: buttons, the dice-tray switch and a status LED via gpiozero.

Wiring (BCM numbers from ``panel_pins.toml``): each button and the tray's vibration switch between its
pin and GND (internal pull-ups), the status LED through 330 ohm to GND. The pin factory is injected
(:func:`pin_factory` reads ``GPIOZERO_PIN_FACTORY``; ``mock`` gives gpiozero's MockFactory off a Pi),
and so is the clock, so debouncing is tested with mock pins and contact bounce, without sleeping.

Buttons are debounced by lockout: a press counts when the contact had been open for ``button_ms``;
bounces after a press or a release fall inside the lockout. The tray is *rolling* from its first contact
change and *still* after ``still_ms`` without one; :meth:`Panel.poll` (called by the panel thread, or by a
test with a fake clock) notices the quiet.
"""

from __future__ import annotations

import os
import threading
import time
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.paths import app_paths
from firmware_bridge.commands import Button

DEFAULT_PINS = Path(__file__).resolve().parent / "panel_pins.toml"
FACTORIES = {
    "mock": "gpiozero.pins.mock:MockFactory",
    "lgpio": "gpiozero.pins.lgpio:LGPIOFactory",
    "rpigpio": "gpiozero.pins.rpigpio:RPiGPIOFactory",
    "pigpio": "gpiozero.pins.pigpio:PiGPIOFactory",
    "native": "gpiozero.pins.native:NativeFactory",
}


class PanelError(ValueError):
    """A pin configuration that cannot work, or no usable pin factory."""


@dataclass(frozen=True, slots=True)
class PanelPins:
    buttons: Mapping[Button, int]
    tray: int | None
    still_ms: int
    status_led: int | None
    button_ms: int


def user_pins_path() -> Path:
    """The group's own pin file (``panel_pins.toml`` in the config dir); it need not exist."""
    return app_paths().panel_pins


def load_pins(path: Path | str | None = None) -> PanelPins:
    """``path``, else the user's pin file if there is one, else the shipped ``panel_pins.toml``."""
    if path is None and user_pins_path().exists():
        path = user_pins_path()
    p = Path(path) if path is not None else DEFAULT_PINS
    try:
        raw = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as error:
        raise PanelError(f"cannot read pin file {p}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise PanelError(f"{p}: not valid TOML ({error})") from None
    return parse_pins(raw, origin=str(p))


def parse_pins(raw: Mapping[str, Any], *, origin: str = "pins") -> PanelPins:
    names = {b.name.lower(): b for b in Button}
    buttons: dict[Button, int] = {}
    used: dict[int, str] = {}

    def pin(where: str, value: Any) -> int:
        if not isinstance(value, int) or not 0 <= value <= 27:
            raise PanelError(f"{origin}: {where}: a BCM pin is 0..27, got {value!r}")
        if value in used:
            raise PanelError(f"{origin}: {where}: pin {value} is already used by {used[value]}")
        used[value] = where
        return value

    for name, value in raw.get("buttons", {}).items():
        if name not in names:
            raise PanelError(f"{origin}: unknown button {name!r}; known buttons: {', '.join(names)}")
        buttons[names[name]] = pin(f"buttons.{name}", value)
    tray = raw.get("tray", {})
    led = raw.get("status_led", {})
    return PanelPins(
        buttons=buttons,
        tray=pin("tray.pin", tray["pin"]) if "pin" in tray else None,
        still_ms=int(tray.get("still_ms", 600)),
        status_led=pin("status_led.pin", led["pin"]) if "pin" in led else None,
        button_ms=int(raw.get("debounce", {}).get("button_ms", 30)),
    )


def pin_factory(name: str | None = None) -> Any:
    """The gpiozero pin factory named by ``name`` or ``GPIOZERO_PIN_FACTORY`` (``mock`` off a Pi)."""
    import importlib

    chosen = (name or os.environ.get("GPIOZERO_PIN_FACTORY") or "").lower()
    candidates = [chosen] if chosen else ["lgpio", "rpigpio", "native"]
    problems = []
    for candidate in candidates:
        if candidate not in FACTORIES:
            raise PanelError(f"unknown pin factory {candidate!r}; known: {', '.join(FACTORIES)}")
        module_name, _, cls = FACTORIES[candidate].partition(":")
        try:
            return getattr(importlib.import_module(module_name), cls)()
        except Exception as error:  # noqa: BLE001 - each backend fails differently off a Pi
            problems.append(f"{candidate}: {error}")
    raise PanelError("no GPIO pin factory works here (" + "; ".join(problems) + "); set GPIOZERO_PIN_FACTORY=mock")


class Panel:
    """Buttons -> which button was pressed (the game decides what it means), tray switch -> rolling/still,
    status LED <- link state."""

    def __init__(
        self,
        pins: PanelPins,
        *,
        factory: Any,
        clock: Callable[[], float] = time.monotonic,
        when_pressed: Callable[[Button], None] | None = None,
        when_tray: Callable[[bool], None] | None = None,
    ) -> None:
        from gpiozero import LED, DigitalInputDevice
        from gpiozero import Button as GpioButton

        self.pins = pins
        self.factory = factory
        self.clock = clock
        self.when_pressed = when_pressed
        self.when_tray = when_tray
        self.rolling = False
        self._lock = threading.Lock()
        self._released_at: dict[Button, float] = {}
        self._devices: list[Any] = []
        for button, number in pins.buttons.items():
            device = GpioButton(number, pull_up=True, bounce_time=None, pin_factory=factory)
            device.when_pressed = lambda _d=None, b=button: self._edge(b, pressed=True)
            device.when_released = lambda _d=None, b=button: self._edge(b, pressed=False)
            self._devices.append(device)
        self._tray: Any = None
        self._last_tray_edge = 0.0
        if pins.tray is not None:
            self._tray = DigitalInputDevice(pins.tray, pull_up=True, bounce_time=None, pin_factory=factory)
            self._tray.when_activated = lambda _d=None: self._tray_edge()
            self._tray.when_deactivated = lambda _d=None: self._tray_edge()
            self._devices.append(self._tray)
        self.status: Any = LED(pins.status_led, pin_factory=factory) if pins.status_led is not None else None
        if self.status is not None:
            self._devices.append(self.status)
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def _edge(self, button: Button, *, pressed: bool) -> None:
        now = self.clock()
        lockout = self.pins.button_ms / 1000
        with self._lock:
            last = self._released_at.get(button)
            self._released_at[button] = now
            if not pressed or (last is not None and now - last < lockout):
                return
        if self.when_pressed is not None:
            self.when_pressed(button)

    def _tray_edge(self) -> None:
        with self._lock:
            self._last_tray_edge = self.clock()
            started = not self.rolling
            self.rolling = True
        if started and self.when_tray is not None:
            self.when_tray(True)

    def poll(self) -> None:
        """Notice a tray that went quiet; call every few tens of milliseconds."""
        with self._lock:
            stopped = self.rolling and self.clock() - self._last_tray_edge >= self.pins.still_ms / 1000
            if stopped:
                self.rolling = False
        if stopped and self.when_tray is not None:
            self.when_tray(False)

    def show_link(self, connected: bool) -> None:
        if self.status is None:
            return
        if connected:
            self.status.on()
        else:
            self.status.blink(on_time=0.1, off_time=0.9)

    def start(self, every_s: float = 0.02) -> Panel:
        def run() -> None:
            while not self._stop.wait(every_s):
                self.poll()

        self._thread = threading.Thread(target=run, name="fujikoro-panel", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1)
        for device in self._devices:
            device.close()
