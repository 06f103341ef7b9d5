"""The scenarios of EN Appendix B (p.15) as hook classes: each scenario's rule changes in one place.

:class:`Scenario` is the base game (scenario 0): every hook's default. A scenario that changes something
is a subclass overriding only the hooks it needs, and :data:`SCENARIOS` maps its number to it;
:func:`scenario_of` finds the one a game plays. The rest of the rules ask the hooks and never test a
scenario's number, except the commands that exist only in one scenario (``status_tokens``,
``monk_defeat``, ``hostile_defeated``, ``tamed``), which name their scenario when refused.

Hooks only answer questions or return a changed state and events; they never call other rules, so
every other module may use them. Numbers still come from the data pack (``[scenarios.N]``), so a
group's correction of a scenario value is honoured.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any, ClassVar

from companion.engine import CommandError
from companion.events import Kind
from games.fujikoro.combat import DragonStats
from games.fujikoro.pack import DataPack, Dragon
from games.fujikoro.rules.state import (
    Combat,
    Countdown,
    CountdownKind,
    DragonStatus,
    Events,
    Exit,
    Mode,
    Setup,
    State,
    evolve,
)

MONK_INITIATIVE = 10**6  # EN Appendix B scenario 4: "infinite" (the Czech rulebook says 4)

#: One objective of the cooperative game: its text and whether it is achieved now.
Objective = tuple[str, bool]


class Scenario:
    """The base game (EN p.4): what every hook answers unless a scenario changes it."""

    number: ClassVar[int] = 0
    #: Played by one player only (EN Appendix B scenarios 7 and 8).
    solo: ClassVar[bool] = False
    #: Every player uses the symmetrical Player Board (EN Appendix B scenario 1).
    symmetric_boards_only: ClassVar[bool] = False
    #: Scored in VP although played in the cooperative mode (EN Appendix B scenario 8, Ronin).
    vp_in_coop: ClassVar[bool] = False
    #: A Lava Phase runs before the End Phase (EN Appendix B scenario 3).
    lava_phase: ClassVar[bool] = False
    #: A samurai breaks a tooth off a defeated dragon in the competitive mode (EN p.11; not scenario 1).
    dragon_teeth: ClassVar[bool] = True
    #: A status token buys an extra action (EN Appendix B scenario 1).
    status_tokens_buy_actions: ClassVar[bool] = False

    def extras(self, pack: DataPack) -> Mapping[str, Any]:
        """This scenario's own values in the data pack (``[scenarios.N]``)."""
        return pack.scenarios[self.number].extras

    # ---- setup (EN p.2, p.14) -------------------------------------------------------------------
    def round_track(self, pack: DataPack) -> bool:
        """Whether the cooperative round track runs (EN p.14)."""
        return True

    def coop_start(self, setup: Setup, pack: DataPack) -> int:
        """The round-track space the Countdown Token starts on (EN p.14 step 6)."""
        return pack.coop.start(len(setup.players), setup.adventure_tokens)

    def blueprints_line(self, default: str) -> str:
        """The checklist's line for the Magical Blueprints (EN p.2 step 10)."""
        return default

    def checklist(self, pack: DataPack) -> list[str]:
        """What else to put on the table for this scenario (EN Appendix B)."""
        return []

    # ---- the countdown (EN p.13) ----------------------------------------------------------------
    def end_phase_position(self, pack: DataPack, countdown: Countdown) -> int:
        """Where the Countdown Token stands when the End Phase starts: before space 1 (EN p.13)."""
        return 0

    def on_vp(self, pack: DataPack, state: State, index: int, events: Events) -> State:
        """A player's VP changed before the final chapter started: nothing else happens (EN p.13)."""
        return state

    def after_lava_phase(self, pack: DataPack, state: State, countdown: Countdown, round_track: bool) -> Countdown:
        """The countdown once a Lava Phase reached the end of the track (only scenario 3 has one)."""
        return Countdown(CountdownKind.IDLE, lava_phase_done=True, end_triggered=countdown.end_triggered,
                         lava=countdown.lava)

    def new_round(self, pack: DataPack, state: State, events: Events) -> State:
        """What moves at the start of a round besides the coop status tokens (EN p.15): nothing."""
        return state

    # ---- turns ----------------------------------------------------------------------------------
    def check_escape(self, state: State, via: Exit) -> None:
        """Refuse an escape this scenario does not allow (EN p.13: by the Rope or the Secret Exit)."""

    def stays_on_rope(self, via: Exit) -> bool:
        """Whether an escaping samurai waits on the Rope Tile until their next turn (EN p.13: no)."""
        return False

    # ---- dragons and fights (EN pp.10-12, p.15) --------------------------------------------------
    def dragons_move(self, pack: DataPack) -> bool:
        """Whether revealed dragons move in the competitive mode (EN p.5: they stay on their tile)."""
        return False

    def joining_allowed(self, pack: DataPack) -> bool:
        """Whether other samurai may join a dragon fight (EN p.10: yes)."""
        return True

    def check_dragon_fighters(self, count: int) -> None:
        """Refuse a recorded dragon defeat by more samurai than the scenario allows (EN p.10: any)."""

    def keeps_trophies(self, pack: DataPack) -> bool:
        """Whether the final blow keeps a defeated dragon as a trophy (EN p.11: no, it leaves the game)."""
        return False

    def on_dragon_revealed(self, state: State, events: Events) -> State:
        """A dragon was revealed by an Explore (EN p.5): nothing else happens."""
        return state

    def on_dragon_health(self, pack: DataPack, state: State, combat: Combat, health: int, events: Events) -> State:
        """A dragon's Health changed in a fight (EN p.11): nothing else happens."""
        return state

    def defeat_loses(self, figure: Dragon) -> str | None:
        """Why defeating this dragon loses the cooperative game (EN p.15: it never does)."""
        return None

    # ---- scoring and the end (EN p.13, p.15) -----------------------------------------------------
    def final_vp(self, pack: DataPack, state: State) -> list[tuple[int, int, str]]:
        """Scenario VP at the final scoring: (player index, points, reason) (EN p.13: none)."""
        return []

    def objectives(self, pack: DataPack, state: State) -> list[Objective] | None:
        """The cooperative objectives if the scenario replaces them (None: those of EN p.14)."""
        return None

    def extra_objectives(self, state: State) -> list[Objective]:
        """Objectives the scenario adds to those of EN p.14."""
        return []

    def verdict(self, pack: DataPack, state: State, reason: str) -> tuple[str, bool] | None:
        """Whether the table won a game that ended by itself, if the scenario decides it (None: the
        cooperative objectives decide, EN p.14)."""
        return None


