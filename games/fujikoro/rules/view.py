"""What the screens see: the state as JSON and why each table button is refused now.

Owns :func:`state_json` (scores, the countdown, players, dragons, the fight in play, the setup checklist,
the coop objectives, the ending) and :func:`why_not` (each button's refusal, found by applying its
command, so the app says exactly what the rules would).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.engine import CommandError
from games.fujikoro.rules.checks import check_can_fight, disc_capacity, fight_move
from games.fujikoro.rules.commands import COMMANDS
from games.fujikoro.rules.coop import objectives
from games.fujikoro.rules.rolls import actor_dice
from games.fujikoro.rules.setup import scores_vp, setup_checklist
from games.fujikoro.rules.state import (
    ACTIONS_PER_TURN,
    CATEGORIES,
    GAME_NAME,
    Combat,
    CountdownKind,
    DragonStatus,
    Mode,
    Phase,
    State,
)

if TYPE_CHECKING:
    from games.fujikoro.rules.game import FujiKoro

# The buttons of the table whose refusal the app shows beside them (see FujiKoro.why_not).
BUTTONS: dict[str, dict[str, Any]] = {
    "move": {"type": "action", "action": "move"},
    "explore": {"type": "action", "action": "explore", "level": 1},
    "gather": {"type": "action", "action": "gather"},
    "rest": {"type": "action", "action": "rest"},
    "end_turn": {"type": "end_turn"},
    "scroll": {"type": "scroll"},
    "gear_card_vp": {"type": "gear_card_vp"},
}


def state_json(game: FujiKoro, state: State) -> dict[str, Any]:
    """Everything the screens, the table and the command line show, as JSON."""
    setup = state.setup
    cd = state.countdown
    current = state.players[state.current]
    data: dict[str, Any] = {
        "game": GAME_NAME,
        "pack_version": game.pack.version,
        "mode": setup.mode.value,
        "scenario": setup.scenario,
        "scenario_name": game.pack.scenarios[setup.scenario].name,
        "adventure_tokens": setup.adventure_tokens,
        "phase": state.phase.value,
        "current_player": current.name,
        "start_player": setup.players[setup.start].name,
        "round": state.round,
        "turn": state.turn,
        "actions": list(state.actions),
        "actions_left": actions_left(state),
        "rules": setup.rules,
        "turn_over": state.turn_over,
        "why_not": why_not(game, state),
        "scores": {p.name: p.vp for p in state.players},
        "countdown": {
            "active": cd.kind in (CountdownKind.LAVA_PHASE, CountdownKind.END_PHASE),
            "position": cd.position if cd.kind in (CountdownKind.LAVA_PHASE, CountdownKind.END_PHASE) else None,
            "kind": cd.kind.value,
            "marker_after": state.players[cd.marker].name if cd.marker is not None else None,
            "rounds_left": cd.rounds_left,
            "rope": cd.rope,
            "lava": list(cd.lava),
            "threshold": game.pack.scenarios[setup.scenario].threshold if scores_vp(setup) else None,
        },
        "players": [
            {
                "name": p.name,
                "colour": p.colour,
                "board": p.board,
                "vp": p.vp,
                "categories": {c.value: p.by_category[i] for i, c in enumerate(CATEGORIES)},
                "teeth": p.teeth,
                "escaped": p.escaped.value if p.escaped else None,
                "escape_order": p.escape_order,
                "on_rope": p.on_rope,
                "tokens": p.tokens.to_json(),
                "bonus_claimed_this_turn": p.claimed_turn == state.turn,
                "lives": p.lives if setup.mode is Mode.COOP else None,
                "magical_gear": sorted(p.magical),
                "status_tokens": p.status_tokens,
                "trophies": list(p.trophies),
                "unconscious": p.unconscious,
                "action_discs": {"used": p.discs_used, "total": disc_capacity(game, p)},
                "weapon_card_action": p.card_action,
            }
            for p in state.players
        ],
        "dragons": {d: s.value for d, s in state.dragons if s is not DragonStatus.HIDDEN},
        "dragon_damage_tokens": dict(state.dragon_tokens),
        "eruption": {"lava": list(state.eruption), "answered": list(state.eruption_answers)}
        if state.eruption
        else None,
        "shogun_claims": dict(state.claims),
        "vp_history": [
            {
                "turn": v.turn,
                "round": v.round,
                "player": v.player,
                "category": v.category,
                "points": v.points,
                "total": v.total,
            }
            for v in (state.history or ())
        ],
        "last_roll": state.last_roll.to_json() if state.last_roll else None,
        "fight": {"dragon": state.fight[0], "health": state.fight[1]} if state.fight else None,
        "combat": combat_json(game, state.combat),
        "setup_checklist": setup_checklist(setup, game.pack),
    }
    if setup.mode is Mode.COOP:
        data["objectives"] = [{"text": t, "done": d} for t, d in objectives(game, state)]
        data["group_teeth"] = state.group_teeth
        data["moving_dragons"] = [d for d, s in state.dragons if s is DragonStatus.MOVING]
    if state.ending is not None:
        data["ending"] = {
            "reason": state.ending.reason,
            "won": state.ending.won,
            "ranking": [{"player": n, "vp": vp, "rank": r} for n, vp, r in state.ending.ranking],
        }
    return data


def why_not(game: FujiKoro, state: State) -> dict[str, Any]:
    """Why each table button is refused now (None: allowed), by the very checks the commands run.

    Buttons: move, explore, gather, rest, end_turn, scroll, gear_card_vp; "fight": the active player
    starting a fight; "join": per player, why they cannot join a fight or be attacked.
    """
    out: dict[str, Any] = {}
    if state.phase is Phase.ENDED:
        return {key: "the game has ended" for key in (*BUTTONS, "fight")} | {"join": {}}
    for key, command in BUTTONS.items():
        prepared = {**command, "player": state.players[state.current].name} if key != "end_turn" else command
        if COMMANDS[command["type"]].scores and not scores_vp(state.setup):
            out[key] = "players gain no VP in the cooperative mode (EN p.15)"
            continue
        try:
            game.apply(state, prepared)
            out[key] = None
        except CommandError as error:
            out[key] = str(error)
    try:
        why_not_fight(game, state)
        out["fight"] = None
    except CommandError as error:
        out["fight"] = str(error)
    join: dict[str, str | None] = {}
    for i, p in enumerate(state.players):
        try:
            if p.escaped is not None:
                raise CommandError(f"{p.name} has escaped the volcano and fights no more (EN p.13)")
            check_can_fight(state, i, "join a fight")
            join[p.name] = None
        except CommandError as error:
            join[p.name] = str(error)
    out["join"] = join
    return out


def why_not_fight(game: FujiKoro, state: State) -> None:
    """Why the active player cannot start a fight now: the Move a fight needs (EN p.10), rules 2 only."""
    if state.setup.rules < 2:
        return
    if state.combat is not None and state.combat.is_active:
        raise CommandError("a fight is being played; finish it before starting another (EN p.10)")
    fight_move(game, state, {})


def actions_left(state: State) -> int:
    """How many actions the player whose turn it is has left (EN p.4)."""
    if state.turn_over is not None or state.players[state.current].escaped is not None:
        return 0
    return max(0, ACTIONS_PER_TURN + state.extra_actions - len(state.actions))


def combat_json(game: FujiKoro, combat: Combat | None) -> dict[str, Any] | None:
    """The fight in play as JSON: the fight engine's view, whose turn it is and the dice they roll."""
    if combat is None:
        return None
    fight = combat.fight
    data = fight.to_json()
    who = fight.whose_turn() if combat.is_active else None
    data.update(
        dragon_id=combat.dragon_id,
        max_health=combat.max_health,
        active=combat.is_active,
        cancelled=combat.cancelled,
        final_blow=combat.final_blow,
        stolen=combat.stolen,
        whose_turn=who,
        attacker_may_continue=fight.attacker_may_continue(),
        can_retreat=[f.name for f in fight.fighters if f.broke_this_turn and f.is_in] if combat.is_active else [],
        helmet_choice_open=combat.is_active and combat.before_dragon is not None,
    )
    if who is not None:
        data["dice_to_roll"] = [{"hand": hand, "dice": kinds} for hand, kinds in actor_dice(fight, who, game.pack)]
    return data
