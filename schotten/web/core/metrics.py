"""What the server counts, in Prometheus' terms (prometheus-client), for ``/metrics``.

The counters and histograms are module-level and updated where the work is done; the
gauges of one service's state (games in play, sockets) are read when ``/metrics`` is asked.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

REGISTRY = CollectorRegistry(auto_describe=True)
"""The server's own registry (not the library's global one, so tests may build many apps)."""

ENTRIES = Counter("schotten_log_entries", "Log entries stored (actions and undos)", registry=REGISTRY)
COMMIT_SECONDS = Histogram(
    "schotten_commit_seconds", "Time from a move's arrival at the store to its commit", registry=REGISTRY,
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)
STORE_ERRORS = Counter("schotten_store_errors", "Database calls that failed", registry=REGISTRY)
AI_QUEUE = Gauge("schotten_ai_queue", "AI decisions waiting for a worker", registry=REGISTRY)
AI_WAIT_SECONDS = Histogram(
    "schotten_ai_wait_seconds", "Time an AI decision waited before a worker took it", registry=REGISTRY,
    buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
)
REFUSED = Counter(
    "schotten_refused", "Requests and messages refused by a limit", ["limit"], registry=REGISTRY
)
