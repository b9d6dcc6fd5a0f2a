"""Ctrl-C and SIGTERM while user code runs: stop the child promptly, keep what it collected.

The dynamic pass's child runs in a session of its own (runner._run_child), so a terminal's
Ctrl-C reaches breakscan only, never the child directly: each signal is delivered to user
code once, by forwarding. While `catch_interrupts()` is active, SIGINT/SIGTERM do not raise
KeyboardInterrupt in breakscan; they are counted on an `Interrupt` that the runner polls:

- the first is forwarded to the child's process group (user code sees KeyboardInterrupt for
  SIGINT, as under a terminal; SIGTERM for SIGTERM);
- the second kills the group (SIGKILL), for a child that ignores the first.

The report then carries the findings collected so far and a note; the CLI exits 128 + the
signal's number (130 for Ctrl-C, 143 for SIGTERM), as a shell reports a command so ended.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupt:
    """The interrupting signals received so far (shared by the main thread and the runner's watchers)."""

    def __init__(self) -> None:
        self._signals: list[int] = []
        self._lock = threading.Lock()

    def receive(self, signum: int) -> None:
        """Record one signal (called from the signal handler, or by a caller stopping the pass)."""
        with self._lock:
            self._signals.append(signum)

    @property
    def count(self) -> int:
        """How many interrupting signals arrived: 1 = stop, 2 or more = kill."""
        return len(self._signals)

    @property
    def signum(self) -> int:
        """The first signal's number (0 when none arrived)."""
        return self._signals[0] if self._signals else 0

    def __bool__(self) -> bool:
        return bool(self._signals)

    @property
    def name(self) -> str:
        """`SIGINT`, `SIGTERM` (empty when none arrived)."""
        return signal.Signals(self.signum).name if self.signum else ""

    @property
    def exit_code(self) -> int:
        """128 + the first signal's number: 130 for SIGINT, 143 for SIGTERM (what a shell shows)."""
        return 128 + self.signum


@contextmanager
def catch_interrupts() -> Iterator[Interrupt]:
    """Count SIGINT/SIGTERM on the yielded `Interrupt` instead of raising, while the block runs.

    Handlers can only be set in the main thread: elsewhere the `Interrupt` is yielded
    unwired (the caller may still `receive()` on it). The previous handlers come back after.
    """
    interrupt = Interrupt()
    if threading.current_thread() is not threading.main_thread():
        yield interrupt
        return
    previous = {s: signal.getsignal(s) for s in SIGNALS}

    def handler(signum: int, frame: object) -> None:
        interrupt.receive(signum)

    for s in SIGNALS:
        signal.signal(s, handler)
    try:
        yield interrupt
    finally:
        for s, h in previous.items():
            signal.signal(s, h if h is not None else signal.SIG_DFL)
