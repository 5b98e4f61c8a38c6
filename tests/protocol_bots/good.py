"""A well-behaved protocol bot written without our package: it reads the view's JSON.

It claims a stone whenever it may (the view lists the claimable stones), otherwise it
plays a random legal action from a seeded generator (seed: the first argument).
"""

import json
import random
import sys


def main() -> None:
    rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    seen: dict = {}
    legal: list[str] = []
    for line in sys.stdin:
        word, _, rest = line.strip().partition(" ")
        if word == "schotten":
            print("name good bot\nready", flush=True)
        elif word == "view":
            seen = json.loads(rest)
        elif word == "legal":
            legal = [action.strip() for action in rest.split(",")]
        elif word == "go":
            assert legal == seen["legal"], "the legal line and the view disagree"
            claims = [f"claim {stone + 1}" for stone in seen["claimable"]]
            choice = next((c for c in claims if c in legal), None) or rng.choice(legal)
            print(f"move {choice}", flush=True)
        elif word == "quit":
            return


if __name__ == "__main__":
    main()
