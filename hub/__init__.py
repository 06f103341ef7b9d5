"""Convention scorekeeping: the hub many tables report to, and the tablet-side outbox that feeds it.

Modules: :mod:`hub.rules` (pure ranking and standings), :mod:`hub.schema` (wire models),
:mod:`hub.payload` (build a result from plain dicts), :mod:`hub.db` / :mod:`hub.storage` (SQLAlchemy,
Alembic), :mod:`hub.server` (FastAPI app, uvicorn), :mod:`hub.pages` (HTML), :mod:`hub.outbox`
(durable queue + sender on the tablet), :mod:`hub.loadtest` (fault-injecting proxy, simulated tables).
Heavy imports stay inside those modules, so ``import hub`` is cheap.
"""
