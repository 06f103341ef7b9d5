"""Shogun as a game of the Table Companion."""
