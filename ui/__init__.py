"""The player-facing edge: the Kivy tablet app and the ``fujikoro`` command line.

Nothing imports this package. Importing it must stay cheap and must not import Kivy: the command
line runs headless subcommands on machines without a display.
"""
