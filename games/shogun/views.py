"""What the screens show, as plain data (so the Kivy screens stay thin): the calendar, whose turn and which
action, bids and turn order, the battle helper with odds and the tower model's track record, winter, the
scoring breakdown, and the cube audit."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.engine import CommandError
from games.shogun import bids as bidding
from games.shogun import winter as winters
from games.shogun.battle import BattleSetup
from games.shogun.odds import exact_odds, track_record
from games.shogun.pack import GREEN
from games.shogun.state import (
    ACTIONS,
    BIDS,
    EVENT,
    LAY_OUT,
    OVER,
    SCORING,
    SETUP,
    SPECIALS,
    WINTER_REVOLTS,
    WINTER_SUPPLY,
    State,
    season,
)
from games.shogun.tower import audit as tower_audit

if TYPE_CHECKING:
    from games.shogun.rules import ShogunRules


def calendar(state: State) -> list[dict[str, Any]]:
    """The 8 rounds (spec 3): season, kind, and which is current."""
    return [{"round": r, "season": season(r), "kind": "evaluation" if r % 4 == 0 else "action",
             "year": 1 if r <= 4 else 2, "current": r == state.round, "done": r < state.round or state.phase == OVER}
            for r in range(1, 9)]


def action_row(rules: ShogunRules, state: State) -> list[dict[str, Any]]:
    """The round's action cards; hidden ones stay face down until their turn (A1, default "just before")."""
    row = []
    for i in range(10):
        known = i < len(state.action_row)
        if rules.pack.options.a1_reveal == "just_before":
            visible = i < 5 or (state.phase == ACTIONS and i <= state.position)
        else:  # one hidden card per finished action
            visible = i < 5 + (state.position if state.phase == ACTIONS else 0)
        card = state.action_row[i] if known and visible else None
        row.append({"position": i + 1, "card": card, "name": rules.pack.action_names.get(card or "", None),
                    "face_up": card is not None, "current": state.phase == ACTIONS and i == state.position})
    return row


def prompt(rules: ShogunRules, state: State) -> dict[str, Any]:
    """Whose turn and what the table does next, in one line plus the fields a screen needs."""
    player = state.current_player
    name = state.name(player) if player else None
    text = {
        SETUP: (f"{name}: place a starting group" if player else "Seed the tower: throw 7 cubes of each player "
                f"and {rules.pack.seed_green} green, enter what fell out"),
        LAY_OUT: f"Round {state.round} ({state.season}): lay out the action and special cards"
                 + (" and turn up 4 events" if state.season == "spring" else ""),
        EVENT: "Everybody plans and bids in secret; then draw the round's event",
        BIDS: "Reveal the bids: everybody pays their own bid",
        SPECIALS: f"{name}: take a special card",
        WINTER_SUPPLY: "Winter: enter the event's rice loss",
        SCORING: "Score the winter",
        OVER: "The game is over",
    }.get(state.phase, "")
    data: dict[str, Any] = {"phase": state.phase, "player": player, "text": text}
    if state.phase == ACTIONS:
        action = state.current_action
        if not state.mapped:
            data["text"] = "Play the round's actions at the table; record battles and changes, then end_actions"
        elif action is None:
            data["text"] = f"Turn up action card {state.position + 1}"
        else:
            data.update(action=action, position=state.position + 1)
            data["text"] = f"{name}: {rules.pack.action_names[action]} (reveal the card on that space)"
    if state.phase == WINTER_REVOLTS:
        current = rules.winter_current(state)
        data["player"] = current
        w = state.winter.get(current or "")
        if w is not None and state.mapped and not w.drawn:
            data["text"] = (f"{state.name(rules_left(state, current))} draws {w.count} of "
                            f"{state.name(current)}'s provinces at random")
        elif w is not None:
            data["text"] = f"{state.name(current)}: winter revolt ({w.extra_peasants} extra peasants)"
    return data


def active_player(rules: ShogunRules, state: State) -> str | None:
    """The colour whose turn it is: in the draft, taking a special card, carrying out an action, or whose
    winter revolts are next (spec 2.3, 4.5, 4.6, 7.1); None when the whole table acts."""
    if state.phase == WINTER_REVOLTS:
        return rules.winter_current(state)
    return state.current_player


def calendar_signal(rules: ShogunRules, state: State) -> dict[str, Any]:
    """Where the game is, as the table's LEDs show it: round 1-8 (0 at setup), season, phase, the action
    position 1-10 while one is carried out (else None), the active player's colour, and whether it is over."""
    action = state.position + 1 if state.phase == ACTIONS and state.mapped else None
    return {"round": state.round, "season": state.season, "phase": state.phase, "action": action,
            "player": active_player(rules, state), "over": state.phase == OVER}


