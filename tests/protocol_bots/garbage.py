"""A protocol bot that greets correctly, then answers each ``go`` with its first argument."""

import sys

answer = sys.argv[1] if len(sys.argv) > 1 else "banana"
for line in sys.stdin:
    word = line.split(" ", 1)[0].strip()
    if word == "schotten":
        print("ready", flush=True)
    elif word == "go":
        print(answer, flush=True)
    elif word == "quit":
        break
