"""WebSocket messages: what a client may send (pydantic models) and the server's error messages.

Client to server: ``{"type": "action", "action": "7b@3", "version": 12}`` (version
optional), ``{"type": "undo"}``, ``{"type": "sync"}``, ``{"type": "resign"}``,
``{"type": "abort"}``, ``{"type": "claim_victory"}``, ``{"type": "chat", "text": "hi"}`` (or
``"quick": "good_luck"``; a spectator may add ``"name"``), ``{"type": "mute", "muted": true}`` and
``{"type": "why_not", "stone": 5}`` and ``{"type": "hint"}`` (at a table with hints).
``parse_client_message`` turns a text frame into one of these or raises ``ClientError``
with the code to send back.
Unknown fields are ignored; types are strict (``"5"`` is not a version, ``true`` is not 5).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from .errors import Say

ErrorCode = Literal[
    "bad_json",
    "bad_message",
    "unknown_action",
    "illegal_action",
    "not_your_turn",
    "spectator",
    "stale",
    "too_large",
    "flood",
    "cannot_undo",
    "not_found",
    "bad_token",
    "unavailable",
    "damaged",
    "forbidden_origin",
    "limit",
    "cannot_resign",
    "cannot_abort",
    "cannot_claim",
    "cannot_chat",
    "time_up",
    "cannot_hint",
    "not_logged_in",
]
"""Every error code a socket may receive (see docs/web.md)."""

MESSAGE_TYPES = ("action", "undo", "sync", "resign", "abort", "claim_victory", "chat", "mute", "why_not",
                 "hint")
_TYPES = ", ".join(f'"{kind}"' for kind in MESSAGE_TYPES)
QUICK_MESSAGES = ("hello", "good_luck", "well_played", "thanks", "good_game", "oops")
"""The quick chat messages, by key: each page shows them in its reader's language."""


class ClientError(Exception):
    """A client message that is refused: ``code`` and a clear English ``message``."""

    def __init__(self, code: ErrorCode, message: str, say: Say | None = None) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
        self.say = say


class _Message(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class ActionMessage(_Message):
    """Play one action, given in the notation; ``version`` guards against acting on an old state."""

    type: Literal["action"]
    action: str = Field(max_length=200)
    version: int | None = None


class UndoMessage(_Message):
    """Take back this seat's last card play (misclick undo)."""

    type: Literal["undo"]


class SyncMessage(_Message):
    """Ask for the current state."""

    type: Literal["sync"]


class ResignMessage(_Message):
    """Resign: the opponent wins the match."""

    type: Literal["resign"]


class AbortMessage(_Message):
    """Abort the game (only until both seats have made their first decision): nobody wins."""

    type: Literal["abort"]


class ClaimVictoryMessage(_Message):
    """Claim the win over an opponent who left a real-time game (no socket for ``leave_timeout``)."""

    type: Literal["claim_victory"]


class ChatMessage(_Message):
    """Say something at the table: ``text`` (at most ``chat_max_chars``, checked by the chat) or one of
    the ``QUICK_MESSAGES``; a spectator may give a ``name``."""

    type: Literal["chat"]
    text: str | None = Field(None, max_length=2000)
    quick: Literal[QUICK_MESSAGES] | None = None  # type: ignore[valid-type]
    name: str | None = Field(None, max_length=200)


class MuteMessage(_Message):
    """A seat mutes (or unmutes) the other player's chat."""

    type: Literal["mute"]
    muted: bool


class WhyNotMessage(_Message):
    """A seat asks why it may not claim ``stone`` (1-9) now: answered with a ``why_not`` message."""

    type: Literal["why_not"]
    stone: int = Field(ge=1, le=9)


class HintMessage(_Message):
    """A seat asks what the engine would play for it now: answered with a ``hint`` message."""

    type: Literal["hint"]


AnyClientMessage = (ActionMessage | UndoMessage | SyncMessage | ResignMessage | AbortMessage
                    | ClaimVictoryMessage | ChatMessage | MuteMessage | WhyNotMessage | HintMessage)
ClientMessage = Annotated[AnyClientMessage, Field(discriminator="type")]
_ADAPTER: TypeAdapter[AnyClientMessage] = TypeAdapter(ClientMessage)


def parse_client_message(text: str) -> AnyClientMessage:
    """Read one client message from a text frame; raise ClientError (bad_json, bad_message)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise ClientError("bad_json", "the message is not valid JSON") from None
    if not isinstance(data, dict):
        raise ClientError("bad_message", f'a message is a JSON object with a "type": {_TYPES}')
    kind = data.get("type")
    if kind not in MESSAGE_TYPES:
        raise ClientError(
            "bad_message", f"unknown message type {_short(kind)}: send one of {_TYPES}"
        )
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as error:
        raise ClientError("bad_message", f"bad {kind} message: {_describe(error)}") from None


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _describe(error: ValidationError) -> str:
    parts = []
    for item in error.errors(include_url=False):
        where = ".".join(str(p) for p in item["loc"][1:]) or "message"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)


def error_message(code: ErrorCode, message: str, say: Say | None = None) -> dict[str, Any]:
    """The server's error message (with ``say``, what the page says in its reader's language)."""
    found: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if say is not None:
        found["say"] = say
    return found
