"""``fujikoro bridge``: watch the table link, run the emulated table, soak the link with faults.

    fujikoro bridge monitor PORT [--baud N] [--seconds S] [--send-leds STATE ...]
    fujikoro bridge emulate [--pty [PATH] | --tcp PORT] [--baud N] [--faults SPEC] [--png PATH] [--show] [--commands]
    fujikoro bridge soak [--faults N] [--seed N]
    fujikoro bridge panel [--pins FILE] [--factory NAME] [--seconds S]
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time
from typing import Any

from ui.cli import CliError

DEFAULT_PTY = "/tmp/fujikoro-table"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("bridge", help="the table hardware link: monitor, emulator, fault soak",
                                   description="The serial link to the table's Pico, and its emulator.")
    sub = parser.add_subparsers(dest="bridge_command", metavar="ACTION", required=True)

    monitor = sub.add_parser("monitor", help="connect to a table and show the traffic live")
    monitor.add_argument("port", metavar="PORT",
                         help="a pyserial URL or device: /dev/ttyACM0, socket://host:port, spy:///dev/ttyACM0")
    monitor.add_argument("--baud", type=int, default=115200, help="baud rate (default 115200)")
    monitor.add_argument("--seconds", type=float, default=None, help="stop after this long (default: Ctrl-C)")
    monitor.add_argument("--ledmap", default=None, help="LED map JSON (default: the shipped map)")
    monitor.add_argument("--id", dest="device_id", default=None, help="only talk to this device id")
    monitor.add_argument("--send-leds", dest="send_leds", action="append", default=[], metavar="STATE",
                         help="send this LED state once connected, e.g. '0-4=801800 bar=3:ff8c00:101010 "
                              "player=0040ff' (colours RRGGBB, sent as written); repeat it to send states "
                              "one after the other, each starting from the one before (the first from all dark)")
    monitor.set_defaults(handler=_monitor)

    emulate = sub.add_parser("emulate", help="run the firmware under an emulator on a pty or TCP port")
    where = emulate.add_mutually_exclusive_group()
    where.add_argument("--pty", nargs="?", const=DEFAULT_PTY, default=None, metavar="PATH",
                       help=f"serve on a pseudo-terminal behind the symlink PATH (default {DEFAULT_PTY})")
    where.add_argument("--tcp", type=int, default=None, metavar="PORT", help="serve on TCP PORT (socket://)")
    emulate.add_argument("--baud", type=int, default=None, help="throttle the line to this baud rate")
    emulate.add_argument("--faults", default=None, metavar="SPEC",
                         help="inject faults per frame, e.g. drop=0.01,flip=0.01,garbage=0.01,unplug=0.001")
    emulate.add_argument("--seed", type=int, default=None, help="seed for the fault injector")
    emulate.add_argument("--png", default=None, metavar="PATH", help="keep a PNG picture of the LEDs at PATH")
    emulate.add_argument("--show", action="store_true", help="print the LED chain whenever it changes")
    emulate.add_argument("--commands", action="store_true",
                         help="read table commands from stdin, one a line: press BUTTON, tray [SECONDS], "
                              "roll DICE, dice DICE, leds, unplug, replug, help, quit")
    emulate.add_argument("--ledmap", default=None, help="LED map JSON for the emulated build")
    emulate.add_argument("--seconds", type=float, default=None, help="stop after this long (default: Ctrl-C)")
    emulate.set_defaults(handler=_emulate)

    soak = sub.add_parser("soak", help="in-process fault soak of host + firmware (fake clock)")
    soak.add_argument("--faults", type=int, default=10_000, help="faults to inject (default 10000)")
    soak.add_argument("--seed", type=int, default=1)
    soak.set_defaults(handler=_soak)

    panel = sub.add_parser("panel", help="run the Raspberry Pi GPIO panel and print the commands it sends")
    panel.add_argument("--pins", default=None, help="pin file (default: your panel_pins.toml, else the shipped one)")
    panel.add_argument("--factory", default=None,
                       help="gpiozero pin factory: lgpio, rpigpio, pigpio, native, mock "
                            "(default: $GPIOZERO_PIN_FACTORY, else the first that works)")
    panel.add_argument("--seconds", type=float, default=None, help="stop after this long (default: Ctrl-C)")
    panel.set_defaults(handler=_panel)


def _load_ledmap(path: str | None) -> Any:
    from firmware_bridge import ledmap

    try:
        return ledmap.configured(path)
    except ledmap.LedMapError as error:
        raise CliError(str(error)) from None


def _stamp() -> str:
    now = time.time()
    return time.strftime("%H:%M:%S", time.localtime(now)) + f".{int(now * 1000) % 1000:03d}"


def _run_until(seconds: float | None, stop: threading.Event | None = None) -> None:
    stop = stop or threading.Event()
    stop.wait(seconds) if seconds is not None else stop.wait()


def _printer(stop: threading.Event) -> Any:
    """print() for the link's threads: a closed stdout (``| head``) ends the command quietly."""

    def say(text: str) -> None:
        if stop.is_set():
            return
        try:
            print(text, flush=True)
        except (BrokenPipeError, ValueError):
            stop.set()

    return say


