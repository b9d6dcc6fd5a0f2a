"""Build every corpus case and call it once eagerly (no Dynamo): which cases build on this install.

Prints one line per case: ok, or the exception. It runs no compile and reveals nothing of
Dynamo's verdict, so it may be run on the held-out half too (to fix a case that does not build).

Usage: python -m bench.corpus.check [codebase ...]
"""

from __future__ import annotations

import sys
import time
import traceback


def main(argv: list[str]) -> int:
    """Build and call each case of the named code bases (all by default); 1 when any failed."""
    import torch

    from bench.corpus import CODEBASES, build, cases

    failed = 0
    for codebase in argv or list(CODEBASES):
        for case in cases(codebase):
            for mode in case.modes:
                t0 = time.perf_counter()
                try:
                    fn, args, kwargs = build(case.key, mode)
                    with torch.no_grad():
                        fn(*args, **kwargs)
                    status = "ok"
                except Exception as exc:  # a case that does not build or run here
                    failed += 1
                    status = f"FAIL {type(exc).__name__}: {str(exc)[:200]}"
                    if "-v" in sys.argv:
                        traceback.print_exc()
                print(f"{case.key} [{mode}] {time.perf_counter() - t0:.1f}s {status}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main([a for a in sys.argv[1:] if not a.startswith("-")]))