def rules_left(state: State, player: str | None) -> str | None:
    if player is None:
        return None
    i = state.players.index(player)
    return state.players[(i + 1) % len(state.players)]


def bids_view(rules: ShogunRules, state: State) -> dict[str, Any]:
    """Bids, choosing order, the special cards' spaces and the turn order with each player's privilege."""
    privileges = {}
    for player, space in state.spaces.items():
        card = state.special_row[space - 1]
        privileges[player] = {"space": space, "card": card, "name": rules.pack.special_names[card]}
    return {"bids": {p: b.to_json() for p, b in state.bids.items()},
            "choosing_order": list(state.choosing), "special_row": list(state.special_row),
            "privileges": privileges, "turn_order": list(state.turn_order), "warnings": list(state.warnings)}


def battle_helper(rules: ShogunRules, state: State, source: str, to: str, armies: int,
                  attack_bonus: bool = True, defence_bonus: bool = True) -> dict[str, Any]:
    """Before a Battle/Move: what goes into the tower, the odds, and the model's track record beside them."""
    setup = rules.battle_setup(state, state.provinces[source].owner or "", source, to, armies,
                                {"attack_bonus": attack_bonus, "defence_bonus": defence_bonus})
    return battle_odds_view(rules, state, setup)


def battle_odds_view(rules: ShogunRules, state: State, setup: BattleSetup) -> dict[str, Any]:
    model = rules.model(state)
    odds = exact_odds(setup, state.tower.tray, state.tower.inside, model)
    return {"goes_in": setup.what_goes_in(state.tower.tray), "added": setup.added(),
            "tray": dict(state.tower.tray), "odds": odds.to_json(),
            "track_record": track_record(state.tower.throws, model).to_json()}


def winter_view(rules: ShogunRules, state: State) -> dict[str, Any]:
    return {"rice_loss": state.rice_loss, "rice": dict(state.rice),
            "provinces": {p: state.province_count(p) for p in state.players},
            "revolts": {p: w.to_json() for p, w in state.winter.items()},
            "order": [p for p in state.turn_order if p in state.winter]}


def scoring_view(rules: ShogunRules, state: State) -> dict[str, Any]:
    """This winter's points if scored now, with the breakdown, and the VP after each scored winter (chart)."""
    now = rules.winter_score(state)
    history: dict[str, list[int]] = {p: [] for p in state.players}
    for scores in state.scores:
        for p in state.players:
            history[p].append((history[p][-1] if history[p] else 0) + scores[p].total)
    return {"now": {p: s.to_json() for p, s in now.items()}, "vp": dict(state.vp), "vp_by_winter": history,
            "chests": dict(state.chests)}


def audit(rules: ShogunRules, state: State) -> list[dict[str, Any]]:
    """board + supply + inside + tray per colour = 62 (green: 20); without the map board and supply are one
    unknown sum, so only the tower's part is shown."""
    colours = [*state.players, GREEN]
    expected = {p: rules.pack.cubes_per_colour for p in state.players} | {GREEN: rules.pack.peasant_cubes}
    if not state.mapped:
        return [{"colour": c, "inside": state.tower.inside.get(c, 0), "tray": state.tower.tray.get(c, 0),
                 "board_and_supply": expected[c] - state.tower.inside.get(c, 0) - state.tower.tray.get(c, 0),
                 "expected": expected[c], "ok": None} for c in colours]
    board = {p: sum(v.armies for v in state.provinces.values() if v.owner == p) for p in state.players}
    supply = dict(state.supply) | {GREEN: state.peasant_supply}
    return [line.to_json() for line in tower_audit(colours, board, supply, state.tower, expected)]


def state_summary(rules: ShogunRules, state: State) -> dict[str, Any]:
    data: dict[str, Any] = {
        "game": "shogun", "round": state.round, "season": state.season, "phase": state.phase,
        "mapped": state.mapped, "side": state.side, "players": list(state.players), "names": dict(state.names),
        "prompt": prompt(rules, state), "chests": dict(state.chests), "rice": dict(state.rice), "vp": dict(state.vp),
        "supply": dict(state.supply), "peasant_supply": state.peasant_supply, "tower": state.tower.to_json(),
        "event": state.event, "events_face_up": list(state.events_face_up), "turn_order": list(state.turn_order),
        "action_row": action_row(rules, state) if state.action_row else [], "warnings": list(state.warnings),
        "current_player": state.name(active_player(rules, state)) if active_player(rules, state) else "",
        "table": calendar_signal(rules, state), "randomisers": state.randomisers,
    }
    if state.mapped:
        data["provinces"] = {pid: p.to_json() for pid, p in state.provinces.items() if p.owner or p.buildings}
    else:
        data["holdings"] = {p: {r: c.to_json() for r, c in regions.items()} for p, regions in state.holdings.items()}
    if state.winter:
        data["winter"] = winter_view(rules, state)
    return data


