"""Victory Points (EN p.5-8, p.13): what scores, by category, and the ranking at the end.

Owns :func:`add_vp` (every VP change, by category, with the history for the chart; reaching the
threshold starts the final chapter through :func:`~games.fujikoro.rules.countdown.check_thresholds`), the
commands that score (``vp`` corrections, ``scroll``, ``gear_card_vp``, ``shogun_bonus``, ``monk_defeat``),
the final scoring (tokens left on the Palace's last spots, and each scenario's own VP through
:meth:`Scenario.final_vp <games.fujikoro.rules.scenarios.Scenario.final_vp>`), the ranking with its
tie-break (who left the Volcano first) and the :class:`~companion.engine.Result` for the hub.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion import results
from companion.engine import Command, CommandError, PlayerResult, Result
from companion.events import Kind
from games.fujikoro.pack import DataPack
from games.fujikoro.rules.checks import action_bonus, player_index, require_scenario, require_scoring, turn_player
from games.fujikoro.rules.countdown import check_thresholds
from games.fujikoro.rules.scenarios import monks, scenario_of
from games.fujikoro.rules.setup import scores_vp
from games.fujikoro.rules.state import (
    BGG_ID,
    CATEGORIES,
    CATEGORY_INDEX,
    GEAR,
    MAX_PLAYERS,
    TOKEN_KINDS,
    Category,
    Events,
    Exit,
    State,
    Tokens,
    VpHistory,
    VpPoint,
    evolve,
    set_player,
)

if TYPE_CHECKING:
    from games.fujikoro.rules.game import FujiKoro


def escape_tiebreak(escape_order: int | None) -> int | None:
    """A player's tie-break value (companion.results): who left the Volcano first wins a tie on VP, and
    a player who left beats one who stayed in (EN p.13, "Winning the Game")."""
    return results.order_tiebreak(escape_order, MAX_PLAYERS)


REASON_ALIASES: dict[str, Category] = {
    "explore_2": Category.EXPLORE_2,
    "level_2": Category.EXPLORE_2,
    "explore_level_2": Category.EXPLORE_2,
    "explore_3": Category.EXPLORE_3,
    "level_3": Category.EXPLORE_3,
    "explore_level_3": Category.EXPLORE_3,
    "scroll": Category.SCROLLS,
    "scrolls": Category.SCROLLS,
    "dragon": Category.DRAGONS,
    "dragons": Category.DRAGONS,
    "gear": Category.GEAR_CARD,
    "gear_card": Category.GEAR_CARD,
    "weapon_card": Category.GEAR_CARD,
    "shogun": Category.SHOGUN,
    "scenario": Category.SCENARIO,
    "correction": Category.CORRECTION,
}

#: VP that come with one's own action (rules version 2): the action bonus each category needs.
ACTION_VP = {
    Category.SCROLLS: "scroll",
    Category.GEAR_CARD: "gear_card",
    Category.EXPLORE_2: "explore",
    Category.EXPLORE_3: "explore",
}


def spot_tracks(pack: DataPack) -> dict[str, tuple[int, ...]]:
    """The Shogun's bonus tracks by name: ``palace.<token>`` and ``foot.<token>`` (EN p.13)."""
    tracks = {f"palace.{k}": v for k, v in pack.shogun.palace.items()}
    tracks.update({f"foot.{k}": v for k, v in pack.shogun.foot.items()})
    return tracks


def add_vp(
    game: FujiKoro,
    state: State,
    index: int,
    points: int,
    category: Category,
    events: Events,
    *,
    reason: str | None = None,
    check: bool = True,
) -> State:
    """Every VP change (EN p.13): by category, with a point for the chart; reaching the threshold starts the
    final chapter (``check=False`` at setup and the final scoring)."""
    p = state.players[index]
    by = list(p.by_category)
    by[CATEGORY_INDEX[category]] += points
    total = p.vp + points
    player = evolve(p, vp=total, by_category=tuple(by))
    point = VpPoint(state.turn, state.round, p.name, category.value, points, total)
    state = evolve(state, players=set_player(state.players, index, player), history=VpHistory(point, state.history))
    payload: dict[str, Any] = {"player": p.name, "points": points, "total": total, "category": category.value}
    if reason:
        payload["reason"] = reason
    events.append((Kind.VP_CHANGED, payload))
    if check:
        state = check_thresholds(game, state, index, events)
    return state


