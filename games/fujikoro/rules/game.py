"""The game module for the session engine: :class:`FujiKoro`, a :class:`companion.engine.Game` over :class:`State`.

Owns the entry points only: ``setup``, ``prepare``, ``apply`` and ``describe`` look the command up in
:data:`~games.fujikoro.rules.commands.COMMANDS` and hand it to the module that owns its rule; the
queries the screens use (``state_json``, ``why_not``, ``objectives``, ``ranking``, ``result``) and the
one step the rule modules share through the game, :meth:`FujiKoro.finish`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from companion.engine import Command, CommandError, Outcome, Result
from companion.text import say
from games.fujikoro.combat import CombatError
from games.fujikoro.pack import DataPack, DataPackError
from games.fujikoro.rules import coop, ending, scoring, view
from games.fujikoro.rules.commands import COMMANDS, consequences, joined
from games.fujikoro.rules.scenarios import trophy_points
from games.fujikoro.rules.setup import SetupError, coop_start, parse_setup, scores_vp, uses_round_track
from games.fujikoro.rules.state import (
    GAME_NAME,
    Category,
    Countdown,
    CountdownKind,
    DragonStatus,
    Events,
    Mode,
    Phase,
    PlayerState,
    State,
)


class FujiKoro:
    """Fuji Koro as a :class:`companion.engine.Game` over :class:`State`."""

    def __init__(self, pack: DataPack) -> None:
        self.pack: DataPack = pack
        self.tracks: dict[str, tuple[int, ...]] = scoring.spot_tracks(pack)

    @property
    def name(self) -> str:
        return GAME_NAME

    @property
    def version(self) -> str:
        return self.pack.version

    @property
    def command_types(self) -> tuple[str, ...]:
        return tuple(COMMANDS)

    # ---- Game protocol -------------------------------------------------------------------
    def setup(self, config: Mapping[str, Any]) -> State:
        """The state a new game starts in (EN p.2, p.14; Appendix A: Mitsuhide's scroll)."""
        setup = parse_setup(config, self.pack)
        coop = setup.mode is Mode.COOP
        lives = self.pack.coop.lives if coop else 0
        players = tuple(PlayerState(p.name, p.colour, p.board, lives=lives) for p in setup.players)
        countdown = (
            Countdown(CountdownKind.ROUNDS, rounds_left=coop_start(setup, self.pack))
            if uses_round_track(setup, self.pack)
            else Countdown()
        )
        state = State(
            setup=setup,
            players=players,
            phase=Phase.PLAYING if setup.begin else Phase.SETUP,
            current=setup.start,
            countdown=countdown,
            dragons=tuple((d, DragonStatus.HIDDEN) for d in sorted(self.pack.dragons)),
        )
        if scores_vp(setup):
            for i, p in enumerate(setup.players):
                if p.board == "mitsuhide":  # EN Appendix A: starts with a scroll and its 3 VP
                    state = scoring.add_vp(self, state, i, self.pack.scoring["scroll"], Category.SCROLLS, [],
                                           check=False)
        return state

    def prepare(self, state: State, command: Command, new_seed: Callable[[], int]) -> dict[str, Any]:
        prepared = dict(command)
        kind = prepared.get("type")
        spec = COMMANDS.get(kind) if isinstance(kind, str) else None
        if spec is not None and spec.acts_for_current and "player" not in prepared:
            prepared["player"] = state.players[state.current].name
        if spec is not None and spec.prepare is not None:
            spec.prepare(state, prepared, new_seed)
        return prepared

    def apply(self, state: State, command: Command) -> Outcome[State]:
        kind = command.get("type")
        spec = COMMANDS.get(kind) if isinstance(kind, str) else None
        if spec is None:
            raise CommandError(f"unknown command type {kind!r}; known types: {', '.join(COMMANDS)}")
        if state.phase is Phase.ENDED:
            raise CommandError("the game has ended, so no more commands are accepted")
        if state.phase is Phase.SETUP and not spec.in_setup:
            raise CommandError('the game is still being set up; send {"type": "start"} first')
        if spec.blocked_in_fight and state.combat is not None and state.combat.is_active:
            raise CommandError(
                f"a fight is being played (EN p.10-12): finish it with fight_roll (or fight_retreat), or "
                f"fight_cancel it, before {kind}"
            )
        events: Events = []
        new = spec.apply(self, state, command, events)
        if scores_vp(new.setup) is False and new.phase is not Phase.ENDED:
            new = coop.check_coop_win(self, new, events)
        return Outcome(new, tuple(events))

    def describe(
        self, state: State, command: Command, events: Sequence[tuple[str, Mapping[str, Any]]] | None = None
    ) -> str:
        """One line for the log and "Undo: ...": the command, and what else it set off (so undo names it).
        ``events``: what applying it emitted (the session passes them; else the command is applied again)."""
        kind = command.get("type")
        spec = COMMANDS.get(kind) if isinstance(kind, str) else None
        if spec is None:
            base = str(kind)
        else:
            base = spec.describe(self, state, command, str(command.get("player", state.players[state.current].name)))
        if events is None:
            try:
                events = self.apply(state, command).events
            except (CommandError, CombatError):
                return base
        said = consequences(tuple(events), own_vp=spec is not None and spec.scores)
        return say("{what} (with it: {consequences})", what=base, consequences=joined(said)) if said else base

    def is_automated_random(self, command: Command) -> bool:
        kind = command.get("type")
        spec = COMMANDS.get(kind) if isinstance(kind, str) else None
        return spec is not None and spec.automated is not None and spec.automated(command)

    def is_over(self, state: State) -> bool:
        return state.phase is Phase.ENDED

    # ---- what the rule modules share -------------------------------------------------------------
    def finish(self, state: State, events: Events, reason: str, won: bool | None = None) -> State:
        """End the game (:func:`games.fujikoro.rules.ending.finish`): the rule modules that can end it call
        this, so none of them imports the final scoring."""
        return ending.finish(self, state, events, reason, won)

    # ---- queries -----------------------------------------------------------------------------
    def trophy_points(self, trophies: tuple[str, ...], extras: Mapping[str, Any]) -> int:
        """Scenario 2: VP per dragon colour, plus the best split into sets of 3 alike (+7) / 3 different (+10)."""
        return trophy_points(self.pack, trophies, extras)

    def ranking(self, state: State) -> tuple[tuple[str, int, int], ...]:
        """Most VP first; a tie goes to the tied player who left the volcano first (EN p.13)."""
        return scoring.ranking(state)

    def objectives(self, state: State) -> list[tuple[str, bool]]:
        """The cooperative goals as a checklist (EN p.14, Appendix B scenarios 5-8)."""
        return coop.objectives(self, state)

    def state_json(self, state: State) -> dict[str, Any]:
        return view.state_json(self, state)

    def why_not(self, state: State) -> dict[str, Any]:
        """Why each table button is refused now (None: allowed), by the very checks the commands run."""
        return view.why_not(self, state)

    def result(self, state: State) -> Result | None:
        return scoring.result(state)


def game_from_pack_raw(raw: Mapping[str, Any] | None) -> FujiKoro:
    """The game module over the data pack stored with a game (so replays use the values it was played with)."""
    from games.fujikoro.pack import default_pack, parse

    if raw is None:
        return FujiKoro(default_pack())
    try:
        return FujiKoro(parse(raw))
    except DataPackError as error:
        raise SetupError(f"the data pack stored with this game does not load: {error}") from None
