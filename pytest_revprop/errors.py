"""Exceptions that carry a message meant for a person, not a traceback."""


class UserError(Exception):
    """Bad input from the user (a file, an option, a config value): shown as one line."""
