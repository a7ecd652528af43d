"""The benchmark's progress: tqdm's bar on a terminal; anywhere else (the demo's log, CI, a
pipe) one plain line per quarter of the samples, where tqdm would write a carriage-return
update per sample into one endless line."""

from __future__ import annotations

import sys
import time
from typing import IO, Any

#: Off a terminal, a line each time another 1/PLAIN_STEPS of the samples is done.
PLAIN_STEPS = 4


class Silent:
    """No progress at all (--no-progress)."""

    def update(self, n: int) -> None: ...
    def close(self) -> None: ...


class PlainLines:
    """'kwcall.bench: 50% (120/240 samples, 7 s)', PLAIN_STEPS times in all."""

    def __init__(self, total: int, stream: IO[str]) -> None:
        self.total, self.stream = max(total, 1), stream
        self.done = self.reported = 0
        self.start = time.monotonic()

    def update(self, n: int) -> None:
        self.done += n
        reached = min(self.done * PLAIN_STEPS // self.total, PLAIN_STEPS)
        if reached > self.reported:
            self.reported = reached
            print(
                f"kwcall.bench: {100 * reached // PLAIN_STEPS}% ({self.done}/{self.total} "
                f"samples, {time.monotonic() - self.start:.0f} s)",
                file=self.stream,
                flush=True,
            )

    def close(self) -> None: ...


def progress_bar(total: int, disabled: bool, stream: IO[str] | None = None) -> Any:
    """What reports the progress of `total` samples on `stream` (stderr by default)."""
    stream = sys.stderr if stream is None else stream
    if disabled:
        return Silent()
    on_terminal = getattr(stream, "isatty", lambda: False)()
    try:
        from tqdm import tqdm
    except ImportError:  # the bench extra is optional; report in plain lines instead
        on_terminal = False
    if not on_terminal:
        return PlainLines(total, stream)
    return tqdm(total=total, desc="kwcall.bench", unit="sample", file=stream)
