"""The server's edge: what a stranger's connection may cost before a game sees it.

| module   | job                                                                     |
|----------|-------------------------------------------------------------------------|
| server   | uvicorn's HTTP and WebSocket protocols with header, frame and connection limits |
| quotas   | rates and quotas per address (requests, tables, sockets), exact moving windows |
| security | origins, security headers and the content security policy               |

May import: ``core``.
"""