# ---- for the app's screens: what a tap can choose, and what a command would throw ----------------------


def province_name(rules: ShogunRules, state: State, pid: str) -> str:
    return rules.pack.sides[state.side].provinces[pid].name


def province_region(rules: ShogunRules, state: State, pid: str) -> str:
    return rules.pack.sides[state.side].provinces[pid].region


def _by_region(rules: ShogunRules, state: State, pids: list[str]) -> list[str]:
    regions = list(rules.pack.sides[state.side].regions)
    return sorted(pids, key=lambda p: (regions.index(province_region(rules, state, p)),
                                       province_name(rules, state, p)))


def free_provinces(rules: ShogunRules, state: State) -> list[str]:
    """Provinces in play nobody holds (the draft, spec 2.3), by region."""
    return _by_region(rules, state, [pid for pid, p in state.provinces.items() if p.owner is None])


def held_provinces(rules: ShogunRules, state: State, player: str) -> list[str]:
    return _by_region(rules, state, state.held(player))


def planned_provinces(rules: ShogunRules, state: State, player: str) -> list[str]:
    """The province cards ``player`` could have laid this round: held when the plans were made, not laid yet
    (spec 4.3; a province that changed hands since stays choosable: its action is cancelled, 4.6)."""
    owned = [pid for pid, owner in state.planned_owner.items() if owner == player and pid not in state.used]
    return _by_region(rules, state, owned)


def neighbours(rules: ShogunRules, state: State, pid: str) -> list[str]:
    """Provinces in play next to ``pid`` (land or sea link, spec 2.1)."""
    site = rules.pack.sides[state.side].provinces[pid]
    return _by_region(rules, state, [n for n in site.adjacent if n in state.provinces])


def draft_groups(state: State, player: str | None) -> list[int]:
    """The sizes of starting groups ``player`` has left, largest first (spec 2.2)."""
    return sorted(set(state.groups_left.get(player or "", ())), reverse=True)


def bid_ties(state: State, bids: dict[str, Any]) -> list[list[str]]:
    """Players whose bids are equal (their order comes from the shuffled daimyo cards, spec 4.5)."""
    parsed = {}
    for p in state.players:
        try:
            parsed[p] = bidding.parse_bid(p, bids.get(p, {"none": True}))
        except bidding.BidError:
            return []
    ranks = sorted({b.rank for b in parsed.values()}, reverse=True)
    groups = [[p for p in state.players if parsed[p].rank == r] for r in ranks]
    return bidding.ties(groups)


def winter_preview(rules: ShogunRules, state: State, rice_loss: int) -> dict[str, dict[str, Any]]:
    """Per player, before the winter is entered: rice after the loss, unsupplied provinces and the supply
    table's row (spec 7.1-7.2; a row the pack marks unknown says so)."""
    return {p: winters.supply(rules.pack, state.rice[p], state.province_count(p), rice_loss).to_json()
            for p in state.players}


def winter_card_loss(rules: ShogunRules, state: State) -> int | None:
    """The winter event's rice loss as the data pack knows it (None: unknown, read it from the card)."""
    remaining = state.events_face_up
    card = rules.pack.events.get(remaining[0]) if len(remaining) == 1 else None
    return card.rice_loss if card is not None else None


def throw_preview(rules: ShogunRules, state: State, command: dict[str, Any]) -> dict[str, Any] | None:
    """Would ``command`` throw cubes into the tower? A dry run on the immutable state: None when it throws
    nothing (it may still be refused or cancelled, which the session then says); else what goes in, the
    odds and the model's track record (spec 6.3, 12.3). Seeding the tower (spec 2.5) has no odds."""
    from games.shogun.rules import ThrowNeeded

    if command.get("type") == "seed_tower":
        added = {p: rules.pack.seed_per_player for p in state.players} | {GREEN: rules.pack.seed_green}
        return {"label": "seeding the tower", "kind": "seed", "added": added, "tray": dict(state.tower.tray),
                "odds": None, "track_record": None, "attacker": None, "defender": None}
    try:
        rules.apply(state, command)
    except ThrowNeeded as needed:
        view = battle_odds_view(rules, state, needed.setup)
        return {**view, "label": needed.label, "kind": needed.setup.kind, "attacker": needed.setup.attacker,
                "defender": needed.setup.defender}
    except CommandError:
        return None
    return None
