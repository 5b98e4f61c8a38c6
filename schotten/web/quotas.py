"""Per-client-address limits and rates (to be written)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import FastAPI

from .settings import WebSettings

if TYPE_CHECKING:
    from .service import GameService


def install(app: FastAPI, settings: WebSettings, service: GameService) -> None:
    """Add the per-address rate limits to ``app``."""
