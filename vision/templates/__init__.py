"""Shipped board templates (JSON); see vision/README.md for the format."""
