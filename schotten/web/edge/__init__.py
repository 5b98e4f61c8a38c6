"""The server's edge: what a stranger's connection may cost before a game sees it.

| module   | job                                                                     |
|----------|-------------------------------------------------------------------------|
| server   | uvicorn's HTTP and WebSocket protocols with header, frame and connection limits |
| quotas   | rates and quotas per address (requests, tables, sockets), exact moving windows |
| security | origins, security headers and the content security policy               |
| failures | any unexpected error answered as a JSON 500 with an id the log line carries |

May import: ``core``.
"""
