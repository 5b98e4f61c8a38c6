"""The edge of the server: limits on connections, requests and frames (to be written)."""

from __future__ import annotations

from fastapi import FastAPI

from .settings import WebSettings


def install(app: FastAPI, settings: WebSettings) -> None:
    """Add the edge's limits to ``app``."""
