"""The hub's wire schema: what a table sends (game results, live scores, joins) and what an admin sends.

Pydantic models, so FastAPI validates every request against them and rejects anything else with a 4xx.
Integers are strict (``"5"`` is not 5, ``true`` is not 1) and unknown fields are refused, so a table
running a newer or broken app is told at once instead of having its data silently reshaped.
Documented for humans in hub/README.md.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, Literal, Self

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    StringConstraints,
    Tag,
    ValidationError,
    model_validator,
)

from companion import results
from hub.names import clean_text
from hub.rules import CATEGORIES, FUJIKORO_GAME, MAX_PLAYERS, Mode, escape_tiebreak, player_key, rank_problems

MAX_VP = 1000
#: A game has at most this many score categories; a total is bounded by them (each -MAX_VP..MAX_VP).
MAX_CATEGORIES = 16
Total = Annotated[int, Field(strict=True, ge=-MAX_VP * MAX_CATEGORIES, le=MAX_VP * MAX_CATEGORIES)]


def _clean(value: object) -> object:
    """Typed text is normalised (NFKC, spaces) and refused with control or invisible characters."""
    return clean_text(value) if isinstance(value, str) else value


Name = Annotated[str, BeforeValidator(_clean), StringConstraints(min_length=1, max_length=40)]
Colour = Annotated[str, BeforeValidator(_clean), StringConstraints(min_length=1, max_length=20)]
Reason = Annotated[str, BeforeValidator(_clean), StringConstraints(min_length=1, max_length=500)]
VP = Annotated[int, Field(strict=True, ge=0, le=MAX_VP)]
SignedVP = Annotated[int, Field(strict=True, ge=-MAX_VP, le=MAX_VP)]
Seq = Annotated[int, Field(strict=True, ge=0, le=2**31 - 1)]
Round = Annotated[int, Field(strict=True, ge=1, le=999)]
Place = Annotated[int, Field(strict=True, ge=1, le=MAX_PLAYERS)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Result(_Strict):
    """What every schema of a finished game shares: the fingerprints a replay is compared by."""

    def content_hash(self) -> str:
        """Fingerprint of the content: a replay with the same game id must match it exactly."""
        return _fingerprint(self)

    def content_hashes(self) -> frozenset[str]:
        """The fingerprints a stored copy of this result may have: this hub's, and one that counted ``round``."""
        return frozenset({_fingerprint(self), _fingerprint(self, with_round=True)})


class Scores(_Strict):
    """VP by category. ``scenario`` and ``corrections`` may be negative (penalties, fixes)."""

    explored: VP = 0
    scrolls: VP = 0
    dragons: VP = 0
    gear_cards: VP = 0
    shogun: VP = 0
    scenario: SignedVP = 0
    corrections: SignedVP = 0

    def total(self) -> int:
        return sum(int(getattr(self, name)) for name in CATEGORIES)


class PlayerResult(_Strict):
    name: Name
    colour: Colour
    scores: Scores
    #: (Bounded as any game's total: it must equal the categories' sum, which may pass MAX_VP.)
    total: Total
    rank: Place
    escape_order: Place | None = None


def _check_distinct(players: Sequence[PlayerResult | PlayerLine | LivePlayer]) -> None:
    """Players of one game have different names (ignoring case and spaces, as standings match them) and
    different colours."""
    names = [player_key(p.name) for p in players]
    if len(set(names)) != len(names):
        raise ValueError("player names must be different within a game")
    colours = [p.colour.casefold() for p in players]
    if len(set(colours)) != len(colours):
        raise ValueError("player colours must be different within a game")


def _check_players(players: list[PlayerResult], mode: Mode) -> None:
    _check_distinct(players)
    for index, player in enumerate(players):
        if player.total != player.scores.total():
            raise ValueError(
                f"player {index + 1} ({player.name}): total {player.total} is not the sum of the "
                f"categories ({player.scores.total()})"
            )
    escaped = sorted(p.escape_order for p in players if p.escape_order is not None)
    if escaped != list(range(1, len(escaped) + 1)):
        raise ValueError("escape_order must number the escaped players 1, 2, 3... without gaps or repeats")
    if mode is Mode.COMPETITIVE:
        if len(players) < 2:
            raise ValueError("a competitive game has 2 to 6 players")
        problems = rank_problems([(p.total, p.escape_order, p.rank) for p in players])
        if problems:
            raise ValueError("ranks break the rulebook order: " + "; ".join(problems[:3]))
    elif any(p.rank > len(players) for p in players):
        raise ValueError("a rank cannot exceed the number of players")


