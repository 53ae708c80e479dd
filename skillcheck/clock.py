"""The calendar, read in one place.

Freshness rules (SC309) judge dates against :attr:`skillcheck.config.Config.today`, which is
this function's answer when the configuration is built, so one run sees one day. The
environment variable ``SKILLCHECK_TODAY`` (an ISO date) sets that day: to reproduce an old
run, to see what goes stale next month, and so that tests never depend on the calendar.
"""

from __future__ import annotations

import datetime as dt
import os

ENV = "SKILLCHECK_TODAY"


def today() -> dt.date:
    """``$SKILLCHECK_TODAY`` when set, else the local calendar date.

    Raises ValueError when the variable is set but is not a YYYY-MM-DD date."""
    pinned = os.environ.get(ENV, "").strip()
    if not pinned:
        return dt.date.today()
    try:
        if len(pinned) != 10:
            raise ValueError(pinned)
        return dt.date.fromisoformat(pinned)
    except ValueError:
        raise ValueError(f"{ENV}={pinned!r} is not a date written YYYY-MM-DD") from None
