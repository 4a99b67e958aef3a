"""Exceptions that carry a message meant for a person, not a traceback."""


class UserError(Exception):
    """Bad input from the user (a file, an option, a config value): shown as one line."""


_BREAKS = str.maketrans({"\n": "\\n", "\r": "\\r", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def one_line(text: str) -> str:
    """``text`` with its line breaks shown as escapes, so that an error quoting outside data
    (a member name, an ini value) stays on one line."""
    return text.translate(_BREAKS)
