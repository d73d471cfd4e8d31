#!/usr/bin/python3
"""Validates import reports against schema/kernelgen-import-report.schema.json (Debian's python3-jsonschema).

Usage: check_report.py SCHEMA REPORT.json...   Prints each problem and exits 1 when any report is invalid.
"""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
validator = jsonschema.Draft7Validator(schema)
failed = False
for path in sys.argv[2:]:
    for error in validator.iter_errors(json.load(open(path))):
        print(f"{path}: {'/'.join(str(p) for p in error.absolute_path)}: {error.message}")
        failed = True
sys.exit(1 if failed else 0)