class GameResult(_Result):
    """One finished game of Fuji Koro, as tablets sent it before results named their game (schema 1);
    still accepted, and stored as the schema 2 result it is (:meth:`lines`)."""

    schema_version: Literal[1] = 1
    game_id: uuid.UUID
    seq: Seq
    mode: Mode
    scenario: Annotated[int, Field(strict=True, ge=0, le=8)]
    duration_seconds: Annotated[int, Field(strict=True, ge=0, le=48 * 3600)]
    round: Round | None = None
    finished_at: datetime | None = None
    players: Annotated[list[PlayerResult], Field(min_length=1, max_length=MAX_PLAYERS)]

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        _check_players(self.players, self.mode)
        return self

    @property
    def game(self) -> str:
        return FUJIKORO_GAME

    @property
    def variant(self) -> str | None:
        return f"scenario {self.scenario}" if self.scenario else None

    def lines(self) -> list[PlayerLine]:
        return v1_lines(self.players)

    def escape_orders(self) -> list[int | None]:
        return [p.escape_order for p in self.players]


def scenario_number(game: str, variant: str | None) -> int | None:
    """Fuji Koro's scenario of a schema 2 result, which names it in its variant as the game does ("scenario 3";
    no variant: the base game, 0). None for another game, which has no scenarios, or for a variant that names
    none: schema 2 carries no scenario field, and 0 would claim the base game."""
    if game != FUJIKORO_GAME:
        return None
    if variant is None:
        return 0
    named = re.fullmatch(r"scenario ([0-8])", variant, flags=re.IGNORECASE)
    return int(named[1]) if named else None


def v1_lines(players: list[PlayerResult]) -> list[PlayerLine]:
    """Fuji Koro's schema 1 players as game-neutral lines: the 7 categories, escape order as tie-break."""
    return [
        PlayerLine(name=p.name, colour=p.colour, scores={c: int(getattr(p.scores, c)) for c in CATEGORIES},
                   total=p.total, tiebreak=escape_tiebreak(p.escape_order), rank=p.rank)
        for p in players
    ]


def _fingerprint(model: BaseModel, *, with_round: bool = False) -> str:
    """The content's hash. A result's ``round`` is accepted and ignored (the hub counts a game in the round in
    play when it arrives), so it is not content: a replay that differs only there is the same game. Hubs
    before 2026-12-01 hashed it too (``with_round``: the hash such a hub stored)."""
    content = model.model_dump(mode="json")
    if not with_round:
        content.pop("round", None)
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def problem_sentence(error: ValidationError) -> str:
    """A validation error as one sentence for the sender: where the first problem is (the field's path as the
    sender wrote it, without pydantic's type tags) and what it is; how many more there are."""
    return problems_sentence(list(error.errors()))


def problems_sentence(problems: list[Any]) -> str:
    """:func:`problem_sentence` of pydantic's error list (FastAPI's RequestValidationError gives one)."""
    unique = list(dict.fromkeys((problem_where(p), problem_message(p)) for p in problems)) or [("", "not valid")]
    where, message = unique[0]
    more = f" (and {len(unique) - 1} more)" if len(unique) > 1 else ""
    return f"{where + ': ' if where else ''}{message}{more}"


def problem_where(problem: Any) -> str:
    """The field a problem is in, as the sender wrote it: ``players.0.total``. Left out: ``body`` (the request
    body itself), the schema tags of a result (``v1``/``v2``) and the types of a union's branches
    (``list[PlayerResult]``), which are not places the sender wrote anything."""
    parts = [str(part) for part in problem.get("loc", ())]
    return ".".join(part for i, part in enumerate(parts)
                    if not (i == 0 and part == "body") and part not in ("v1", "v2") and "[" not in part)


def problem_message(problem: Any) -> str:
    """A problem's message; where a check inside a model failed (a ValueError), its own sentence."""
    return str(problem.get("msg", "not valid")).removeprefix("Value error, ")


#: A game's or a score category's machine name: lower-case letters, digits and underscores.
Slug = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,31}$")]
TieBreak = Annotated[int, Field(strict=True, ge=-1_000_000, le=1_000_000)]


class PlayerLine(_Strict):
    """One player of any game: points by the game's own categories, the total, the game's tie-break
    value (higher wins a tie; null loses to any value) and the rank."""

    name: Name
    colour: Colour
    scores: Annotated[dict[Slug, SignedVP], Field(max_length=MAX_CATEGORIES)]
    total: Total
    tiebreak: TieBreak | None = None
    rank: Place


def check_lines(lines: list[PlayerLine], mode: Mode) -> None:
    """The same checks for every game: names and colours differ, totals add up, ranks follow the one
    finishing-order rule (:mod:`companion.results`)."""
    _check_distinct(lines)
    for index, line in enumerate(lines):
        if line.total != sum(line.scores.values()):
            raise ValueError(f"player {index + 1} ({line.name}): total {line.total} is not the sum of the "
                             f"categories ({sum(line.scores.values())})")
    if mode is Mode.COMPETITIVE:
        if len(lines) < 2:
            raise ValueError("a competitive game has 2 to 6 players")
        problems = results.rank_problems([(p.total, p.tiebreak, p.rank) for p in lines])
        if problems:
            raise ValueError("ranks break the finishing order: " + "; ".join(problems[:3]))
    elif any(p.rank > len(lines) for p in lines):
        raise ValueError("a rank cannot exceed the number of players")


