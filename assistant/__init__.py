"""Offline voice game-master for the tabletop."""

__version__ = "0.1.0"
