"""View models: ``EventDispatcher`` objects that hold what the screens show, in Kivy properties.

They adapt the game session, the fight engine, the gear rules, the hardware bridge and vision for
the screens; slow work runs on :class:`ui.worker.Worker` threads and results arrive on the Kivy thread.
Screens bind to their properties in ``.kv`` and call their methods from ``on_release`` handlers.
"""
