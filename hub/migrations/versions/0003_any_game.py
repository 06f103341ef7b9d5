"""Results of any game: the game's name, a variant, the schema a result came in; per-player scores by the
game's own categories and the game's tie-break value. Old Fuji Koro rows are filled in.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-25
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_FUJIKORO_CATEGORIES = ("explored", "scrolls", "dragons", "gear_cards", "shogun", "scenario", "corrections")
_MAX_PLAYERS = 6


def upgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.add_column(sa.Column("game", sa.String(32), nullable=False, server_default="fujikoro"))
        batch.add_column(sa.Column("variant", sa.String(40), nullable=True))
        batch.add_column(sa.Column("schema_version", sa.Integer, nullable=False, server_default="1"))
    with op.batch_alter_table("result_players") as batch:
        for name in _FUJIKORO_CATEGORIES:
            batch.alter_column(name, existing_type=sa.Integer, nullable=True)
        batch.add_column(sa.Column("scores", sa.Text, nullable=True))
        batch.add_column(sa.Column("tiebreak", sa.Integer, nullable=True))
    bind = op.get_bind()
    results = sa.table("results", sa.column("id", sa.Integer), sa.column("scenario", sa.Integer),
                       sa.column("variant", sa.String))
    for result_id, scenario in bind.execute(sa.select(results.c.id, results.c.scenario)).all():
        if scenario:
            bind.execute(sa.update(results).where(results.c.id == result_id).values(variant=f"scenario {scenario}"))
    players = sa.table("result_players", sa.column("id", sa.Integer), sa.column("escape_order", sa.Integer),
                       sa.column("scores", sa.Text), sa.column("tiebreak", sa.Integer),
                       *(sa.column(name, sa.Integer) for name in _FUJIKORO_CATEGORIES))
    for row in bind.execute(sa.select(players)).all():
        scores = {name: int(getattr(row, name) or 0) for name in _FUJIKORO_CATEGORIES}
        tiebreak = None if row.escape_order is None else _MAX_PLAYERS + 1 - row.escape_order
        bind.execute(sa.update(players).where(players.c.id == row.id)
                     .values(scores=json.dumps(scores, separators=(",", ":")), tiebreak=tiebreak))


def downgrade() -> None:
    with op.batch_alter_table("result_players") as batch:
        batch.drop_column("tiebreak")
        batch.drop_column("scores")
    with op.batch_alter_table("results") as batch:
        batch.drop_column("schema_version")
        batch.drop_column("variant")
        batch.drop_column("game")