class ToEachHisOwn(Scenario):
    """Scenario 1, "To each his own" (EN Appendix B, p.15): symmetrical boards, no joined fights, no
    Secret Exit; status tokens buy actions and score at the end; the Rope Tile is left a turn later."""

    number = 1
    symmetric_boards_only = True
    dragon_teeth = False
    status_tokens_buy_actions = True

    def blueprints_line(self, default: str) -> str:
        """EN Appendix B p.15 scenario 1: the Blueprints lie face down at random; no Secret Exit."""
        return (
            "Scenario 1: deal the Magical Blueprints to the Temples at random and face down, hidden until "
            "someone gathers them, and leave the Secret Exit tile in the box (EN Appendix B scenario 1)."
        )

    def check_escape(self, state: State, via: Exit) -> None:
        """EN Appendix B p.15 scenario 1: there is no Secret Exit."""
        if via is Exit.SECRET_EXIT:
            raise CommandError("scenario 1 does not use the Secret Exit (EN Appendix B)")

    def stays_on_rope(self, via: Exit) -> bool:
        """EN Appendix B p.15 scenario 1: who ends the turn on the Rope Tile leaves at their next turn."""
        return via is Exit.ROPE

    def joining_allowed(self, pack: DataPack) -> bool:
        """EN Appendix B p.15 scenario 1: nobody joins a dragon fight (the pack's ``no_joining``)."""
        return not self.extras(pack).get("no_joining")

    def check_dragon_fighters(self, count: int) -> None:
        """EN Appendix B p.15 scenario 1: a dragon is defeated by one samurai alone."""
        if count > 1:
            raise CommandError("in scenario 1 a dragon combat cannot be joined by another samurai (EN Appendix B)")

    def final_vp(self, pack: DataPack, state: State) -> list[tuple[int, int, str]]:
        """EN Appendix B p.15 scenario 1: each status token left is worth VP (5)."""
        worth = int(self.extras(pack).get("status_token_vp", 5))
        return [(i, p.status_tokens * worth, "remaining status tokens")
                for i, p in enumerate(state.players) if p.status_tokens]


