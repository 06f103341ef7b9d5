"""The view model of Shogun's screens (``app.shogun``): what each screen shows, as plain lists the ``.kv``
rules and the screens' button grids read, and what a tap does - always a command through ``app.game.do``.

No rule lives here: the choices (free, held or planned provinces, neighbours, ties, the winter's supply rows)
and whether a command throws cubes into the tower (a dry run) come from :mod:`games.shogun.views`; the
session refuses what the rules refuse, and the screen shows its sentence.

A button grid is a list of specs ``{"id", "text", "disabled", "down", "colour"}``; a tap on any of them
calls :meth:`ShogunModel.tap` with the id, which the id's prefix routes (``lay_castle``, ``bid_red_2``,
``prov_kozuke``, ``out_blue_plus`` ...).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from kivy.event import EventDispatcher
from kivy.properties import (
    BooleanProperty,
    DictProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)

from games.shogun import views
from ui import session as session_port
from ui.i18n import N_
from ui.tr import tr
from ui.worker import Worker

ROUND_SCREEN, BATTLE_SCREEN, WINTER_SCREEN, SCORING_SCREEN = (
    "shogun_round", "shogun_battle", "shogun_winter", "shogun_scoring")

ACTION_NAMES = {"castle": N_("Build castle"), "temple": N_("Build temple"), "theatre": N_("Build theatre"),
                "rice": N_("Confiscate rice"), "taxes": N_("Collect taxes"), "deploy5": N_("Deploy 5"),
                "deploy3": N_("Deploy 3"), "deploy1": N_("Deploy/Move 1"), "battle_a": N_("Battle/Move A"),
                "battle_b": N_("Battle/Move B")}
SPECIAL_NAMES = {"chest_plus_1": N_("+1 chest"), "rice_plus_1": N_("+1 rice"), "six_armies": N_("6 armies"),
                 "attack_plus_1": N_("+1 army attacking"), "defence_plus_1": N_("+1 army defending")}
SEASON_NAMES = {"setup": N_("Setup"), "spring": N_("Spring"), "summer": N_("Summer"), "autumn": N_("Autumn"),
                "winter": N_("Winter")}
COLOUR_NAMES = {"blue": N_("blue"), "red": N_("red"), "yellow": N_("yellow"), "purple": N_("purple"),
                "black": N_("black"), "green": N_("green")}
REGION_NAMES = {"kanto": N_("Kanto"), "tokai": N_("Tokai"), "hokuriku": N_("Hokuriku"), "kinai": N_("Kinai"),
                "chugoku": N_("Chugoku")}
BUILDING_NAMES = {"castle": N_("castles"), "temple": N_("temples"), "theatre": N_("theatres")}
WINNERS = {"attacker": N_("the attacker wins"), "defender": N_("the defender holds"), "draw": N_("a draw")}
COLOURS: dict[str, tuple[float, float, float, float]] = {
    "blue": (0.25, 0.52, 0.95, 1), "red": (0.90, 0.25, 0.22, 1), "yellow": (0.95, 0.80, 0.20, 1),
    "purple": (0.66, 0.42, 0.90, 1), "black": (0.30, 0.30, 0.33, 1), "green": (0.30, 0.75, 0.38, 1)}
MOVING = ("battle_a", "battle_b", "deploy1")


def colour_rgba(colour: str) -> tuple[float, float, float, float]:
    return COLOURS.get(colour, (0.22, 0.24, 0.29, 1))


def colour_name(colour: str) -> str:
    return str(tr._(COLOUR_NAMES.get(colour, colour)))


def counts_text(counts: dict[str, int]) -> str:
    parts = [f"{n} {colour_name(c)}" for c, n in sorted(counts.items()) if n]
    return ", ".join(parts) or tr._("nothing")


def spec(ident: str, text: str, *, disabled: bool = False, down: bool = False, colour: str = "") -> dict[str, Any]:
    return {"id": ident, "text": text, "disabled": disabled, "down": down, "colour": colour}


class ShogunModel(EventDispatcher):  # type: ignore[misc]
    app = ObjectProperty(None)
    loaded = BooleanProperty(False)
    phase = StringProperty("")
    mapped = BooleanProperty(True)
    randomisers = BooleanProperty(True)
    title = StringProperty("")
    prompt = StringProperty("")
    calendar_spaces = ListProperty([])
    calendar_labels = ListProperty([])
    calendar_position = NumericProperty(0)
    action_cells = ListProperty([])
    player_lines = ListProperty([])
    last = StringProperty("")
    failures = ListProperty([])
    # the phase panels' grids and texts
    grids = DictProperty({})
    panel = StringProperty("")  # which panel of the round screen shows: setup, seed, lay_out, event, bids ...
    selection = StringProperty("")
    armies = NumericProperty(1)
    can_go = BooleanProperty(False)
    moving = BooleanProperty(False)  # the action moves armies: a target and a number of armies
    can_draw = BooleanProperty(False)
    drawing = BooleanProperty(False)  # a winter revolt's provinces are being drawn
    winter_panel = StringProperty("idle")
    # the province picker
    picker_title = StringProperty("")
    picker = ListProperty([])
    picker_open = BooleanProperty(False)
    # the throw (battle helper)
    throw_active = BooleanProperty(False)
    throw_done = BooleanProperty(False)
    throw_title = StringProperty("")
    throw_goes_in = StringProperty("")
    throw_odds = StringProperty("")
    throw_record = StringProperty("")
    throw_result = StringProperty("")
    last_outcome = StringProperty("")
    photo_note = StringProperty("")  # what counting the tray from a photo said
    tower_text = StringProperty("")
    counts = DictProperty({})
    # winter
    loss = NumericProperty(0)
    winter_text = StringProperty("")
    winter_lines = ListProperty([])
    # scoring
    score_rows = ListProperty([])
    chart = ListProperty([])
    chart_max = NumericProperty(30)
    winner_text = StringProperty("")
    export_text = StringProperty("")

    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app=app, **kwargs)
        self._lay: dict[str, list[str]] = {"actions": [], "specials": [], "events": []}
        self._bids: dict[str, dict[str, Any]] = {}
        self._tie_taps: list[str] = []
        self._source: str | None = None
        self._target: str | None = None
        self._purpose = ""
        self._throw: dict[str, Any] | None = None
        self._throw_back = ROUND_SCREEN
        self._supply: dict[str, dict[str, int]] = {}
        self._drawn: list[str] = []
        self._key: tuple[Any, ...] = ()
        self._grids: dict[str, list[dict[str, Any]]] = {}
        self._worker = Worker("export")
        app.game.bind(state=self.refresh)
        tr.bind(language=self.refresh)
        self.refresh()

    # ---- the session (read on the Kivy thread: states are immutable) ------------------------------
    def _session(self) -> Any:
        game = self.app.game.open_game
        session = getattr(game, "session", None)
        if session is None or getattr(session.game, "name", "") != "shogun":
            return None
        return session

    def _rs(self) -> tuple[Any, Any]:
        session = self._session()
        return (session.game, session.state) if session is not None else (None, None)

    def do(self, command: dict[str, Any], then: Any = None) -> None:
        self.app.game.do(command, then=then, failed=self._failed)

    def _failed(self, message: str) -> None:
        self.failures = [*self.failures, message]

    def name(self, state: Any, player: str | None) -> str:
        return str(state.name(player)) if player else ""

    def pname(self, rules: Any, state: Any, pid: str | None) -> str:
        return views.province_name(rules, state, pid) if pid else ""

    # ---- refresh: the state into lists ------------------------------------------------------------
    def refresh(self, *_: Any) -> None:
        rules, state = self._rs()
        self.loaded = state is not None
        if state is None:
            self.phase, self.title, self.prompt, self.grids, self.panel = "", tr._("No game yet"), "", {}, ""
            self.player_lines, self.action_cells, self.score_rows, self.chart = [], [], [], []
            self._grids = {}
            return
        key = (state.phase, state.round, state.position, state.actor, len(state.spaces),
               views.active_player(rules, state), tuple((w.drawn, w.done_count) for w in state.winter.values()))
        if key != self._key:  # the game moved on: the half-made choices of the last step are dropped
            self._key = key
            self._source = self._target = None
            self.armies = 1
            if state.phase != "bids":
                self._bids, self._tie_taps = {}, []
            if state.phase != "lay_out":
                self._lay = {"actions": [], "specials": [], "events": []}
            if state.phase != "winter_supply":
                self._supply = {}
            self._drawn = []
            if state.phase == "winter_supply":
                known = views.winter_card_loss(rules, state)
                self.loss = known if known is not None else 0
        self.phase = state.phase
        self.mapped = state.mapped
        self.randomisers = state.randomisers
        season = tr._(SEASON_NAMES.get(state.season, state.season))
        year = 1 if state.round <= 4 else 2
        self.title = (tr.f("Year {year} - {season} - round {n} of 8", year=year, season=season, n=state.round)
                      if state.round else tr._("Setup"))
        self.calendar_spaces = ["end" if r % 4 == 0 else "nothing" for r in range(1, 9)]
        self.calendar_labels = [tr._(SEASON_NAMES[s]) for s in ("spring", "summer", "autumn", "winter") * 2]
        self.calendar_position = state.round
        self.last = self.app.game.last_description
        self._players(rules, state)
        self._action_cells(rules, state)
        self._panels(rules, state)
        self._winter(rules, state)
        self._scoring(rules, state)
        self._tower(rules, state)
        if not self.counts:
            self.counts = {c: 0 for c in [*state.players, "green"]}
        self._grids["counts"] = self._count_specs()
        if self._throw is not None and not self.throw_done:
            self._throw_texts(rules, state)
        shown = state.phase in ("event", "specials", "actions")  # the round's row (not beside the bids: room)
        self._grids["cells"] = [spec(f"cell_{i}", c["text"], disabled=True, down=c["current"])
                                for i, c in enumerate(self.action_cells)] if shown else []
        self._grids["picker"] = list(self.picker)
        self.grids = dict(self._grids)

    def _players(self, rules: Any, state: Any) -> None:
        lines = []
        order = list(state.turn_order) or list(state.players)
        for p in order:
            special = ""
            if p in state.spaces:
                special = tr._(SPECIAL_NAMES.get(state.special_row[state.spaces[p] - 1], ""))
            lines.append({"colour": p, "name": self.name(state, p), "special": special,
                          "text": tr.f("{chests} chests, {rice} rice, {vp} VP, {supply} armies in supply",
                                       chests=state.chests[p], rice=state.rice[p], vp=state.vp[p],
                                       supply=state.supply[p]),
                          "provinces": state.province_count(p)})
        self.player_lines = lines

    def _action_cells(self, rules: Any, state: Any) -> None:
        cells = []
        for card in views.action_row(rules, state) if state.action_row else []:
            text = tr._(ACTION_NAMES[card["card"]]) if card["card"] else "?"
            cells.append({"text": f"{card['position']}. {text}", "current": card["current"],
                          "done": state.phase == "actions" and card["position"] - 1 < state.position})
        self.action_cells = cells

    # ---- the round screen's panels --------------------------------------------------------------
    def _panels(self, rules: Any, state: Any) -> None:
        grids: dict[str, list[dict[str, Any]]] = {}
        phase = state.phase
        player = views.active_player(rules, state)
        who = self.name(state, player)
        self.selection = ""
        self.can_go = False
        self.moving = False
        if phase == "setup":
            if player is not None:
                self.panel = "draft"
                self.prompt = tr.f("{name}: choose a free province, then the size of the group placed there",
                                   name=who)
                self.selection = self.pname(rules, state, self._source) or tr._("no province chosen")
                grids["groups"] = [spec(f"group_{n}", tr.f("Place {n}", n=n), disabled=self._source is None)
                                   for n in views.draft_groups(state, player)]
            else:
                self.panel = "seed"
                self.prompt = tr.f("Seed the tower: throw in 7 cubes of each player and {n} green, then count "
                                   "what fell out", n=rules.pack.seed_green)
        elif phase == "lay_out":
            self.panel = "lay_out"
            spring = state.season == "spring"
            self.prompt = (tr._("Lay out the action cards (in their order), the special cards and the year's 4 "
                                "events") if spring else tr._("Lay out the action cards (in their order) and the "
                                                             "special cards"))
            lay = self._lay
            grids["lay_actions"] = [spec(f"lay_{a}", self._numbered(tr._(ACTION_NAMES[a]), a, lay["actions"]),
                                         down=a in lay["actions"]) for a in ACTION_NAMES]
            grids["lay_specials"] = [spec(f"lay_{s}", self._numbered(tr._(SPECIAL_NAMES[s]), s, lay["specials"]),
                                          down=s in lay["specials"]) for s in SPECIAL_NAMES]
            remaining = [e for e in rules.pack.events if e not in state.events_used] if spring else []
            grids["lay_events"] = [spec(f"lay_{e}", self._event_label(rules, e), down=e in lay["events"],
                                        disabled=len(lay["events"]) >= 4 and e not in lay["events"])
                                   for e in remaining]
            self.can_go = (len(lay["actions"]) >= 5 and len(lay["specials"]) == 5
                           and (len(lay["events"]) == 4 or not spring))
        elif phase == "event":
            self.panel = "event"
            self.prompt = tr._("Everybody plans and bids in secret; then draw the round's event")
            grids["events"] = [spec(f"event_{e}", self._event_label(rules, e)) for e in state.events_face_up]
        elif phase == "bids":
            self.panel = "bids"
            self._bids_panel(rules, state, grids)
        elif phase == "specials":
            self.panel = "specials"
            self.prompt = tr.f("{name} takes a special card", name=who)
            taken = {space: p for p, space in state.spaces.items()}
            grids["specials"] = [
                spec(f"special_{card}", tr._(SPECIAL_NAMES[card]) + (f" ({self.name(state, taken[i + 1])})"
                                                                      if i + 1 in taken else ""),
                     disabled=i + 1 in taken, colour=taken.get(i + 1, ""))
                for i, card in enumerate(state.special_row)]
        elif phase == "actions" and state.mapped:
            self._actions_panel(rules, state, grids, who)
        elif phase == "actions":
            self.panel = "nomap"
            self.prompt = tr._("Play the round's actions at the table, then end them here")
        else:
            self.panel = "elsewhere"
            self.prompt = {"winter_supply": tr._("Winter: see the Winter screen"),
                           "winter_revolts": tr._("Winter revolts: see the Winter screen"),
                           "scoring": tr._("Score the winter on the Scoring screen"),
                           "over": tr._("The game is over: see the Scoring screen")}.get(phase, "")
        self._grids = grids

    @staticmethod
    def _numbered(text: str, key: str, chosen: list[str]) -> str:
        return f"{chosen.index(key) + 1}. {text}" if key in chosen else text

    def _event_label(self, rules: Any, event: str) -> str:
        card = rules.pack.events[event]
        return str(tr.f("Event {n}", n=int(event[1:]))) + (f": {card.text}" if card.tax_cap is not None else "")

    def _bids_panel(self, rules: Any, state: Any, grids: dict[str, list[dict[str, Any]]]) -> None:
        self.prompt = tr._("Enter the revealed bids: everybody pays their own bid")
        ties = views.bid_ties(state, self._bids)
        tied = {p for t in ties for p in t}
        taps = [p for p in self._tie_taps if p in tied]
        rows: list[dict[str, Any]] = []
        for p in state.players:
            bid = self._bids.get(p, {"none": True})
            # a player whose bid equals another's: tap the names in the order of the shuffled daimyo cards
            order = f"{taps.index(p) + 1}. " if p in taps else ""
            rows.append(spec(f"tie_{p}" if p in tied else f"bidder_{p}", order + self.name(state, p), colour=p,
                             disabled=p not in tied, down=p in taps))
            rows.append(spec(f"bid_{p}_none", tr._("No bid"), down="none" in bid))
            rows += [spec(f"bid_{p}_{n}", str(n), down=bid.get("war_chest_card") == n,
                          disabled=n > state.chests[p]) for n in range(5)]
            province = bid.get("province_card")
            rows.append(spec(f"bid_{p}_province", self.pname(rules, state, province) or tr._("Province card"),
                             down=province is not None))
        grids["bids"] = rows
        if ties:
            self.prompt = tr._("Equal bids: tap their names in the order of the shuffled daimyo cards")
        self.can_go = not ties or len(taps) == sum(len(t) for t in ties)

    def _actions_panel(self, rules: Any, state: Any, grids: dict[str, list[dict[str, Any]]], who: str) -> None:
        action = state.current_action
        if action is None:
            self.panel = "reveal"
            self.prompt = tr.f("Turn up action card {n}", n=state.position + 1)
            grids["reveal"] = [spec(f"reveal_{a}", tr._(ACTION_NAMES[a])) for a in ACTION_NAMES
                               if a not in state.action_row]
            return
        self.panel = "act"
        self.moving = action in MOVING
        self.prompt = tr.f("{name}: {action} - reveal the card on this space", name=who,
                           action=tr._(ACTION_NAMES[action]))
        source = self.pname(rules, state, self._source) or tr._("no card (pass)")
        if action in MOVING and self._source:
            target = self.pname(rules, state, self._target) or tr._("stays")
            self.selection = tr.f("{source} -> {target}, {n} armies", source=source, target=target,
                                  n=int(self.armies))
        else:
            self.selection = source
        self.can_go = self._source is not None and (action not in ("battle_a", "battle_b") or bool(self._target))

    # ---- taps ---------------------------------------------------------------------------------------
    def tap(self, ident: str) -> None:
        rules, state = self._rs()
        if state is None:
            return
        kind, _, rest = ident.partition("_")
        handler = getattr(self, f"_tap_{kind}", None)
        if handler is not None:
            handler(rules, state, rest)
        self.refresh()

    def _tap_bidder(self, rules: Any, state: Any, rest: str) -> None:
        pass

    def _tap_group(self, rules: Any, state: Any, size: str) -> None:
        player = views.active_player(rules, state)
        if self._source is not None:
            self.do({"type": "place", "player": player, "province": self._source, "armies": int(size)})

    def _tap_lay(self, rules: Any, state: Any, card: str) -> None:
        row = ("actions" if card in ACTION_NAMES else "specials" if card in SPECIAL_NAMES else "events")
        chosen = self._lay[row]
        self._lay[row] = [c for c in chosen if c != card] if card in chosen else [*chosen, card]

    def _tap_event(self, rules: Any, state: Any, event: str) -> None:
        self.do({"type": "draw_event", "event": event})

    def _tap_bid(self, rules: Any, state: Any, rest: str) -> None:
        player, _, value = rest.rpartition("_")
        if value == "none":
            self._bids[player] = {"none": True}
        elif value == "province":
            self.open_picker("bid_" + player)
        else:
            self._bids[player] = {"war_chest_card": int(value)}
        self._tie_taps = []

    def _tap_tie(self, rules: Any, state: Any, player: str) -> None:
        taps = self._tie_taps
        self._tie_taps = [p for p in taps if p != player] if player in taps else [*taps, player]

    def _tap_special(self, rules: Any, state: Any, card: str) -> None:
        self.do({"type": "take_special", "player": views.active_player(rules, state), "card": card})

    def _tap_reveal(self, rules: Any, state: Any, card: str) -> None:
        self.do({"type": "reveal_action", "action": card})

    def _tap_prov(self, rules: Any, state: Any, pid: str) -> None:
        purpose = self._purpose
        self.picker_open = False
        if purpose == "target":
            self._target = pid
        elif purpose.startswith("bid_"):
            self._bids[purpose[4:]] = {"province_card": pid}
        else:
            self._source = pid
            self._target = None

    def _tap_draw(self, rules: Any, state: Any, pid: str) -> None:
        self._drawn = [p for p in self._drawn if p != pid] if pid in self._drawn else [*self._drawn, pid]

    def _tap_revolt(self, rules: Any, state: Any, pid: str) -> None:
        self.begin_throw({"type": "winter_revolt", "province": pid}, WINTER_SCREEN)

    def _tap_sup(self, rules: Any, state: Any, rest: str) -> None:
        player, what, sign = rest.split("_")
        entry = self._supply.setdefault(player, {"revolts": 0, "extra_peasants": 0})
        key = "revolts" if what == "revolts" else "extra_peasants"
        entry[key] = max(0, entry[key] + (1 if sign == "plus" else -1))

    def _tap_out(self, rules: Any, state: Any, rest: str) -> None:
        colour, _, sign = rest.rpartition("_")
        if sign in ("plus", "minus"):
            counts = dict(self.counts)
            counts[colour] = max(0, counts.get(colour, 0) + (1 if sign == "plus" else -1))
            self.counts = counts

    # ---- buttons with their own ids ---------------------------------------------------------------
    def open_picker(self, purpose: str) -> None:
        rules, state = self._rs()
        if state is None:
            return
        player = views.active_player(rules, state)
        if purpose == "target" and self._source:
            options = views.neighbours(rules, state, self._source)
            self.picker_title = tr.f("Into which province from {source}?",
                                     source=self.pname(rules, state, self._source))
        elif purpose.startswith("bid_"):
            options = views.held_provinces(rules, state, purpose[4:])
            self.picker_title = tr.f("{name} bids a province card", name=self.name(state, purpose[4:]))
        elif state.phase == "setup":
            options = views.free_provinces(rules, state)
            self.picker_title = tr.f("{name} places a group in", name=self.name(state, player))
        else:
            options = views.planned_provinces(rules, state, player or "")
            self.picker_title = tr.f("{name}: the province card on this space", name=self.name(state, player))
        self._purpose = purpose
        self.picker = [spec(f"prov_{pid}", self._province_label(rules, state, pid),
                            colour=state.provinces[pid].owner or "") for pid in options]
        self._grids["picker"] = self.picker
        self.grids = dict(self._grids)
        self.picker_open = True

    def _province_label(self, rules: Any, state: Any, pid: str) -> str:
        province = state.provinces[pid]
        region = tr._(REGION_NAMES.get(views.province_region(rules, state, pid), ""))
        armies = f" ({province.armies})" if province.owner else ""
        return f"{self.pname(rules, state, pid)}{armies}\n{region}"

    def close_picker(self) -> None:
        self.picker_open = False

    def change_armies(self, step: int) -> None:
        self.armies = max(1, int(self.armies) + step)
        self.refresh()

    def pass_action(self) -> None:
        _, state = self._rs()
        if state is not None:
            self.do({"type": "act", "player": state.current_player, "province": None})

    def carry_out(self) -> None:
        rules, state = self._rs()
        if state is None or self._source is None:
            return
        command: dict[str, Any] = {"type": "act", "player": state.current_player, "province": self._source}
        if state.current_action in MOVING and self._target:
            command.update(to=self._target, armies=int(self.armies))
        preview = views.throw_preview(rules, state, command)
        if preview is not None:
            self.begin_throw(command, ROUND_SCREEN, preview)
        else:
            self.do(command)

    def end_actions(self) -> None:
        self.do({"type": "end_actions"})

    def deal_start(self) -> None:
        self.do({"type": "deal_start", "draw": True})

    def seed_tower(self) -> None:
        self.begin_throw({"type": "seed_tower"}, ROUND_SCREEN)

    def lay_out(self, draw: bool = False) -> None:
        _, state = self._rs()
        if state is None:
            return
        if draw:
            self.do({"type": "lay_out", "draw": True})
            return
        command: dict[str, Any] = {"type": "lay_out", "actions": self._lay["actions"],
                                   "specials": self._lay["specials"]}
        if state.season == "spring":
            command["events"] = self._lay["events"]
        self.do(command)

    def draw_event(self) -> None:
        self.do({"type": "draw_event", "draw": True})

    def reveal_bids(self, draw: bool = False) -> None:
        _, state = self._rs()
        if state is None:
            return
        command: dict[str, Any] = {"type": "bids", "bids": {p: self._bids.get(p, {"none": True})
                                                            for p in state.players}}
        ties = views.bid_ties(state, self._bids)
        if draw:
            command["draw"] = True
        elif ties:
            command["tie_orders"] = [[p for p in self._tie_taps if p in t] for t in ties]
        self.do(command)

    # ---- the throw (battle helper) ------------------------------------------------------------------
    def begin_throw(self, command: dict[str, Any], back: str, preview: dict[str, Any] | None = None) -> None:
        rules, state = self._rs()
        if state is None:
            return
        preview = preview or views.throw_preview(rules, state, command)
        if preview is None:  # nothing to throw after all: the session says why (or does it)
            self.do(command)
            return
        self._throw = {"command": command, "preview": preview}
        self._throw_back = back
        self.counts = {c: 0 for c in [*state.players, "green"]}
        self.throw_done = False
        self.throw_result = ""
        self.throw_active = True
        self.refresh()
        self.app.go(BATTLE_SCREEN)

    def _count_specs(self) -> list[dict[str, Any]]:
        """Per colour: -, the count so far, + (three columns)."""
        out: list[dict[str, Any]] = []
        for c, n in self.counts.items():
            out += [spec(f"out_{c}_minus", "-", disabled=n == 0 or self.throw_done),
                    spec(f"out_{c}_count", f"{colour_name(c)}: {n}", colour=c, disabled=True),
                    spec(f"out_{c}_plus", "+", disabled=self.throw_done)]
        return out

    def _throw_texts(self, rules: Any, state: Any) -> None:
        assert self._throw is not None
        preview = self._throw["preview"]
        command = self._throw["command"]
        kind = preview["kind"]
        if kind == "seed":
            self.throw_title = tr._("Seeding the tower (spec 2.5)")
        elif command["type"] == "winter_revolt":
            self.throw_title = tr.f("Winter revolt in {province}",
                                    province=self.pname(rules, state, command["province"]))
        elif kind == "revolt":
            self.throw_title = tr.f("Revolt in {province} (a revolt token is there)",
                                    province=self.pname(rules, state, command["province"]))
        else:
            self.throw_title = tr.f("{attacker} attacks {target} from {source}",
                                    attacker=self.name(state, preview["attacker"]),
                                    target=self.pname(rules, state, command.get("to")),
                                    source=self.pname(rules, state, command.get("province")))
        tray = {c: n for c, n in preview["tray"].items() if n}
        self.throw_goes_in = tr.f("Throw in at once: {cubes}", cubes=counts_text(preview["added"])) + (
            "\n" + tr.f("and the tray: {cubes}", cubes=counts_text(tray)) if tray else "")
        odds = preview.get("odds")
        if odds:
            model = odds["model"]
            self.throw_odds = tr.f("Odds: attacker {a:.0%}, draw {d:.0%}, defender {b:.0%}", a=odds["p_attacker"],
                                   d=odds["p_draw"], b=odds["p_defender"]) + "\n" + tr.f(
                "Tower model: {status}, fitted from {n} throws", status=model["status"],
                n=model["fitted_from_n_throws"])
            record = preview.get("track_record") or {}
            if record.get("battles"):
                self.throw_record = tr.f(
                    "Track record: {n} battles; the outcome seen had {p:.0%} on average; cubes out expected "
                    "{e}, counted {o}", n=record["battles"], p=record["mean_p_of_observed"] or 0.0,
                    e=record["cubes_out_expected"], o=record["cubes_out_observed"])
            else:
                self.throw_record = tr._("Track record: no battle recorded yet")
        else:
            self.throw_odds = ""
            self.throw_record = ""

    def count_from_photo(self) -> None:
        """Count the tray from the camera (Settings): the colours the reader is sure of fill the counts;
        the others keep what was entered and are named, to be counted by hand."""
        from ui.hardware import grab_image

        source = self.app.settings.camera
        rules, _state = self._rs()
        if rules is None:
            return

        def read() -> Any:
            from games.shogun.photo import read_tray

            return read_tray(grab_image(source), rules.pack)

        def done(reading: Any) -> None:
            counts = dict(self.counts)
            for colour, n in reading.counts.items():
                if colour in counts and n is not None:
                    counts[colour] = n
            self.counts = counts
            unsure = [colour_name(c) for c, n in reading.counts.items() if n is None and c in counts]
            notes = [tr.f("Count by hand: {colours}", colours=", ".join(unsure))] if unsure else []
            if reading.retake:
                notes.append(reading.retake)
            self.photo_note = "\n".join(notes) or tr._("Counted from the photo: check the counts")
            self.refresh()

        def failed(error: BaseException) -> None:
            self.photo_note = str(error)

        self.photo_note = tr._("Reading the photo...")
        self._worker.submit(read, done, failed)

    def record_throw(self) -> None:
        if self._throw is None:
            return
        out = {c: n for c, n in self.counts.items() if n}
        self.do({**self._throw["command"], "out": out}, then=self._thrown)

    def correct_throw(self) -> None:
        out = {c: n for c, n in self.counts.items() if n}
        self.do({"type": "correct_throw", "out": out}, then=self._thrown)

    def fell_out(self) -> None:
        out = {c: n for c, n in self.counts.items() if n}
        if out:
            self.do({"type": "fell_out", "out": out}, then=self._zero_counts)

    def _zero_counts(self) -> None:
        self.counts = {c: 0 for c in self.counts}
        self.refresh()

    def _thrown(self) -> None:
        rules, state = self._rs()
        self.throw_done = True
        throws = state.tower.throws if state is not None else ()
        outcome = throws[-1].outcome if throws else None
        self.last_outcome = outcome or ""
        said = self.app.game.last_description
        self.throw_result = (tr._(WINNERS[outcome]) + "\n" + said) if outcome in WINNERS else said

    def continue_after_throw(self) -> None:
        self._throw = None
        self.counts = {}
        self.throw_active = False
        self.throw_done = False
        self.refresh()
        self.app.go(self._throw_back)

    def follow_phase(self, screen: str) -> None:
        """The game's phase changed while a throw's result is on screen: Continue goes there."""
        self._throw_back = screen

    def _tower(self, rules: Any, state: Any) -> None:
        lines = [tr.f("Inside the tower: {cubes}", cubes=counts_text(dict(state.tower.inside))),
                 tr.f("In the tray: {cubes}", cubes=counts_text(dict(state.tower.tray)))]
        bad = [line["colour"] for line in views.audit(rules, state) if line["ok"] is False]
        lines.append(tr.f("Cube count does not add up for: {colours}", colours=", ".join(bad)) if bad
                     else tr._("Every colour's cubes add up (board + supply + tower + tray)"))
        self.tower_text = "\n".join(lines)

    # ---- winter -----------------------------------------------------------------------------------
    def change_loss(self, step: int) -> None:
        self.loss = max(0, int(self.loss) + step)
        self.refresh()

    def _winter(self, rules: Any, state: Any) -> None:
        grids = self._grids
        lines: list[str] = []
        self.can_draw = False
        self.drawing = False
        self.winter_panel = {"winter_supply": "supply", "winter_revolts": "revolts"}.get(state.phase, "idle")
        if state.phase == "winter_supply":
            self.winter_text = tr.f("Winter: the event's rice loss is {n}", n=int(self.loss))
            if views.winter_card_loss(rules, state) is None:
                self.winter_text += " - " + tr._("read it from the lower half of the winter event card")
            supply_rows: list[dict[str, Any]] = []
            for p, row in views.winter_preview(rules, state, int(self.loss)).items():
                text = tr.f("{name}: {rice} rice for {provinces} provinces, {unsupplied} unfed",
                            name=self.name(state, p), rice=row["rice_after_loss"], provinces=state.province_count(p),
                            unsupplied=row["unsupplied_provinces"])
                if row.get("unknown"):
                    entry = self._supply.setdefault(p, {"revolts": 0, "extra_peasants": 0})
                    text += " - " + tr._("the data pack does not know this row: enter it from your board")
                    supply_rows += [spec(f"sup_{p}_revolts_minus", "-", colour=p),
                                    spec(f"sup_{p}_revolts_plus", tr.f("{n} revolts +", n=entry["revolts"]),
                                         colour=p),
                                    spec(f"sup_{p}_extra_minus", "-", colour=p),
                                    spec(f"sup_{p}_extra_plus", tr.f("{n} extra peasants +",
                                                                    n=entry["extra_peasants"]), colour=p)]
                elif row["revolting_provinces"]:
                    text += " - " + tr.f("{n} revolts, +{extra} peasants each", n=row["revolting_provinces"],
                                         extra=row["extra_peasants_per_revolt"])
                lines.append(text)
            grids["supply"] = supply_rows
            grids["draws"], grids["revolts"] = [], []
        elif state.phase == "winter_revolts":
            player = views.active_player(rules, state)
            w = state.winter.get(player or "")
            if w is not None and state.mapped and not w.drawn:
                count = min(w.count, state.province_count(player))
                self.winter_text = tr.f("{left} draws {n} of {name}'s provinces at random",
                                        left=self.name(state, views.rules_left(state, player)), n=count,
                                        name=self.name(state, player))
                grids["draws"] = [spec(f"draw_{pid}", self.pname(rules, state, pid), down=pid in self._drawn)
                                  for pid in views.held_provinces(rules, state, player or "")]
                self.can_draw = len(self._drawn) == count
                self.drawing = True
                grids["revolts"] = []
            elif w is not None:
                self.winter_text = tr.f("{name}: winter revolts, {extra} extra peasants each",
                                        name=self.name(state, player), extra=w.extra_peasants)
                grids["draws"] = []
                grids["revolts"] = [spec(f"revolt_{pid}", self.pname(rules, state, pid)) for pid in w.drawn
                                    if pid not in w.done]
            grids["supply"] = []
            for p in state.turn_order:
                if p in state.winter:
                    r = state.winter[p]
                    lines.append(tr.f("{name}: {done} of {n} revolts fought", name=self.name(state, p),
                                      done=r.done_count, n=r.count))
        else:
            self.winter_text = {"scoring": tr._("The winter is done: score it on the Scoring screen"),
                                "over": tr._("The game is over")}.get(
                state.phase, tr._("Winter comes after the autumn round"))
            grids["supply"], grids["draws"], grids["revolts"] = [], [], []
        self.winter_lines = lines

    def winter_supply(self) -> None:
        rules, state = self._rs()
        if state is None:
            return
        unknown = {p for p, row in views.winter_preview(rules, state, int(self.loss)).items() if row.get("unknown")}
        command: dict[str, Any] = {"type": "winter_supply", "rice_loss": int(self.loss)}
        supply = {p: dict(v) for p, v in self._supply.items() if p in unknown}
        if supply:
            command["supply"] = supply
        self.do(command)

    def winter_draw(self, draw: bool = False) -> None:
        rules, state = self._rs()
        if state is None:
            return
        player = views.active_player(rules, state)
        if draw:
            self.do({"type": "winter_draw", "player": player, "draw": True})
        else:
            self.do({"type": "winter_draw", "player": player, "provinces": list(self._drawn)})

    # ---- scoring ------------------------------------------------------------------------------------
    def _scoring(self, rules: Any, state: Any) -> None:
        data = views.scoring_view(rules, state)
        rows = []
        result = rules.result(state)
        ranks = {p.colour: p.rank for p in result.players} if result is not None else {}
        for p in state.players:
            now = data["now"][p]
            majority = ", ".join(f"{tr._(REGION_NAMES.get(k.split('.')[0], k))} "
                                 f"{tr._(BUILDING_NAMES.get(k.split('.')[-1], k))} {v}"
                                 for k, v in now["majority"].items() if v) or "-"
            rows.append({"colour": p, "name": self.name(state, p), "rank": str(ranks.get(p, "")),
                         "vp": str(state.vp[p]), "chests": str(state.chests[p]),
                         "detail": tr.f("This winter: {provinces} provinces + {buildings} buildings + majorities "
                                        "{majority} = {total}", provinces=now["provinces"],
                                        buildings=now["buildings"], majority=majority, total=now["total"])})
        if result is not None:
            rows.sort(key=lambda r: int(r["rank"]))
        self.score_rows = rows
        self.chart = [(colour_rgba(p), [0, *data["vp_by_winter"][p]]) for p in state.players]
        self.chart_max = max([10, *(max([0, *v]) for v in data["vp_by_winter"].values())])
        if result is not None:
            winners = " & ".join(p.name for p in result.players if p.winner)
            self.winner_text = tr.f("{names} won the game", names=winners)
            if sum(1 for p in result.players if p.rank == 1) == 1 and len({p.score for p in result.players
                                                                            if p.rank <= 2}) == 1:
                self.winner_text += " - " + tr._("equal VP: the chests decided (spec 8)")
        else:
            self.winner_text = (tr._("Score this winter: provinces, buildings and the majorities per region")
                                if state.phase == "scoring" else "")

    def score(self) -> None:
        self.do({"type": "score"})

    def export(self) -> None:
        game = self.app.game.open_game
        if game is None:
            return

        def job() -> tuple[str, str] | None:
            from store.games import games_dir

            made = session_port.export(game)
            if made is None:
                return None
            folder = games_dir().parent / "exports"
            folder.mkdir(parents=True, exist_ok=True)
            stem = Path(game.path).stem
            (folder / f"{stem}.csv").write_text(made.csv, encoding="utf-8")
            (folder / f"{stem}.bgstats.txt").write_text(made.bgstats_link + "\n", encoding="utf-8")
            return str(folder / f"{stem}.csv"), str(folder / f"{stem}.bgstats.txt")

        def done(paths: tuple[str, str] | None) -> None:
            self.export_text = (tr._("Only a finished game can be exported") if paths is None else
                                tr.f("Saved {csv} and {link}", csv=Path(paths[0]).name, link=Path(paths[1]).name))

        self._worker.submit(job, done, lambda error: setattr(self, "export_text", str(error)))


def grid_columns(count: int, width: float, minimum: float) -> int:
    """Columns for ``count`` buttons at least ``minimum`` wide in ``width``."""
    return max(1, min(count, int(width // max(1.0, minimum)), math.ceil(math.sqrt(count * 2))))
