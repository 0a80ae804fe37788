"""Entry point for `python3 -m sqlcsv`."""

import sys

from sqlcsv.cli import main

sys.exit(main(sys.argv[1:]))
