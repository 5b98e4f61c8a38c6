import random
import sys

legal = []
for line in sys.stdin:
    word, _, rest = line.strip().partition(" ")
    if word == "schotten":
        print("name minimal", flush=True)
        print("ready", flush=True)
    elif word == "legal":
        legal = [action.strip() for action in rest.split(",")]
    elif word == "go":
        print("move", random.choice(legal), flush=True)
    elif word == "quit":
        break
