#!/usr/bin/env bash
# What an APFS volume's local snapshots cost a scan: writes the bench's containers (tests/bench/make_snapshot_volume.py:
# a Data volume with 24 hourly snapshots, most files' extents shared with the live file's, a few changed; then the
# same with about 20,000 ordinary files added, --ordinary) into a scratch directory, builds
# tests/bench/snapshot_bench.cpp and scans each volume with no snapshot and with all 24 in the same run. Prints CPU
# seconds per scan and their ratio, and per snapshot how many of its files were opened against how many it alone
# holds. Never fails on timing; exits 1 when a snapshot's opened files differ from that.
#
#   tests/bench/run-snapshot-bench.sh [BUILD_DIR] [REPEATS]     (default build, 50; the ordinary volume REPEATS/5)
#
# ORDINARY=0 leaves out the volume with ordinary files (writing it takes apfs_put.py about 5 minutes and 1.2 GB).
#
# CHECK_READERS=1 first has the independent readers check what apfs_put.py wrote (fixtures/README.md "Snapshots: 24
# of them"; several minutes): apfsck on the bench's container, and fixtures/tools/apfs_check.py (libtsk, libfsapfs,
# apfsck) on the same volume with short snapshot names, which libfsapfs 20201107 can open.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$repo/build}
repeats=${2:-50}
work=$(mktemp -d "${TMPDIR:-/tmp}/roo-snapshot-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 "$repo/tests/bench/make_snapshot_volume.py" "$repo" "$work/volume"
if [[ ${CHECK_READERS:-0} == 1 ]]; then
  apfsck "$work/volume/volume.apfs"
  python3 "$repo/tests/bench/make_snapshot_volume.py" "$repo" "$work/short" --short-names
  python3 "$repo/fixtures/tools/apfs_check.py" "$work/short/volume.apfs" --epoch 1711929600 \
    --volume "$(cat "$work/short/apfs_put.args")"
  rm -rf "$work/short"
fi
cmake --build "$build" --target snapshot_bench >/dev/null
"$build/tests/plugin/snapshot_bench" "$work/volume/volume.apfs" "$work/volume/expected.tsv" "$repeats"
if [[ ${ORDINARY:-1} != 0 ]]; then
  rm -rf "$work/volume"
  python3 "$repo/tests/bench/make_snapshot_volume.py" "$repo" "$work/ordinary" --ordinary
  "$build/tests/plugin/snapshot_bench" "$work/ordinary/volume.apfs" "$work/ordinary/expected.tsv" \
    "$(( repeats / 5 > 0 ? repeats / 5 : 1 ))"
fi
