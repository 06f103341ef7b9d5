"""A hub an organiser can trust: join secrets, open and closed rounds, results unique per table,
results typed in from paper, revoked tables, one live row per table, admin sessions.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-25
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def upgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("join_secret", sa.String(32), nullable=True))
        batch.add_column(sa.Column("round_open", sa.Boolean, nullable=False, server_default=sa.true()))
    bind = op.get_bind()
    events = sa.table("events", sa.column("id", sa.Integer), sa.column("join_secret", sa.String))
    for (event_id,) in bind.execute(sa.select(events.c.id)).all():
        secret = "".join(secrets.choice(_ALPHABET) for _ in range(10))
        bind.execute(sa.update(events).where(events.c.id == event_id).values(join_secret=secret))

    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("revoked", sa.Boolean, nullable=False, server_default=sa.false()))

    with op.batch_alter_table("results") as batch:
        batch.drop_constraint("uq_results_event_game", type_="unique")
        batch.alter_column("table_id", existing_type=sa.Integer, nullable=True)
        batch.add_column(sa.Column("pending", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("source", sa.String(8), nullable=False, server_default="table"))
        batch.add_column(sa.Column("table_name", sa.String(40), nullable=True))
        batch.create_unique_constraint("uq_results_table_game", ["event_id", "table_id", "game_id"])

    # Live scores are transient: the table's next update fills the new table.
    op.drop_table("live")
    op.create_table(
        "live",
        sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("event_id", sa.Integer, sa.ForeignKey("events.id"), nullable=False),
        sa.Column("game_id", sa.String(36), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("updated_at", sa.String(32), nullable=False),
    )
    op.create_index("ix_live_event_id", "live", ["event_id"])

    op.create_table(
        "admin_sessions",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column("event_id", sa.Integer, sa.ForeignKey("events.id"), nullable=False),
        sa.Column("csrf_token", sa.String(64), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_index("ix_admin_sessions_event_id", "admin_sessions", ["event_id"])


def downgrade() -> None:
    op.drop_index("ix_admin_sessions_event_id", table_name="admin_sessions")
    op.drop_table("admin_sessions")
    op.drop_index("ix_live_event_id", table_name="live")
    op.drop_table("live")
    op.create_table(
        "live",
        sa.Column("event_id", sa.Integer, sa.ForeignKey("events.id"), primary_key=True),
        sa.Column("game_id", sa.String(36), primary_key=True),
        sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("updated_at", sa.String(32), nullable=False),
    )
    with op.batch_alter_table("results") as batch:
        batch.drop_constraint("uq_results_table_game", type_="unique")
        batch.drop_column("table_name")
        batch.drop_column("source")
        batch.drop_column("pending")
        batch.create_unique_constraint("uq_results_event_game", ["event_id", "game_id"])
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("revoked")
    with op.batch_alter_table("events") as batch:
        batch.drop_column("round_open")
        batch.drop_column("join_secret")
