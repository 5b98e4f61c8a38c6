"""The rules engine of Schotten Totten: pure Python, standard library only.

Start with ``GameState.new(Settings.of("tactics"), seed=7)``, list
``state.legal_actions()`` and play them with ``state.apply("7b@3")``.
"""

from .actions import ACTIONS, NUM_ACTIONS, Action, Kind, parse_action
from .cards import card_name, card_str, parse_card
from .errors import IllegalActionError, NotationError, RecordError, SchottenError
from .explain import Proof, prove, why_illegal
from .phases import Phase
from .position import format_position, parse_position
from .record import (
    RecordedGame,
    dumps_record,
    load_game,
    load_record,
    read_record_file,
    record_of,
    states_of,
    write_record_file,
)
from .state import VARIANTS, GameState, MatchResult, Outcome, Reason, Settings

__all__ = [
    "ACTIONS",
    "NUM_ACTIONS",
    "VARIANTS",
    "Action",
    "GameState",
    "IllegalActionError",
    "Kind",
    "MatchResult",
    "NotationError",
    "Outcome",
    "Phase",
    "Proof",
    "Reason",
    "RecordError",
    "RecordedGame",
    "SchottenError",
    "Settings",
    "card_name",
    "card_str",
    "dumps_record",
    "format_position",
    "load_game",
    "load_record",
    "parse_action",
    "parse_card",
    "parse_position",
    "prove",
    "read_record_file",
    "record_of",
    "states_of",
    "why_illegal",
    "write_record_file",
]
