"""The web app (``schotten serve``): lobby, real-time games against a friend or the AI, replays.

``create_app(settings)`` builds the FastAPI app; see docs/web.md for the settings, the
JSON API, the WebSocket messages, persistence and the misclick-undo rule.
"""

from .app import create_app
from .core.settings import WebSettings

__all__ = ["WebSettings", "create_app"]
