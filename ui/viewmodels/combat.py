"""A dragon fight at the table: setup, whose roll, the dragon's animated roll, helmet damage, odds.

:class:`CombatModel` drives :mod:`companion.combat` (the rules) and :mod:`companion.odds` (exact odds
after every step, computed in a worker process (:mod:`ui.oddsproc`) that a worker thread waits on;
the screen shows a progress bar meanwhile and never waits). App rolls are seeded and, when a game is
open, logged in the session as ``roll`` commands, so the game's log replays them; a defeated dragon
is recorded with ``dragon_defeated`` (the VP). The fight in progress is saved to ``ui-fight.json``
in the config dir after every step, so a restart brings it back.
"""

from __future__ import annotations

import json
import os
import random
import time
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

from companion.combat import (
    DRAGON,
    Combatant,
    CombatError,
    DragonStats,
    Fight,
    Mode,
    Outcome,
    Status,
    WeaponRoll,
    dragon_roll,
    monk_throw,
    retreat,
    samurai_roll,
    start_dragon_fight,
)
from companion.datapack import DataPack, parse_face
from companion.dice import DiceRoll, DiceSource, from_faces, roll
from companion.gear import absorb_options
from store.overrides import config_dir
from ui.oddsproc import OddsProcess
from ui.tr import tr
from ui.worker import Worker

FIGHT_FILE = "ui-fight.json"
MONK_CYCLE = (None, "wood", "metal", "tooth", "none")
ANIMATION_SECONDS = 0.9
ANIMATION_STEP = 1 / 30


