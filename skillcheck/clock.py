"""The calendar, read in one place.

Freshness rules (SC309) judge dates against :attr:`skillcheck.config.Config.today`, which is
this function's answer when the configuration is built, so one run sees one day. Tests
replace this function to pin the day.
"""

from __future__ import annotations

import datetime as dt


def today() -> dt.date:
    """The local calendar date."""
    return dt.date.today()
