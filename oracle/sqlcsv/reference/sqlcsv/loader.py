"""Finding tables in the data directory, reading them, and typing columns
(spec section 2)."""

import csv
import os

INTEGER, DECIMAL, TEXT = "integer", "decimal", "text"


def list_tables(data_dir):
    """Map table name -> file path for every `*.csv` regular file in data_dir.

    Names are compared against this listing rather than by opening
    `<name>.csv` directly, so that lookups stay case-sensitive even on a
    case-insensitive file system.
    """
    tables = {}
    for entry in os.listdir(data_dir):
        if entry.endswith(".csv") and len(entry) > 4:
            path = os.path.join(data_dir, entry)
            if os.path.isfile(path):
                tables[entry[:-4]] = path
    return tables


class Table:
    __slots__ = ("name", "columns", "types", "rows")

    def __init__(self, name, columns, types, rows):
        self.name = name
        self.columns = columns  # header names, in order
        self.types = types      # one of INTEGER, DECIMAL, TEXT per column
        self.rows = rows        # list of tuples of typed values (None = NULL)


def _is_integer_form(s):
    digits = s[1:] if s.startswith("-") else s
    # isascii() first: str.isdigit() alone also accepts e.g. '²' or '٣'.
    return digits.isascii() and digits.isdigit()


def _is_decimal_form(s):
    whole, dot, fraction = s.partition(".")
    return dot == "." and _is_integer_form(whole) and fraction.isascii() and fraction.isdigit()


def column_type(values):
    """Type of one column from its raw field strings ('' is NULL)."""
    saw_decimal = False
    for value in values:
        if value == "" or _is_integer_form(value):
            continue
        if _is_decimal_form(value):
            saw_decimal = True
            continue
        return TEXT
    return DECIMAL if saw_decimal else INTEGER


def load_table(name, path):
    # newline='' lets the csv module see raw CR/LF, which it needs to keep
    # line breaks inside quoted fields and to strip CRLF terminators.
    with open(path, newline="", encoding="utf-8") as handle:
        records = [record for record in csv.reader(handle) if record]
    if not records:
        return Table(name, [], [], [])
    header, raw_rows = records[0], records[1:]
    columns = list(zip(*raw_rows)) if raw_rows else [()] * len(header)
    types = [column_type(values) for values in columns]

    converters = []
    for ctype in types:
        if ctype == INTEGER:
            converters.append(int)
        elif ctype == DECIMAL:
            converters.append(float)
        else:
            converters.append(str)
    rows = [
        tuple(None if field == "" else convert(field)
              for field, convert in zip(raw, converters))
        for raw in raw_rows
    ]
    return Table(name, header, types, rows)