class DragonsOnTheMove(Scenario):
    """Scenario 2, "Dragons on the move" (EN Appendix B, p.15): dragons move and attack; the final blow
    keeps the dragon as a trophy, scored at the end."""

    number = 2

    def dragons_move(self, pack: DataPack) -> bool:
        """EN Appendix B p.15 scenario 2: revealed dragons move 1 tile each round (the pack's ``dragons_move``)."""
        return bool(self.extras(pack).get("dragons_move"))

    def new_round(self, pack: DataPack, state: State, events: Events) -> State:
        """EN Appendix B p.15 scenario 2: at a new round each revealed dragon moves toward the nearest samurai."""
        if state.setup.mode is not Mode.COOP and self.dragons_move(pack):
            moving = [d for d, s in state.dragons if s is DragonStatus.REVEALED]
            if moving:
                events.append(
                    (
                        "dragons_move",
                        {
                            "dragons": moving,
                            "round": state.round - 1,
                            "rule": "each moves 1 tile toward the nearest samurai; not if two are equally near",
                        },
                    )
                )
        return state

    def keeps_trophies(self, pack: DataPack) -> bool:
        """EN Appendix B p.15 scenario 2: the final blow keeps the dragon (the pack's ``trophies``)."""
        return bool(self.extras(pack).get("trophies"))

    def final_vp(self, pack: DataPack, state: State) -> list[tuple[int, int, str]]:
        """EN Appendix B p.15 scenario 2: the trophies' VP by colour and sets."""
        extras = self.extras(pack)
        if not extras.get("trophies"):
            return []
        scored = ((i, trophy_points(pack, p.trophies, extras)) for i, p in enumerate(state.players))
        return [(i, points, "dragon trophies") for i, points in scored if points]


