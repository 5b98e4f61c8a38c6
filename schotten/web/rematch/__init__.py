"""Rematch offers: asked, accepted, withdrawn, declined (their states are ``core.offer``).

May import: ``games`` and below.
"""
