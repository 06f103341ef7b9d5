"""Shogun's rules on the session engine (``companion.engine.Game``): setup, the 8-round calendar, the action
round's six steps, battles and revolts through the tower, winter and scoring (spec 2-8).

Commands are JSON objects; :data:`COMMANDS` lists them with the phases they belong to and the fields they
take (a field a command does not take is refused, never ignored). The app records what happens at the
table: plans are revealed one card at a time (``act``), tower throws are entered as the counts in the tray
(``out``). Optional randomisers (``"draw": true``) let the app lay out the rows, draw the
events, break bid ties, deal the start and draw winter revolts; the seed is logged (``prepare``) and such a
command, like every tower throw, is an undo barrier. A typo in a throw's counts is fixed with
``correct_throw`` right after it (a re-throw is not possible).

Without the map (setup ``"map": false``) the table enters per-region counts (``set_region``), money and rice
(``adjust``), every battle with its numbers (``battle``), and ``end_actions`` when the round's actions are
done; turn order, battles, winters and scoring work the same.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from companion.engine import CommandError, Outcome, PlayerResult, Result
from companion.fields import unknown_field
from companion.results import finishing_ranks
from companion.text import say
from games.shogun import battle as battles
from games.shogun import bids as bidding
from games.shogun import winter as winters
from games.shogun.battle import BattleError, BattleSetup, Province
from games.shogun.odds import TowerModel, exact_odds, fit
from games.shogun.pack import ACTIONS as ACTION_IDS
from games.shogun.pack import BUILDINGS, GREEN, SPECIALS, Pack, RuleOptions
from games.shogun.scoring import PlayerScore, RegionCount, holdings_from_provinces, score
from games.shogun.state import (
    ACTIONS,
    BIDS,
    EVENT,
    LAY_OUT,
    OVER,
    SCORING,
    SETUP,
    WINTER_REVOLTS,
    WINTER_SUPPLY,
    State,
    WinterRevolts,
    draft_player,
)
from games.shogun.state import SPECIALS as SPECIALS_PHASE
from games.shogun.tower import TowerError, clean

GAME_NAME = "shogun"
BGG_ID = 20551
Events = tuple[tuple[str, Mapping[str, Any]], ...]



@dataclass(frozen=True, slots=True)
class CommandSpec:
    """One command type: the phases it is allowed in (None: any phase) and the fields it takes besides
    ``type``. Any other field is refused, not ignored: a misspelt ``out`` would read as "nothing came out"."""

    phases: tuple[str, ...] | None
    fields: frozenset[str]


def _spec(phases: tuple[str, ...] | None, *fields: str) -> CommandSpec:
    return CommandSpec(phases, frozenset(fields))


#: an app draw: ``"draw": true`` asks for it, ``prepare`` logs its seed
DRAW = ("draw", "seed")
#: the command type -> its phases and fields
COMMANDS: dict[str, CommandSpec] = {
    "place": _spec((SETUP,), "player", "province", "armies"),
    "deal_start": _spec((SETUP,), *DRAW),
    "seed_tower": _spec((SETUP,), "out"),
    "lay_out": _spec((LAY_OUT,), "actions", "specials", "events", *DRAW),
    "reveal_action": _spec((ACTIONS,), "action"),
    "draw_event": _spec((EVENT,), "event", *DRAW),
    "bids": _spec((BIDS,), "bids", "tie_orders", *DRAW),
    "take_special": _spec((SPECIALS_PHASE,), "player", "card"),
    "act": _spec((ACTIONS,), "player", "province", "to", "armies", "six", "attack_bonus", "defence_bonus", "out"),
    "end_actions": _spec((ACTIONS,)),
    "battle": _spec((ACTIONS, WINTER_REVOLTS), "region", "kind", "attacker", "defender", "moved", "source", "target",
                    "special_cards", "winter_extra_peasants", "tax_or_rice", "out"),
    "set_region": _spec(None, "player", "region", "provinces", "castle", "temple", "theatre"),
    "adjust": _spec(None, "player", "chests", "rice", "supply"),
    "fell_out": _spec(None, "out"),
    "correct_throw": _spec(None, "out"),
    "winter_supply": _spec((WINTER_SUPPLY,), "rice_loss", "supply"),
    "winter_draw": _spec((WINTER_REVOLTS,), "player", "provinces", *DRAW),
    "winter_revolt": _spec((WINTER_REVOLTS,), "province", "player", "region", "armies", "revolt_tokens", "buildings",
                           "out"),
    "score": _spec((SCORING,)),
}
#: the fields of the objects inside a command, by the command's field (``battle``'s target, source and special
#: cards; a special card also by its English name)
NESTED_FIELDS: dict[str, frozenset[str]] = {
    "target": frozenset({"armies", "revolt_tokens", "buildings"}),
    "source": frozenset({"armies"}),
    "special_cards": frozenset({"attack_plus_1", "defence_plus_1", "+1 army attacking", "+1 army defending"}),
}
#: what ``winter_supply`` takes per player
SUPPLY_FIELDS = frozenset({"revolts", "extra_peasants"})
THROWS = frozenset({"seed_tower", "act", "battle", "winter_revolt"})
#: the event every command ends with: where the game is now (the LED script follows it)
CALENDAR_EVENT = "calendar"


class ThrowNeeded(CommandError):
    """The command throws cubes into the tower and the tray's counts (``out``) are missing: what goes in is
    ``setup`` (a screen dry-runs a command to learn whether it needs a throw, and which)."""

    def __init__(self, message: str, setup: BattleSetup, label: str) -> None:
        super().__init__(message)
        self.setup = setup
        self.label = label


def refuse_unknown_fields(command: Mapping[str, Any], players: Sequence[str]) -> None:
    """A command with a field its type does not take is refused in one sentence naming both, and so is an
    unknown field of an object inside it (a command of a type Shogun does not know is left to ``apply``, which
    says so; a value of the wrong kind too)."""
    kind = command.get("type")
    spec = COMMANDS.get(kind) if isinstance(kind, str) else None
    if spec is None:
        return
    problems = [unknown_field(command, spec.fields | {"type"}, what=str(kind))]
    for field, known in NESTED_FIELDS.items():
        value = command.get(field)
        if field in spec.fields and isinstance(value, Mapping):
            problems.append(unknown_field(value, known, what=f"{kind}.{field}"))
    supply = command.get("supply")
    if kind == "winter_supply" and isinstance(supply, Mapping):
        problems.append(unknown_field(supply, players, what=f"{kind}.supply", has="the players are"))
        problems += [unknown_field(entry, SUPPLY_FIELDS, what=f"{kind}.supply.{player}")
                     for player, entry in supply.items() if isinstance(entry, Mapping)]
    problem = next((p for p in problems if p is not None), None)
    if problem is not None:
        raise CommandError(problem)


def _log(text: str, **fields: Any) -> tuple[str, Mapping[str, Any]]:
    return ("log", {"text": text, **fields})


def _int(command: Mapping[str, Any], key: str, default: int | None = None, *, minimum: int = 0) -> int:
    value = command.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise CommandError(f"{key}: expected a whole number of at least {minimum}, got {value!r}")
    return value


class ShogunRules:
    """The rules for one game, with the data pack the game file keeps."""

    name = GAME_NAME

    def __init__(self, pack: Pack) -> None:
        self.pack = pack
        self.version = pack.version

    # ---- setup --------------------------------------------------------------------------------
    def setup(self, config: Mapping[str, Any]) -> State:
        raw_players = config.get("players")
        if not isinstance(raw_players, list) or not 3 <= len(raw_players) <= 5:
            raise CommandError("players: Shogun is for 3 to 5 players, given as a list of colours or "
                               "{name, colour} objects")
        colours: list[str] = []
        names: dict[str, str] = {}
        for i, item in enumerate(raw_players):
            colour = item.get("colour") if isinstance(item, Mapping) else item
            if colour not in self.pack.colours:
                raise CommandError(f"players[{i}]: {colour!r} is not a player colour "
                                   f"({', '.join(self.pack.colours)})")
            if colour in colours:
                raise CommandError(f"players[{i}]: {colour} is taken twice")
            colours.append(colour)
            names[colour] = str(item.get("name", colour)) if isinstance(item, Mapping) else colour
        count = self.pack.players(len(colours))
        side_name = config.get("side", "sun")
        if side_name not in self.pack.sides:
            raise CommandError(f"side: the board has a sun and a moon side, got {side_name!r}")
        side = self.pack.sides[side_name]
        mapped = bool(config.get("map", True))
        state = State(
            players=tuple(colours), names=names, mapped=mapped, side=side_name,
            regions=tuple(config.get("regions", side.regions)) if not mapped else side.regions,
            chests={p: count.chests for p in colours}, rice={p: 0 for p in colours}, vp={p: 0 for p in colours},
            supply={p: self.pack.cubes_per_colour for p in colours}, peasant_supply=self.pack.peasant_cubes,
            buildings_left=dict(self.pack.building_tokens), randomisers=bool(config.get("randomisers", True)),
        )
        if mapped:
            in_play = side.in_play(count.light_bordered_in_play)
            provinces = {pid: Province(None, 0) for pid in in_play}
            groups = tuple(self.pack.army_groups[: count.seats])
            state = replace(state, provinces=provinces, groups_left={p: groups for p in colours})
            start = config.get("start")
            if start is None and config.get("preset"):
                preset = self.pack.presets.get(len(colours))
                if preset is None:
                    raise CommandError("preset: the appendix's preset starts are unknown in the data pack; "
                                       "draft, deal or enter the start instead")
                start = [{"player": colours[int(i) - 1], "province": pid, "armies": n} for i, pid, n in preset]
            if start is not None:
                if not isinstance(start, list):
                    raise CommandError("start: expected a list of {player, province, armies}")
                for i, entry in enumerate(start):
                    if not isinstance(entry, Mapping):
                        raise CommandError(f"start[{i}]: expected {{player, province, armies}}")
                    state = self._place(state, entry, strict_turn=False)[0]
        else:
            holdings = config.get("holdings", {})
            state = replace(state, holdings={p: {} for p in colours})
            for player, regions in (holdings or {}).items():
                for region, counts in regions.items():
                    state = self._set_region(state, {"player": player, "region": region, **counts})
        return state

    # ---- engine protocol --------------------------------------------------------------------
    def prepare(self, state: State, command: Mapping[str, Any], new_seed: Callable[[], int]) -> dict[str, Any]:
        """The command as it is logged: a field it does not take is refused here, before anything is logged
        (a game file written before this check replays as it was played)."""
        refuse_unknown_fields(command, state.players)
        out = dict(command)
        if out.get("draw") is True and "seed" not in out and not self._nothing_to_draw(state, out):
            out["seed"] = new_seed()
        return out

    def _nothing_to_draw(self, state: State, command: Mapping[str, Any]) -> bool:
        """Bids with "draw" ask the app to shuffle tied bids: without a tie nothing is drawn (and no barrier)."""
        if command.get("type") != "bids" or not isinstance(command.get("bids"), Mapping):
            return False
        try:
            parsed = {p: bidding.parse_bid(p, command["bids"].get(p, {"none": True})) for p in state.players}
        except bidding.BidError:
            return False
        ranks = [b.rank for b in parsed.values()]
        return len(set(ranks)) == len(ranks)

    def is_automated_random(self, command: Mapping[str, Any]) -> bool:
        """App draws (a seed in the command) and tower throws are undo barriers (spec 12.1 item 11)."""
        return "seed" in command or command.get("type") in THROWS and "out" in command

    def barrier(self, command: Mapping[str, Any]) -> str:
        """What undo stops at (``companion.engine.NamesBarriers``): a throw is the players', counted in the
        tray of the physical tower (no re-throw, spec 12.1 item 11, 12.2); a draw is the app's. A message
        (:func:`companion.text.say`), so the app shows it in the players' language."""
        return say("a draw the app made") if "seed" in command else say("a throw the players entered from the tower")

    def is_over(self, state: State) -> bool:
        return state.phase == OVER

    def describe(self, state: State, command: Mapping[str, Any],
                 events: Sequence[tuple[str, Mapping[str, Any]]] | None = None) -> str:
        if events is None:
            try:
                events = self.apply(state, command).events
            except CommandError:
                events = ()
        texts = [str(p["text"]) for kind, p in events if kind == "log" and p.get("text")]
        return "; ".join(texts) if texts else str(command.get("type"))

    def apply(self, state: State, command: Mapping[str, Any]) -> Outcome[State]:
        kind = command.get("type")
        if kind not in COMMANDS:
            raise CommandError(f"unknown command {kind!r}; Shogun knows {', '.join(COMMANDS)}")
        phases = COMMANDS[kind].phases
        if phases is not None and state.phase not in phases:
            raise CommandError(f"{kind} is not possible now: the game is at {state.phase} "
                               f"(round {state.round}, {state.season})")
        if kind == "correct_throw":
            return self._correct_throw(state, command)
        try:
            new, events = getattr(self, f"_cmd_{kind}")(state, command)
        except (BattleError, TowerError, bidding.BidError) as error:
            raise CommandError(str(error)) from None
        new = replace(new, before_throw=(state, dict(command)) if kind in THROWS and "out" in command else None)
        return Outcome(new, (*events, (CALENDAR_EVENT, self.calendar(new))))

    def calendar(self, state: State) -> dict[str, Any]:
        """Where the game is, for the table's LEDs (``games/shogun/table.py``): the round (1-8, 0 at setup),
        the action position (1-10) while an action card is carried out, the active player's colour."""
        from games.shogun import views

        return views.calendar_signal(self, state)

    def state_json(self, state: State) -> dict[str, Any]:
        from games.shogun import views

        return views.state_summary(self, state)

    def result(self, state: State) -> Result | None:
        if state.phase != OVER:
            return None
        players = state.players
        lines = [(state.vp[p], state.chests[p]) for p in players]
        ranks = finishing_ranks(lines)
        note = ""
        if sum(1 for r in ranks if r == 1) > 1:
            note = "equal VP and equal chests: a shared win, which the rules do not cover (A11)"
        out: list[PlayerResult] = []
        for i, p in enumerate(players):
            categories = {"provinces": sum(s[p].provinces for s in state.scores),
                          "buildings": sum(s[p].buildings for s in state.scores),
                          "majorities": sum(s[p].majorities for s in state.scores)}
            out.append(PlayerResult(state.name(p), state.vp[p], ranks[i], ranks[i] == 1, start_player=i == 0,
                                    colour=p, categories=categories, tiebreak=state.chests[p]))
        return Result("Shogun", BGG_ID, False, tuple(out), note, variant=f"{state.side} side")

    # ---- helpers ------------------------------------------------------------------------------
    def _player(self, state: State, command: Mapping[str, Any], key: str = "player") -> str:
        player = command.get(key)
        if player not in state.players:
            raise CommandError(f"{key}: {player!r} is not a player of this game ({', '.join(state.players)})")
        return str(player)

    def _province(self, state: State, command: Mapping[str, Any], key: str = "province") -> str:
        pid = command.get(key)
        if not state.mapped:
            raise CommandError("this game is played without the app's map: enter counts per region instead")
        if not isinstance(pid, str) or pid not in self.pack.sides[state.side].provinces:
            raise CommandError(f"{key}: {pid!r} is not a province of the {state.side} side")
        if pid not in state.provinces:
            raise CommandError(f"{key}: {pid} is light-bordered and not in play with {len(state.players)} players "
                               "(spec 2.1)")
        return pid

    def _set(self, state: State, pid: str, province: Province) -> State:
        return replace(state, provinces={**state.provinces, pid: province})

    def _money(self, state: State, player: str, delta: int) -> State:
        return replace(state, chests={**state.chests, player: state.chests[player] + delta})

    def _supply(self, state: State, changes: Mapping[str, int]) -> State:
        supply = dict(state.supply)
        peasants = state.peasant_supply
        for colour, n in changes.items():
            if colour == GREEN:
                peasants += n
            elif colour in supply:
                supply[colour] += n
        return replace(state, supply=supply, peasant_supply=peasants)

    def model(self, state: State) -> TowerModel:
        """The tower model for odds: fitted from this game's throws once there are enough (spec 12.3)."""
        return fit(state.tower.throws, self.pack.tower_prior)

    # ---- setup commands -----------------------------------------------------------------------
    def _place(self, state: State, command: Mapping[str, Any], *, strict_turn: bool = True) -> tuple[State, Events]:
        player = self._player(state, command)
        pid = self._province(state, command)
        armies = _int(command, "armies", minimum=1)
        if strict_turn and draft_player(state) != player:
            raise CommandError(f"it is {state.name(draft_player(state))}'s turn in the draft, "
                               f"not {state.name(player)}'s")
        left = list(state.groups_left.get(player, ()))
        if armies not in left:
            raise CommandError(f"armies: {state.name(player)} has no group of {armies} left "
                               f"(groups left: {', '.join(map(str, left)) or 'none'})")
        if state.provinces[pid].owner is not None:
            raise CommandError(f"province: {pid} is taken already")
        left.remove(armies)
        state = self._set(state, pid, Province(player, armies))
        state = replace(state, groups_left={**state.groups_left, player: tuple(left)},
                        supply={**state.supply, player: state.supply[player] - armies})
        return state, (_log(f"{state.name(player)} places {armies} armies in {self._pname(state, pid)}"),)

    def _pname(self, state: State, pid: str) -> str:
        return self.pack.sides[state.side].provinces[pid].name

    def _cmd_place(self, state: State, command: Mapping[str, Any]) -> tuple[State, Events]:
        return self._place(state, command)

    def _cmd_deal_start(self, state: State, command: Mapping[str, Any]) -> tuple[State, Events]:
        """The app deals the start at random (a stand-in for the draft): each player's groups, in draft turns,
        go to shuffled province cards."""
        if not state.mapped:
            raise CommandError("deal_start needs the app's map")
        if "seed" not in command:
            raise CommandError('deal_start is a draw by the app: send {"type": "deal_start", "draw": true}')
        rng = random.Random(command["seed"])
        free = sorted(pid for pid, p in state.provinces.items() if p.owner is None)
        rng.shuffle(free)
        placed = 0
        while (player := draft_player(state)) is not None:
            groups = list(state.groups_left[player])
            state = self._place(state, {"player": player, "province": free.pop(), "armies": groups[0]})[0]
            placed += 1
        return state, (_log(f"The app deals the starting provinces ({placed} groups)"),)

    def _cmd_seed_tower(self, state: State, command: Mapping[str, Any]) -> tuple[State, Events]:
        if state.tower_seeded:
            raise CommandError("the tower is seeded once, at setup (spec 2.5)")
        if state.mapped and any(state.groups_left.values()):
            raise CommandError("place every starting group before seeding the tower")
        added = {p: self.pack.seed_per_player for p in state.players}
        added[GREEN] = self.pack.seed_green
        out = clean(command.get("out"), "out")
        tower = state.tower.throw(added, out, kind="seed", label="seeding the tower")
        # what fell out goes back: player cubes to their supplies, greens to the peasant supply (A7)
        supply = {p: state.supply[p] - added[p] + out.get(p, 0) for p in state.players}
        peasants = state.peasant_supply - added[GREEN] + out.get(GREEN, 0)
        tower = tower.take_from_tray(out)
        state = replace(state, tower=tower, supply=supply, peasant_supply=peasants, tower_seeded=True,
                        round=1, phase=LAY_OUT)
        stuck = sum(tower.inside.values())
        return state, (_log(f"The tower is seeded: {stuck} cube(s) stay inside"),)

    # ---- an action round ------------------------------------------------------------------------
    def _cmd_lay_out(self, state: State, command: Mapping[str, Any]) -> tuple[State, Events]:
        rng = random.Random(command.get("seed"))
        drawn: list[str] = []

        def row(key: str, allowed: tuple[str, ...], full: int) -> tuple[str, ...]:
            given = command.get(key)
            if given is None:
                if "seed" not in command:
                    raise CommandError(f'{key}: give the row as laid out, or let the app draw it ("draw": true)')
                cards = list(allowed)
                rng.shuffle(cards)
                drawn.append(key)
                return tuple(cards[:full])
            if not isinstance(given, list) or len(set(given)) != len(given) or not set(given) <= set(allowed):
                raise CommandError(f"{key}: expected different cards out of {', '.join(allowed)}, got {given!r}")
            return tuple(given)

        actions = row("actions", ACTION_IDS, 10)
        if len(actions) < 5:
            raise CommandError("actions: at least the 5 face-up action cards are needed (spec 4.1)")
        specials = row("specials", SPECIALS, 5)
        if len(specials) != 5:
            raise CommandError("specials: all 5 special cards lie face up (spec 4.2)")
        events = state.events_face_up
        if state.season == "spring":
            remaining = tuple(e for e in self.pack.events if e not in state.events_used)
            events = row("events", remaining, 4)
            if len(events) != 4:
                raise CommandError("events: 4 event cards are turned up each spring (spec 2.6, 7.4)")
        owners = {pid: p.owner for pid, p in state.provinces.items()}
        state = replace(state, action_row=actions, special_row=specials, events_face_up=events, phase=EVENT,
                        planned_owner=owners, bids={}, choosing=(), spaces={}, turn_order=(), position=0, actor=0,
                        used=(), done_actions=(), event=None)
        who = "The app lays out" if drawn else "Laid out"
        return state, (_log(f"{who} round {state.round} ({state.season}): actions "
                            f"{', '.join(actions[:5])}, ...; specials {', '.join(specials)}"),)

    def _cmd_draw_event(self, state: State, command: Mapping[str, Any]) -> tuple[State, Events]:
        face_up = list(state.events_face_up)
        event = command.get("event")
        if event is None:
            if "seed" not in command:
                raise CommandError('event: name the drawn event, or let the app draw it ("draw": true)')
            event = random.Random(command["seed"]).choice(sorted(face_up))
        if event not in face_up:
            raise CommandError(f"event: {event!r} is not one of the face-up events ({', '.join(face_up)})")
        card = self.pack.events[event]
        state = replace(state, event=event, phase=BIDS)
        return state, (_log(f"Event of the round: {card.text}"),)

    def _cmd_bids(self, state: State, command: Mapping[str, Any]) -> tuple[State, Events]:
        raw = command.get("bids")
        if not isinstance(raw, Mapping):
            raise CommandError("bids: expected {player: {war_chest_card: n} | {province_card: id} | {none: true}}")
        parsed: dict[str, bidding.Bid] = {}
        for player in state.players:
            bid = bidding.parse_bid(player, raw.get(player, {"none": True}))
            if bid.kind == "province" and state.mapped and (
                    bid.province not in state.provinces or state.planned_owner.get(bid.province or "") != player):
                    raise CommandError(f"bids.{player}.province_card: {bid.province!r} is not one of "
                                       f"{state.name(player)}'s provinces")
            parsed[player] = bid
        unknown = set(raw) - set(state.players)
        if unknown:
            raise CommandError(f"bids: {', '.join(sorted(unknown))} is not a player of this game")
        settled = bidding.settle(state.players, parsed, state.chests, above_cash=self.pack.options.a10_bid_above_cash)
        order = bidding.choosing_order(settled.groups, seed=command.get("seed"),
                                       tie_orders=command.get("tie_orders", ()))
        used = tuple(b.province for b in parsed.values() if b.kind == "province" and b.province)
        state = replace(state, bids=parsed, chests=dict(settled.chests_after), choosing=tuple(order), spaces={},
                        phase=SPECIALS_PHASE, used=used, warnings=settled.warnings)
        paid = ", ".join(f"{state.name(p)} {n}" for p, n in settled.paid.items() if n)
        return state, (_log(f"Bids revealed (paid: {paid or 'nothing'}); choosing order "
                            f"{', '.join(state.name(p) for p in order)}"),)

    def _cmd_take_special(self, state: State, command: Mapping[str, Any]) -> tuple[State, Events]:
        player = self._player(state, command)
        if player != state.current_player:
            raise CommandError(f"it is {state.name(state.current_player)}'s turn to take a special card")
        card = command.get("card")
        if card not in state.special_row:
            raise CommandError(f"card: expected one of {', '.join(state.special_row)}, got {card!r}")
        space = state.special_row.index(card) + 1
        if space in state.spaces.values():
            raise CommandError(f"card: {self.pack.special_names[card]} is taken already")
        spaces = {**state.spaces, player: space}
        state = replace(state, spaces=spaces)
        events = [_log(f"{state.name(player)} takes {self.pack.special_names[card]} (space {space})")]
        if len(spaces) == len(state.players):
            order = tuple(bidding.turn_order(spaces))
            state = replace(state, turn_order=order, phase=ACTIONS, position=0, actor=0)
            if state.season == "autumn":
                state = replace(state, autumn_order=order)
            events.append(_log(f"turn order {', '.join(state.name(p) for p in order)}"))
        return state, tuple(events)

    def holds_special(self, state: State, player: str | None, card: str) -> bool:
        if player is None or player not in state.spaces or card not in state.special_row:
            return False
        return state.special_row.index(card) + 1 == state.spaces[player]

    def _cmd_reveal_action(self, state: State, command: Mapping[str, Any]) -> tuple[State, Events]:
        action = command.get("action")
        # A1: a hidden card is turned up just before its action (a), or one per finished action (b: card 6
        # after action 1, ...).
        if self.pack.options.a1_reveal == "just_before":
            if state.position < len(state.action_row):
                raise CommandError("the action card at this position is known already")
        elif len(state.action_row) >= 5 + state.position:
            raise CommandError(f"after {state.position} finished action(s) {5 + state.position} action cards are "
                               "face up, all of them known (A1: one hidden card per finished action)")
        if action not in ACTION_IDS or action in state.action_row:
            raise CommandError(f"action: expected an action card not yet in the row, got {action!r}")
        state = replace(state, action_row=(*state.action_row, action))
        return state, (_log(f"Action card {len(state.action_row)} turned up: {self.pack.action_names[action]}"),)

    def _advance(self, state: State) -> tuple[State, Events]:
        """Next player for this action; after the last, the next action; after the tenth, the round ends."""
        if state.actor + 1 < len(state.turn_order):
            return replace(state, actor=state.actor + 1), ()
        if state.position + 1 < 10:
            return replace(state, actor=0, position=state.position + 1), ()
        return self._end_round(state)

    def _end_round(self, state: State) -> tuple[State, Events]:
        assert state.event is not None
        used = (*state.events_used, state.event)
        face_up = tuple(e for e in state.events_face_up if e != state.event)
        state = replace(state, events_used=used, events_face_up=face_up, event=None, bids={}, spaces={},
                        position=0, actor=0, round=state.round + 1, used=(), warnings=())
        if state.season == "winter":
            return replace(state, phase=WINTER_SUPPLY), (_log("The actions are done: winter comes"),)
        return replace(state, phase=LAY_OUT, turn_order=()), (_log(f"Round {state.round} ({state.season}) begins"),)

    def _cmd_end_actions(self, state: State, command: Mapping[str, Any]) -> tuple[State, Events]:
        if state.mapped:
            raise CommandError("with the app's map every action is walked through with act")
        return self._end_round(state)

    def _cmd_act(self, state: State, command: Mapping[str, Any]) -> tuple[State, Events]:
        if not state.mapped:
            raise CommandError("without the app's map, record the results (adjust, set_region, battle) and "
                               "end_actions")
        if state.position >= len(state.action_row):
            raise CommandError("turn up the next action card first (reveal_action)")
        player = self._player(state, command)
        if player != state.current_player:
            raise CommandError(f"it is {state.name(state.current_player)}'s turn for "
                               f"{self.pack.action_names[state.current_action or '']}")
        action = state.action_row[state.position]
        label = self.pack.action_names[action]
        pid_raw = command.get("province")
        who = state.name(player)
        if pid_raw is None:
            state, more = self._advance(state)
            return state, (_log(f"{who}: no {label}"), *more)
        pid = self._province(state, command)
        pname = self._pname(state, pid)
        if pid in state.used:
            raise CommandError(f"province: the {pname} card was laid already this round (one card, one space)")
        if state.planned_owner.get(pid) != player:
            raise CommandError(f"province: {pname} was not {who}'s when the plans were made")
        state = replace(state, used=(*state.used, pid))
        prov = state.provinces[pid]

        def cancelled(reason: str) -> tuple[State, Events]:
            new, more = self._advance(state)
            new = replace(new, done_actions=(*new.done_actions, (state.position, player, f"cancelled: {reason}")))
            return new, (_log(f"{who}'s {label} in {pname} is cancelled: {reason}", cancelled=True), *more)

        if prov.owner != player:
            return cancelled(f"{pname} changed hands since the plans were made (spec 4.6)")
        cost = self.pack.action_costs[action]
        if cost > state.chests[player]:
            return cancelled(f"it costs {cost} chest(s) and {who} holds {state.chests[player]}")
        if action in BUILDINGS:
            result = self._do_build(state, player, pid, action, cost)
        elif action in ("rice", "taxes"):
            result = self._do_income(state, player, pid, action, command)
        elif action in ("deploy5", "deploy3", "deploy1"):
            result = self._do_deploy(state, player, pid, action, cost, command)
        else:
            result = self._do_battle_move(state, player, pid, command)
        if isinstance(result, str):
            return cancelled(result)
        new, events = result
        new, more = self._advance(new)
        new = replace(new, done_actions=(*new.done_actions, (state.position, player, str(events[0][1]["text"]))))
        return new, (*events, *more)

    def _do_build(self, state: State, player: str, pid: str, building: str, cost: int) -> tuple[State, Events] | str:
        prov = state.provinces[pid]
        site = self.pack.sides[state.side].provinces[pid]
        if building in prov.buildings:
            return f"{site.name} has a {building} already (spec 5)"
        if len(prov.buildings) >= site.sites:
            return f"{site.name} has no free building site ({site.sites})"
        if state.buildings_left.get(building, 0) < 1:
            return f"no {building} token is left in the box"
        state = self._set(state, pid, replace(prov, buildings=(*prov.buildings, building)))
        state = self._money(state, player, -cost)
        state = replace(state, buildings_left={**state.buildings_left, building: state.buildings_left[building] - 1})
        return state, (_log(f"{state.name(player)} builds a {building} in {site.name} (-{cost})"),)

    def income(self, state: State, player: str, pid: str, action: str) -> int:
        """Tax or rice of a province this round: the event first, then the special card (spec 4.4)."""
        site = self.pack.sides[state.side].provinces[pid]
        value = site.tax if action == "taxes" else site.rice
        event = self.pack.events.get(state.event or "")
        if action == "taxes" and event is not None and event.tax_cap is not None:
            value = min(value, event.tax_cap)
        card = "chest_plus_1" if action == "taxes" else "rice_plus_1"
        return value + (1 if self.holds_special(state, player, card) else 0)

    def _do_income(self, state: State, player: str, pid: str, action: str,
                   command: Mapping[str, Any]) -> tuple[State, Events]:
        prov = state.provinces[pid]
        amount = self.income(state, player, pid, action)
        site = self.pack.sides[state.side].provinces[pid]
        what = "chests" if action == "taxes" else "rice"
        events: list[tuple[str, Mapping[str, Any]]] = []
        if prov.revolt_tokens >= 1:
            setup = BattleSetup("revolt", defender=player, target_armies=prov.armies,
                                revolt_tokens=prov.revolt_tokens, buildings=prov.buildings,
                                a3_owner_loses=self.pack.options.a3_owner_loses)
            state, result, text = self._fight(state, setup, pid, command, add_token=True,
                                              label=f"revolt in {site.name}")
            won = result.winner == battles.DEFENDER
            events.append(_log(f"{state.name(player)} takes {what} in {site.name}: {text}"))
            opts = self.pack.options
            if (won and opts.a2_income_when_revolt_won) or (not won and opts.a2_income_when_revolt_lost):
                state = self._gain(state, player, action, amount)
                events.append(_log(f"+{amount} {what}"))
            return state, tuple(events)
        state = self._gain(state, player, action, amount)
        state = self._set(state, pid, replace(prov, revolt_tokens=prov.revolt_tokens + 1))
        return state, (_log(f"{state.name(player)} takes {what} in {site.name}: +{amount}, and a revolt token"),)

    def _gain(self, state: State, player: str, action: str, amount: int) -> State:
        if action == "taxes":
            return self._money(state, player, amount)
        return replace(state, rice={**state.rice, player: state.rice[player] + amount})

    def _do_deploy(self, state: State, player: str, pid: str, action: str, cost: int,
                   command: Mapping[str, Any]) -> tuple[State, Events] | str:
        count = {"deploy5": 5, "deploy3": 3, "deploy1": 1}[action]
        if action == "deploy5" and command.get("six", True) and self.holds_special(state, player, "six_armies"):
            count = 6
        if state.supply[player] < count:
            return f"{state.name(player)} has {state.supply[player]} cube(s) in supply, {count} needed"
        prov = state.provinces[pid]
        site = self.pack.sides[state.side].provinces[pid]
        state = self._set(state, pid, replace(prov, armies=prov.armies + count))
        state = self._money(state, player, -cost)
        state = replace(state, supply={**state.supply, player: state.supply[player] - count})
        events: list[tuple[str, Mapping[str, Any]]] = [
            _log(f"{state.name(player)} deploys {count} in {site.name} (-{cost})")]
        if action == "deploy1" and command.get("to") is not None:
            to = self._province(state, command, "to")
            armies = _int(command, "armies", minimum=1)
            self._check_move(state, player, pid, to, armies)
            if state.provinces[to].owner != player:
                raise CommandError("to: Deploy/Move 1 moves only into a province of your own; no battle may "
                                   "result (spec 5)")
            state = self._move(state, pid, to, armies)
            events.append(_log(f"and moves {armies} to {self._pname(state, to)}"))
        return state, tuple(events)

    def _check_move(self, state: State, player: str, source: str, to: str, armies: int) -> None:
        site = self.pack.sides[state.side].provinces[source]
        if to not in site.adjacent:
            raise CommandError(f"to: {self._pname(state, to)} is not adjacent to {site.name}")
        have = state.provinces[source].armies
        if armies > have - 1:
            raise CommandError(f"armies: at least one army stays in {site.name}, so at most {have - 1} can move")

    def _move(self, state: State, source: str, to: str, armies: int) -> State:
        s, t = state.provinces[source], state.provinces[to]
        state = self._set(state, source, replace(s, armies=s.armies - armies))
        return self._set(state, to, replace(t, armies=t.armies + armies))

    def _do_battle_move(self, state: State, player: str, pid: str,
                        command: Mapping[str, Any]) -> tuple[State, Events] | str:
        prov = state.provinces[pid]
        if prov.armies < 2:
            return f"{self._pname(state, pid)} holds {prov.armies} army; 2 are needed to move or attack (spec 5)"
        to = self._province(state, command, "to")
        armies = _int(command, "armies", minimum=1)
        self._check_move(state, player, pid, to, armies)
        target = state.provinces[to]
        if target.owner == player:
            state = self._move(state, pid, to, armies)
            return state, (_log(f"{state.name(player)} moves {armies} from {self._pname(state, pid)} to "
                                f"{self._pname(state, to)}"),)
        setup = self.battle_setup(state, player, pid, to, armies, command)
        state = self._set(state, pid, replace(prov, armies=prov.armies - armies))
        if target.owner is not None:
            state = self._set(state, to, replace(target, armies=0))
        source_armies = state.provinces[pid].armies
        state, result, text = self._fight(state, setup, to, command, label=f"{self._pname(state, to)}",
                                          source_left=source_armies)
        return state, (_log(f"{state.name(player)} attacks {self._pname(state, to)} from {self._pname(state, pid)} "
                            f"with {armies}: {text}"),)

    def battle_setup(self, state: State, player: str, source: str, to: str, armies: int,
                      command: Mapping[str, Any]) -> BattleSetup:
        target = state.provinces[to]
        kind = "attack" if target.owner is not None else "neutral"
        opts = self.pack.options
        attack_extra = 0
        bonus = command.get("attack_bonus", True)
        if not isinstance(bonus, bool):
            raise CommandError(f"attack_bonus: expected true or false, got {bonus!r}")
        if (bonus and self.holds_special(state, player, "attack_plus_1")
                and (kind == "attack" or opts.a6_attack_bonus_vs_neutral) and state.supply[player] > 0):
            attack_extra = 1
        defence_extra = 0
        guard = command.get("defence_bonus", True)
        if not isinstance(guard, bool):
            raise CommandError(f"defence_bonus: expected true or false, got {guard!r}")
        if (kind == "attack" and guard
                and self.holds_special(state, target.owner, "defence_plus_1") and target.owner is not None
                and state.supply[target.owner] > 0):
            defence_extra = 1
        return BattleSetup(kind, defender=target.owner, attacker=player, moved=armies,
                           source_armies=state.provinces[source].armies, target_armies=target.armies,
                           revolt_tokens=target.revolt_tokens, buildings=target.buildings, attack_extra=attack_extra,
                           defence_extra=defence_extra, neutral_greens=1 if state.peasant_supply else 0,
                           a4_losses=opts.a4_losses)

    def _fight(self, state: State, setup: BattleSetup, pid: str | None, command: Mapping[str, Any], *,
               add_token: bool = False, label: str = "", source_left: int | None = None,
               region: str | None = None) -> tuple[State, battles.BattleResult, str]:
        """Throw, count, settle; update supplies, the tower and the province (or the region counts)."""
        if "out" not in command:
            raise ThrowNeeded(f"{label}: {setup.what_goes_in(state.tower.tray)}; then enter the tray's counts "
                              "per colour as out", setup, label)
        greens_needed = setup.added().get(GREEN, 0)
        warnings: tuple[str, ...] = ()
        if greens_needed > state.peasant_supply:
            warnings = (f"only {state.peasant_supply} peasant cube(s) left for {greens_needed}: "
                        f"{state.peasant_supply} thrown in (spec 9)",)
            setup = replace(setup, greens_missing=greens_needed - state.peasant_supply)
        elif setup.kind == "neutral" and not greens_needed:
            warnings = ("no peasant cube left: the neutral province is attacked without one (spec 9)",)
        odds = exact_odds(setup, state.tower.tray, state.tower.inside, self.model(state)).to_json()
        prediction = {k: float(v) for k, v in odds.items() if k.startswith("p_")}
        result = battles.resolve(setup, state.tower, command["out"], add_token_if_held=add_token,
                                 prediction=prediction, label=label)
        # cubes leave supplies (privilege cubes and thrown peasants), then the returned ones come back
        out_of_supply: dict[str, int] = {GREEN: -setup.added().get(GREEN, 0)}
        if setup.attack_extra and setup.attacker:
            out_of_supply[setup.attacker] = -setup.attack_extra
        if setup.defence_extra and setup.defender:
            out_of_supply[setup.defender] = out_of_supply.get(setup.defender, 0) - setup.defence_extra
        state = self._supply(state, out_of_supply)
        state = self._supply(state, result.returned_to_supply)
        state = replace(state, tower=result.tower, warnings=warnings)
        after = result.target_after
        if pid is not None:
            state = self._set(state, pid, after)
        elif region is not None:
            state = self._region_outcome(state, setup, result, region)
        for building in set(setup.buildings) - set(after.buildings):
            left = {**state.buildings_left, building: state.buildings_left[building] + 1}
            state = replace(state, buildings_left=left)
        return state, result, battles.describe(result, state.names)

    # ---- without the map ------------------------------------------------------------------------
    def _set_region(self, state: State, command: Mapping[str, Any]) -> State:
        player = self._player(state, command)
        region = command.get("region")
        if region not in state.regions:
            raise CommandError(f"region: expected one of {', '.join(state.regions)}, got {region!r}")
        counts = RegionCount(**{k: _int(command, k, 0) for k in ("provinces", "castle", "temple", "theatre")})
        problem = counts.problem(region)
        if problem:
            raise CommandError(problem)
        holdings = {p: dict(r) for p, r in state.holdings.items()}
        holdings.setdefault(player, {})[region] = counts
        return replace(state, holdings=holdings)

    def _cmd_set_region(self, state: State, command: Mapping[str, Any]) -> tuple[State, Events]:
        if state.mapped:
            raise CommandError("this game uses the app's map: its counts come from the provinces")
        state = self._set_region(state, command)
        player, region = str(command["player"]), str(command["region"])
        c = state.holdings[player][region]
        return state, (_log(f"{state.name(player)} in {region}: {c.provinces} province(s), {c.castle} castle(s), "
                            f"{c.temple} temple(s), {c.theatre} theatre(s)"),)

    def _cmd_adjust(self, state: State, command: Mapping[str, Any]) -> tuple[State, Events]:
        """The table wins: correct a player's chests, rice or supply by a signed amount."""
        player = self._player(state, command)
        parts = []
        for key in ("chests", "rice", "supply"):
            delta = command.get(key, 0)
            if isinstance(delta, bool) or not isinstance(delta, int):
                raise CommandError(f"{key}: expected a whole number (+ or -), got {delta!r}")
            if not delta:
                continue
            current = getattr(state, key)[player]
            if current + delta < 0:
                raise CommandError(f"{key}: {state.name(player)} holds {current}, so it cannot go down by {-delta}")
            values = {**getattr(state, key), player: current + delta}
            if key == "chests":
                state = replace(state, chests=values)
            elif key == "rice":
                state = replace(state, rice=values)
            else:
                state = replace(state, supply=values)
            parts.append(f"{key} {delta:+d}")
        if not parts:
            raise CommandError("adjust: give chests, rice or supply as a signed number")
        return state, (_log(f"{state.name(player)}: {', '.join(parts)}"),)

    def _cmd_battle(self, state: State, command: Mapping[str, Any]) -> tuple[State, Events]:
        """A battle entered with its numbers (games without the map)."""
        if state.mapped:
            raise CommandError("with the app's map, battles happen through act (Battle/Move)")
        region = command.get("region")
        if region not in state.regions:
            raise CommandError(f"region: expected one of {', '.join(state.regions)}, got {region!r}")
        setup = _setup_from_json(command, state.tower.tray, options=self.pack.options)
        if setup.kind == "revolt" and state.phase == WINTER_REVOLTS:
            raise CommandError("winter revolts are entered with winter_revolt")
        state, result, text = self._fight(state, setup, None, command, add_token=bool(command.get("tax_or_rice")),
                                          label=f"battle in {region}", region=str(region))
        return state, (_log(f"Battle in {region}: {text}"),)

    def _region_outcome(self, state: State, setup: BattleSetup, result: battles.BattleResult,
                        region: str) -> State:
        """A province of ``region`` that changed hands moves between the players' counts."""
        before, after = setup.defender if setup.kind != "neutral" else None, result.target_after.owner
        if before == after:
            return state
        holdings = {p: dict(r) for p, r in state.holdings.items()}
        bset, aset = set(setup.buildings), set(result.target_after.buildings)
        if before is not None:
            c = holdings.get(before, {}).get(region, RegionCount())
            if c.provinces < 1:
                raise CommandError(f"region: {state.name(before)} holds no province in {region}")
            holdings.setdefault(before, {})[region] = RegionCount(
                c.provinces - 1, *(max(0, c.of(b) - (1 if b in bset else 0)) for b in BUILDINGS))
        if after is not None:
            c = holdings.get(after, {}).get(region, RegionCount())
            holdings.setdefault(after, {})[region] = RegionCount(
                c.provinces + 1, *(c.of(b) + (1 if b in aset else 0) for b in BUILDINGS))
        return replace(state, holdings=holdings)

    # ---- the tower outside battles -------------------------------------------------------------
    def _cmd_fell_out(self, state: State, command: Mapping[str, Any]) -> tuple[State, Events]:
        out = clean(command.get("out"), "out")
        tower = state.tower.fell_out(out)
        text = ", ".join(f"{n} {c}" for c, n in sorted(out.items()))
        return replace(state, tower=tower), (_log(f"Fell out of the tower by itself: {text}"),)

    def _correct_throw(self, state: State, command: Mapping[str, Any]) -> Outcome[State]:
        if state.before_throw is None:
            raise CommandError("correct_throw fixes the counts of the throw just entered; the last command was "
                               "not a throw (undo back to it first)")
        before, thrown = state.before_throw
        corrected = {**thrown, "out": command.get("out")}
        outcome = self.apply(before, corrected)
        text = self.describe(before, corrected, outcome.events)
        return Outcome(outcome.state, (_log(f"Corrected the tray counts: {text}"), *outcome.events[1:]))

    # ---- winter ---------------------------------------------------------------------------------
    def _cmd_winter_supply(self, state: State, command: Mapping[str, Any]) -> tuple[State, Events]:
        remaining = state.events_face_up
        card = self.pack.events.get(remaining[0]) if len(remaining) == 1 else None
        loss = command.get("rice_loss")
        if loss is None:
            if card is None or card.rice_loss is None:
                raise CommandError("rice_loss: the winter event's rice loss is unknown in the data pack; enter the "
                                   "number on the lower half of the card")
            loss = card.rice_loss
        loss = _int({"rice_loss": loss}, "rice_loss")
        entered = command.get("supply", {}) or {}
        winter: dict[str, WinterRevolts] = {}
        events: list[tuple[str, Mapping[str, Any]]] = [_log(f"Winter: rice loss {loss}")]
        rice = dict(state.rice)
        for p in state.players:
            line = winters.supply(self.pack, state.rice[p], state.province_count(p), loss)
            revolts, extra = line.revolts, line.extra_peasants
            if p in entered:
                revolts = _int(entered[p], "revolts")
                extra = _int(entered[p], "extra_peasants")
                revolts = min(revolts, state.province_count(p))
            if revolts is None or extra is None:
                raise CommandError(f"supply.{p}: {line.unknown}; enter {{\"revolts\": n, \"extra_peasants\": n}} "
                                   f"for {state.name(p)}")
            rice[p] = line.rice_after_loss
            if revolts:
                winter[p] = WinterRevolts(revolts, extra)
                events.append(_log(f"{state.name(p)} cannot feed {line.unsupplied}: {revolts} revolt(s), "
                                   f"+{extra} peasants each"))
        order = state.autumn_order or state.turn_order or state.players
        state = replace(state, rice=rice, rice_loss=loss, winter=winter,
                        phase=WINTER_REVOLTS if winter else SCORING, turn_order=tuple(order))
        return state, tuple(events)

    def winter_current(self, state: State) -> str | None:
        """The player whose winter revolts come next (autumn turn order, spec 7.1)."""
        for p in winters.revolt_order(state.turn_order, list(state.winter)):
            w = state.winter[p]
            if w.done_count < w.count:
                return p
        return None

    def _cmd_winter_draw(self, state: State, command: Mapping[str, Any]) -> tuple[State, Events]:
        if not state.mapped:
            raise CommandError("without the app's map, enter each winter revolt with winter_revolt")
        player = self._player(state, command)
        w = state.winter.get(player)
        if w is None:
            raise CommandError(f"{state.name(player)} has no winter revolt")
        if w.drawn:
            raise CommandError(f"{state.name(player)}'s revolting provinces are drawn already")
        held = sorted(state.held(player))
        count = min(w.count, len(held))  # A13
        if command.get("provinces") is not None:
            drawn = list(command["provinces"])
            if len(drawn) != count or len(set(drawn)) != count or not set(drawn) <= set(held):
                raise CommandError(f"provinces: draw {count} different province(s) of {state.name(player)}'s")
            how = f"{state.name(winters.left_neighbour(state.players, player))} draws"
        elif "seed" in command:
            drawn = random.Random(command["seed"]).sample(held, count)
            how = "The app draws"
        else:
            raise CommandError('provinces: name the drawn provinces, or let the app draw them ("draw": true)')
        state = replace(state, winter={**state.winter, player: replace(w, drawn=tuple(drawn), count=count)})
        return state, (_log(f"{how} {state.name(player)}'s revolting provinces: "
                            f"{', '.join(self._pname(state, d) for d in drawn)}"),)

    def _cmd_winter_revolt(self, state: State, command: Mapping[str, Any]) -> tuple[State, Events]:
        player = self.winter_current(state)
        if player is None:
            raise CommandError("no winter revolt is left")
        w = state.winter[player]
        if state.mapped:
            if not w.drawn:
                raise CommandError(f"draw {state.name(player)}'s revolting provinces first (winter_draw)")
            pid = self._province(state, command)
            if pid not in w.drawn or pid in w.done:
                raise CommandError(f"province: {state.name(player)}'s revolts still to fight are "
                                   f"{', '.join(d for d in w.drawn if d not in w.done)}")
            prov = state.provinces[pid]
            setup = BattleSetup("revolt", defender=player, target_armies=prov.armies, revolt_tokens=prov.revolt_tokens,
                                buildings=prov.buildings, winter_extra_peasants=w.extra_peasants,
                                a3_owner_loses=self.pack.options.a3_owner_loses)
            state = self._set(state, pid, replace(prov, armies=0))
            state, result, text = self._fight(state, setup, pid, command, add_token=self.pack.options.a12_winter_token,
                                              label=f"winter revolt in {self._pname(state, pid)}")
            where = self._pname(state, pid)
            w = replace(w, done=(*w.done, pid), done_count=w.done_count + 1)
        else:
            if command.get("player", player) != player:
                raise CommandError(f"the next winter revolt is {state.name(player)}'s (autumn turn order)")
            region = command.get("region")
            if region not in state.regions:
                raise CommandError(f"region: expected one of {', '.join(state.regions)}, got {region!r}")
            setup = BattleSetup("revolt", defender=player, target_armies=_int(command, "armies", 0),
                                revolt_tokens=_int(command, "revolt_tokens", 0),
                                buildings=battles.buildings_list(command.get("buildings"), "buildings"),
                                winter_extra_peasants=w.extra_peasants,
                                a3_owner_loses=self.pack.options.a3_owner_loses)
            state, result, text = self._fight(state, setup, None, command, region=str(region),
                                              label=f"winter revolt in {region}")
            where = str(region)
            w = replace(w, done_count=w.done_count + 1)
        state = replace(state, winter={**state.winter, player: w})
        if self.winter_current(state) is None:
            state = replace(state, phase=SCORING)
        return state, (_log(f"Winter revolt in {where}: {text}"),)

    def holdings(self, state: State) -> dict[str, dict[str, RegionCount]]:
        if not state.mapped:
            return {p: dict(r) for p, r in state.holdings.items()}
        side = self.pack.sides[state.side].provinces
        return holdings_from_provinces((side[pid].region, p.owner, p.buildings) for pid, p in state.provinces.items())

    def winter_score(self, state: State) -> dict[str, PlayerScore]:
        return score(state.players, self.holdings(state), self.pack.scoring,
                     needs_building=self.pack.options.a9_majority_needs_building)

    def _cmd_score(self, state: State, command: Mapping[str, Any]) -> tuple[State, Events]:
        scores = self.winter_score(state)
        vp = {p: state.vp[p] + scores[p].total for p in state.players}
        state = replace(state, vp=vp, scores=(*state.scores, scores), winter={}, rice_loss=None)
        text = ", ".join(f"{state.name(p)} +{scores[p].total}" for p in state.players)
        if state.round >= 8:
            state = replace(state, phase=OVER)
            winners = [state.name(p) for p, r in zip(state.players, finishing_ranks(
                [(vp[p], state.chests[p]) for p in state.players]), strict=True) if r == 1]
            return state, (_log(f"Final scoring: {text}; {' and '.join(winners)} win(s)"),)
        # change of year (spec 7.4): rice to 0, revolt tokens off; the next spring turns up 4 new events
        provinces = {pid: replace(p, revolt_tokens=0) for pid, p in state.provinces.items()}
        state = replace(state, rice={p: 0 for p in state.players}, provinces=provinces, round=state.round + 1,
                        phase=LAY_OUT, events_used=(*state.events_used, *state.events_face_up), events_face_up=(),
                        autumn_order=(), turn_order=())
        return state, (_log(f"First winter scored: {text}; rice back to 0, revolt tokens off"),)