class GettingHot(Scenario):
    """Scenario 3, "It's getting hot in here" (EN Appendix B, p.15): a Lava Phase on the countdown track
    first (at 10 VP, or after the first rounds in coop), then the End Phase as usual."""

    number = 3
    lava_phase = True

    def coop_start(self, setup: Setup, pack: DataPack) -> int:
        """EN Appendix B p.15 scenario 3 (coop): the Lava Phase starts after 5 rounds."""
        return int(self.extras(pack).get("coop_lava_phase_round", 5))

    def checklist(self, pack: DataPack) -> list[str]:
        """EN Appendix B p.15 scenario 3."""
        lava = self.extras(pack).get("lava_phase_threshold")
        return [f"Scenario 3: a Lava Phase runs first (at {lava} VP, or after the first rounds in coop)."]

    def on_vp(self, pack: DataPack, state: State, index: int, events: Events) -> State:
        """EN Appendix B p.15 scenario 3: the first to reach 10 VP starts the Lava Phase."""
        lava_at = self.extras(pack).get("lava_phase_threshold")
        cd = state.countdown
        vp = state.players[index].vp
        if isinstance(lava_at, int) and cd.kind is CountdownKind.IDLE and not cd.lava_phase_done and vp >= lava_at:
            state = evolve(state, countdown=Countdown(CountdownKind.LAVA_PHASE, marker=index))
            events.append((Kind.FINAL_CHAPTER, {"player": state.players[index].name, "threshold": lava_at,
                                                "phase": "lava"}))
        return state

    def end_phase_position(self, pack: DataPack, countdown: Countdown) -> int:
        """EN Appendix B p.15 scenario 3: an unfinished Lava Phase is cut short and the token goes "back to
        1" (assumed reading: before space 1; the rule option ``scenario_3_back_to`` can say onto it)."""
        return pack.rules.scenario_3_back_to if countdown.kind is CountdownKind.LAVA_PHASE else 0

    def after_lava_phase(self, pack: DataPack, state: State, countdown: Countdown, round_track: bool) -> Countdown:
        """EN Appendix B p.15 scenario 3: after the Lava Phase the game goes on (coop: the round track
        again, from 5; solo from 10) until the End Phase."""
        if round_track:
            extras = self.extras(pack)
            solo = len(state.players) == 1
            rounds = int(extras.get("coop_after_lava_solo", 10) if solo else extras.get("coop_lava_phase_round", 5))
            return Countdown(CountdownKind.ROUNDS, rounds_left=rounds, lava_phase_done=True, lava=countdown.lava)
        return super().after_lava_phase(pack, state, countdown, round_track)


class WhoIsWorthy(Scenario):
    """Scenario 4, "Who is worthy?" (EN Appendix B, p.15): Monks move toward the samurai and fight them;
    a conquered Monk joins the board, a Monk's win costs VP."""

    number = 4

    def new_round(self, pack: DataPack, state: State, events: Events) -> State:
        """EN Appendix B p.15 scenario 4: at a new round each Monk moves 2 spaces toward the nearest samurai."""
        events.append(
            (
                "monks_move",
                {"round": state.round - 1, "rule": "each monk moves 2 spaces toward the nearest samurai"},
            )
        )
        return state

    def monk_stats(self, pack: DataPack) -> DragonStats:
        """EN Appendix B p.15 scenario 4: a Monk fights with infinite Initiative, 4 Health and 4 wooden dice."""
        extras = self.extras(pack)
        return DragonStats(
            name="Monk",
            colour=None,
            initiative=MONK_INITIATIVE,
            health=int(extras.get("monk_health", 4)),
            dice=int(extras.get("monk_dice", 4)),
            legendary=False,
            vp=0,
            coop_teeth=0,
            die="wood",
        )

    def monk_defeat_vp(self, pack: DataPack) -> Any:
        """EN Appendix B p.15 scenario 4: losing to a Monk costs 5 VP (the pack's value as written)."""
        return self.extras(pack).get("monk_defeat_vp", -5)


class SurvivalOfTheFittest(Scenario):
    """Scenario 5, "Survival of the fittest" (EN Appendix B, p.15): every visible dragon must die before
    anyone escapes; a revealed dragon calls escaped samurai back (competitive)."""

    number = 5

    def check_escape(self, state: State, via: Exit) -> None:
        """EN Appendix B p.15 scenario 5: no one escapes while a visible dragon lives."""
        alive = [d for d, s in state.dragons if s not in (DragonStatus.HIDDEN, DragonStatus.DEFEATED)]
        if alive:
            raise CommandError(f"in scenario 5 no one escapes while a visible dragon lives ({', '.join(alive)}) "
                               "(EN Appendix B scenario 5)")

    def on_dragon_revealed(self, state: State, events: Events) -> State:
        """EN Appendix B p.15 scenario 5 (competitive): a revealed dragon brings escaped samurai back."""
        if state.setup.mode is not Mode.COMPETITIVE:
            return state
        players = list(state.players)
        for i, p in enumerate(players):
            if p.escaped is not None:
                players[i] = evolve(p, escaped=None)
                events.append(("returned", {"player": p.name, "rule": "scenario 5: escaped samurai return"}))
        return evolve(state, players=tuple(players))

    def extra_objectives(self, state: State) -> list[Objective]:
        """EN Appendix B p.15 scenario 5 (coop): defeat every visible dragon too."""
        alive = [
            d
            for d, s in state.dragons
            if s in (DragonStatus.SLEEPING, DragonStatus.AWAKE, DragonStatus.MOVING, DragonStatus.REVEALED)
        ]
        return [(f"Defeat every visible Dragon ({len(alive)} still alive)", not alive)]


