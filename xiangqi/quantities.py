"""Memory and durations in a player's words, one way everywhere: a table's size, a build's
estimate, what a machine has (the CLI, the studio's panels and problem sheets all say it so).

>>> memory_text(512), memory_text(3_400), memory_text(12 * 2**20), memory_text(8_836 * 2**30)
('512 bytes', '3 KiB', '12 MiB', '8,836.0 GiB')
>>> duration_text(0.3), duration_text(40), duration_text(720), duration_text(26_640)
('under a second', '40 s', '12 min', '7.4 h')
>>> duration_text(136 * 86400), duration_text(40, approximate=True)
('136 days', '~40 s')
"""
from __future__ import annotations

KIB, MIB, GIB = 2**10, 2**20, 2**30
MINUTE, HOUR, DAY = 60, 3600, 86400


def memory_text(count: float) -> str:
    """``512 bytes``, ``3 KiB``, ``12 MiB``, ``465.8 GiB``: whole units below a GiB (a table's
    size is an estimate; a decimal there would claim more than is known)."""
    if count < KIB:
        return f"{count:,.0f} bytes"
    if count < MIB:
        return f"{count / KIB:,.0f} KiB"
    if count < GIB:
        return f"{max(1, round(count / MIB)):,} MiB"
    return f"{count / GIB:,.1f} GiB"


def duration_text(seconds: float, approximate: bool = False) -> str:
    """``under a second``, ``40 s``, ``12 min``, ``7.4 h``, ``136 days``; seconds up to a
    minute and a half and minutes up to an hour and a half (``75 s`` reads better than
    ``1 min``).  ``approximate``: an estimate, shown with ``~``."""
    if seconds < 0.5:
        return "under a second"
    if seconds < 1.5 * MINUTE:
        text = f"{seconds:.0f} s"
    elif seconds < 1.5 * HOUR:
        text = f"{seconds / MINUTE:.0f} min"
    elif seconds < 2 * DAY:
        text = f"{seconds / HOUR:.1f} h"
    else:
        text = f"{seconds / DAY:,.0f} days"
    return f"~{text}" if approximate else text
