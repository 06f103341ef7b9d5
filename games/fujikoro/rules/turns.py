"""Turns and rounds (EN p.4-8, p.13): the start, the two actions, the end of a turn, a new round, escaping.

Owns the commands of a player's turn: ``start``, ``action`` (Move, Explore, Gather, Rest; an Explore's
tile VP), ``explore``, ``end_turn`` (the marker player moves the Countdown Token; the next player wakes
up or leaves the Rope Tile; a new round), ``escape`` (by the Rope or the Secret Exit, with the tokens for
the Shogun), ``magical_gear`` and scenario 1's ``status_tokens``. The checks they share are in
:mod:`~games.fujikoro.rules.checks`; what a new round moves is in :mod:`~games.fujikoro.rules.countdown`,
:mod:`~games.fujikoro.rules.coop` and the scenario's hook.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.engine import Command, CommandError
from companion.events import Kind
from games.fujikoro.rules.checks import (
    check_action,
    check_end_turn,
    player_index,
    require_scenario,
    take_action,
    turn_player,
)
from games.fujikoro.rules.coop import flip_status_tokens
from games.fujikoro.rules.countdown import advance, new_round_countdown
from games.fujikoro.rules.scenarios import scenario_of
from games.fujikoro.rules.scoring import add_vp
from games.fujikoro.rules.setup import scores_vp
from games.fujikoro.rules.state import (
    ACTIONS_PER_TURN,
    GEAR,
    TOKEN_KINDS,
    Action,
    Category,
    CountdownKind,
    Events,
    Exit,
    Mode,
    Phase,
    State,
    Tokens,
    evolve,
    set_player,
)

if TYPE_CHECKING:
    from games.fujikoro.rules.game import FujiKoro


def start(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """The table has set up and the first turn starts (EN p.2)."""
    if state.phase is not Phase.SETUP:
        raise CommandError("the game has already started")
    p = state.players[state.current]
    events.append((Kind.TURN_STARTED, {"player": p.name, "round": state.round, "colour": p.colour}))
    return evolve(state, phase=Phase.PLAYING)


def action(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """One of the turn's two actions: Move, Explore, Gather or Rest (EN p.4-7); an explored Level II/III tile
    scores its VP (EN p.5)."""
    index = turn_player(state, command, "an action")
    try:
        action = Action(str(command.get("action")))
    except ValueError:
        raise CommandError(
            f"the actions are move, explore, gather and rest (EN p.4), not {command.get('action')!r}"
        ) from None
    if state.setup.rules >= 2:
        status_token = bool(command.get("status_token", False))
        check_action(game, state, index, action, status_token=status_token)
        monk = command.get("monk_to")
        if monk is not None and (monk != "action_discs" or action is not Action.GATHER):
            raise CommandError(
                'a gathered Monk goes to the Action Disc pool with {"monk_to": "action_discs"} (EN p.6)'
            )
        if monk is not None and state.players[index].disc_monk:
            raise CommandError(f"{state.players[index].name} already has a Monk in the Action Disc pool (EN p.6)")
        state = take_action(state, index, action, status_token=status_token, monk_to_discs=monk is not None)
    else:
        if state.players[index].escaped is not None:
            raise CommandError("a samurai who escaped performs no more actions, only Shogun bonuses (EN p.13)")
        if action is Action.REST and state.actions and state.actions[-1] == Action.REST.value:
            raise CommandError("you cannot Rest twice in a row (EN p.7)")
        state = evolve(state, actions=(*state.actions, action.value))
    level = command.get("level")
    if action is Action.EXPLORE and level is not None:
        if level not in (1, 2, 3):
            raise CommandError(f"volcano tiles are Level I, II or III, not {level!r} (EN p.3)")
        if scores_vp(state.setup) and level in (2, 3):
            category = Category.EXPLORE_2 if level == 2 else Category.EXPLORE_3
            state = add_vp(game, state, index, game.pack.scoring[category.value], category, events)
            if state.setup.rules >= 2:  # this Explore's VP is scored: not again by a VP tap
                state = evolve(state, bonuses=(*state.bonuses, ("explore", len(state.actions) - 1)))
    events.append(
        (
            "action",
            {
                "player": state.players[index].name,
                "action": action.value,
                "actions": list(state.actions),
                "actions_left": max(0, ACTIONS_PER_TURN - len(state.actions)),
            },
        )
    )
    return state


def explore(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """An Explore of a Level I, II or III tile (EN p.5)."""
    return action(game, state, {**command, "action": "explore", "level": command.get("level", 1)}, events)


def end_turn(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """The turn ends (EN p.4): the marker player moves the Countdown Token in the final chapter (EN p.13);
    the next player wakes up or leaves the Rope Tile; a new round after the last player."""
    if state.setup.rules >= 2:
        check_end_turn(state)
        state = evolve(state, eruption=(), eruption_answers=())  # an eruption is answered in the turn after it
    cd = state.countdown
    if cd.kind in (CountdownKind.LAVA_PHASE, CountdownKind.END_PHASE) and cd.marker == state.current:
        state = advance(game, state, events)
        if state.phase is Phase.ENDED:
            return state
    n = len(state.players)
    nxt = (state.current + 1) % n
    new_round = nxt == state.setup.start
    state = evolve(
        state,
        current=nxt,
        actions=(),
        turn=state.turn + 1,
        round=state.round + (1 if new_round else 0),
        turn_over=None,
        fought=None,
        bonuses=(),
        extra_actions=0,
    )
    if state.players[nxt].unconscious:
        # EN p.11, p.12: the samurai wakes up at the beginning of their next turn.
        state = evolve(state, players=set_player(state.players, nxt, evolve(state.players[nxt], unconscious=False)))
        events.append(("woke_up", {"player": state.players[nxt].name}))
    if state.players[nxt].on_rope:
        # EN Appendix B scenario 1: who ended their turn on the Rope Tile leaves the Volcano now.
        state = evolve(state, players=set_player(state.players, nxt, evolve(state.players[nxt], on_rope=False)))
        events.append(("left_the_volcano", {"player": state.players[nxt].name}))
    if new_round:
        state = begin_round(game, state, events)
        if state.phase is Phase.ENDED:
            # Rules 2: the track's end came after the last round; that round is the one the game ended in.
            return evolve(state, round=state.round - 1) if state.setup.rules >= 2 else state
    p = state.players[nxt]
    events.append((Kind.TURN_STARTED, {"player": p.name, "round": state.round, "colour": p.colour}))
    return state


def begin_round(game: FujiKoro, state: State, events: Events) -> State:
    """EN p.15: at a new round the start player moves the Countdown Token, then flips the status tokens;
    then whatever the scenario moves (EN Appendix B)."""
    state = new_round_countdown(game, state, events)
    if state.phase is Phase.ENDED:
        return state
    if state.setup.mode is Mode.COOP:
        state = flip_status_tokens(state, events)
    return scenario_of(state.setup).new_round(game.pack, state, events)


def escape(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """A samurai leaves the Volcano by the Rope or the Secret Exit with the tokens for the Shogun (EN p.13)."""
    index = turn_player(state, command, "escaping the volcano")
    p = state.players[index]
    if p.escaped is not None:
        raise CommandError(f"{p.name} has already escaped the volcano")
    try:
        via = Exit(str(command.get("via", "rope")))
    except ValueError:
        raise CommandError("a samurai escapes by the rope or the secret_exit (EN p.13)") from None
    if state.setup.rules >= 2:
        check_escape(state, index, via, command)
    if via is Exit.ROPE and not state.countdown.rope:
        raise CommandError(
            "the Rope Tile is not on the Central Tile yet; it appears on its countdown space (EN p.13)"
        )
    scenario_of(state.setup).check_escape(state, via)
    raw = command.get("tokens", {})
    if not isinstance(raw, dict) or set(raw) - set(TOKEN_KINDS):
        raise CommandError(f"escape tokens are a mapping of {', '.join(TOKEN_KINDS)} to counts")
    counts: dict[str, int] = {}
    for kind in TOKEN_KINDS:
        value = raw.get(kind, 0)
        if isinstance(value, bool):
            value = int(value)
        if not isinstance(value, int) or value < 0:
            raise CommandError(f"the number of {kind} tokens must be a whole number of at least 0, got {value!r}")
        if kind in GEAR and value > 1:
            raise CommandError(f"a samurai has at most 1 magical {kind} to show the Shogun")
        counts[kind] = value
    order = state.escapes + 1
    magical = p.magical | {g for g in GEAR if counts[g]}
    # Scenario 1 (rules 2): the samurai ends the turn on the Rope Tile and leaves at the start of their
    # next turn (EN Appendix B scenario 1): no Shogun bonus before then, no escape if the game ends first.
    on_rope = state.setup.rules >= 2 and scenario_of(state.setup).stays_on_rope(via)
    player = evolve(p, escaped=via, escape_order=p.escape_order or order, tokens=Tokens(**counts),
                   magical=magical, on_rope=on_rope)
    state = evolve(state, players=set_player(state.players, index, player), escapes=order)
    events.append(("escaped", {"player": p.name, "via": via.value, "order": order}))
    return state


def check_escape(state: State, index: int, via: Exit, command: Command) -> None:
    """Escaping ends the turn on a Rope (EN p.13); in coop through the Secret Exit with magical gear (EN p.14)."""
    p = state.players[index]
    if state.combat is not None and state.combat.is_active:
        raise CommandError("a fight is being played, so escaping waits until it is over (EN p.10)")
    if state.turn_over is None and len(state.actions) < ACTIONS_PER_TURN:
        raise CommandError(
            f"a samurai escapes by ending the turn on a Rope, after the turn's 2 actions (EN p.4, p.13), "
            f"and {p.name} has taken {len(state.actions)}"
        )
    if not scores_vp(state.setup):
        if via is Exit.ROPE:
            raise CommandError(
                "in the cooperative mode every player must escape through the Secret Exit (EN p.14), not the Rope"
            )
        raw = command.get("tokens", {})
        shown = isinstance(raw, dict) and any(raw.get(g) for g in GEAR)
        if not p.magical and not shown:
            raise CommandError(
                f"in the cooperative mode each player escapes with at least one completed Magical Gear item "
                f"(EN p.14), and {p.name} has none"
            )


def magical_gear(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """A Magical Gear item completed (or lost) (EN p.9; coop objectives EN p.14)."""
    index = player_index(state, command)
    gear = command.get("gear")
    if gear not in GEAR:
        raise CommandError(f"magical gear is a helmet, weapon or sandals, not {gear!r}")
    p = state.players[index]
    if state.setup.rules >= 2 and p.escaped is not None:
        raise CommandError(
            f"{p.name} escaped the volcano and takes no more actions, so their gear no longer changes (EN p.13)"
        )
    completed = bool(command.get("completed", True))
    magical = p.magical | {gear} if completed else p.magical - {gear}
    events.append(("magical_gear", {"player": p.name, "gear": gear, "completed": completed}))
    return evolve(state, players=set_player(state.players, index, evolve(p, magical=frozenset(magical))))


def status_tokens(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """Scenario 1's status tokens kept by a player (EN Appendix B scenario 1)."""
    index = player_index(state, command)
    require_scenario(game, state, 1, "Keeping status tokens")
    delta = command.get("delta")
    if isinstance(delta, bool) or not isinstance(delta, int) or delta == 0:
        raise CommandError(f"delta must be a whole number other than 0, got {delta!r}")
    p = state.players[index]
    if p.status_tokens + delta < 0:
        raise CommandError(f"{p.name} has only {p.status_tokens} status tokens")
    events.append(("status_tokens", {"player": p.name, "count": p.status_tokens + delta}))
    return evolve(state, players=set_player(state.players, index, evolve(p, status_tokens=p.status_tokens + delta)))