class TameTheBeast(Scenario):
    """Scenario 6, "Tame the beast" (EN Appendix B, p.15, coop): lure the Legendary Dragon to the Central
    Tile and bring its Health to 10 or below; killing it loses."""

    number = 6

    def on_dragon_health(self, pack: DataPack, state: State, combat: Combat, health: int, events: Events) -> State:
        """EN Appendix B p.15 scenario 6: its Health at 10 or below on the Central Tile tames it; with every
        objective achieved the players win at once (EN p.15)."""
        target = int(self.extras(pack).get("legendary_target_health", 10))
        legendary = combat.dragon_id is not None and pack.dragons[combat.dragon_id].is_legendary
        if legendary and health <= target and not state.tamed:
            state = evolve(state, tamed=True)
            events.append(("tamed", {"dragon": combat.dragon_id, "health": health}))
        return state

    def defeat_loses(self, figure: Dragon) -> str | None:
        """EN Appendix B p.15 scenario 6: killing the Legendary Dragon instead of taming it loses."""
        if figure.is_legendary:
            return "the Legendary Dragon was killed instead of tamed, so everyone loses"
        return None

    def objectives(self, pack: DataPack, state: State) -> list[Objective] | None:
        """EN Appendix B p.15 scenario 6: the one objective is the taming."""
        return [
            (
                "Lure the Legendary Dragon to the Central Tile and bring its Health to "
                f"{self.extras(pack).get('legendary_target_health', 10)} or below",
                state.tamed,
            )
        ]


class FallenSamurai(Scenario):
    """Scenario 7, "The 3 fallen samurai" (EN Appendix B, p.15, solo coop): a hostile Samurai guards each
    Temple; defeat all three, hold three Magical Gear items and leave by the Secret Exit."""

    number = 7
    solo = True

    def checklist(self, pack: DataPack) -> list[str]:
        """EN Appendix B p.15 scenario 7: the hostile Samurai's boards."""
        return [
            "Scenario 7: at each Temple an unused symmetrical Player Board is a hostile Samurai; craft its "
            "Magical Helmet, Weapon and Sandals to random Blueprints, Blueprints beside the board and their "
            "tokens in its Backpack (EN Appendix B scenario 7)."
        ]

    def objectives(self, pack: DataPack, state: State) -> list[Objective] | None:
        """EN Appendix B p.15 scenario 7: the three hostile Samurai, three Magical Gear, the Secret Exit."""
        player = state.players[0]
        gear = len(player.magical)
        return [
            (f"Defeat the 3 hostile Samurai ({state.hostile_defeated}/3)", state.hostile_defeated >= 3),
            (f"Hold 3 completed Magical Gear items ({gear}/3)", gear >= 3),
            ("Escape through the Secret Exit", player.escaped is Exit.SECRET_EXIT),
        ]