def vp(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """A VP change the table taps: by category, or a correction with its reason (EN p.13)."""
    index = player_index(state, command)
    require_scoring(state, "VP")
    points = command.get("points")
    if isinstance(points, bool) or not isinstance(points, int) or points == 0:
        raise CommandError(f"points must be a whole number other than 0, got {points!r}")
    raw_category = command.get("category")
    reason = command.get("reason")
    reason_text = str(reason).strip() if reason is not None else ""
    category: Category
    if raw_category is not None:
        try:
            category = Category(str(raw_category))
        except ValueError:
            raise CommandError(
                f"unknown VP category {raw_category!r}; categories: {', '.join(CATEGORIES)}"
            ) from None
    elif reason_text.lower() in REASON_ALIASES:
        category = REASON_ALIASES[reason_text.lower()]
    else:
        category = Category.CORRECTION
    if category is Category.CORRECTION and not reason_text:
        raise CommandError("a VP correction needs a reason, so the table can see why the score changed")
    if state.setup.rules >= 2 and points > 0 and category in ACTION_VP:
        state, _ = action_bonus(state, index, ACTION_VP[category], command)
    return add_vp(game, state, index, points, category, events, reason=reason_text or None)


def scroll(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """A Sacred Scroll gathered: its VP (EN p.6)."""
    index = player_index(state, command)
    require_scoring(state, "a scroll's VP")
    if state.setup.rules >= 2:
        state, _ = action_bonus(state, index, "scroll", command)
    return add_vp(game, state, index, game.pack.scoring["scroll"], Category.SCROLLS, events)


def gear_card_vp(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """The weapon card's 1 VP with the action it is linked to (EN p.8)."""
    index = player_index(state, command)
    require_scoring(state, "the weapon card's VP")
    if state.setup.rules >= 2:
        state, _ = action_bonus(state, index, "gear_card", command)
    return add_vp(game, state, index, game.pack.scoring.get("weapon_card_vp", 1), Category.GEAR_CARD, events)


def shogun_bonus(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """An escaped samurai hands a token to the Shogun, one per turn, for the next spot's VP (EN p.13)."""
    index = turn_player(state, command, "a Shogun bonus")
    require_scoring(state, "a Shogun bonus")
    p = state.players[index]
    if p.escaped is None:
        raise CommandError(f"{p.name} must escape the volcano before claiming Shogun bonuses (EN p.13)")
    if p.on_rope:
        raise CommandError(f"{p.name} is on the Rope Tile and leaves the Volcano at the start of their next turn, "
                           "then claims Shogun bonuses (EN Appendix B scenario 1)")
    if p.claimed_turn == state.turn:
        raise CommandError("an escaped samurai claims one Shogun bonus per turn (EN p.13)")
    kind = str(command.get("track"))
    if kind not in TOKEN_KINDS:
        raise CommandError(f"the Shogun bonus tracks are {', '.join(TOKEN_KINDS)}, not {kind!r}")
    if p.tokens.get(kind) < 1:
        raise CommandError(f"{p.name} has no {kind} token left to hand to the Shogun")
    if p.escaped is Exit.ROPE:
        track = f"palace.{kind}"
    else:
        track = f"foot.{'blueprints' if kind in GEAR else kind}"
    spots = game.tracks.get(track, ())
    if not spots:
        raise CommandError(f"the foot of the mountain gives no VP for {kind} (EN p.13)")
    claims = dict(state.claims)
    taken = claims.get(track, 0)
    if track.startswith("foot.") and taken >= len(spots):
        raise CommandError(
            f"all {len(spots)} spots of the {track.split('.')[1]} bonus at the foot of the mountain are taken"
        )
    if track == "foot.blueprints" and state.setup.rules >= 2:
        # EN p.13: "only 1 Shogun bonus for each category" at the foot: its 3 blueprint spots are one
        # for a Magical Helmet, one for a Weapon, one for Sandals.
        if claims.get(f"foot.{kind}", 0):
            raise CommandError(f"the {kind} bonus at the foot of the mountain is taken: there is only 1 Shogun "
                               "bonus for each category after the Secret Exit (EN p.13)")
        claims[f"foot.{kind}"] = 1
    value = spots[min(taken, len(spots) - 1)]
    claims[track] = taken + 1
    tokens = evolve(p.tokens, **{kind: p.tokens.get(kind) - 1})
    player = evolve(p, tokens=tokens, claimed_turn=state.turn)
    state = evolve(state, players=set_player(state.players, index, player), claims=tuple(sorted(claims.items())))
    events.append(("shogun_bonus", {"player": p.name, "track": track, "spot": taken + 1, "vp": value}))
    return add_vp(game, state, index, value, Category.SHOGUN, events, reason=track)


def monk_defeat(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """A Monk defeated a samurai: the VP it costs (EN Appendix B scenario 4)."""
    index = player_index(state, command)
    require_scenario(game, state, 4, "Losing to a Monk")
    points = int(monks().monk_defeat_vp(game.pack))
    return add_vp(game, state, index, points, Category.SCENARIO, events, reason="defeated by a Monk")


def final_scoring(game: FujiKoro, state: State, events: Events) -> State:
    """EN p.13: tokens left score the Palace's last spots; then the scenario's own VP (EN Appendix B)."""
    tracks = game.tracks
    # Scenario 1: who still stands on the Rope Tile has not left the Volcano (EN Appendix B scenario 1).
    stayed = [i for i, p in enumerate(state.players) if p.on_rope]
    for i in stayed:
        p = state.players[i]
        state = evolve(state, players=set_player(state.players, i, evolve(p, escaped=None, escape_order=None,
                                                                   on_rope=False)))
    for i, p in enumerate(state.players):
        if p.escaped is Exit.ROPE:  # EN p.13: only who reached the big Palace scores leftover tokens
            points = 0
            for kind in TOKEN_KINDS:
                spots = tracks.get(f"palace.{kind}", ())
                if spots and p.tokens.get(kind):
                    points += p.tokens.get(kind) * spots[-1]
            if points:
                state = add_vp(
                    game, state,
                    i,
                    points,
                    Category.SHOGUN,
                    events,
                    reason="remaining tokens on the last spots",
                    check=False,
                )
                state = evolve(
                    state,
                    players=set_player(
                        state.players,
                        i,
                        evolve(
                            state.players[i],
                            tokens=Tokens(
                                **{k: 0 if tracks.get(f"palace.{k}") else p.tokens.get(k) for k in TOKEN_KINDS}
                            ),
                        ),
                    ),
                )
    for i, points, reason in scenario_of(state.setup).final_vp(game.pack, state):
        state = add_vp(game, state, i, points, Category.SCENARIO, events, reason=reason, check=False)
    return state


def ranking(state: State) -> tuple[tuple[str, int, int], ...]:
    """Most VP first; a tie goes to the tied player who left the volcano first (EN p.13): the one
    finishing-order rule (companion.results) with the escape order as the tie-break."""
    players = state.players
    order = results.standing([(p.vp, escape_tiebreak(p.escape_order)) for p in players])
    return tuple((players[i].name, players[i].vp, rank) for i, rank in order)


def result(state: State) -> Result | None:
    """The finished game for the hub: VP by category, the escape order as the tie-break (EN p.13)."""
    ending = state.ending
    if ending is None:
        return None
    coop = not scores_vp(state.setup)
    ranks = {name: rank for name, _, rank in ending.ranking}
    players = []
    for i, p in enumerate(state.players):
        winner = bool(ending.won) if ending.won is not None else ranks[p.name] == 1
        players.append(
            PlayerResult(
                name=p.name,
                score=p.vp,
                rank=1 if coop else ranks[p.name],
                winner=winner,
                start_player=i == state.setup.start,
                colour=p.colour,
                categories={c.value: p.by_category[j] for j, c in enumerate(CATEGORIES)},
                tiebreak=escape_tiebreak(p.escape_order),
            )
        )
    scenario = state.setup.scenario
    return Result("Fuji Koro", BGG_ID, coop, tuple(players), ending.reason,
                  variant=f"scenario {scenario}" if scenario else None)
