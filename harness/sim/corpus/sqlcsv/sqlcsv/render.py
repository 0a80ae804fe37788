"""The three output formats of section 6."""
import json

from sqlcsv.values import is_number


def show(value):
    """A value as text (6.1): NULL empty, integers plain, floats by repr, text unchanged."""
    if isinstance(value, float):
        return repr(value)
    return "" if value is None else str(value)


def as_table(result):
    cells = [[show(v) for v in row] for row in result.rows]
    widths = [len(name) for name in result.names]
    for row in cells:
        widths = [max(w, len(text)) for w, text in zip(widths, row)]
    lines = [" | ".join(name.ljust(w) for name, w in zip(result.names, widths))]
    lines.append("-+-".join("-" * w for w in widths))
    for raw, row in zip(result.rows, cells):
        padded = [text.rjust(w) if is_number(v) else text.ljust(w) for v, text, w in zip(raw, row, widths)]
        lines.append(" | ".join(padded))
    return "".join(line + "\n" for line in lines)


def csv_field(text):
    if any(ch in text for ch in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def as_csv(result):
    lone = len(result.names) == 1
    records = [",".join(csv_field(name) for name in result.names)]
    for row in result.rows:
        fields = ['""' if (v is None and lone) else csv_field(show(v)) for v in row]
        records.append(",".join(fields))
    return "".join(record + "\n" for record in records)


def as_json(result):
    objects = []
    for row in result.rows:
        members = ["%s: %s" % (json.dumps(name), json.dumps(value)) for name, value in zip(result.names, row)]
        objects.append("{" + ", ".join(members) + "}")
    return "[" + ", ".join(objects) + "]\n"


FORMATS = {"table": as_table, "csv": as_csv, "json": as_json}
