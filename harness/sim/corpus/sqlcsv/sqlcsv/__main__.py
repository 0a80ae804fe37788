"""Entry point: `python3 -m sqlcsv --data DIR [--format FORMAT] SQL`."""
import sys

from sqlcsv.cli import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
