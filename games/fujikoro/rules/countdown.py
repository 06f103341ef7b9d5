"""The countdown (EN p.13-15): the final chapter, the Countdown Token's track and the lava.

Owns when the final chapter starts (:func:`check_thresholds`: a player reaching the scenario's VP
threshold; scenario 3's Lava Phase comes through its hook), moving the token one space and firing that
space's event (:func:`advance`: the Rope appears, lava erupts, the track's end ends the game), the coop
round track at each new round (:func:`new_round`), and an eruption answered by the table
(:func:`erupt`, the ``lava_hit`` command).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.engine import Command, CommandError
from companion.events import Kind
from games.fujikoro.pack import CountdownEvent
from games.fujikoro.rules.checks import player_index
from games.fujikoro.rules.coop import life_lost
from games.fujikoro.rules.scenarios import scenario_of
from games.fujikoro.rules.setup import scores_vp, uses_round_track
from games.fujikoro.rules.state import Countdown, CountdownKind, Events, Mode, Phase, State, evolve, set_player

if TYPE_CHECKING:
    from games.fujikoro.rules.game import FujiKoro


def check_thresholds(game: FujiKoro, state: State, index: int, events: Events) -> State:
    """EN p.13: the moment a player reaches the threshold the final chapter starts (Appendix B: 3, 8)."""
    if not scores_vp(state.setup) or state.phase is not Phase.PLAYING:
        return state
    vp = state.players[index].vp
    spec = game.pack.scenarios[state.setup.scenario]
    cd = state.countdown
    name = state.players[index].name
    if not cd.end_triggered and vp >= spec.threshold:
        state = evolve(
            state,
            phase=Phase.FINAL,
            countdown=Countdown(
                CountdownKind.END_PHASE,
                marker=index,
                position=scenario_of(state.setup).end_phase_position(game.pack, cd),
                rope=False,
                lava_phase_done=True,
                end_triggered=True,
                lava=cd.lava,
            ),
        )
        events.append((Kind.FINAL_CHAPTER, {"player": name, "threshold": spec.threshold, "phase": "end"}))
        return state
    return scenario_of(state.setup).on_vp(game.pack, state, index, events)


def advance(game: FujiKoro, state: State, events: Events) -> State:
    """Move the Countdown Token one space and fire that space's event (EN p.13)."""
    cd = state.countdown
    position = cd.position + 1
    space = game.pack.countdown[position - 1]
    lava_phase = cd.kind is CountdownKind.LAVA_PHASE
    payload: dict[str, Any] = {"position": position, "event": space.event.value, "lava": list(space.lava)}
    if lava_phase:
        payload["lava_phase"] = True
    events.append((Kind.COUNTDOWN_ADVANCED, payload))
    cd = evolve(cd, position=position, lava=tuple(sorted(set(cd.lava) | set(space.lava))))
    if space.event is CountdownEvent.ROPE and not lava_phase:
        cd = evolve(cd, rope=True)
        events.append((Kind.ROPE_APPEARED, {"position": position}))
        if game.pack.rules.escape_when_rope_appears and state.setup.rules >= 2:
            # Rule option (DE rulebook only): who stands on the Central Tile now escapes at once.
            events.append(("ask_rope", {"question": "Who stands on the Central Tile? They escape now (DE)"}))
    state = evolve(state, countdown=cd)
    if space.lava and state.setup.rules >= 2:
        state = erupt(state, space.lava, events)
    if space.event is CountdownEvent.END:
        if lava_phase:
            after = scenario_of(state.setup).after_lava_phase(
                game.pack, state, cd, uses_round_track(state.setup, game.pack)
            )
            events.append(("lava_phase_ended", {"position": position}))
            return evolve(state, countdown=after)
        return game.finish(state, events, "the Countdown Token reached the end of the track")
    return state


