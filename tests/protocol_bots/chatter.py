"""A chatty but correct protocol bot: names, info lines, blank lines and a flood of stderr.

It writes far more to standard error than a pipe holds, so a host that does not
drain it would block; it plays the first legal action (or a claim).
"""

import sys

NOISE = "debug " + "x" * 200


def chatter(count: int) -> None:
    for i in range(count):
        print(f"info thinking {i}", flush=True)
    print("", flush=True)
    for _ in range(200):
        print(NOISE, file=sys.stderr)
    sys.stderr.flush()


legal: list[str] = []
for line in sys.stdin:
    word, _, rest = line.strip().partition(" ")
    if word == "schotten":
        print("info hello from the chatty bot\nname chatty\nname chatty bot", flush=True)
        chatter(3)
        print("ready", flush=True)
    elif word == "legal":
        legal = [action.strip() for action in rest.split(",")]
    elif word == "go":
        chatter(5)
        claims = [a for a in legal if a.startswith("claim")]
        print("move", (claims or legal)[0], flush=True)
        print("info done thinking", flush=True)
    elif word == "quit":
        break
