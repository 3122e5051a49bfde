#!/usr/bin/env python3
"""Compares produced rows with hand-written expected rows (fixtures/expected/*.rows.jsonl).

Each expected line holds a subset of a row's fields; the produced row at the same position must have exactly those
values (nested objects such as `source` are compared on the keys given). The number of rows must be equal too, so a
missing or an extra row fails.

usage: rows_match.py PRODUCED.jsonl EXPECTED.jsonl [EXPECTED2.jsonl …]   (expected files are concatenated in order)
"""
import json
import sys


def subset_diff(expected, actual, path=""):
    diffs = []
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object, got {actual!r}"]
        for key, value in expected.items():
            if key not in actual:
                diffs.append(f"{path}.{key}: missing (expected {value!r})")
            else:
                diffs.extend(subset_diff(value, actual[key], f"{path}.{key}"))
        return diffs
    if expected != actual or type(expected) is not type(actual) and not (
        isinstance(expected, (int, float)) and isinstance(actual, (int, float)) and not isinstance(actual, bool)
    ):
        return [f"{path}: expected {expected!r}, got {actual!r}"]
    return diffs


def main(argv):
    produced = [json.loads(line) for line in open(argv[1], encoding="utf-8")]
    expected = []
    for name in argv[2:]:
        expected.extend(json.loads(line) for line in open(name, encoding="utf-8") if line.strip())
    failures = []
    for i, (exp, act) in enumerate(zip(expected, produced)):
        for d in subset_diff(exp, act):
            failures.append(f"row {i} ({exp.get('kind')} {exp.get('source', {}).get('path', '')}): {d}")
    if len(expected) != len(produced):
        failures.append(f"expected {len(expected)} rows, produced {len(produced)}")
    for f in failures[:40]:
        print(f)
    if failures:
        print(f"{len(failures)} difference(s)")
        return 1
    print(f"{len(produced)} rows match")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
