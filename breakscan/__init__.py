"""breakscan: find where torch.compile splits your program (graph breaks), recompiles, and why."""

from __future__ import annotations

__version__ = "0.1.0"
