"""A dragon fight at the table: setup, whose roll, the dragon's animated roll, helmet damage, odds.

:class:`CombatModel` plays the fight through the game session's fight commands (``fight_start``,
``fight_roll``, ``fight_helmet``, ``fight_retreat``, ``fight_cancel``; see
:mod:`games.fujikoro.rules`), so every step is in the durable game log: a restart resumes the
fight from the log, "Undo: <description>" takes steps back (the app's seeded rolls are undo
barriers that need the held Undo; dice typed in or read by the tray undo normally) and the fight's
VP and teeth reach the scores through the session. The fight shown is the session's
``state["combat"]`` read back with :meth:`games.fujikoro.combat.Fight.from_json`. Exact odds
(:mod:`games.fujikoro.odds`) are computed after every step in a worker process (:mod:`games.fujikoro.app.oddsproc`) that
a worker thread waits on; the screen shows a progress bar meanwhile and never waits.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from typing import Any

from kivy.clock import Clock
from kivy.event import EventDispatcher
from kivy.properties import (
    BooleanProperty,
    DictProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)

from companion.dice import DiceError, DiceRoll, DiceSource, from_faces, roll
from games.fujikoro.app.oddsproc import OddsProcess
from games.fujikoro.combat import (
    DRAGON,
    CombatError,
    DragonStats,
    Fight,
    Mode,
    Outcome,
    Status,
)
from games.fujikoro.gear import absorb_options
from games.fujikoro.pack import DataPack, parse_face
from ui import coretext
from ui.tr import tr
from ui.worker import Worker

MONK_CYCLE = (None, "wood", "metal", "tooth", "none")
ANIMATION_SECONDS = 0.9
ANIMATION_STEP = 1 / 30
ODDS_DELAY = 0.08  # s after a fight step before its odds start (a frame or two; quick taps coalesce)
PROGRESS_AFTER = 0.3  # s of computing before the odds card shows its progress bar and "Computing..."


class CombatModel(EventDispatcher):  # type: ignore[misc]
    pack = ObjectProperty(None)
    phase = StringProperty("setup")  # setup | fight | over
    dragon_id = StringProperty("")
    custom = BooleanProperty(False)
    custom_initiative = StringProperty("9")
    custom_health = StringProperty("12")
    custom_dice = StringProperty("3")
    participants = ListProperty([])  # [{"name", "joined", "monk"}] in turn order from the attacker
    fight = ObjectProperty(None, allownone=True)
    dragon_name = StringProperty("")
    figure_id = StringProperty("")  # the data pack's figure (green_2), "" for typed-in stats
    dragon_title = StringProperty("")
    health = NumericProperty(0)
    max_health = NumericProperty(1)
    order = ListProperty([])
    whose = StringProperty("")
    whose_text = StringProperty("")
    log = ListProperty([])
    fighters = ListProperty([])  # [{"name", "status", "helmet", "teeth", "vp", "ko"}]
    rolling = BooleanProperty(False)
    sending = BooleanProperty(False)  # a fight command is on its way to the session
    dice_text = StringProperty("")
    dice_faces = ListProperty([])  # the faces shown by the dice strip (animated while rolling)
    dice_total = StringProperty("")
    pending = DictProperty({})  # name -> [option texts] while a helmet removal may still be changed
    choices = DictProperty({})  # name -> chosen option index
    odds_busy = BooleanProperty(False)
    odds_slow = BooleanProperty(False)  # computing for longer than PROGRESS_AFTER: the progress bar shows
    odds_progress = NumericProperty(0.0)
    odds_text = StringProperty("")
    odds = DictProperty({})
    message = StringProperty("")
    # Why the active player cannot start a fight now ("" when they can), the rules engine's sentence.
    start_reason = StringProperty("")
    can_retreat = ListProperty([])
    recorded = BooleanProperty(False)  # the fight is over and the session has scored it
    apply_ms = NumericProperty(0.0)  # how long handling the last dragon roll took on the UI thread

    def __init__(self, game: Any, pack_model: Any, gear_source: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._game = game
        self._gear_source = gear_source
        self._worker = Worker("odds", settle=False)
        self._odds_process = OddsProcess()  # started by the first fight, not while the app opens
        self._seeds: random.Random = random.SystemRandom()
        self._odds_generation = 0
        self._odds_started = 0.0
        self._progress_event: Any = None
        self._animation: Any = None
        self._last_hits = 0
        self._pending_options: dict[str, list[Any]] = {}
        self._combat_raw: Any = None  # the session's state["combat"] last shown
        self._dismissed: Any = None  # an ended fight the table has put away ("New fight")
        self._game_path: str | None = None
        self.pack = pack_model.pack
        pack_model.bind(pack=lambda _m, pack: setattr(self, "pack", pack))
        game.bind(players=self._on_players, current_player=self._on_players, state=self._on_state)
        game.bind(state=self._on_reasons)
        game.bind(on_game_event=self._on_game_event)
        tr.bind(language=lambda *_: self._relanguage())
        self.dragon_id = next(iter(self.pack.dragons))
        self._on_players()
        if game.state:
            self._on_state(game, game.state)

    def reseed(self, seed: int | None) -> None:
        """Make the app's rolls reproducible from ``seed`` (None: fresh system randomness)."""
        self._seeds = random.SystemRandom() if seed is None else random.Random(seed)

    def _seed(self) -> int:
        return self._seeds.getrandbits(32)

    # ---- setup ------------------------------------------------------------------------------
    def _on_players(self, *_: Any) -> None:
        if self.phase != "setup":
            return
        names = [p["name"] for p in self._game.players]
        current = self._game.current_player
        if current in names:
            start = names.index(current)
            names = names[start:] + names[:start]  # the attacker, then the joiners from their left
        old = {p["name"]: p for p in self.participants}
        if not self.participants or self.participants[0]["name"] != (names[0] if names else None):
            old = {n: {"monk": p.get("monk")} for n, p in old.items()}  # a new attacker: only they fight at first
        self.participants = [
            {"name": n, "joined": i == 0 or bool(old.get(n, {}).get("joined", False)),
             "monk": old.get(n, {}).get("monk"), "reason": ""}
            for i, n in enumerate(names)
        ]
        self._on_reasons()

    def _on_reasons(self, *_: Any) -> None:
        """Why the fight cannot start, and who cannot join (unconscious, escaped): EN p.10-13."""
        why = (self._game.state or {}).get("why_not") or {}
        fight = why.get("fight")
        self.start_reason = coretext.translate(fight) if fight else ""
        joins = why.get("join") or {}
        people = []
        changed = False
        for i, p in enumerate(self.participants):
            text = joins.get(p["name"]) if i > 0 else None
            reason = coretext.translate(text) if text else ""
            entry = {**p, "reason": reason, "joined": p["joined"] and not reason}
            changed = changed or entry != p
            people.append(entry)
        if changed:
            self.participants = people

    def choose_dragon(self, dragon_id: str) -> None:
        self.custom = dragon_id == "custom"
        if not self.custom:
            self.dragon_id = dragon_id

    def toggle_join(self, index: int) -> None:
        people = [dict(p) for p in self.participants]
        if people[index].get("reason"):
            self.message = people[index]["reason"]
            return
        people[index]["joined"] = not people[index]["joined"]
        self.participants = people

    def cycle_monk(self, index: int) -> None:
        people = [dict(p) for p in self.participants]
        current = people[index]["monk"]
        people[index]["monk"] = MONK_CYCLE[(MONK_CYCLE.index(current) + 1) % len(MONK_CYCLE)]
        self.participants = people

    def dragon_stats(self) -> DragonStats:
        mode = Mode.COOP if self._game.mode == "coop" else Mode.COMPETITIVE
        players = max(1, len(self._game.players))
        if not self.custom:
            figure = self.pack.dragons[self.dragon_id]
            return DragonStats.from_figure(figure, self.pack, mode=mode, players=players,
                                           scenario=int(self._game.scenario))
        return DragonStats(name=tr._("dragon"), colour=None, **self._typed_stats(), legendary=False, vp=0,
                           coop_teeth=0)

    def _typed_stats(self) -> dict[str, int]:
        try:
            initiative = int(self.custom_initiative)
            health = int(self.custom_health)
            dice = int(self.custom_dice)
        except ValueError:
            raise CombatError(tr._("Type whole numbers for the dragon's initiative, health and dice")) from None
        if health < 1 or dice < 1 or initiative < 0:
            raise CombatError(tr._("A dragon needs at least 1 health and 1 die"))
        return {"initiative": initiative, "health": health, "dice": dice}

    def start(self) -> None:
        """``fight_start`` in the session: the chosen dragon, the joined samurai with their gear and monks."""
        joined = [p for p in self.participants if p["joined"]]
        if self.start_reason:
            self.message = self.start_reason
            return
        if not joined:
            self.message = tr._("Choose at least one samurai to fight")
            return
        try:
            dragon: Any = self.dragon_id
            if self.custom:
                dragon = {"name": tr._("dragon"), **self._typed_stats(), "legendary": int(self.custom_health) > 30}
        except CombatError as error:
            self.message = str(error)
            return
        samurai = []
        for p in joined:
            entry: dict[str, Any] = {"player": p["name"], "gear": self._gear_source.gear_of(p["name"]).to_json()}
            if p["monk"] is not None:
                entry["heroic_monk"] = p["monk"]
            samurai.append(entry)
        self.message = ""
        self._send({"type": "fight_start", "dragon": dragon, "samurai": samurai})

    # ---- the session's fight ----------------------------------------------------------------
    def _send(self, command: Mapping[str, Any], then: Callable[[], None] | None = None,
              expected_state_id: int | None = None) -> None:
        """One fight command through the session (durable before ``then`` runs); errors become the message.
        ``expected_state_id``: the state the dice tray saw (a stale roll is refused by the engine)."""
        if self._game.open_game is None or self._game.phase not in ("playing", "final"):
            self.message = tr._("Start or resume a game first")
            return
        self.sending = True

        def done() -> None:
            self.sending = False
            if then is not None:
                then()

        def failed(text: str) -> None:
            self.sending = False
            self.message = text

        self._game.do(command, then=done, failed=failed, expected_state_id=expected_state_id)

    def _on_state(self, _game: Any, state: Mapping[str, Any]) -> None:
        raw = state.get("combat")
        path = self._game.path
        if path != self._game_path:
            # A game just opened (or resumed after a restart): a fight it finished earlier stays put away.
            self._game_path = path
            self._combat_raw = None
            if isinstance(raw, dict) and not raw.get("active"):
                self._dismissed = raw
        if raw == self._combat_raw:
            return
        self._combat_raw = raw
        if not isinstance(raw, dict) or raw.get("cancelled") or raw == self._dismissed:
            self._clear()
            return
        try:
            fight = Fight.from_json(raw, self.pack)
        except (KeyError, TypeError, ValueError) as error:
            self.message = f"{type(error).__name__}: {error}"  # a log from an older app version
            self._clear()
            return
        if raw.get("active"):
            self._dismissed = None
        elif self.pending:
            self.pending = {}
            self.choices = {}
        self.max_health = int(raw.get("max_health") or fight.health or 1)
        self.figure_id = str(raw.get("dragon_id") or "")
        self.recorded = not raw.get("active")
        self.fight = fight
        self.phase = "fight" if raw.get("active") else "over"
        self._refresh(raw)
        self._start_odds(fight)

    def _clear(self) -> None:
        was = self.phase
        self.fight = None
        self.phase = "setup"
        self.pending = {}
        self.choices = {}
        self.odds = {}
        self.odds_text = ""
        self.log = []
        self.whose = ""
        self.whose_text = ""
        self.can_retreat = []
        self.recorded = False
        self._odds_generation += 1
        self._stop_progress()
        if was != "setup":
            self.dice_text = ""
            self.dice_faces = []
            self.dice_total = ""
            self._on_players()

    def _on_game_event(self, _game: Any, event: Any) -> None:
        if event.kind != "fight_rolled":
            return
        try:
            rolls = [DiceRoll.from_json(r) for r in event.payload.get("rolls", [])]
        except DiceError:
            return
        if not self.rolling:
            self._show_dice(rolls)

    def _refresh(self, raw: Mapping[str, Any] | None = None) -> None:
        fight = self.fight
        if fight is None:
            self.whose_text = ""
            return
        raw = raw if raw is not None else (self._combat_raw or {})
        dragon = fight.dragon
        self.dragon_name = dragon.name if dragon is not None else ""
        self.dragon_title = dragon_title(self.figure_id, self.pack) if self.figure_id else self.dragon_name
        self.health = max(0, fight.health)
        self.order = list(fight.order)
        who = str(raw.get("whose_turn") or "") if not fight.is_over else ""
        self.whose = who
        if fight.is_over:
            self.whose_text = {
                Outcome.DRAGON_DEFEATED: tr._("The dragon is defeated!"),
                Outcome.SAMURAI_LOST: tr._("Every samurai is out; the dragon heals fully"),
            }.get(fight.outcome, tr._("The fight is over"))  # type: ignore[arg-type]
        elif who == DRAGON:
            self.whose_text = tr._("The dragon rolls")
        elif who.startswith("monk:"):
            self.whose_text = tr.f("{name}'s Heroic Monk throws", name=who.removeprefix("monk:"))
        else:
            self.whose_text = tr.f("{name} rolls", name=who)
        self.log = [coretext.translate(line).replace("★", "*") for line in fight.log]  # the UI font has no star
        names = []
        for f in fight.fighters:
            names.append({
                "name": f.name,
                "status": {Status.IN: tr._("in the fight"), Status.KNOCKED_OUT: tr._("knocked out"),
                           Status.RETREATED: tr._("retreated"), Status.SURRENDERED: tr._("surrendered")}[f.status],
                "helmet": fight.helmet_strength(f.name, self.pack),
                "teeth": f.teeth,
                "vp": f.vp,
            })
        self.fighters = names
        self.can_retreat = [str(n) for n in raw.get("can_retreat") or []]

    def _ready(self) -> Fight | None:
        """The fight if it waits for a roll now (not animating, not sending, no removal open)."""
        fight = self.fight
        if fight is None or self.phase != "fight" or self.rolling or self.sending or self.pending:
            return None
        return fight

    # ---- the dragon's roll ------------------------------------------------------------------
    def roll_for_dragon(self) -> None:
        """Animate the white dice, then the app's seeded roll goes to the session with the suggested removals."""
        fight = self._ready()
        if fight is None or self.whose != DRAGON:
            return
        assert fight.dragon is not None
        kinds = ["tooth"] * fight.dragon.dice
        seed = self._seed()
        dice = roll(kinds, self.pack.dice, seed=seed)
        self._animate(kinds, lambda: self._dragon_rolled(dice, {"seed": seed}))

    def _animate(self, kinds: list[str], then: Any) -> None:
        self.rolling = True
        self.dice_total = ""
        faces = {k: [str(f) for f in self.pack.dice[k].faces] for k in set(kinds)}
        cosmetic = random.Random()
        started = time.perf_counter()
        shown = [_face_text(cosmetic.choice(faces[k])) for k in kinds]
        ticks = 0

        def step(_dt: float) -> bool:
            nonlocal ticks
            if time.perf_counter() - started >= ANIMATION_SECONDS:
                self.rolling = False
                then()
                return False
            # A third of the dice tumble on each step: every frame re-renders only a few labels'
            # textures, which is what a software renderer pays for (benchmarks/ui.py).
            for i in range(ticks % 3, len(kinds), 3):
                shown[i] = _face_text(cosmetic.choice(faces[kinds[i]]))
            ticks += 1
            self.dice_faces = list(shown)
            return True

        self._animation = Clock.schedule_interval(step, ANIMATION_STEP)

    def _dragon_rolled(self, dice: DiceRoll, command: dict[str, Any], expected_state_id: int | None = None) -> None:
        started = time.perf_counter()
        try:
            self._dragon_rolled_now(dice, command, expected_state_id)
        finally:
            self.apply_ms = (time.perf_counter() - started) * 1000

    def _dragon_rolled_now(self, dice: DiceRoll, command: dict[str, Any], expected_state_id: int | None) -> None:
        """Send the dragon's roll with each samurai's suggested removal; alternatives stay open afterwards."""
        fight = self.fight
        assert fight is not None
        self._show_dice([dice])
        options: dict[str, list[Any]] = {}
        texts: dict[str, list[str]] = {}
        removals: dict[str, list[list[int]]] = {}
        magic: list[str] = []
        if dice.hits > 0:
            for f in fight.fighters:
                if not f.is_in:
                    continue
                helmet = f.gear.cubes("helmet")
                found = absorb_options(helmet, dice.hits, self.pack, magic="helmet" in f.gear.magic,
                                       blueprint=f.blueprints.get("helmet"))[:3]
                if not found or found[0].absorbed < dice.hits:
                    continue  # knocked out whatever is removed
                removals[f.name] = [list(c) for c in sorted(found[0].cells)]
                if found[0].magic_used:
                    magic.append(f.name)
                if len(found) > 1:
                    options[f.name] = found
                    texts[f.name] = [coretext.translate(o.describe(helmet)) if o.absorbed >= dice.hits
                                     else tr._("knocked out")
                                     for o in found]

        def sent() -> None:
            raw = self._combat_raw or {}
            if options and raw.get("helmet_choice_open"):
                self._pending_options = options
                self.choices = {name: 0 for name in options}
                self.pending = texts

        self._send({"type": "fight_roll", "who": DRAGON, **command, "removals": removals, "magic": magic}, sent,
                   expected_state_id)

    def choose_removal(self, name: str, index: int) -> None:
        choices = dict(self.choices)
        choices[name] = index
        self.choices = choices

    def apply_damage(self) -> None:
        """Each samurai who chose another helmet removal than the suggested one: ``fight_helmet``."""
        changed = {name: index for name, index in self.choices.items() if index}
        options = self._pending_options
        self.pending = {}
        self.choices = {}
        self._pending_options = {}
        for name, index in changed.items():
            option = options[name][index]
            self._send({"type": "fight_helmet", "player": name, "cells": [list(c) for c in sorted(option.cells)],
                        "magic": bool(option.magic_used)})

    def _relanguage(self) -> None:
        self._refresh()
        self._odds_lines()
        if self.dice_total:
            self.dice_total = tr.f("{n} hits", n=self._last_hits)

    def _show_dice(self, rolls: list[DiceRoll]) -> None:
        self.dice_faces = [_face_text(str(d.face)) for r in rolls for d in r.dice]
        hits = sum(r.hits for r in rolls)
        self._last_hits = hits
        self.dice_total = tr.f("{n} hits", n=hits)
        self.dice_text = "  ".join(self.dice_faces) + "  = " + self.dice_total

    # ---- the samurai's and the monks' rolls -------------------------------------------------
    def roll_for_samurai(self) -> None:
        """The app rolls for whoever acts (a samurai or a heroic monk): a seeded ``fight_roll``."""
        fight = self._ready()
        if fight is None:
            return
        who = self.whose
        if who == DRAGON:
            self.roll_for_dragon()
            return
        if not who:
            return
        self._send({"type": "fight_roll", "who": who, "seed": self._seed()})

    def dice_for_entry(self) -> list[tuple[str, str, list[str]]]:
        """(weapon or "dragon"/"monk", die kind, its distinct faces) for each die to type in."""
        fight = self.fight
        if fight is None or fight.is_over or self.phase != "fight":
            return []
        who = self.whose
        rows: list[tuple[str, str, list[str]]] = []

        def faces(kind: str) -> list[str]:
            return list(dict.fromkeys(str(f) for f in self.pack.dice[kind].faces))

        if who == DRAGON:
            assert fight.dragon is not None
            rows = [("dragon", "tooth", faces("tooth")) for _ in range(fight.dragon.dice)]
        elif who.startswith("monk:"):
            kind = str(fight.fighter(who.removeprefix("monk:")).heroic_monk)
            rows = [("monk", kind, faces(kind))]
        elif who:
            for hand, kinds in fight.dice_to_roll(who, self.pack):
                rows += [(hand, kind, faces(kind)) for kind in kinds]
        return rows

    def enter_dice(self, entries: list[tuple[str, str, str]], source: DiceSource = DiceSource.HAND,
                   expected_state_id: int | None = None) -> None:
        """Dice read off the table: (weapon or "dragon"/"monk", kind, face) per die, as a typed ``fight_roll``."""
        fight = self._ready()
        if fight is None:
            return
        who = self.whose
        by_hand: dict[str, list[list[Any]]] = {}
        for hand, kind, face in entries:
            by_hand.setdefault(hand, []).append([kind, int(face) if face.isdigit() else face])
        if who == DRAGON:
            pairs = by_hand.get("dragon", [])
            try:
                dice = from_faces([(k, parse_face(f"{k} die", f)) for k, f in pairs], self.pack.dice, source)
            except ValueError as error:
                self.message = str(error)
                return
            self._dragon_rolled(dice, {"dice": pairs, "source": source.value}, expected_state_id)
            return
        command: dict[str, Any] = {"type": "fight_roll", "who": who, "source": source.value}
        if who.startswith("monk:"):
            command["dice"] = by_hand.get("monk", [])
        else:
            command["weapons"] = [{"hand": hand, "dice": dice} for hand, dice in by_hand.items()]
        self._send(command, expected_state_id=expected_state_id)

    def tray_roll(self, dice: DiceRoll, state_id: int = -1) -> None:
        """Dice reported by the table's dice tray, matched to the dice this turn needs by kind. ``state_id``
        is the state the table showed when the dice fell (-1: the table did not know one yet)."""
        rows = self.dice_for_entry()
        if not rows:
            self.message = tr._("The dice tray rolled, but no fight is waiting for dice")
            return
        remaining = list(dice.dice)
        entries: list[tuple[str, str, str]] = []
        for hand, kind, _faces in rows:
            match = next((d for d in remaining if d.kind == kind), None)
            if match is not None:
                remaining.remove(match)
                entries.append((hand, kind, str(match.face)))
        if remaining or not entries:
            self.message = tr.f("The dice tray shows {dice}, which this roll does not use", dice=dice.describe())
            return
        self.enter_dice(entries, source=DiceSource.TRAY, expected_state_id=state_id if state_id >= 0 else None)

    def retreat(self, name: str) -> None:
        if self.fight is None or self.phase != "fight" or self.sending:
            return
        self._send({"type": "fight_retreat", "player": name})

    def undo_step(self, force: bool = False) -> None:
        """Close an open removal choice, else the session's undo (an app roll needs ``force``: the held button)."""
        if self.pending:
            self.pending = {}
            self.choices = {}
            self._pending_options = {}
            return
        self._game.undo(force=force)
        if self._game.error:
            self.message = self._game.error

    def close(self) -> None:
        self._odds_process.close()

    def end_fight(self) -> None:
        """"New fight" puts an ended fight away; "Stop the fight" abandons a running one (``fight_cancel``)."""
        if self.phase == "fight":
            self._send({"type": "fight_cancel", "reason": "stopped on the tablet"})
            return
        self._dismissed = self._combat_raw
        self._clear()

    # ---- odds -------------------------------------------------------------------------------
    def _start_odds(self, fight: Fight) -> None:
        self._odds_generation += 1
        generation = self._odds_generation
        pack = self.pack
        self.odds_busy = True
        self.odds_progress = 0.0
        self._odds_started = time.perf_counter()
        if self._progress_event is None:
            self._progress_event = Clock.schedule_interval(self._tick_progress, 0.1)

        def done(result: Any) -> None:
            if generation != self._odds_generation:
                return
            self._stop_progress()
            if isinstance(result, str):
                self.odds_text = result
                self.odds = {}
                return
            self.odds = result
            self._odds_lines()

        fight_json = fight.to_json()

        def submit(_dt: float) -> None:
            if generation == self._odds_generation:  # steps tapped in quick succession: only the last counts
                self._worker.submit(lambda: self._odds_process.run(fight_json, pack.raw, id(pack)), done)

        # Not in the frame that shows the new state: that frame is the busiest, the odds can wait for it.
        Clock.schedule_once(submit, ODDS_DELAY)

    def _tick_progress(self, _dt: float) -> None:
        elapsed = time.perf_counter() - self._odds_started
        if elapsed < PROGRESS_AFTER:
            return  # most odds arrive sooner: no progress bar flashing up, no redraw for it
        self.odds_slow = True
        self.odds_progress = min(0.95, 1 - 1 / (1 + elapsed * 2))  # keeps moving, never claims to be done
        if not self.odds_text.startswith(tr._("Computing the odds...")):
            self.odds_text = tr._("Computing the odds...")  # set once: re-fitting text every tick costs frames

    def _stop_progress(self) -> None:
        self.odds_busy = False
        self.odds_slow = False
        self.odds_progress = 1.0
        if self._progress_event is not None:
            self._progress_event.cancel()
            self._progress_event = None

    def _odds_lines(self) -> None:
        odds = self.odds
        if not odds:
            return
        lines = [tr.f("Dragon defeated: {p:.0%}", p=odds["p_dragon_defeated"])]
        for name, p in odds["p_knocked_out"].items():
            vp = odds["expected_vp"].get(name, 0.0)
            lines.append(tr.f("{name}: knocked out {p:.0%}, expected VP {vp:.1f}", name=name, p=p, vp=vp))
        if odds.get("p_no_end"):
            lines.append(tr.f("Never ends (nobody left can hit): {p:.0%}", p=odds["p_no_end"]))
        self.odds_text = "\n".join(lines)


def dragon_title(dragon_id: str, pack: DataPack) -> str:
    """ "Green 2" for the figure green_2; typed-in stats keep their name."""
    dragon = pack.dragons.get(dragon_id)
    if dragon is None:
        return dragon_id
    colour = {"blue": tr._("Blue"), "green": tr._("Green"), "red": tr._("Red"),
              "legendary": tr._("Legendary")}.get(dragon.colour, dragon.colour)
    number = dragon_id.rsplit("_", 1)[1] if "_" in dragon_id else ""
    return f"{colour} {number}".strip()


def _face_text(face: str) -> str:
    return f"{face[:-1]}*" if face.endswith("b") else face
