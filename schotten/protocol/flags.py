"""Typer commands whose help shows no ``<bool>`` beside a flag (``schotten`` and the bot program)."""

from __future__ import annotations

from typing import Any

from typer.core import TyperCommand, TyperGroup


def untyped_flags(params: list[Any]) -> list[Any]:
    """``params`` with no value type shown beside a flag: Typer's help writes ``<bool>`` after every
    flag (``--help``, ``--json``), which takes no value."""
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    return params


class FlagCommand(TyperCommand):
    """A command whose help shows no ``<bool>`` beside its flags."""

    def get_params(self, ctx: Any) -> list[Any]:
        """The command's parameters, flags without a value type."""
        return untyped_flags(super().get_params(ctx))


class FlagGroup(TyperGroup):
    """The ``schotten`` command: its help shows no ``<bool>`` beside ``--help``."""

    def get_params(self, ctx: Any) -> list[Any]:
        """The group's parameters, flags without a value type."""
        return untyped_flags(super().get_params(ctx))