def _seed() -> int:
    return random.SystemRandom().getrandbits(32)


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
    dice_text = StringProperty("")
    dice_faces = ListProperty([])  # the faces shown by the dice strip (animated while rolling)
    dice_total = StringProperty("")
    pending = DictProperty({})  # name -> [option texts] while the dragon's damage waits to be applied
    choices = DictProperty({})  # name -> chosen option index
    odds_busy = BooleanProperty(False)
    odds_progress = NumericProperty(0.0)
    odds_text = StringProperty("")
    odds = DictProperty({})
    message = StringProperty("")
    can_retreat = ListProperty([])
    recorded = BooleanProperty(False)
    apply_ms = NumericProperty(0.0)  # how long applying the last dragon roll took on the UI thread

    def __init__(self, game: Any, pack_model: Any, gear_source: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._game = game
        self._gear_source = gear_source
        self._worker = Worker("odds", settle=False)
        self._odds_process = OddsProcess()  # started by the first fight, not while the app opens
        self._save_worker = Worker("fight-save")
        self._history: list[Fight] = []
        self._odds_generation = 0
        self._odds_started = 0.0
        self._progress_event: Any = None
        self._animation: Any = None
        self._pending_roll: DiceRoll | None = None
        self._last_hits = 0
        self._pending_options: dict[str, list[Any]] = {}
        self.pack = pack_model.pack
        pack_model.bind(pack=lambda _m, pack: setattr(self, "pack", pack))
        game.bind(players=self._on_players, current_player=self._on_players)
        tr.bind(language=lambda *_: self._relanguage())
        self.dragon_id = next(iter(self.pack.dragons))
        self._on_players()
        self._restore()

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
        self.participants = [
            {"name": n, "joined": old.get(n, {}).get("joined", i == 0), "monk": old.get(n, {}).get("monk")}
            for i, n in enumerate(names)
        ]

    def choose_dragon(self, dragon_id: str) -> None:
        self.custom = dragon_id == "custom"
        if not self.custom:
            self.dragon_id = dragon_id

    def toggle_join(self, index: int) -> None:
        people = [dict(p) for p in self.participants]
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
        try:
            initiative = int(self.custom_initiative)
            health = int(self.custom_health)
            dice = int(self.custom_dice)
        except ValueError:
            raise CombatError(tr._("Type whole numbers for the dragon's initiative, health and dice")) from None
        if health < 1 or dice < 1 or initiative < 0:
            raise CombatError(tr._("A dragon needs at least 1 health and 1 die"))
        return DragonStats(name=tr._("dragon"), colour=None, initiative=initiative, health=health, dice=dice,
                           legendary=health > 30, vp=0, coop_teeth=0)

    def start(self) -> None:
        joined = [p for p in self.participants if p["joined"]]
        if not joined:
            self.message = tr._("Choose at least one samurai to fight")
            return
        try:
            dragon = self.dragon_stats()
            samurai = [Combatant(name=p["name"], gear=self._gear_source.gear_of(p["name"]), heroic_monk=p["monk"])
                       for p in joined]
            mode = Mode.COOP if self._game.mode == "coop" else Mode.COMPETITIVE
            fight = start_dragon_fight(dragon, samurai, self.pack, mode=mode,
                                       joining_allowed=int(self._game.scenario) != 1)
        except (CombatError, ValueError) as error:
            self.message = str(error)
            return
        self._history = []
        self.recorded = False
        self.message = ""
        self.figure_id = "" if self.custom else self.dragon_id
        self.max_health = fight.health
        self._set_fight(fight)

    # ---- fighting ---------------------------------------------------------------------------
    def _set_fight(self, fight: Fight, *, remember: Fight | None = None) -> None:
        if remember is not None:
            self._history.append(remember)
        self.fight = fight
        self.phase = "over" if fight.is_over else "fight"
        self._refresh()
        self._save()
        self._start_odds(fight)
        if fight.is_over:
            self._record_outcome(fight)

    def _refresh(self) -> None:
        fight = self.fight
        if fight is None:
            self.whose_text = ""
            return
        dragon = fight.dragon
        self.dragon_name = dragon.name if dragon is not None else ""
        self.dragon_title = dragon_title(self.figure_id, self.pack) if self.figure_id else self.dragon_name
        self.health = max(0, fight.health)
        self.order = list(fight.order)
        who = fight.whose_turn() or ""
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
        self.log = [line.replace("★", "*") for line in fight.log]  # the UI font has no star
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
        self.can_retreat = [f.name for f in fight.fighters if f.broke_this_turn and f.is_in]

    def roll_for_dragon(self) -> None:
        """Animate the white dice, then roll (seeded) and show the helmet damage to apply."""
        fight = self.fight
        if fight is None or fight.is_over or fight.whose_turn() != DRAGON or self.rolling or self.pending:
            return
        assert fight.dragon is not None
        kinds = ["tooth"] * fight.dragon.dice
        seed = _seed()
        dice = roll(kinds, self.pack.dice, seed=seed)
        self._log_roll({"type": "roll", "source": "app", "dice": kinds, "seed": seed,
                        "purpose": f"The {fight.dragon.name}"})
        self._animate(kinds, lambda: self._dragon_rolled(dice))

    def _animate(self, kinds: list[str], then: Any) -> None:
        self.rolling = True
        self.dice_total = ""
        faces = {k: [str(f) for f in self.pack.dice[k].faces] for k in set(kinds)}
        cosmetic = random.Random()
        started = time.perf_counter()

        def step(_dt: float) -> bool:
            if time.perf_counter() - started >= ANIMATION_SECONDS:
                self.rolling = False
                then()
                return False
            self.dice_faces = [_face_text(cosmetic.choice(faces[k])) for k in kinds]
            return True

        self._animation = Clock.schedule_interval(step, ANIMATION_STEP)

    def _dragon_rolled(self, dice: DiceRoll) -> None:
        started = time.perf_counter()
        try:
            self._dragon_rolled_now(dice)
        finally:
            self.apply_ms = (time.perf_counter() - started) * 1000

    def _dragon_rolled_now(self, dice: DiceRoll) -> None:
        fight = self.fight
        assert fight is not None
        self._show_dice([dice])
        self._pending_roll = dice
        options: dict[str, list[Any]] = {}
        texts: dict[str, list[str]] = {}
        if dice.hits > 0:
            for f in fight.fighters:
                if not f.is_in:
                    continue
                helmet = f.gear.cubes("helmet")
                found = absorb_options(helmet, dice.hits, self.pack, magic="helmet" in f.gear.magic,
                                       blueprint=f.blueprints.get("helmet"))[:3]
                options[f.name] = found
                texts[f.name] = [o.describe(helmet) if o.absorbed >= dice.hits else tr._("knocked out")
                                 for o in found]
        self._pending_options = options
        if not any(len(v) > 1 for v in options.values()):
            self._apply_dragon(dice, {})  # nothing to choose: apply at once
            return
        self.choices = {name: 0 for name in options}
        self.pending = texts

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

    def choose_removal(self, name: str, index: int) -> None:
        choices = dict(self.choices)
        choices[name] = index
        self.choices = choices

    def apply_damage(self) -> None:
        dice = self._pending_roll
        if dice is None:
            return
        removals = {}
        magic = []
        for name, index in self.choices.items():
            option = self._pending_options[name][index]
            removals[name] = option.cells
            if option.magic_used:
                magic.append(name)
        self._apply_dragon(dice, removals, magic)

    def _apply_dragon(self, dice: DiceRoll, removals: dict[str, Any], magic: list[str] | None = None) -> None:
        fight = self.fight
        assert fight is not None
        self.pending = {}
        self.choices = {}
        self._pending_roll = None
        try:
            new = dragon_roll(fight, dice, self.pack, removals=removals or None, use_magic=magic or ())
        except CombatError as error:
            self.message = str(error)
            return
        self._set_fight(new, remember=fight)

    def roll_for_samurai(self) -> None:
        """The app rolls for whoever acts (a samurai or a heroic monk), seeded and logged."""
        fight = self.fight
        if fight is None or fight.is_over or self.rolling or self.pending:
            return
        who = fight.whose_turn() or ""
        if who == DRAGON:
            self.roll_for_dragon()
            return
        seed = _seed()
        rolled: list[DiceRoll] = []
        try:
            if who.startswith("monk:"):
                name = who.removeprefix("monk:")
                kind = str(fight.fighter(name).heroic_monk)
                throw = roll([kind], self.pack.dice, seed=seed)
                rolled.append(throw)
                self._log_roll({"type": "roll", "source": "app", "dice": [kind], "seed": seed,
                                "purpose": f"{name}'s Heroic Monk"})
                new = monk_throw(fight, name, throw)
            else:
                rolls = []
                for i, (hand, kinds) in enumerate(fight.dice_to_roll(who, self.pack)):
                    s = (seed + i) & 0xFFFFFFFF
                    dice = roll(kinds, self.pack.dice, seed=s)
                    rolled.append(dice)
                    rolls.append(WeaponRoll(hand, dice))
                    self._log_roll({"type": "roll", "source": "app", "dice": kinds, "seed": s, "purpose": who})
                new = samurai_roll(fight, who, rolls, self.pack)
        except CombatError as error:
            self.message = str(error)
            return
        self._show_dice(rolled)
        self._set_fight(new, remember=fight)

    def dice_for_entry(self) -> list[tuple[str, str, list[str]]]:
        """(weapon or "dragon"/"monk", die kind, its distinct faces) for each die to type in."""
        fight = self.fight
        if fight is None or fight.is_over:
            return []
        who = fight.whose_turn() or ""
        rows: list[tuple[str, str, list[str]]] = []

        def faces(kind: str) -> list[str]:
            return list(dict.fromkeys(str(f) for f in self.pack.dice[kind].faces))

        if who == DRAGON:
            assert fight.dragon is not None
            rows = [("dragon", "tooth", faces("tooth")) for _ in range(fight.dragon.dice)]
        elif who.startswith("monk:"):
            kind = str(fight.fighter(who.removeprefix("monk:")).heroic_monk)
            rows = [("monk", kind, faces(kind))]
        else:
            for hand, kinds in fight.dice_to_roll(who, self.pack):
                rows += [(hand, kind, faces(kind)) for kind in kinds]
        return rows

    def enter_dice(self, entries: list[tuple[str, str, str]], source: DiceSource = DiceSource.HAND) -> None:
        """Apply dice read off the table: (weapon or "dragon"/"monk", kind, face) per die."""
        fight = self.fight
        if fight is None or fight.is_over:
            return
        who = fight.whose_turn() or ""
        try:
            by_hand: dict[str, list[tuple[str, Any]]] = {}
            for hand, kind, face in entries:
                value: int | str = int(face) if face.isdigit() else face
                by_hand.setdefault(hand, []).append((kind, parse_face(f"{kind} die", value)))
            for pairs in by_hand.values():
                self._log_roll({"type": "roll", "source": source.value,
                                "faces": [[k, str(f)] for k, f in pairs], "purpose": who})
            if who == DRAGON:
                dice = from_faces(by_hand.get("dragon", []), self.pack.dice, source)
                self._dragon_rolled(dice)
                return
            if who.startswith("monk:"):
                dice = from_faces(by_hand.get("monk", []), self.pack.dice, source)
                new = monk_throw(fight, who.removeprefix("monk:"), dice)
            else:
                rolls = [WeaponRoll(hand, from_faces(pairs, self.pack.dice, source)) for hand, pairs in by_hand.items()]
                new = samurai_roll(fight, who, rolls, self.pack)
        except (CombatError, ValueError) as error:
            self.message = str(error)
            return
        self._set_fight(new, remember=fight)

    def tray_roll(self, dice: DiceRoll) -> None:
        """Dice reported by the table's dice tray, matched to the dice this turn needs by kind."""
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
        self.enter_dice(entries, source=DiceSource.TRAY)

    def retreat(self, name: str) -> None:
        fight = self.fight
        if fight is None:
            return
        try:
            new = retreat(fight, name, self.pack)
        except CombatError as error:
            self.message = str(error)
            return
        self._set_fight(new, remember=fight)

    def undo_step(self) -> None:
        """Take back the last fight step (the session's undo barrier still guards its app rolls)."""
        if self.pending:
            self.pending = {}
            self.choices = {}
            self._pending_roll = None
            return
        if self._history:
            self._set_fight(self._history.pop())

    def close(self) -> None:
        self._odds_process.close()

    def end_fight(self) -> None:
        self.fight = None
        self.phase = "setup"
        self.pending = {}
        self.odds = {}
        self.odds_text = ""
        self.log = []
        self.dice_text = ""
        self.dice_faces = []
        self.dice_total = ""
        self._history = []
        self._odds_generation += 1
        self._save()
        self._on_players()

    # ---- the session ------------------------------------------------------------------------
    def _log_roll(self, command: dict[str, Any]) -> None:
        if self._game.open_game is not None and self._game.phase in ("playing", "final"):
            self._game.do(command)

    def _record_outcome(self, fight: Fight) -> None:
        if self.recorded or fight.outcome is not Outcome.DRAGON_DEFEATED or fight.dragon is None:
            return
        if self._game.open_game is None or not self.figure_id or self._game.phase not in ("playing", "final"):
            return
        winners = [f.name for f in fight.fighters if f.is_in]
        self.recorded = True
        self._game.do({"type": "dragon_defeated", "dragon": self.figure_id, "players": winners,
                       "final_blow": winners[-1] if len(winners) == 1 else None})

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
        self._worker.submit(lambda: self._odds_process.run(fight_json, pack.raw, id(pack)), done)

    def _tick_progress(self, _dt: float) -> None:
        elapsed = time.perf_counter() - self._odds_started
        self.odds_progress = min(0.95, 1 - 1 / (1 + elapsed * 2))  # keeps moving, never claims to be done
        if not self.odds_text.startswith(tr._("Computing the odds...")):
            self.odds_text = tr._("Computing the odds...")  # set once: re-fitting text every tick costs frames

    def _stop_progress(self) -> None:
        self.odds_busy = False
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
        self.odds_text = "\n".join(lines)

    # ---- saving -----------------------------------------------------------------------------
    def _save(self) -> None:
        fight = self.fight
        data = {"game": self._game.path, "fight": fight.to_json() if fight is not None else None,
                "max_health": self.max_health, "custom": self.custom, "figure": self.figure_id}
        file = config_dir() / FIGHT_FILE

        def write() -> None:
            file.parent.mkdir(parents=True, exist_ok=True)
            tmp = file.with_name(file.name + ".tmp")
            tmp.write_text(json.dumps(data), encoding="utf-8")
            os.replace(tmp, file)

        self._save_worker.submit(write)

    def _restore(self) -> None:
        try:
            data = json.loads((config_dir() / FIGHT_FILE).read_text(encoding="utf-8"))
            if not data.get("fight"):
                return
            fight = Fight.from_json(data["fight"], self.pack)
        except (OSError, ValueError, KeyError, TypeError):
            return
        self.max_health = int(data.get("max_health") or fight.health or 1)
        self.custom = bool(data.get("custom"))
        self.figure_id = str(data.get("figure") or "")
        self.recorded = fight.is_over
        self.fight = fight
        self.phase = "over" if fight.is_over else "fight"
        self._refresh()
        self._start_odds(fight)


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
