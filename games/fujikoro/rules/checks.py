"""Who may do what now: the checks every command shares (EN p.4, pp.10-13).

Owns finding a player by name, the guards of commands that exist only when scoring, in the cooperative
mode or in one scenario, and the turn's own rules as checks (rules version 2): a player acts in their
own turn and not during a fight or after escaping; two actions a turn with Action Discs and Rest
(:func:`check_action`, :func:`take_action`); the VP that come with one's own action
(:func:`action_bonus`); the Move a fight comes with (:func:`fight_move`); unconscious samurai cannot
fight (:func:`check_can_fight`). Each check raises a CommandError whose message is one sentence naming
the rule and its page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.engine import Command, CommandError
from games.fujikoro.rules.scenarios import scenario_of
from games.fujikoro.rules.setup import scores_vp
from games.fujikoro.rules.state import (
    ACTIONS_PER_TURN,
    Action,
    Mode,
    PlayerState,
    State,
    evolve,
    set_player,
)

if TYPE_CHECKING:
    from games.fujikoro.rules.game import FujiKoro

ACTION_NAMES = {Action.MOVE: "a Move", Action.EXPLORE: "an Explore", Action.GATHER: "a Gather", Action.REST: "a Rest"}


def player_index(state: State, command: Command, key: str = "player") -> int:
    """The index of the player a command names (by default under "player")."""
    name = command.get(key)
    for i, p in enumerate(state.players):
        if p.name == name:
            return i
    raise CommandError(
        f"there is no player named {name!r}; the players are {', '.join(p.name for p in state.players)}"
    )


def require_scoring(state: State, what: str) -> None:
    """Refuse a VP command in a game that scores no VP (coop, EN p.15)."""
    if not scores_vp(state.setup):
        raise CommandError(f"{what}: players gain no VP in the cooperative mode (EN p.15)")


def require_scenario(game: FujiKoro, state: State, scenario: int, what: str) -> None:
    """Refuse a command that exists only in one scenario (EN Appendix B)."""
    if state.setup.scenario != scenario:
        raise CommandError(
            f"{what} is a rule of scenario {scenario} ({game.pack.scenarios[scenario].name}) only (EN Appendix B)"
        )


def require_coop(state: State, what: str) -> None:
    """Refuse a command that exists only in the cooperative mode (EN p.15)."""
    if state.setup.mode is not Mode.COOP:
        raise CommandError(f"{what} only exist in the cooperative mode (EN p.15)")


def turn_player(state: State, command: Command, what: str) -> int:
    """The player a command names, who must be the one whose turn it is."""
    index = player_index(state, command)
    if index != state.current:
        raise CommandError(
            f"{what} happens in a player's own turn, and it is {state.players[state.current].name}'s turn"
        )
    return index


# ---- the turn as the rulebook describes it (rules version 2): one place per rule -------------


def check_may_act(state: State, index: int, what: str) -> None:
    """Who may do something with their own action now (EN p.4, pp.10-13)."""
    p = state.players[index]
    if index != state.current:
        raise CommandError(
            f"{what} comes in a player's own turn (EN p.4), and it is {state.players[state.current].name}'s turn"
        )
    if state.combat is not None and state.combat.is_active:
        raise CommandError(f"a fight is being played, so {what} waits until it is over (EN p.10)")
    if p.escaped is not None:
        raise CommandError(f"{p.name} escaped the volcano and takes no more actions, only Shogun bonuses (EN p.13)")
    if state.turn_over is not None:
        raise CommandError(f"{state.turn_over}, so {what} is not possible; end the turn")


def check_action(game: FujiKoro, state: State, index: int, action: Action, *, status_token: bool = False) -> None:
    """Two actions a turn (EN p.4), discs from the pool for Move, Explore and Gather, Rest returns them."""
    check_may_act(state, index, ACTION_NAMES[action])
    p = state.players[index]
    allowed = ACTIONS_PER_TURN + state.extra_actions
    if len(state.actions) >= allowed:
        if status_token and scenario_of(state.setup).status_tokens_buy_actions and p.status_tokens > 0:
            pass  # a status token buys one extra action (EN Appendix B scenario 1)
        else:
            raise CommandError(
                f"{p.name} has taken the turn's {allowed} actions; each player performs 2 actions a turn (EN p.4)"
            )
    if action is Action.REST:
        if p.discs_used == 0:
            raise CommandError(
                f"{p.name} has no Action Disc on the Action Fields, and Rest needs at least one there, "
                "so there is no Rest twice in a row (EN p.4, p.7)"
            )
    elif p.discs_used >= disc_capacity(game, p):
        raise CommandError(
            f"{p.name} has used all {disc_capacity(game, p)} Action Discs and must Rest to get them back (EN p.4)"
        )


def disc_capacity(game: FujiKoro, p: PlayerState) -> int:
    """How many Action Discs a player has: the board's, and one for a Monk in the pool (EN p.4, p.6)."""
    return game.pack.board(p.board).action_discs + (1 if p.disc_monk else 0)


