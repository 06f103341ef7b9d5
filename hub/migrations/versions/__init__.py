"""Alembic revision scripts of the hub schema (one file per revision, applied in order)."""
