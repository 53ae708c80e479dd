"""Maintainer tools of the repository; none of them is part of the installed package."""
