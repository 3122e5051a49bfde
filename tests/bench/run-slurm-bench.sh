#!/usr/bin/env bash
# Slurm batch benchmark: N copies of the benchmark image run, in the same run on the same machine,
#   1. sequentially: N plain `roo-ingest IMG -o OUT` runs, one after the other;
#   2. as a Slurm job array throttled to 1 (%1) plus its afterany merge job, through the engine's submit_batch
#      (slurm_submit) with a wrapper that runs `roo-ingest IMG -o OUT` for the task's line: what scheduling costs
#      per item, since the work is the same as in 1 and also one at a time;
#   3. the same array throttled to P (%P, default: the number of cores);
#   4. when roo-ingest has --manifest (the batch mode): `roo-ingest --manifest M -o B --engine slurm --parallel 1`
#      and `--parallel P`, and `--engine local --parallel 1` and `--parallel P`, each until its merge is done;
# and prints for each the wall time, images/hour, and the scheduling overhead per item against 1.
# It never fails on timing: it prints the figures and exits 0 (non-zero only when a step breaks).
#
#   tests/bench/run-slurm-bench.sh [-n N] [--parallel P] [--rounds R] [--image IMG] [WORKDIR]
#
#   -n N          copies of the image (default 4)
#   --rounds R    measure everything R times, round-robin, and keep the best of each (default 1)
#   --parallel P  the array's throttle and the batch mode's --parallel (default: nproc)
#   --image IMG   the image to copy (default: the small benchmark image, WORKDIR/bench.ext4, built as
#                 run-bench.sh --small builds it when missing)
#   WORKDIR       default ${TMPDIR:-/tmp}/roo-slurm-bench
#
# Environment:
#   SLURM_CONF=FILE   use this cluster; when unset a private one is started with tests/slurm/cluster.sh under
#                     WORKDIR/cluster and stopped at the end
#   ROO_INGEST=PATH   the roo-ingest to measure (default $BUILD_DIR/plugin/roo-ingest)
#   BUILD_DIR=DIR     build directory with plugin/roo-ingest and tests/slurm/slurm_submit (default <repo>/build;
#                     the two targets are built when missing)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
COPIES=4
PARALLEL=$(nproc)
ROUNDS=1
IMAGE=
WORKDIR=
while [[ $# -gt 0 ]]; do
  case $1 in
    -n) COPIES=$2; shift 2 ;;
    --parallel) PARALLEL=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --image) IMAGE=$2; shift 2 ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    -*) echo "run-slurm-bench: unknown option $1" >&2; exit 2 ;;
    *) WORKDIR=$1; shift ;;
  esac
done
WORKDIR=${WORKDIR:-${TMPDIR:-/tmp}/roo-slurm-bench}
mkdir -p "$WORKDIR"
WORKDIR=$(cd "$WORKDIR" && pwd)
export LC_ALL=C.UTF-8

log() { printf '== %s\n' "$*" >&2; }
die() { printf 'run-slurm-bench: %s\n' "$*" >&2; exit 1; }
now_ns() { date +%s%N; }
seconds() { awk -v ns="$1" 'BEGIN { printf "%.2f", ns / 1e9 }'; }

# ---- binaries -------------------------------------------------------------------------------------------
BUILD_DIR=${BUILD_DIR:-$REPO/build}
RI=${ROO_INGEST:-$BUILD_DIR/plugin/roo-ingest}
SUBMIT=$BUILD_DIR/tests/slurm/slurm_submit
if [[ ! -x $SUBMIT || ( -z ${ROO_INGEST:-} && ! -x $RI ) ]]; then
  log "building roo-ingest and slurm_submit in $BUILD_DIR (Release)"
  (cd "$REPO" && cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release > "$WORKDIR/cmake.log" 2>&1 &&
    cmake --build "$BUILD_DIR" -j"$(nproc)" --target roo-ingest slurm_submit >> "$WORKDIR/cmake.log" 2>&1) ||
    { tail -30 "$WORKDIR/cmake.log" >&2; die "build failed"; }
fi
[[ -x $RI ]] || die "no roo-ingest at $RI"

# ---- the cluster ------------------------------------------------------------------------------------------
STARTED_CLUSTER=
if [[ -z ${SLURM_CONF:-} ]]; then
  log "starting a private cluster under $WORKDIR/cluster"
  "$REPO/tests/slurm/cluster.sh" start "$WORKDIR/cluster" || die "no cluster (is Slurm installed?)"
  STARTED_CLUSTER=$WORKDIR/cluster
  trap '"$REPO/tests/slurm/cluster.sh" stop "$STARTED_CLUSTER"' EXIT
  eval "$("$REPO/tests/slurm/cluster.sh" env "$WORKDIR/cluster")"
fi
"$SUBMIT" available || die "Slurm does not answer (SLURM_CONF=$SLURM_CONF)"

