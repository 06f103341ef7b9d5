"""Alembic environment: runs the hub migrations on the connection :func:`hub.db.migrate` hands over."""

from __future__ import annotations

from alembic import context

from hub.db import metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run the hub migrations through hub.db.migrate(engine)")

context.configure(
    connection=connection,
    target_metadata=metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