class Ronin(Scenario):
    """Scenario 8, "Ronin" (EN Appendix B, p.15, solo): the coop board scored in VP; 50 VP and the Rope win."""

    number = 8
    solo = True
    vp_in_coop = True

    def round_track(self, pack: DataPack) -> bool:
        """EN Appendix B p.15 scenario 8 does not say whether the round track runs: the group's rule option
        ``ronin_round_track`` (assumed: no, the End Phase starts at 20 VP only)."""
        return pack.rules.ronin_round_track

    def win_vp(self, pack: DataPack) -> int:
        return int(self.extras(pack).get("win_vp", 50))

    def objectives(self, pack: DataPack, state: State) -> list[Objective] | None:
        """EN Appendix B p.15 scenario 8: at least 50 VP and an escape by the Rope."""
        player = state.players[0]
        target = self.win_vp(pack)
        return [
            (f"End with at least {target} VP (now {player.vp})", player.vp >= target),
            ("Escape by the Rope on the Central Tile", player.escaped is Exit.ROPE),
        ]

    def verdict(self, pack: DataPack, state: State, reason: str) -> tuple[str, bool] | None:
        """EN Appendix B p.15 scenario 8: the Ronin wins with 50 VP after escaping by the Rope."""
        p = state.players[0]
        target = self.win_vp(pack)
        won = p.vp >= target and p.escaped is Exit.ROPE
        reason += (
            f"; {p.name} "
            + ("wins" if won else "loses")
            + f" with {p.vp} VP"
            + (" after escaping by the Rope" if p.escaped is Exit.ROPE else " without escaping by the Rope")
            + f" (the goal is {target} VP and the Rope)"
        )
        return reason, won


SCENARIOS: dict[int, Scenario] = {
    0: Scenario(),
    1: ToEachHisOwn(),
    2: DragonsOnTheMove(),
    3: GettingHot(),
    4: WhoIsWorthy(),
    5: SurvivalOfTheFittest(),
    6: TameTheBeast(),
    7: FallenSamurai(),
    8: Ronin(),
}


def scenario_numbered(number: int) -> Scenario:
    """Scenario ``number`` (one the hooks do not know plays as the base game)."""
    return SCENARIOS.get(number, SCENARIOS[0])


def scenario_of(setup: Setup) -> Scenario:
    """The scenario a game is played by."""
    return scenario_numbered(setup.scenario)


def monks() -> WhoIsWorthy:
    """Scenario 4, whose Monks fight and cost VP."""
    scenario = SCENARIOS[4]
    assert isinstance(scenario, WhoIsWorthy)
    return scenario


def trophy_points(pack: DataPack, trophies: tuple[str, ...], extras: Mapping[str, Any]) -> int:
    """Scenario 2 (EN Appendix B p.15): VP per dragon colour, plus the best split into sets of 3 alike
    (+7) / 3 different (+10)."""
    colours = [pack.dragons[d].colour for d in trophies]
    base = sum(pack.colours[c].trophy_vp for c in colours)
    counts = tuple(colours.count(c) for c in pack.colours)
    same, different = int(extras.get("trophy_set_same", 7)), int(extras.get("trophy_set_different", 10))
    if pack.rules.scenario_2_sets == "one_of_each_kind":
        # (rules.scenario_2_sets: a dragon may be in a same-colour set and in a different-colour set.)
        return base + same * sum(c // 3 for c in counts) + _best_sets(counts, 0, different)
    return base + _best_sets(counts, same, different)


@lru_cache(maxsize=256)
def _best_sets(counts: tuple[int, ...], same: int, different: int) -> int:
    """The most bonus VP from disjoint sets of 3 dragons of one colour or 3 of different colours."""
    best = 0
    for i, c in enumerate(counts):
        if c >= 3:
            rest = tuple(x - 3 if j == i else x for j, x in enumerate(counts))
            best = max(best, same + _best_sets(rest, same, different))
    present = [i for i, c in enumerate(counts) if c]
    for a in range(len(present)):
        for b in range(a + 1, len(present)):
            for c in range(b + 1, len(present)):
                chosen = {present[a], present[b], present[c]}
                rest = tuple(x - 1 if j in chosen else x for j, x in enumerate(counts))
                best = max(best, different + _best_sets(rest, same, different))
    return best

