#!/usr/bin/env python3
"""A stand-in for roo-ingest in the Slurm engine's cluster tests (tests/slurm/cluster_test.py): the array tasks and
the merge job run it with the very command lines they would give roo-ingest, so the submission is tested before
(and apart from) roo-ingest's own batch mode.

    stand_in_item.py --manifest M -o B --run-item N [--fail-item K]... [--sleep S]
        writes B/results/N.json: the item's evidence id (data line N of M, after the header), the array job and
        task ids Slurm gave it, and when it started and ended; exits 3 without a result for a --fail-item
    stand_in_item.py --manifest M -o B --merge [...]
        writes B/merges/<SLURM_JOB_ID>.json: when it started, the results it found, the items it found missing
"""
import argparse
import json
import os
import sys
import time


def write_json(path, value):
    """Atomically, as roo-ingest writes its markers: a reader sees the whole file or none."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temporary = path + ".tmp"
    with open(temporary, "w") as f:
        json.dump(value, f, sort_keys=True)
    os.rename(temporary, path)


def data_lines(manifest):
    with open(manifest) as f:
        lines = [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")]
    return lines[1:]  # after the header


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--manifest", required=True)
    parser.add_argument("-o", dest="batch_dir", required=True)
    parser.add_argument("--run-item", type=int)
    parser.add_argument("--merge", action="store_true")
    parser.add_argument("--fail-item", type=int, action="append", default=[])
    parser.add_argument("--sleep", type=float, default=0)
    args = parser.parse_args()
    started = time.time()
    items = data_lines(args.manifest)
    if args.merge:
        results_dir = os.path.join(args.batch_dir, "results")
        found = sorted(int(name[:-5]) for name in os.listdir(results_dir) if name.endswith(".json")) \
            if os.path.isdir(results_dir) else []
        write_json(os.path.join(args.batch_dir, "merges", os.environ.get("SLURM_JOB_ID", "local") + ".json"),
                   {"started": started, "found": found,
                    "missing": [n for n in range(1, len(items) + 1) if n not in found]})
        return 0
    if args.run_item is None or not 1 <= args.run_item <= len(items):
        print("stand_in_item: --run-item out of the manifest", file=sys.stderr)
        return 2
    time.sleep(args.sleep)
    if args.run_item in args.fail_item:
        print(f"stand_in_item: item {args.run_item} fails as asked", file=sys.stderr)
        return 3
    write_json(os.path.join(args.batch_dir, "results", f"{args.run_item}.json"),
               {"evidence_id": items[args.run_item - 1].split("\t")[0],
                "array_job": os.environ.get("SLURM_ARRAY_JOB_ID"), "task": os.environ.get("SLURM_ARRAY_TASK_ID"),
                "started": started, "ended": time.time()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
