"""Command line handling: arguments, exit statuses, writing the result.

argv is parsed by hand rather than with argparse: argparse has its own
ideas about exit statuses, help text and abbreviated options (it would accept
`--dat`), all of which the spec pins differently, and it costs start-up time.
"""

import os
import sys

from sqlcsv.errors import Failure, usage_error

USAGE = "usage: python3 -m sqlcsv --data DIR [--format table|csv|json] SQL\n"
FORMATS = ("table", "csv", "json")
OPTIONS = ("--data", "--format")


def parse_args(argv):
    """Return (data_dir, format, sql_argument) or raise a status-2 Failure."""
    values = {}
    positional = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        # A lone "-" is the stdin marker, not an option.
        if arg == "-" or not arg.startswith("-"):
            positional.append(arg)
            i += 1
            continue
        name, has_value, value = arg.partition("=")
        if name not in OPTIONS:
            raise usage_error("unknown option: %s" % arg)
        if name in values:
            raise usage_error("option given more than once: %s" % name)
        if not has_value:
            i += 1
            if i >= len(argv):
                raise usage_error("option %s needs a value" % name)
            value = argv[i]
        values[name] = value
        i += 1

    if "--data" not in values:
        raise usage_error("missing --data DIR")
    fmt = values.get("--format", "table")
    if fmt not in FORMATS:
        raise usage_error("unknown format %r (use table, csv or json)" % fmt)
    if len(positional) != 1:
        raise usage_error("expected exactly one SQL argument, got %d" % len(positional))
    data_dir = values["--data"]
    if not os.path.isdir(data_dir):
        raise usage_error("data directory not found: %s" % data_dir)
    return data_dir, fmt, positional[0]


def run(argv):
    """Return the complete text for stdout; raise Failure on any error."""
    data_dir, fmt, sql = parse_args(argv)
    if sql == "-":
        sql = sys.stdin.buffer.read().decode("utf-8")

    # Imported here so that --help and argument errors stay cheap.
    from sqlcsv.parser import parse
    from sqlcsv.executor import execute
    from sqlcsv.output import render

    query = parse(sql)
    names, rows = execute(query, data_dir)
    return render(fmt, names, rows)


def main(argv):
    # --help wins over everything else, including malformed arguments.
    if "--help" in argv or "-h" in argv:
        sys.stdout.write(USAGE)
        return 0
    try:
        text = run(argv)
    except Failure as failure:
        # Nothing has been written to stdout yet: the result is built whole
        # before printing, so an error can never leave a partial result.
        sys.stderr.write("sqlcsv: error: %s\n" % failure)
        return failure.status
    out = sys.stdout.buffer
    out.write(text.encode("utf-8"))
    out.flush()
    return 0
