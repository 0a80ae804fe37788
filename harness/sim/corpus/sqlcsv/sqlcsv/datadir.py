"""Tables of the data directory: RFC 4180 records, the header row, NULLs and column types."""
import os
import re

from sqlcsv.failure import bad_name

INTEGER_FORM = re.compile(r"-?[0-9]+")
DECIMAL_FORM = re.compile(r"-?[0-9]+\.[0-9]+")


class Table:
    """One CSV file: its column names, its typed rows (tuples, None for NULL) and column kinds."""

    def __init__(self, name, columns, rows, kinds):
        self.name = name
        self.columns = columns
        self.rows = rows
        self.kinds = kinds  # per column: "integer", "decimal" or "text"


def split_records(text):
    """Parse RFC 4180 text into records (lists of raw field strings, None marking empty fields)."""
    records = []
    fields = []
    field = []
    quoted = False
    at = 0
    size = len(text)
    started = False  # anything seen since the last record ended
    while at < size:
        ch = text[at]
        if quoted:
            if ch == '"':
                if at + 1 < size and text[at + 1] == '"':
                    field.append('"')
                    at += 2
                    continue
                quoted = False
            else:
                field.append(ch)
            at += 1
            continue
        if ch == '"' and not field:
            quoted = True
            started = True
            field.append("")  # an opened quote makes the field present even if it stays empty
        elif ch == ",":
            fields.append("".join(field))
            field = []
            started = True
        elif ch == "\n" or ch == "\r":
            if ch == "\r" and at + 1 < size and text[at + 1] == "\n":
                at += 1
            if started or field:
                fields.append("".join(field))
                records.append(fields)
            fields = []
            field = []
            started = False
        else:
            field.append(ch)
            started = True
        at += 1
    if started or field:
        fields.append("".join(field))
        records.append(fields)
    return [[value if value != "" else None for value in record] for record in records]


def column_kind(values):
    """The type of one column from its non-NULL raw values."""
    present = [v for v in values if v is not None]
    if all(INTEGER_FORM.fullmatch(v) for v in present):
        return "integer"
    if all(INTEGER_FORM.fullmatch(v) or DECIMAL_FORM.fullmatch(v) for v in present):
        return "decimal"
    return "text"


def convert(value, kind):
    if value is None:
        return None
    if kind == "integer":
        return int(value)
    if kind == "decimal":
        return float(value)
    return value


def table_files(directory):
    """Table name -> file path, for every regular `*.csv` file directly inside the directory."""
    found = {}
    for entry in os.listdir(directory):
        path = os.path.join(directory, entry)
        if entry.endswith(".csv") and os.path.isfile(path):
            found[entry[: -len(".csv")]] = path
    return found


def load_table(directory, name, files=None):
    files = table_files(directory) if files is None else files
    if name not in files:
        raise bad_name("no table named %s in the data directory" % name)
    with open(files[name], "rb") as handle:
        text = handle.read().decode("utf-8")
    records = split_records(text)
    if not records:
        return Table(name, [], [], [])
    header = [value if value is not None else "" for value in records[0]]
    body = records[1:]
    width = len(header)
    body = [(record + [None] * width)[:width] for record in body]
    kinds = [column_kind([record[i] for record in body]) for i in range(width)]
    rows = [tuple(convert(record[i], kinds[i]) for i in range(width)) for record in body]
    return Table(name, header, rows, kinds)
