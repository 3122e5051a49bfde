#!/usr/bin/env bash
# What an APFS volume's local snapshots cost a scan: builds tests/bench/snapshot_bench.cpp and runs it on
# fixtures/apfs/macos-apfs-snap.E01's Data volume with 0, 1 and 24 snapshots (the fixture's one snapshot opened 24
# times over: 24 snapshots that keep the same state, as hourly snapshots mostly do). Prints CPU seconds per scan,
# how many snapshot copies were read and how many were not (same extents as a copy already listed), and each figure's
# ratio to the scan without snapshots. Never fails on timing.
#
#   tests/bench/run-snapshot-bench.sh [BUILD_DIR] [REPEATS]     (default build, 50)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$repo/build}
repeats=${2:-50}
cmake --build "$build" --target snapshot_bench >/dev/null
"$build/tests/plugin/snapshot_bench" "$repo/fixtures/apfs/macos-apfs-snap.E01" "$repeats"
