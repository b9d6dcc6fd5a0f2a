"""breakscan: find where torch.compile splits your program (graph breaks), recompiles, and why."""

from __future__ import annotations

__version__ = "0.1.0"


def load_ipython_extension(ipython) -> None:
    """`%load_ext breakscan`: register the `%%breakscan` cell magic (breakscan.ipython).

    Imported only when IPython asks, so `import breakscan` stays light (no torch, no IPython)."""
    from breakscan.ipython import load_ipython_extension as load

    load(ipython)
