"""Reports and moderators (issue 29): who may moderate, what players report, what moderators do.

| module | job |
|---|---|
| ``roles`` | the moderator role (granted from the command line only) and a request's moderator |
| ``reports`` | players' reports, with the chat lines around them as the server stored them |
| ``evidence`` | a reported player's agreement with the AI's best move, beside their rating band's |
| ``actions`` | warn, mute, ban, unban, clear: applied and appended to the moderation log |

An account's standing (muted, banned, warned) is read by ``players.standing``, which chat and
log-in use. May import: ``games`` and below (``players``, ``storage``, ``core``).
"""
