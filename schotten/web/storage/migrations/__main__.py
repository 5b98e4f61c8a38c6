"""Write the next revision (``migrate.new_revision``):
``python -m schotten.web.storage.migrations "what"``."""

import sys

from schotten.web.storage.migrate import new_revision

new_revision(" ".join(sys.argv[1:]) or "change")
