"""Winter scoring (spec 7.3): provinces, buildings, and majorities per region and building type.

Works from per-region counts (``Holdings``), so it scores a game played with the app's map and one where
the table only enters how many provinces and buildings each player holds in each region.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.shogun.pack import BUILDINGS, Scoring


@dataclass(frozen=True, slots=True)
class RegionCount:
    provinces: int = 0
    castle: int = 0
    temple: int = 0
    theatre: int = 0

    def of(self, building: str) -> int:
        return int(getattr(self, building))

    @property
    def buildings(self) -> int:
        return self.castle + self.temple + self.theatre

    def to_json(self) -> dict[str, int]:
        return {"provinces": self.provinces, "castle": self.castle, "temple": self.temple, "theatre": self.theatre}

    def problem(self, region: str) -> str | None:
        """Why these counts cannot be a player's in a region, in one sentence, or None: a province holds at most
        one building of each type (spec 5), so no type outnumbers the provinces."""
        over = [b for b in BUILDINGS if self.of(b) > self.provinces]
        if not over:
            return None
        return (f"{region}: {self.provinces} province(s) cannot hold {self.of(over[0])} {over[0]}(s): at most one "
                "building of a type per province (spec 5)")


#: player -> region -> counts
Holdings = Mapping[str, Mapping[str, RegionCount]]


@dataclass(frozen=True, slots=True)
class PlayerScore:
    provinces: int
    buildings: int
    majority: Mapping[str, int] = field(default_factory=dict)
    lines: tuple[str, ...] = ()

    @property
    def majorities(self) -> int:
        return sum(self.majority.values())

    @property
    def total(self) -> int:
        return self.provinces + self.buildings + self.majorities

    def to_json(self) -> dict[str, Any]:
        return {"provinces": self.provinces, "buildings": self.buildings, "majority": dict(self.majority),
                "total": self.total, "breakdown": list(self.lines)}


def holdings_from_provinces(
    provinces: Iterable[tuple[str, str | None, Sequence[str]]],
) -> dict[str, dict[str, RegionCount]]:
    """(region, controller, buildings) per province -> per-player per-region counts (neutral ones skipped)."""
    acc: dict[str, dict[str, dict[str, int]]] = {}
    for region, controller, buildings in provinces:
        if controller is None:
            continue
        counts = acc.setdefault(controller, {}).setdefault(region, {"provinces": 0, "castle": 0, "temple": 0,
                                                                      "theatre": 0})
        counts["provinces"] += 1
        for building in buildings:
            counts[building] += 1
    return {p: {r: RegionCount(**c) for r, c in regions.items()} for p, regions in acc.items()}


def score(players: Sequence[str], holdings: Holdings, scoring: Scoring | None = None, *,
          needs_building: bool = True) -> dict[str, PlayerScore]:
    """Every player's VP for one winter with a breakdown. Tie at the top: each gets the value minus
    ``tie_penalty``; below the top nothing (spec 7.3); a majority needs at least one building (A9)."""
    scoring = scoring or Scoring()
    regions = sorted({r for p in players for r in holdings.get(p, {})})
    out: dict[str, PlayerScore] = {}
    majority: dict[str, dict[str, int]] = {p: {} for p in players}
    lines: dict[str, list[str]] = {p: [] for p in players}
    for region in regions:
        for building in BUILDINGS:
            counts = {p: holdings.get(p, {}).get(region, RegionCount()).of(building) for p in players}
            top = max(counts.values(), default=0)
            if top == 0 and needs_building:
                continue
            leaders = [p for p in players if counts[p] == top]
            value = scoring.majority(building)
            points = value if len(leaders) == 1 else max(0, value - scoring.tie_penalty)
            for p in leaders:
                majority[p][f"{region}.{building}"] = points
                tied = "" if len(leaders) == 1 else f" tied with {', '.join(q for q in leaders if q != p)}"
                lines[p].append(f"{region} {building}s: most ({top}){tied}: {points}")
    for p in players:
        regions_of = holdings.get(p, {})
        provinces = sum(c.provinces for c in regions_of.values()) * scoring.province
        buildings = sum(c.buildings for c in regions_of.values()) * scoring.building
        out[p] = PlayerScore(provinces, buildings, majority[p],
                             (f"provinces: {provinces}", f"buildings: {buildings}", *lines[p]))
    return out
