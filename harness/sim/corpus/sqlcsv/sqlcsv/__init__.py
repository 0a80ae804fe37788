"""sqlcsv: one SELECT statement over a directory of CSV files (SIMULATED corpus).

Written for the simulated agent population of the recursion-depth harness, from
spec/sqlcsv/SPEC.md alone. Standard library only.
"""
import sys as _sys

# The tool must not write files; that includes bytecode caches of its own modules.
_sys.dont_write_bytecode = True

USAGE = "usage: python3 -m sqlcsv --data DIR [--format table|csv|json] SQL"
