"""sqlcsv: run one SELECT statement over a directory of CSV files.

Reference implementation of spec/sqlcsv/SPEC.md (standard library only).
"""