def new_round_countdown(game: FujiKoro, state: State, events: Events) -> State:
    """The Countdown Token at a new round (EN p.14-15): one step down the coop round track, the final chapter
    (or scenario 3's Lava Phase) at its end; in a phase without a marker player, one space on."""
    cd = state.countdown
    if cd.kind is CountdownKind.ROUNDS:
        assert cd.rounds_left is not None
        if cd.rounds_left > 1:
            state = evolve(state, countdown=evolve(cd, rounds_left=cd.rounds_left - 1))
            events.append(("round_track", {"rounds_left": cd.rounds_left - 1, "round": state.round}))
        else:
            lava = scenario_of(state.setup).lava_phase and not cd.lava_phase_done
            kind = CountdownKind.LAVA_PHASE if lava else CountdownKind.END_PHASE
            state = evolve(
                state,
                countdown=Countdown(
                    kind, rounds_left=0, lava_phase_done=cd.lava_phase_done, end_triggered=not lava, lava=cd.lava
                ),
                phase=Phase.PLAYING if lava else Phase.FINAL,
            )
            events.append(
                (Kind.FINAL_CHAPTER, {"player": None, "round": state.round, "phase": "lava" if lava else "end"})
            )
            if state.setup.rules < 2:
                state = advance(game, state, events)
            # Rules 2: EN p.14 "20 rounds + 8 final rounds". The round the phase is triggered in is the
            # first of the 8, as in the competitive game (EN p.13: the triggering turn counts); the token
            # then moves one space at the start of each later round, so space 8 (the end) comes right
            # after the 8th final round instead of before it.
    elif cd.kind in (CountdownKind.LAVA_PHASE, CountdownKind.END_PHASE) and cd.marker is None:
        state = advance(game, state, events)
    return state


def erupt(state: State, lava: tuple[int, ...], events: Events) -> State:
    """EN p.13: lava erupts on these numbers; the table says who stood there (``lava_hit``)."""
    inside = [p.name for p in state.players if p.escaped is None]
    events.append(
        (
            "eruption",
            {
                "lava": list(lava),
                "ask": inside,
                "rule": "a samurai standing there: sandals take 5 damage and move off, or perishes (EN p.13)",
            },
        )
    )
    lying = tuple(p.name for p in state.players if p.unconscious)
    return evolve(state, eruption=lava, eruption_answers=(), eruption_unconscious=lying)


def lava_hit(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """A samurai stood on erupting lava (EN p.13): sandals take 5 damage (twice if the only way off is
    lava again) and the samurai moves off, or they perish and come back in a Temple (coop: a Life)."""
    index = player_index(state, command)
    p = state.players[index]
    if not state.eruption:
        raise CommandError(
            "no lava is erupting now; the table answers an eruption until the next turn ends (EN p.13)"
        )
    if p.escaped is not None:
        raise CommandError(f"{p.name} escaped the volcano, so the lava cannot reach them (EN p.13)")
    if p.name in state.eruption_answers:
        raise CommandError(f"{p.name} is already moved off this eruption's lava (EN p.13)")
    outcome = command.get("outcome")
    if outcome not in ("moved", "moved_twice", "perished"):
        raise CommandError(
            "the samurai on erupting lava moved off (sandals take 5 damage), moved_twice (over lava again: "
            f"10), or perished (EN p.13), not {outcome!r}"
        )
    if (p.unconscious or p.name in state.eruption_unconscious) and outcome != "perished":
        raise CommandError(
            f"{p.name} lies unconscious, and an unconscious samurai on erupting lava perishes (EN p.13)"
        )
    state = evolve(state, eruption_answers=(*state.eruption_answers, p.name))
    if outcome == "perished":
        player = evolve(state.players[index], unconscious=False)
        state = evolve(state, players=set_player(state.players, index, player))
        events.append(("perished", {"player": p.name, "rule": "resurrected in a Temple of their choice (EN p.13)"}))
        if state.setup.mode is Mode.COOP:
            state = life_lost(game, state, {"player": p.name, "reason": "perished in the lava"}, events)
        return state
    events.append(("sandals_damage", {"player": p.name, "damage": 10 if outcome == "moved_twice" else 5}))
    return state
