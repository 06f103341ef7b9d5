"""Alembic migrations of the hub schema, shipped in the package and run by :func:`hub.db.migrate`."""