class GameResultV2(_Result):
    """One finished game of any game the app plays (schema 2), sent by the table that played it."""

    schema_version: Literal[2]
    game: Slug
    game_id: uuid.UUID
    seq: Seq
    mode: Mode
    variant: Annotated[str, BeforeValidator(_clean), StringConstraints(min_length=1, max_length=40)] | None = None
    duration_seconds: Annotated[int, Field(strict=True, ge=0, le=48 * 3600)]
    round: Round | None = None
    finished_at: datetime | None = None
    players: Annotated[list[PlayerLine], Field(min_length=1, max_length=MAX_PLAYERS)]

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        check_lines(self.players, self.mode)
        return self

    def lines(self) -> list[PlayerLine]:
        return list(self.players)

    def escape_orders(self) -> list[int | None]:
        return [None] * len(self.players)


def _schema_of(value: Any) -> str:
    version = value.get("schema_version", 1) if isinstance(value, dict) else getattr(value, "schema_version", 1)
    return "v2" if version == 2 else "v1"


#: What a table may send: schema 2 (any game), or schema 1 (Fuji Koro, older tablets).
AnyResult = Annotated[
    Annotated[GameResult, Tag("v1")] | Annotated[GameResultV2, Tag("v2")], Discriminator(_schema_of)
]


class LivePlayer(_Strict):
    name: Name
    colour: Colour
    vp: SignedVP


class LiveUpdate(_Strict):
    """Scores during play; a higher ``seq`` for the same game replaces a lower one."""

    game_id: uuid.UUID
    seq: Seq
    round: Round | None = None
    countdown: Annotated[int, Field(strict=True, ge=0, le=50)] | None = None
    players: Annotated[list[LivePlayer], Field(min_length=1, max_length=MAX_PLAYERS)]

    @model_validator(mode="after")
    def _distinct(self) -> Self:
        _check_distinct(self.players)
        return self


class JoinRequest(_Strict):
    event_code: Annotated[str, StringConstraints(strip_whitespace=True, min_length=4, max_length=16)]
    table_name: Name
    #: A random value the tablet keeps; joining again with it re-issues that table's token (a join
    #: whose reply was lost can be retried), joining with another value cannot take the table over.
    join_key: Annotated[str, StringConstraints(min_length=16, max_length=128)]
    #: The event's join secret, which the organiser gives to the tables (it is not on the projector, as
    #: the event code is). Optional in the schema so that an old tablet is told what is missing.
    join_secret: Annotated[str, StringConstraints(strip_whitespace=True, max_length=64)] | None = None


class JoinResponse(BaseModel):
    event_code: str
    event_name: str
    table_id: int
    table_name: str
    token: str


class Correction(_Strict):
    """An admin's replacement of a result's players (and optionally its round), with a reason: schema 1
    players for a schema 1 result, player lines for any other."""

    reason: Reason
    players: Annotated[list[PlayerResult], Field(min_length=1, max_length=MAX_PLAYERS)] | Annotated[
        list[PlayerLine], Field(min_length=1, max_length=MAX_PLAYERS)]
    round: Round | None = None


class ReasonBody(_Strict):
    reason: Reason


class RoundBody(_Strict):
    round: Round


class SubmitResponse(BaseModel):
    """The reply to a result: the outbox marks its message sent only when ``game_id`` and ``status``
    are here and match (so a captive portal's ``200 text/html`` is never taken for the hub)."""

    status: Literal["stored", "duplicate"]
    result_id: int
    game_id: uuid.UUID
    seq: int
    round: int
    #: True while the result waits for the organiser (it arrived when no round was open).
    pending: bool


class LiveResponse(BaseModel):
    status: Literal["stored", "stale", "finished"]
    game_id: uuid.UUID
    seq: int


class ApproveBody(_Strict):
    reason: Reason
    round: Round | None = None


class RenameBody(_Strict):
    name: Name
    reason: Reason


class PaperPlayer(_Strict):
    """A player's line from a paper score sheet; the hub adds the total and the rank. Fuji Koro gives
    ``escape_order``; another game its ``tiebreak`` value."""

    name: Name
    colour: Colour | None = None
    scores: Annotated[dict[Slug, SignedVP], Field(max_length=MAX_CATEGORIES)] = Field(default_factory=dict)
    escape_order: Place | None = None
    tiebreak: TieBreak | None = None


class PaperResult(_Strict):
    """A result the organiser types in from a paper score sheet (a table whose tablet failed)."""

    reason: Reason
    game: Slug = FUJIKORO_GAME
    table_name: Name | None = None
    mode: Mode = Mode.COMPETITIVE
    scenario: Annotated[int, Field(strict=True, ge=0, le=8)] = 0
    round: Round | None = None
    players: Annotated[list[PaperPlayer], Field(min_length=1, max_length=MAX_PLAYERS)]
    #: Names, best first, for ties the rulebook leaves to the table (same VP, nobody of them escaped).
    table_order: list[Name] = Field(default_factory=list)
