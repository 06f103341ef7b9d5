"""Winter (spec 7.1, 7.2): rice loss, unsupplied provinces, the supply table, revolts and their peasants."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from games.shogun.pack import Pack


@dataclass(frozen=True, slots=True)
class Supply:
    """One player's winter supply. ``revolts`` / ``extra_peasants`` are None when the supply-table row is
    unknown in the data pack (``unknown`` says which row and what to do)."""

    rice_before: int
    provinces: int
    rice_after_loss: int
    unsupplied: int
    revolts: int | None
    extra_peasants: int | None
    unknown: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"rice_after_loss": self.rice_after_loss, "unsupplied_provinces": self.unsupplied,
                                "revolting_provinces": self.revolts,
                                "extra_peasants_per_revolt": self.extra_peasants}
        if self.unknown:
            data["unknown"] = self.unknown
        return data


def supply(pack: Pack, rice: int, provinces: int, rice_loss: int) -> Supply:
    """Rice after the event's loss (floored at 0, A8), provinces it cannot feed (1 rice each), and the
    supply table's row: how many provinces revolt and the extra peasants per revolt (at most every
    province, A13)."""
    after = rice - rice_loss
    if pack.options.a8_rice_floor_zero:
        after = max(0, after)
    unsupplied = max(0, provinces - after)
    row = pack.supply_row(unsupplied)
    if not row.known:
        last = " or more" if unsupplied >= len(pack.supply_table) - 1 else ""
        note = (f"the supply-table row for {row.unsupplied}{last} unsupplied provinces is unknown in the data pack; "
                f"read it from your board (or correct supply_table.u{row.unsupplied})")
        return Supply(rice, provinces, after, unsupplied, None, None, note)
    assert row.revolts is not None
    revolts = min(row.revolts, provinces)
    return Supply(rice, provinces, after, unsupplied, revolts, row.extra_peasants)


def peasants_for(revolt_tokens: int, extra_peasants: int) -> int:
    """Green cubes thrown in a winter revolt: 1 per revolt token + the table's extra peasants (spec 7.2)."""
    return revolt_tokens + extra_peasants


def revolt_order(autumn_turn_order: Sequence[str], with_revolts: Sequence[str]) -> list[str]:
    """Players' winter revolts are resolved in the autumn turn order (spec 7.1, 4.5 note)."""
    return [p for p in autumn_turn_order if p in set(with_revolts)]


def left_neighbour(seating: Sequence[str], player: str) -> str:
    """Who draws a player's revolting provinces: the left-hand neighbour (seating order is clockwise)."""
    i = list(seating).index(player)
    return seating[(i + 1) % len(seating)]
