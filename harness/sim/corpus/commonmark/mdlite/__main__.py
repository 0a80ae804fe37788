"""`python3 -m mdlite`: Markdown on standard input, HTML on standard output."""
import sys

from mdlite import convert


def main():
    # Bytes in and out: the spec's characters are Unicode, and a locale must not change them.
    text = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    sys.stdout.buffer.write(convert(text).encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
