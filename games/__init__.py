"""The games of the Table Companion, one package each (``games/fujikoro/``, ...).

Each package has a ``GAME`` (:class:`companion.registry.GameModule`) at its top level; the registry finds
every package here, so adding a game adds a folder and touches no shared file. A game imports the kernel
(:mod:`companion`) and the edges it needs, never another game. See docs/architecture.md.
"""
