"""Reading the table from photos: board templates, the board and dice readers, the sticker sheet,
calibration, and a renderer of labelled synthetic photos for tests and the benchmark.

The readers are pure functions of pixels and a template; files, cameras and the command line live in
games/fujikoro/cli/vision.py. See vision/README.md.
"""
