"""The web app (``schotten serve``): lobby, real-time games against a friend or the AI, replays.

``create_app(settings)`` builds the FastAPI app; see docs/web.md for the settings, the
JSON API and the WebSocket messages, and docs/web/ for the rest (storage, misclick undo, ...).
"""

from .app import create_app
from .core.settings import WebSettings

__all__ = ["WebSettings", "create_app"]