# ---- the image and its copies ----------------------------------------------------------------------------
if [[ -z $IMAGE ]]; then
  IMAGE=$WORKDIR/bench.ext4
  if [[ ! -f $IMAGE ]]; then
    log "image: generating the small benchmark tree and its ext4 image (as run-bench.sh --small does)"
    rm -rf "$WORKDIR/tree" "$WORKDIR/tree.tmp"
    python3 "$HERE/generate_tree.py" "$WORKDIR/tree" --small >/dev/null
    read -r blocks entries < <(find "$WORKDIR/tree" -printf '%y %s\n' |
      awk '{ n++; b += int(($2 + 4095) / 4096) } END { printf "%d %d\n", b, n }')
    inodes=$(( entries + entries / 10 + 1024 ))
    mkfs.ext4 -q -F -d "$WORKDIR/tree" -b 4096 -I 256 -N "$inodes" -L roo-bench "$IMAGE.tmp" \
      "$(( blocks * 4 * 130 / 100 + inodes / 4 + 256 * 1024 ))k" || die "mkfs.ext4 -d failed"
    mv "$IMAGE.tmp" "$IMAGE"
    rm -rf "$WORKDIR/tree"
  fi
fi
[[ -f $IMAGE ]] || die "no image $IMAGE"
EVIDENCE=$WORKDIR/evidence
OUTS=$WORKDIR/outputs
rm -rf "$EVIDENCE" "$OUTS"
mkdir -p "$EVIDENCE" "$OUTS"
MANIFEST=$WORKDIR/drives.tsv
printf 'evidence_id\tpath\n' > "$MANIFEST"
SUFFIX=${IMAGE##*/}
[[ $SUFFIX == *.* ]] && SUFFIX=.${SUFFIX##*.} || SUFFIX=  # the copies keep the image's extension (.E01 needs it)
for k in $(seq 1 "$COPIES"); do
  cp "$IMAGE" "$EVIDENCE/copy-$k$SUFFIX"
  printf 'copy-%d\t%s\n' "$k" "$EVIDENCE/copy-$k$SUFFIX" >> "$MANIFEST"
done
cat "$EVIDENCE"/copy-* > /dev/null  # warm: every measurement reads from the page cache
log "$COPIES copies of $IMAGE ($(du -h "$IMAGE" | cut -f1)), throttle/parallel $PARALLEL, $(nproc) cores," \
    "load $(cut -d' ' -f1-3 /proc/loadavg)"

ok_exit() { [[ $1 == 0 || $1 == 5 || $1 == 6 || $1 == 7 ]]; }

# Each measure_* function runs one measurement into a fresh folder and prints its wall time in ns.

# 1. N plain runs, one after the other.
measure_sequential() {
  local outs=$OUTS/sequential t0 k rc
  rm -rf "$outs"
  t0=$(now_ns)
  for k in $(seq 1 "$COPIES"); do
    rc=0; "$RI" "$EVIDENCE/copy-$k$SUFFIX" -o "$outs/copy-$k" -q > /dev/null || rc=$?
    ok_exit $rc || die "roo-ingest exited $rc on copy-$k"
  done
  echo $(( $(now_ns) - t0 ))
}

# 2. and 3. The engine's array with a plain roo-ingest per task. The wrapper takes the command line the engine gives
# roo-ingest's batch mode and runs the plain command for the task's manifest line; the merge only records its end.
WRAPPER=$WORKDIR/bench_item.sh
cat > "$WRAPPER" <<EOF
#!/bin/sh
# Written by tests/bench/run-slurm-bench.sh: --manifest M -o B (--run-item N | --merge)
manifest=\$2 batch=\$4
if [ "\$5" = --merge ]; then date +%s%N > "\$batch/merge.end"; exit 0; fi
path=\$(awk -F '\t' -v n="\$6" 'NR == n + 1 { print \$2 }' "\$manifest")
exec '$RI' "\$path" -o "\$batch/items/copy-\$6" -q
EOF
chmod +x "$WRAPPER"

# wait_batch_ended BATCHDIR: until none of the batch's jobs is queued or running.
wait_batch_ended() {
  local deadline=$((SECONDS + 3600))
  until [[ -z $("$SUBMIT" queued "$1") ]]; do
    ((SECONDS < deadline)) || die "the batch $1 did not end within an hour"
    sleep 0.2
  done
}

# measure_array THROTTLE: 1-COPIES%THROTTLE and its merge job, from before sbatch to the merge's end.
measure_array() {
  local batch=$OUTS/array-$1 t0 out done_items
  rm -rf "$batch"
  t0=$(now_ns)
  out=$("$SUBMIT" submit --binary "$WRAPPER" --manifest "$MANIFEST" --batch-dir "$batch" --items "1-$COPIES" \
    --throttle "$1") || die "submission failed: $out"
  wait_batch_ended "$batch"
  [[ -f $batch/merge.end ]] || die "the merge job of the array %$1 did not run (see $batch/slurm/logs)"
  done_items=$(find "$batch/items" -name report.json | wc -l)
  [[ $done_items == "$COPIES" ]] || die "the array %$1 left $done_items of $COPIES reports (see $batch/slurm/logs)"
  echo $(( $(cat "$batch/merge.end") - t0 ))
}

# 4. roo-ingest's own batch mode, ENGINE (slurm or local) with --parallel P, until its merge is done.
measure_batch() {
  local batch=$OUTS/batch-$1-$2 t0 rc
  rm -rf "$batch"
  t0=$(now_ns)
  # Its stdout (what was submitted) to a log: this function's stdout is its figure.
  rc=0; "$RI" --manifest "$MANIFEST" -o "$batch" --engine "$1" --parallel "$2" -q > "$batch.log" || rc=$?
  ok_exit $rc || die "roo-ingest --engine $1 --parallel $2 exited $rc"
  if [[ $1 == slurm ]]; then wait_batch_ended "$batch"; fi
  echo $(( $(now_ns) - t0 ))
}

HELP=$("$RI" --help 2>/dev/null || true)  # not piped into grep -q: under pipefail its early exit fails the pipe
HAS_BATCH=0
[[ $HELP == *--manifest* ]] && HAS_BATCH=1
[[ $HAS_BATCH == 1 ]] || log "4. skipped: $RI has no --manifest (the batch mode is not in this build)"

# Round-robin, so a change in the machine's load touches every figure alike; the best of the rounds is kept.
best() { if [[ -z $1 || $2 -lt $1 ]]; then echo "$2"; else echo "$1"; fi; }
SEQ_NS= ARRAY1_NS= ARRAYP_NS= BATCH_SLURM1_NS= BATCH_SLURMP_NS= BATCH_LOCAL1_NS= BATCH_LOCALP_NS=
for round in $(seq 1 "$ROUNDS"); do
  log "round $round of $ROUNDS: 1. sequential, 2. array %1, 3. array %$PARALLEL" \
      "$([[ $HAS_BATCH == 1 ]] && echo ", 4. --engine slurm and local, --parallel 1 and $PARALLEL" || true)"
  SEQ_NS=$(best "$SEQ_NS" "$(measure_sequential)")
  ARRAY1_NS=$(best "$ARRAY1_NS" "$(measure_array 1)")
  ARRAYP_NS=$(best "$ARRAYP_NS" "$(measure_array "$PARALLEL")")
  if [[ $HAS_BATCH == 1 ]]; then
    BATCH_SLURM1_NS=$(best "$BATCH_SLURM1_NS" "$(measure_batch slurm 1)")
    BATCH_SLURMP_NS=$(best "$BATCH_SLURMP_NS" "$(measure_batch slurm "$PARALLEL")")
    BATCH_LOCAL1_NS=$(best "$BATCH_LOCAL1_NS" "$(measure_batch local 1)")
    BATCH_LOCALP_NS=$(best "$BATCH_LOCALP_NS" "$(measure_batch local "$PARALLEL")")
  fi
done

# ---- figures ---------------------------------------------------------------------------------------------
per_hour() { awk -v n="$COPIES" -v ns="$1" 'BEGIN { printf "%.0f", n * 3600e9 / ns }'; }
overhead() { awk -v n="$COPIES" -v ns="$1" -v seq="$SEQ_NS" 'BEGIN { printf "%+.2f", (ns - seq) / n / 1e9 }'; }
echo
echo "Slurm batch benchmark: $COPIES copies of $(basename "$IMAGE") ($(du -h "$IMAGE" | cut -f1)), $(nproc) cores," \
     "best of $ROUNDS round(s), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-44s %9s %12s %26s\n' "run" "wall s" "images/h" "vs sequential, s per item"
printf '%-44s %9s %12s %26s\n' "1. sequential roo-ingest" "$(seconds "$SEQ_NS")" "$(per_hour "$SEQ_NS")" "-"
printf '%-44s %9s %12s %26s\n' "2. array %1 + merge job (scheduling cost)" "$(seconds "$ARRAY1_NS")" \
  "$(per_hour "$ARRAY1_NS")" "$(overhead "$ARRAY1_NS")"
printf '%-44s %9s %12s %26s\n' "3. array %$PARALLEL + merge job" "$(seconds "$ARRAYP_NS")" "$(per_hour "$ARRAYP_NS")" \
  "$(overhead "$ARRAYP_NS")"
if [[ -n $BATCH_SLURM1_NS ]]; then
  for row in "slurm 1 $BATCH_SLURM1_NS" "slurm $PARALLEL $BATCH_SLURMP_NS" "local 1 $BATCH_LOCAL1_NS" \
             "local $PARALLEL $BATCH_LOCALP_NS"; do
    read -r engine par ns <<< "$row"
    printf '%-44s %9s %12s %26s\n' "4. --engine $engine --parallel $par (+ merge)" "$(seconds "$ns")" \
      "$(per_hour "$ns")" "$(overhead "$ns")"
  done
fi
echo "scheduling overhead per item (2 against 1): $(overhead "$ARRAY1_NS") s;" \
     "per-item work sequentially: $(awk -v n="$COPIES" -v ns="$SEQ_NS" 'BEGIN { printf "%.2f", ns / n / 1e9 }') s"