def _led_states(specs: list[str], ledmap: Any) -> list[Any]:
    """The --send-leds states, each applied on top of the one before (the first on all dark)."""
    from firmware_bridge import ledspec

    states: list[Any] = []
    for spec in specs:
        try:
            states.append(ledspec.parse(spec, ledmap, states[-1] if states else None))
        except ledspec.LedSpecError as error:
            raise CliError(f"--send-leds: {error}") from None
    return states


def _monitor(args: argparse.Namespace) -> int:
    from firmware_bridge.link import SerialLink
    from firmware_bridge.wire import describe

    if args.baud <= 0:
        raise CliError(f"--baud must be positive, got {args.baud}")
    if args.seconds is not None and args.seconds < 0:
        raise CliError(f"--seconds must not be negative, got {args.seconds}")
    ledmap = _load_ledmap(args.ledmap)
    states = _led_states(args.send_leds, ledmap)

    stop = threading.Event()
    say = _printer(stop)

    def tap(direction: str, item: tuple[int, int, bytes]) -> None:
        arrow = "table -> host" if direction == "<" else "host -> table"
        retry = " (retry)" if direction == ">R" else ""
        say(f"{_stamp()} {arrow}  {describe(*item)}{retry}")

    def on_event(event: Any) -> None:
        say(f"{_stamp()} event         {event}")

    link = SerialLink(args.port, ledmap, baudrate=args.baud, expected_id=args.device_id, tap=tap, on_event=on_event)
    acknowledged: list[int] = []

    def send_states() -> None:
        # One state after the other: the next only once the device has acknowledged all of the previous one.
        for number, state in enumerate(states, start=1):
            link.set_leds(state)
            while not link.wait_synced(0.1):
                if stop.is_set():
                    return
            acknowledged.append(number)
            say(f"{_stamp()} sent          LED state {number} of {len(states)}, acknowledged")

    if states:
        link.set_leds(states[0])  # the first full state after the handshake is already the wanted one
    print(f"monitoring {args.port} at {args.baud} baud (Ctrl-C to stop)", flush=True)
    link.start()
    sender = threading.Thread(target=send_states, name="fujikoro-monitor-send", daemon=True)
    sender.start()
    try:
        _run_until(args.seconds, stop)
    finally:
        stop.set()
        sender.join(1)
        link.close()
    failed = not link.core.info
    if failed:
        print(f"never connected: {link.last_error or 'no device answered'}", file=sys.stderr)
    if len(acknowledged) < len(states):
        print(f"the device acknowledged {len(acknowledged)} of {len(states)} LED states", file=sys.stderr)
        failed = True
    return 1 if failed else 0


