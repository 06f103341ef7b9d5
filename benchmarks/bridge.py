"""Table-link figures: session event -> device ACK time next to the wire time, and sustained frames/s.

The emulator runs the real firmware on a pty (or TCP) throttled to the baud rate (10 bit times per
byte, both directions); the host is the production SerialLink + TableLights. Each event changes the
whole 59-LED chain (51 lava + 8 countdown), so every event costs one full LED frame and its ACK.
Targets (issue 7): median event->ACK <= 1.2 x wire time, >= 30 frames/s.

Run: python benchmarks/bridge.py [--events N] [--seconds S] [--baud 115200] [--transport pty|tcp] [--replugs N]
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time

from companion.events import Event, Kind
from firmware_bridge import ledmap as ledmap_module
from firmware_bridge.table import start_emulated_table
from firmware_bridge.wire import frame
from games.fujikoro.pack import default_pack
from games.fujikoro.table import led_script


def full_chain_events(count: int) -> list[Event]:
    """Alternate between 'all lava erupted, countdown 8' and 'nothing lit': every LED of the chain changes.

    The current player (and so the player LED) stays the same, so each event is exactly one LED frame.
    """
    events = []
    for i in range(count):
        if i % 2 == 0:
            state = {"phase": "final", "current_player": "A", "countdown": {"active": True, "position": 8},
                     "players": [{"name": "A", "colour": "red"}]}
        else:
            state = {"phase": "playing", "current_player": "A", "countdown": {"active": False, "position": None},
                     "players": [{"name": "A", "colour": "red"}]}
        events.append(Event(Kind.STATE_RESET, i, {"state": state}))
    return events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=5.0, help="duration of the sustained-rate run")
    parser.add_argument("--baud", type=int, default=115200)
    parser.add_argument("--transport", choices=("pty", "tcp"), default="pty")
    parser.add_argument("--replugs", type=int, default=10, help="unplug/replug cycles to time")
    args = parser.parse_args()

    ledmap = ledmap_module.default()
    pack = default_pack()
    table = start_emulated_table(ledmap=ledmap, script=led_script(pack), dice=pack.dice, baudrate=args.baud,
                                 transport=args.transport)
    wire_bytes = 0
    wire_lock = threading.Lock()

    def tap(direction: str, item: tuple[int, int, bytes]) -> None:
        nonlocal wire_bytes
        with wire_lock:
            wire_bytes += len(frame(*item))

    try:
        if not table.wait_synced(3):
            raise SystemExit("the emulated table did not come up")
        table.link.core.heartbeat_s = 3600.0  # keep heartbeats out of the per-event timing
        table.link.core.tap = tap
        bit_time = 10 / args.baud
        latencies: list[float] = []
        wires: list[float] = []
        for event in full_chain_events(args.events):
            with wire_lock:
                wire_bytes = 0
            t0 = time.monotonic()
            table.lights.handle_event(event)
            if not table.link.wait_synced(2):
                raise SystemExit(f"event {event.state_id} was not acknowledged within 2 s")
            synced_at = table.link.core.synced_at
            assert synced_at is not None
            latencies.append(synced_at - t0)
            with wire_lock:
                wires.append(wire_bytes * bit_time)
        shown = table.led_colours() == table.wanted_colours()

        # Sustained: a new full-chain state the moment the previous one is acknowledged.
        events = full_chain_events(2)
        acks_before = table.link.core.stats["acks"]
        frames = 0
        started = time.monotonic()
        while time.monotonic() - started < args.seconds:
            table.lights.handle_event(events[frames % 2])
            if not table.link.wait_synced(2):
                raise SystemExit("sustained run stalled")
            frames += 1
        elapsed = time.monotonic() - started
        acks = table.link.core.stats["acks"] - acks_before

        # Unplug / replug (the emulated Pico reboots dark): time until the full state shows again.
        emulator = table.emulator
        assert emulator is not None
        table.link.core.heartbeat_s = 0.5
        replugs: list[float] = []
        for _ in range(args.replugs):
            emulator.unplug()
            time.sleep(0.3)
            emulator.replug()
            t0 = time.monotonic()
            while not (table.link.core.synced and emulator.chain() == table.wanted_colours()):
                if time.monotonic() - t0 > 5:
                    raise SystemExit("no full state 5 s after replugging")
                time.sleep(0.002)
            replugs.append(time.monotonic() - t0)
    finally:
        table.close()

    latencies.sort()
    median = statistics.median(latencies)
    p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]
    wire = statistics.median(wires)
    print(f"table link benchmark: {ledmap.chain_length} LEDs ({ledmap.lava_count} lava + {len(ledmap.countdown)} "
          f"countdown), {args.baud} baud, {args.transport}, {args.events} events")
    print(f"event -> ACK   median {median * 1000:7.2f} ms   p99 {p99 * 1000:7.2f} ms")
    print(f"wire time      {wire * 1000:7.2f} ms for the same bytes (frame + ACK at {args.baud} baud)")
    print(f"ratio          median / wire = {median / wire:.3f}  (target <= 1.2)")
    print(f"sustained      {frames / elapsed:7.1f} full-chain frames/s ({acks} ACKs in {elapsed:.1f} s; target >= 30)")
    print(f"LEDs show the wanted state: {shown}")
    if replugs:
        print(f"replug -> full state  median {statistics.median(replugs) * 1000:6.0f} ms   max "
              f"{max(replugs) * 1000:6.0f} ms over {len(replugs)} replugs (target <= 2000 ms)")


if __name__ == "__main__":
    main()
