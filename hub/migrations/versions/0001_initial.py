"""The first hub schema: events, tables, results with their players, live scores, audit log.

Revision ID: 0001
Revises:
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("code", sa.String(16), nullable=False, unique=True),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("admin_token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("current_round", sa.Integer, nullable=False),
        sa.Column("rank_points", sa.String(80), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "tables",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("event_id", sa.Integer, sa.ForeignKey("events.id"), nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("join_key_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.UniqueConstraint("event_id", "name", name="uq_tables_event_name"),
    )
    op.create_table(
        "results",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("event_id", sa.Integer, sa.ForeignKey("events.id"), nullable=False),
        sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), nullable=False),
        sa.Column("game_id", sa.String(36), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("submitted", sa.Text, nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("scenario", sa.Integer, nullable=False),
        sa.Column("duration_seconds", sa.Integer, nullable=False),
        sa.Column("received_at", sa.String(32), nullable=False),
        sa.Column("void", sa.Boolean, nullable=False),
        sa.Column("revision", sa.Integer, nullable=False),
        sa.UniqueConstraint("event_id", "game_id", name="uq_results_event_game"),
    )
    op.create_table(
        "result_players",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("result_id", sa.Integer, sa.ForeignKey("results.id"), nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("player_key", sa.String(40), nullable=False),
        sa.Column("colour", sa.String(20), nullable=False),
        sa.Column("explored", sa.Integer, nullable=False),
        sa.Column("scrolls", sa.Integer, nullable=False),
        sa.Column("dragons", sa.Integer, nullable=False),
        sa.Column("gear_cards", sa.Integer, nullable=False),
        sa.Column("shogun", sa.Integer, nullable=False),
        sa.Column("scenario", sa.Integer, nullable=False),
        sa.Column("corrections", sa.Integer, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("escape_order", sa.Integer, nullable=True),
    )
    op.create_index("ix_result_players_result_id", "result_players", ["result_id"])
    op.create_index("ix_result_players_player_key", "result_players", ["player_key"])
    op.create_table(
        "live",
        sa.Column("event_id", sa.Integer, sa.ForeignKey("events.id"), primary_key=True),
        sa.Column("game_id", sa.String(36), primary_key=True),
        sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("updated_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "audit",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("event_id", sa.Integer, sa.ForeignKey("events.id"), nullable=False),
        sa.Column("result_id", sa.Integer, sa.ForeignKey("results.id"), nullable=True),
        sa.Column("action", sa.String(24), nullable=False),
        sa.Column("actor", sa.String(64), nullable=False),
        sa.Column("reason", sa.Text, nullable=True),
        sa.Column("before", sa.Text, nullable=True),
        sa.Column("after", sa.Text, nullable=True),
        sa.Column("at", sa.String(32), nullable=False),
    )
    op.create_index("ix_audit_event_id", "audit", ["event_id"])


def downgrade() -> None:
    op.drop_index("ix_audit_event_id", table_name="audit")
    op.drop_table("audit")
    op.drop_table("live")
    op.drop_index("ix_result_players_player_key", table_name="result_players")
    op.drop_index("ix_result_players_result_id", table_name="result_players")
    op.drop_table("result_players")
    op.drop_table("results")
    op.drop_table("tables")
    op.drop_table("events")
