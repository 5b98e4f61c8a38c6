"""The revisions, oldest first: ``v0001`` the tables of the version before migrations, then each change."""
