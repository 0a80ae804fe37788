"""The one exception type: a refusal with the exit status the spec assigns to it."""

USAGE_STATUS = 2  # arguments, lexing, parsing, unsupported input, grouping rules
NAME_STATUS = 3  # a table or column that does not exist, or an ambiguous bare name


class Refusal(Exception):
    """Raised anywhere; the command line turns it into a status and one stderr line."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


def bad_input(message):
    return Refusal(USAGE_STATUS, message)


def bad_name(message):
    return Refusal(NAME_STATUS, message)
