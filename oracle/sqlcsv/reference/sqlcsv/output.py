"""The three output formats of spec section 6. Each returns the whole text."""


def render_value(value):
    """Text form of a value for table and csv output (spec 6.1)."""
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def render_table(names, rows):
    cells = [[render_value(v) for v in row] for row in rows]
    widths = [len(name) for name in names]
    for line in cells:
        for i, cell in enumerate(line):
            widths[i] = max(widths[i], len(cell))

    lines = [" | ".join(name.ljust(w) for name, w in zip(names, widths))]
    lines.append("-+-".join("-" * w for w in widths))
    for row, line in zip(rows, cells):
        padded = []
        for value, cell, width in zip(row, line, widths):
            # Numbers line up on the right; text and NULL on the left.
            numeric = value is not None and not isinstance(value, str)
            padded.append(cell.rjust(width) if numeric else cell.ljust(width))
        lines.append(" | ".join(padded))
    return "".join(line + "\n" for line in lines)


def _csv_field(text):
    if any(ch in text for ch in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def render_csv(names, rows):
    records = [",".join(_csv_field(name) for name in names)]
    for row in rows:
        if len(row) == 1 and row[0] is None:
            # A lone empty field would be a blank line; spec 6.3 writes "".
            records.append('""')
        else:
            records.append(",".join(_csv_field(render_value(v)) for v in row))
    return "".join(record + "\n" for record in records)


def render_json(names, rows):
    # Built member by member instead of json.dumps(list_of_dicts) so that
    # repeated output names are all kept, in select-list order.
    import json

    objects = []
    for row in rows:
        members = ", ".join("%s: %s" % (json.dumps(name), json.dumps(value))
                            for name, value in zip(names, row))
        objects.append("{" + members + "}")
    return "[" + ", ".join(objects) + "]\n"


RENDERERS = {"table": render_table, "csv": render_csv, "json": render_json}


def render(fmt, names, rows):
    return RENDERERS[fmt](names, rows)
