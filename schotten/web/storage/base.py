"""The declarative base of the web app's tables (``db`` and ``tournament_tables`` declare on it)."""

from __future__ import annotations

from sqlalchemy.orm import DeclarativeBase


class Base(DeclarativeBase):
    """The declarative base of the web app's tables."""
