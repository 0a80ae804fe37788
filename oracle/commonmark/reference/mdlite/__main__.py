"""`python3 -m mdlite`: Markdown on standard input, HTML on standard output."""

import sys

from . import convert


def main():
    # Emphasis nests as deep as the delimiters do; Python 3.11's calls between Python functions use no C stack.
    sys.setrecursionlimit(100000)
    # Bytes in and out, so the locale never decides the encoding; invalid UTF-8 becomes U+FFFD.
    source = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    sys.stdout.buffer.write(convert(source).encode("utf-8"))
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
