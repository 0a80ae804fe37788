"""The command line of section 1: arguments, exit status and where output goes."""
import os
import sys

from sqlcsv import USAGE
from sqlcsv.binder import bind
from sqlcsv.engine import run
from sqlcsv.failure import Refusal, bad_input
from sqlcsv.parser import parse
from sqlcsv.render import FORMATS

VALUED_OPTIONS = ("--data", "--format")


def read_arguments(argv):
    """(data directory, format name, SQL text or '-') from the arguments, or a status-2 refusal."""
    given = {}
    positional = []
    at = 0
    while at < len(argv):
        arg = argv[at]
        at += 1
        if not arg.startswith("-") or arg == "-":
            positional.append(arg)
            continue
        name, has_value, value = arg.partition("=")
        if name not in VALUED_OPTIONS:
            raise bad_input("unknown option %s" % name)
        if name in given:
            raise bad_input("%s given more than once" % name)
        if not has_value:
            if at >= len(argv):
                raise bad_input("%s needs a value" % name)
            value = argv[at]
            at += 1
        given[name] = value
    fmt = given.get("--format", "table")
    if fmt not in FORMATS:
        raise bad_input("--format must be table, csv or json, not %s" % fmt)
    if not positional:
        raise bad_input("no SQL argument")
    if len(positional) > 1:
        raise bad_input("exactly one SQL argument is allowed, got %d" % len(positional))
    if "--data" not in given:
        raise bad_input("--data DIR is required")
    if not os.path.isdir(given["--data"]):
        raise bad_input("--data %s is not a directory" % given["--data"])
    return given["--data"], fmt, positional[0]


def main(argv, stdin=None, stdout=None, stderr=None):
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout.buffer
    stderr = stderr if stderr is not None else sys.stderr
    if "--help" in argv or "-h" in argv:
        stdout.write((USAGE + "\n").encode("utf-8"))
        return 0
    try:
        directory, fmt, sql = read_arguments(argv)
        if sql == "-":
            sql = stdin.read().decode("utf-8")
        query = parse(sql)
        scope = bind(query, directory)
        text = FORMATS[fmt](run(query, scope))
    except Refusal as refusal:
        stderr.write("sqlcsv: %s\n" % refusal.message.replace("\n", " "))
        return refusal.status
    except (OSError, UnicodeDecodeError) as error:
        stderr.write("sqlcsv: cannot read input: %s\n" % str(error).replace("\n", " "))
        return 2
    stdout.write(text.encode("utf-8"))
    return 0
