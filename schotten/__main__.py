"""``python -m schotten``: the same as the ``schotten`` command."""

from .cli import main

main()
