"""A protocol bot that dies: ``start`` before greeting; ``raise`` or ``exit`` (code 3) on ``go``."""

import sys

how = sys.argv[1] if len(sys.argv) > 1 else "exit"
if how == "start":
    sys.exit(2)
for line in sys.stdin:
    word = line.split(" ", 1)[0].strip()
    if word == "schotten":
        print("ready", flush=True)
    elif word == "go":
        if how == "raise":
            raise RuntimeError("the bot broke down")
        print("giving up", file=sys.stderr, flush=True)
        sys.exit(3)
