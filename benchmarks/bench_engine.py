"""Engine speed figures (the same as ``schotten bench``): run ``python benchmarks/bench_engine.py``.

Options: ``--short`` for a run of a couple of seconds, ``--json`` for one JSON object,
``--games N`` for the number of random games per variant.
"""

from __future__ import annotations

import argparse
import json

from schotten.benchmark import BenchConfig, report_lines, run


def main() -> None:
    """Parse the options, run the benchmarks once and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--short", action="store_true", help="a run of a couple of seconds")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--games", type=int, default=None, help="random games per variant")
    args = parser.parse_args()
    config = BenchConfig.short() if args.short else BenchConfig()
    if args.games is not None:
        config = BenchConfig(args.games, config.positions, config.repeats)
    result = run(config)
    print(json.dumps(result.as_dict()) if args.json else "\n".join(report_lines(result)))


if __name__ == "__main__":
    main()
