"""The one exception type the program raises on purpose.

Every failure the spec defines carries the exit status it must produce, so
the command line layer never has to guess a status from an exception class.
"""

USAGE_ERROR = 2   # unusable input: arguments, lexing, syntax, section 4.3 rules
NAME_ERROR = 3    # well-formed query naming a missing/ambiguous table or column


class Failure(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def usage_error(message):
    return Failure(USAGE_ERROR, message)


def name_error(message):
    return Failure(NAME_ERROR, message)
