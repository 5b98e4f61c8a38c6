"""A protocol bot that answers each ``go`` with a well-formed action that is not legal."""

import sys

CANDIDATES = ("pass", "discard", "to 9", "done")

legal: list[str] = []
for line in sys.stdin:
    word, _, rest = line.strip().partition(" ")
    if word == "schotten":
        print("ready", flush=True)
    elif word == "legal":
        legal = [action.strip() for action in rest.split(",")]
    elif word == "go":
        print("move", next(a for a in CANDIDATES if a not in legal), flush=True)
    elif word == "quit":
        break
