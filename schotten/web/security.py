"""Origins, security headers and cookies (to be written)."""

from __future__ import annotations

from fastapi import FastAPI

from .settings import WebSettings


def install(app: FastAPI, settings: WebSettings) -> None:
    """Add origin checks and security headers to ``app``."""