def _setup_from_json(data: Mapping[str, Any], tray: Mapping[str, int], *, options: RuleOptions) -> BattleSetup:
    """A battle as the ``battle`` command and the calculator take it (spec 6.3)."""
    kind = data.get("kind")
    if kind not in battles.KINDS:
        raise BattleError(f"kind: expected attack, neutral or revolt, got {kind!r}")
    target = data.get("target", {}) or {}
    source = data.get("source", {}) or {}
    cards = data.get("special_cards", {}) or {}
    if not isinstance(target, Mapping) or not isinstance(source, Mapping) or not isinstance(cards, Mapping):
        raise BattleError("source, target and special_cards are JSON objects")

    def number(value: Any, name: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise BattleError(f"{name}: expected a whole number, 0 or more, got {value!r}")
        return value

    attacker = data.get("attacker")
    defender = data.get("defender")
    holder = {str(k): v for k, v in cards.items()}

    def holds(card: str, english: str, who: Any) -> int:
        value = holder.get(card, holder.get(english))
        return 1 if who is not None and (value is True or value == who) else 0

    return BattleSetup(
        kind=str(kind), attacker=attacker if kind != "revolt" else None,
        defender=defender if kind != "neutral" else None,
        moved=number(data.get("moved", 0), "moved"),
        source_armies=number(source.get("armies", 0), "source.armies"),
        target_armies=number(target.get("armies", 0), "target.armies"),
        revolt_tokens=number(target.get("revolt_tokens", 0), "target.revolt_tokens"),
        buildings=battles.buildings_list(target.get("buildings"), "target.buildings"),
        attack_extra=holds("attack_plus_1", "+1 army attacking", attacker) if kind != "revolt" else 0,
        defence_extra=holds("defence_plus_1", "+1 army defending", defender) if kind == "attack" else 0,
        winter_extra_peasants=number(data.get("winter_extra_peasants", 0), "winter_extra_peasants"),
        a4_losses=options.a4_losses,
        a3_owner_loses=options.a3_owner_loses,
    )


setup_from_json = _setup_from_json