def _emulate(args: argparse.Namespace) -> int:
    from firmware_bridge import render
    from firmware_bridge.emulator import Emulator, EmulatorError
    from firmware_bridge.faults import FaultError, FaultSpec

    ledmap = _load_ledmap(args.ledmap)
    try:
        faults = FaultSpec.parse(args.faults) if args.faults else None
    except FaultError as error:
        raise CliError(str(error)) from None
    if args.baud is not None and args.baud <= 0:
        raise CliError(f"--baud must be positive, got {args.baud}")
    changed = threading.Event()
    emulator = Emulator(baudrate=args.baud, faults=faults, seed=args.seed, ledmap=dict(ledmap.raw),
                        on_leds=lambda _emu: changed.set())
    try:
        if args.tcp is not None:
            port = emulator.serve_tcp(args.tcp, host="0.0.0.0")
            url = f"socket://localhost:{port}"
        else:
            url = emulator.serve_pty(args.pty or DEFAULT_PTY)
    except (EmulatorError, OSError) as error:
        emulator.close()
        raise CliError(f"cannot serve the emulator: {error}") from None
    print(f"emulated table on {url}" + (f" at {args.baud} baud" if args.baud else "")
          + (f", faults {args.faults}" if faults else ""), flush=True)
    print(f"connect with: fujikoro bridge monitor {url}", flush=True)
    quit_asked = threading.Event()
    output = threading.Lock()  # one line at a time: command replies and --show pictures do not interleave

    def say(text: str) -> None:
        with output:
            print(text, flush=True)

    if args.commands:
        threading.Thread(target=_read_commands, args=(emulator, say, quit_asked, changed),
                         name="fujikoro-emulate-commands", daemon=True).start()
    deadline = None if args.seconds is None else time.monotonic() + args.seconds
    # A stop by the system (kill, a service manager, timeout) cleans up as Ctrl-C does: the pty's link is removed,
    # so a later monitor is not pointed at whatever terminal gets that pty next.
    main = threading.current_thread() is threading.main_thread()  # (only there can a signal handler be set)
    previous = signal.signal(signal.SIGTERM, lambda _signum, _frame: quit_asked.set()) if main else None
    try:
        while (deadline is None or time.monotonic() < deadline) and not quit_asked.is_set():
            timeout = 0.5 if deadline is None else max(0.0, min(0.5, deadline - time.monotonic()))
            if not changed.wait(timeout):
                continue
            changed.clear()
            if quit_asked.is_set():
                break
            chain, player = emulator.chain(), emulator.player()
            if args.png:
                _write_atomically(args.png, render.png(chain, player, ledmap))
            if args.show:
                say(f"{_stamp()}\n{render.text(chain, player, ledmap, colour=sys.stdout.isatty())}")
            time.sleep(0.1)  # at most ten pictures a second
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)
        emulator.close()
    return 0


def _write_atomically(path: str, data: bytes) -> None:
    """Replace the file in one step, so a reader never sees half a picture."""
    import os

    temporary = f"{path}.tmp"
    with open(temporary, "wb") as f:
        f.write(data)
    os.replace(temporary, path)


def _read_commands(emulator: Any, say: Any, quit_asked: threading.Event, wake: threading.Event) -> None:
    """``--commands``: one table command per stdin line, one reply line (``ok ...`` or ``error: ...``) each.

    End of input leaves the emulator running; ``quit`` stops it.
    """
    from firmware_bridge.emulator import EmulatorError

    for line in sys.stdin:
        command = line.split("#", 1)[0].strip()
        if not command:
            continue
        if command.lower() == "quit":
            say("ok quit")
            quit_asked.set()
            wake.set()
            return
        try:
            say(f"ok {emulator.command(command)}")
        except (EmulatorError, OSError) as error:
            say(f"error: {error}")


def _soak(args: argparse.Namespace) -> int:
    from firmware_bridge.soak import run_soak

    if args.faults <= 0:
        raise CliError(f"--faults must be positive, got {args.faults}")
    started = time.perf_counter()
    report = run_soak(args.faults, seed=args.seed)
    took = time.perf_counter() - started
    print(f"faults injected: {report.injected} ({', '.join(f'{k} {v}' for k, v in report.faults.items())})")
    print(f"frames on the wire: {report.frames_sent}, intact {report.frames_intact}, lost {report.frames_lost}")
    print(f"worst chunk: lost - faults = {report.worst_chunk_excess} (must be <= 0)")
    print(f"LED writes: {report.shown}, corrupted: {report.corrupted_shown}; board reboots: {report.reboots}")
    print(f"converged to the last state: {report.converged}; {report.fake_seconds:.0f} s of fake time in {took:.1f} s")
    ok = report.corrupted_shown == 0 and report.worst_chunk_excess <= 0 and report.converged
    return 0 if ok else 1


def _panel(args: argparse.Namespace) -> int:

    from firmware_bridge.panel import Panel, PanelError, load_pins, pin_factory

    try:
        pins = load_pins(args.pins)
        factory = pin_factory(args.factory)
    except PanelError as error:
        raise CliError(str(error)) from None

    def pressed(button: Any) -> None:
        print(f"{_stamp()} {button.name.lower():<12} pressed", flush=True)

    def tray(rolling: bool) -> None:
        print(f"{_stamp()} tray         {'rolling' if rolling else 'still'}", flush=True)

    panel = Panel(pins, factory=factory, when_pressed=pressed, when_tray=tray).start()
    shown = ", ".join(f"{b.name.lower()} BCM{n}" for b, n in pins.buttons.items())
    print(f"GPIO panel on {type(factory).__name__}: {shown}"
          + (f", tray BCM{pins.tray}" if pins.tray is not None else ""), flush=True)
    try:
        _run_until(args.seconds)
    finally:
        panel.close()
        factory.close()
    return 0