def take_action(
    state: State, index: int, action: Action, *, status_token: bool = False, monk_to_discs: bool = False
) -> State:
    """Record an action and move its Action Disc (EN p.4): every check comes from :func:`check_action`."""
    p = state.players[index]
    extra = state.extra_actions
    if len(state.actions) >= ACTIONS_PER_TURN + extra:
        p = evolve(p, status_tokens=p.status_tokens - 1)
        extra += 1
    if action is Action.REST:
        p = evolve(p, discs_used=0)
    else:
        p = evolve(p, discs_used=p.discs_used + 1)
    if monk_to_discs:
        p = evolve(p, disc_monk=True)
    return evolve(
        state, players=set_player(state.players, index, p), actions=(*state.actions, action.value), extra_actions=extra
    )


def check_end_turn(state: State) -> None:
    """A turn ends after its two actions, unless a fight ended it or the player escaped (EN p.4)."""
    p = state.players[state.current]
    if p.escaped is not None or state.turn_over is not None:
        return
    if len(state.actions) < ACTIONS_PER_TURN:
        raise CommandError(
            f"{p.name} has taken {len(state.actions)} of the turn's 2 actions; "
            "each player performs 2 actions a turn (EN p.4)"
        )


def action_bonus(state: State, index: int, kind: str, command: Command) -> tuple[State, int]:
    """Scroll VP comes with one's own Gather (EN p.6), weapon-card VP with one's own linked action (EN p.8).

    Each action brings one of each at most; returns the state with the bonus marked and the action index.
    """
    p = state.players[index]
    what = {"scroll": "a Sacred Scroll's VP", "explore": "an Explore's VP"}.get(kind, "the weapon card's VP")
    check_may_act(state, index, what)
    used = {i for k, i in state.bonuses if k == kind}
    if kind == "scroll":
        wanted: set[str] = {Action.GATHER.value}
        rule = "a Sacred Scroll is picked up with a Gather action, one per Gather (EN p.6)"
    elif kind == "explore":
        wanted = {Action.EXPLORE.value}
        rule = "a Level II or III tile gives its VP when it is explored, once per Explore (EN p.5)"
    else:
        linked = command.get("action") or p.card_action
        if linked is not None and linked not in (Action.MOVE.value, Action.EXPLORE.value, Action.GATHER.value):
            raise CommandError(f"a weapon card is linked to Move, Explore or Gather (EN p.8), not {linked!r}")
        if p.card_action is not None and linked != p.card_action:
            raise CommandError(
                f"{p.name}'s weapon card is linked to {p.card_action} for the rest of the game (EN p.8)"
            )
        wanted = {str(linked)} if linked else {Action.MOVE.value, Action.EXPLORE.value, Action.GATHER.value}
        rule = (
            "the weapon card's 1 VP comes with the action it is linked to, once per action (EN p.8)"
            + (f"; {p.name}'s is linked to {linked}" if linked else "")
        )
    free = [i for i, a in enumerate(state.actions) if a in wanted and i not in used]
    if not free:
        raise CommandError(f"{p.name} has no action this turn to score {what} with: {rule}")
    at = free[-1]
    state = evolve(state, bonuses=(*state.bonuses, (kind, at)))
    if kind == "gear_card" and p.card_action is None:
        state = evolve(
            state, players=set_player(state.players, index, evolve(p, card_action=state.actions[at]))
        )
    return state, at


def fight_move(game: FujiKoro, state: State, command: Command) -> tuple[State, bool]:
    """A fight the active player starts comes with a Move onto the tile or space (EN p.4, p.10, p.12).

    The fight belongs to the turn's last action if it is a Move that has not led to a fight yet;
    otherwise starting the fight records that Move. Returns the state and whether it was the first action.
    """
    index = state.current
    check_may_act(state, index, "starting a fight")
    last = len(state.actions) - 1
    if not (state.actions and state.actions[-1] == Action.MOVE.value and state.fought != last):
        check_action(game, state, index, Action.MOVE)
        state = take_action(state, index, Action.MOVE)
        last = len(state.actions) - 1
    first = last == 0
    claimed = command.get("first_action")
    if claimed is not None and bool(claimed) != first:
        name = state.players[index].name
        raise CommandError(
            f"this fight comes with {name}'s {'first' if first else 'second'} action, "
            f"not the {'first' if claimed else 'second'} (EN p.11)"
        )
    return evolve(state, fought=last), first


def check_can_fight(state: State, index: int, role: str) -> None:
    """EN p.11, p.12: an unconscious samurai can't be attacked or join a fight until their next turn."""
    p = state.players[index]
    if p.unconscious:
        raise CommandError(
            f"{p.name} is unconscious until the start of their next turn and cannot {role} (EN p.11, p.12)"
        )
