#!/usr/bin/env bash
# Batch benchmark (README.md "Many drives"): N copies of the benchmark image (tests/bench/run-bench.sh's ext4 image)
# run, in the same run of this script,
#   1. one after the other, as N plain `roo-ingest IMAGE -o OUT` runs                        (the baseline)
#   2. as one batch with the local engine, --parallel 1, and its merge timed on its own
#   3. as one batch with the local engine, --parallel P
# and prints images/hour for each, and the scheduling overhead per item: (batch --parallel 1 − its merge − the N
# sequential runs) ÷ N, what spawning the --run-item worker, the part folder, the marker (hashing report.json and
# rows.jsonl) and the status checks cost per drive. It never fails on timing: it prints the figures and exits 0.
#
#   tests/bench/run-batch-bench.sh [--small] [-n N] [-p P] [WORKDIR]
#
#   --small   the smoke-scale bench image (run-bench.sh --small)
#   -n N      copies of the image (default 4)
#   -p P      --parallel of run 3 (default: the number of CPU cores)
#   WORKDIR   where run-bench.sh keeps its tree and image (default as run-bench.sh); the copies and every output go
#             into a temporary folder beside it, removed at the end: nothing is written beside the image
#
# Environment: ROO_INGEST=PATH (this binary instead of building), BUILD_DIR as run-bench.sh.
# The copies are real copies (cp --reflink=auto): a batch refuses the same file twice (hard links, symlinks).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
SMALL=()
N=4
P=$(nproc)
WORKDIR=
while [[ $# -gt 0 ]]; do
  case $1 in
    --small) SMALL=(--small) ;;
    -n) N=$2; shift ;;
    -p) P=$2; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) echo "run-batch-bench: unknown option $1" >&2; exit 2 ;;
    *) WORKDIR=$1 ;;
  esac
  shift
done
log() { printf '== %s\n' "$*" >&2; }
now_ns() { date +%s%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b - a) / 1e9 }'; }

IMG=$("$HERE/run-bench.sh" "${SMALL[@]}" --image-only ${WORKDIR:+"$WORKDIR"} | tail -1)
[[ -f $IMG ]] || { echo "run-batch-bench: no bench image ($IMG)" >&2; exit 1; }
if [[ -n ${ROO_INGEST:-} ]]; then
  RI=$ROO_INGEST
else
  RI=${BUILD_DIR:-$REPO/build}/plugin/roo-ingest
  [[ -x $RI ]] || { echo "run-batch-bench: build roo-ingest first (or set ROO_INGEST)" >&2; exit 1; }
fi

SCRATCH=$(mktemp -d "$(dirname "$IMG")/../roo-batch-bench.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
mkdir "$SCRATCH/evidence" "$SCRATCH/out"
MANIFEST=$SCRATCH/manifest.tsv
printf 'evidence_id\tpath\n' > "$MANIFEST"
log "copying the image $N times ($(du -h "$IMG" | cut -f1) each) into $SCRATCH/evidence"
for i in $(seq 1 "$N"); do
  cp --reflink=auto "$IMG" "$SCRATCH/evidence/drive$i.ext4"
  printf 'drive%s\t%s\n' "$i" "$SCRATCH/evidence/drive$i.ext4" >> "$MANIFEST"
done
# A first run reads the image into the page cache for every timed run alike.
"$RI" "$SCRATCH/evidence/drive1.ext4" -o "$SCRATCH/out/warm" --quiet
for i in $(seq 1 "$N"); do cat "$SCRATCH/evidence/drive$i.ext4" > /dev/null; done

log "1. $N sequential runs"
t0=$(now_ns)
for i in $(seq 1 "$N"); do
  "$RI" "$SCRATCH/evidence/drive$i.ext4" -o "$SCRATCH/out/seq$i" --quiet
done
t1=$(now_ns)
SEQ=$(seconds "$t0" "$t1")

log "2. batch, local engine, --parallel 1"
rc=0
t0=$(now_ns)
"$RI" --manifest "$MANIFEST" -o "$SCRATCH/out/batch1" --engine local --parallel 1 --quiet || rc=$?
t1=$(now_ns)
[[ $rc == 0 ]] || { echo "run-batch-bench: the batch ended with $rc" >&2; exit 1; }
B1=$(seconds "$t0" "$t1")
rm -rf "$SCRATCH/out/batch1/.merge"
t0=$(now_ns)
"$RI" --manifest "$MANIFEST" -o "$SCRATCH/out/batch1" --merge --quiet
t1=$(now_ns)
MERGE=$(seconds "$t0" "$t1")

log "3. batch, local engine, --parallel $P"
t0=$(now_ns)
"$RI" --manifest "$MANIFEST" -o "$SCRATCH/out/batchP" --engine local --parallel "$P" --quiet || rc=$?
t1=$(now_ns)
[[ $rc == 0 ]] || { echo "run-batch-bench: the batch ended with $rc" >&2; exit 1; }
BP=$(seconds "$t0" "$t1")
ROWS=$(wc -l < "$SCRATCH/out/batchP/case.rows.jsonl")

per_hour() { awk -v n="$N" -v s="$1" 'BEGIN { printf "%.0f", n * 3600 / s }'; }
printf '\nbatch bench: %d copies of %s (%s), %d rows in the case, %s CPU cores, roo-ingest %s\n' "$N" "$IMG" \
  "$(du -h "$IMG" | cut -f1)" "$ROWS" "$(nproc)" "$("$RI" --version | awk '{print $2}')"
printf '  %-40s %8s s  %8s images/hour\n' "sequential runs" "$SEQ" "$(per_hour "$SEQ")"
printf '  %-40s %8s s  %8s images/hour  (merge alone %s s)\n' "batch --parallel 1 (with its merge)" "$B1" \
  "$(per_hour "$B1")" "$MERGE"
printf '  %-40s %8s s  %8s images/hour\n' "batch --parallel $P (with its merge)" "$BP" "$(per_hour "$BP")"
awk -v b="$B1" -v m="$MERGE" -v s="$SEQ" -v n="$N" 'BEGIN {
  printf "  scheduling overhead per item: %.3f s  ((batch --parallel 1 - merge - sequential) / %d)\n", (b - m - s) / n, n
  printf "  merge per item: %.3f s\n", m / n }'
