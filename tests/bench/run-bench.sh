#!/usr/bin/env bash
# roo-ingest benchmark: builds a large ext4 image without mounting and prints, measured side by side in one run,
#   1. roo-ingest wall time ÷ `fls -r -p` wall time on the same image        (target ≤ 0.5)
#   2. Roo JSON bytes/s of roo-ingest ÷ a raw RapidJSON DOM parse of the same files  (target ≥ 0.7)
#   3. roo-ingest peak RSS, parent and workers                                 (target ≤ 128 MiB)
#   4. the default run (every format) wall ÷ the reference-outputs run wall    (target ≤ 2), beside fls -r -p
# and, at full scale, roo-ingest ÷ fls on an image with the same unrelated files and one small task: what discovery
# alone costs (ratio 1 adds reading, hashing and parsing the Roo JSON and writing its rows).
# It never fails on timing: it prints the figures and ratios and exits 0 (non-zero only when a step breaks).
#
#   tests/bench/run-bench.sh [--small] [--image-only] [WORKDIR]
#
#   --small   smoke scale (20k unrelated files, 100 tasks, ~20 MiB big ui_messages.json)
#   --image-only  make (or reuse) the bench image, print its path on stdout and stop (run-batch-bench.sh uses it)
#   WORKDIR   where the tree, the image and outputs live (default ${TMPDIR:-/tmp}/roo-bench[-small]); the tree
#             and the image are kept there and reused by later runs with the same generator and scale.
#
# Environment:
#   ROO_INGEST=PATH   use this roo-ingest binary instead of building $BUILD_DIR
#   BUILD_DIR=DIR     build directory (default <repo>/build; configured with CMAKE_BUILD_TYPE=Release)
#   BENCH_REPEATS=N   timed runs per measurement after the warm-up run (default 3; the best is reported)
#
# Needs: python3, mkfs.ext4 (e2fsprogs), fls (sleuthkit), g++ and rapidjson-dev, cmake, /usr/bin/time (Debian
# package `time`; installed with apt-get when missing and running as root). Root is not needed otherwise.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
SMALL=0
IMAGE_ONLY=0
WORKDIR=
for a in "$@"; do
  case $a in
    --small) SMALL=1 ;;
    --image-only) IMAGE_ONLY=1 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    -*) echo "run-bench: unknown option $a" >&2; exit 2 ;;
    *) WORKDIR=$a ;;
  esac
done
SCALE=$([[ $SMALL == 1 ]] && echo small || echo full)
WORKDIR=${WORKDIR:-${TMPDIR:-/tmp}/roo-bench$([[ $SMALL == 1 ]] && echo -small || true)}
REPEATS=${BENCH_REPEATS:-3}
mkdir -p "$WORKDIR"
WORKDIR=$(cd "$WORKDIR" && pwd)
export LC_ALL=C.UTF-8

log() { printf '== %s\n' "$*" >&2; }
die() { printf 'run-bench: %s\n' "$*" >&2; exit 1; }
now_ns() { date +%s%N; }
BENCH_T0=$(now_ns)

# ---- tools ---------------------------------------------------------------------------------------------
if [[ ! -x /usr/bin/time ]]; then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    log "installing /usr/bin/time (Debian package time)"
    apt-get install -y -q time >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q time >/dev/null; }
  fi
  [[ -x /usr/bin/time ]] || die "/usr/bin/time is missing: apt-get install time"
fi
for t in python3 mkfs.ext4 fls g++ cmake; do command -v "$t" >/dev/null || die "missing tool: $t"; done
[[ -f /usr/include/rapidjson/document.h ]] || die "missing rapidjson headers: apt-get install rapidjson-dev"

# ---- 1. the tree and 2. its ext4 image (cached; built with mkfs.ext4 -d, nothing is mounted) ---------------
# make_tree DIR TREE_KEY_FILE IMAGE_KEY_FILE GENERATOR_ARGS...: generates DIR unless the key file says it is there.
make_tree() {
  local tree=$1 tree_key_file=$2 image_key_file=$3; shift 3
  local key t0
  key=$( { sha256sum < "$HERE/generate_tree.py"; echo "$*"; } | sha256sum | cut -c1-16)
  if [[ -f $tree_key_file && $(cat "$tree_key_file") == "$key" && -d $tree && -f $tree.manifest.json ]]; then
    log "tree: reusing $tree"
  else
    log "tree: generating $tree (generator arguments: ${*:-none})"
    rm -f "$tree_key_file" "$image_key_file"
    t0=$(now_ns)
    python3 "$HERE/generate_tree.py" "$tree" "$@"
    echo "$key" > "$tree_key_file"
    log "tree: $(( ($(now_ns) - t0) / 1000000000 ))s"
  fi
}
# make_image TREE IMG TREE_KEY_FILE IMAGE_KEY_FILE: the ext4 image of TREE unless the image key matches the tree's.
make_image() {
  local tree=$1 img=$2 tree_key_file=$3 image_key_file=$4
  local key blocks entries inodes size_kib t0 attempt
  key=$(cat "$tree_key_file")
  if [[ -f $image_key_file && $(cat "$image_key_file") == "$key" && -f $img ]]; then
    log "image: reusing $img"
    return
  fi
  # Size: every file rounded up to 4 KiB blocks, directories at their host size, +15% for extent and
  # directory-index blocks, 256-byte inodes for every entry +10%, a journal and some slack.
  read -r blocks entries < <(find "$tree" -printf '%y %s\n' |
    awk '{ n++; b += int(($2 + 4095) / 4096) } END { printf "%d %d\n", b, n }')
  inodes=$(( entries + entries / 10 + 1024 ))
  size_kib=$(( (blocks * 4 * 115 / 100) + inodes / 4 + 256 * 1024 ))
  t0=$(now_ns)
  for attempt in 1 2 3; do
    log "image: mkfs.ext4 -d, $entries entries, $(( size_kib / 1024 )) MiB, $inodes inodes (attempt $attempt)"
    rm -f "$img" "$image_key_file"
    if mkfs.ext4 -q -F -d "$tree" -b 4096 -I 256 -N "$inodes" -L roo-bench "$img" "${size_kib}k" \
        > "$WORKDIR/mkfs.log" 2>&1; then
      echo "$key" > "$image_key_file"
      break
    fi
    tail -5 "$WORKDIR/mkfs.log" >&2
    size_kib=$(( size_kib * 13 / 10 ))
  done
  [[ -f $image_key_file ]] || die "mkfs.ext4 -d failed; see $WORKDIR/mkfs.log"
  log "image: $(( ($(now_ns) - t0) / 1000000000 ))s"
}
TREE=$WORKDIR/tree
IMG=$WORKDIR/bench.ext4
# Outputs beside WORKDIR, not in it: roo-ingest writes nothing into the folder that holds an image.
OUTS=$WORKDIR.outputs
mkdir -p "$OUTS"
GEN_ARGS=()
[[ $SMALL == 1 ]] && GEN_ARGS+=(--small)
make_tree "$TREE" "$WORKDIR/tree.key" "$WORKDIR/image.key" "${GEN_ARGS[@]}"
make_image "$TREE" "$IMG" "$WORKDIR/tree.key" "$WORKDIR/image.key"
if [[ $IMAGE_ONLY == 1 ]]; then
  echo "$IMG"
  exit 0
fi

# ---- 3. roo-ingest --------------------------------------------------------------------------------------
if [[ -n ${ROO_INGEST:-} ]]; then
  RI=$ROO_INGEST
  [[ -x $RI ]] || die "ROO_INGEST=$RI is not executable"
else
  BUILD_DIR=${BUILD_DIR:-$REPO/build}
  log "roo-ingest: cmake build in $BUILD_DIR (Release)"
  (cd "$REPO" && cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release > "$WORKDIR/cmake.log" 2>&1 &&
    cmake --build "$BUILD_DIR" -j"$(nproc)" >> "$WORKDIR/cmake.log" 2>&1) || { tail -30 "$WORKDIR/cmake.log" >&2; die "build failed"; }
  RI=$BUILD_DIR/plugin/roo-ingest
fi
BUILD_TYPE=unknown
CACHE=$(dirname "$(dirname "$RI")")/CMakeCache.txt
[[ -f $CACHE ]] && BUILD_TYPE=$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$CACHE")

# ---- 4. the RapidJSON baseline ----------------------------------------------------------------------------
BASE=$WORKDIR/rapidjson_baseline
if [[ ! -x $BASE || $HERE/rapidjson_baseline.cpp -nt $BASE ]]; then
  log "baseline: g++ -O2 -std=c++17"
  g++ -O2 -std=c++17 -o "$BASE" "$HERE/rapidjson_baseline.cpp"
fi

# ---- 5. measurements ----------------------------------------------------------------------------------------
# run_once NAME STDOUT CMD…: wall time (ns) and max RSS (KiB) of one run. GNU time's "Maximum resident set
# size" is the ru_maxrss that wait4() returns for the command, which the kernel takes as the max of the process's
# own peak and its reaped descendants' peaks: roo-ingest's parent and its per-file-system workers (it waits for
# each). It is not a sum: parent and workers are not counted together even if they overlapped.
declare -A BEST MAXRSS
run_once() {
  local name=$1 out=$2; shift 2
  local t0 t1 rc=0
  t0=$(now_ns)
  /usr/bin/time -f '%M' -o "$WORKDIR/time.$name" "$@" > "$out" 2> "$WORKDIR/stderr.$name" || rc=$?
  t1=$(now_ns)
  if [[ $rc != 0 ]]; then
    # roo-ingest's 5 = done but a file system was not processed: still a result, reported below
    [[ $name == roo_* && $rc == 5 ]] || { tail -20 "$WORKDIR/stderr.$name" >&2; die "$name failed (exit $rc): $*"; }
    log "$name: exit 5 (a file system was not fully processed; see report.json)"
  fi
  local wall=$(( t1 - t0 )) rss
  rss=$(tail -1 "$WORKDIR/time.$name")
  if [[ -z ${BEST[$name]:-} || $wall -lt ${BEST[$name]} ]]; then BEST[$name]=$wall; fi
  if [[ -z ${MAXRSS[$name]:-} || $rss -gt ${MAXRSS[$name]} ]]; then MAXRSS[$name]=$rss; fi
}
OUT_IMG=$OUTS/out-image OUT_DIR=$OUTS/out-dir OUT_ALL=$OUTS/out-all
# The ratios time the reference outputs the targets were set for (rows.jsonl, roo.body, report.json). The formats
# derived from rows.jsonl afterwards (Timesketch, l2tcsv, CSV, SQLite, HTML: all written by default) are timed apart,
# as roo_all, so their cost is visible and not hidden in a ratio.
REFERENCE_FORMATS="--format jsonl,body,report"
measure_round() {
  run_once fls /dev/null fls -r -p "$IMG"
  rm -rf "$OUT_IMG"
  run_once roo_image /dev/null "$RI" "$IMG" -o "$OUT_IMG" -q $REFERENCE_FORMATS
  rm -rf "$OUT_DIR"
  run_once roo_dir /dev/null "$RI" --dir "$TREE" -o "$OUT_DIR" -q $REFERENCE_FORMATS
  rm -rf "$OUT_ALL"
  run_once roo_all /dev/null "$RI" "$IMG" -o "$OUT_ALL" -q
  # The default uses one worker thread per core; one thread is timed too, so the cost per core is visible.
  rm -rf "$OUT_IMG.t1"
  run_once roo_image_t1 /dev/null "$RI" "$IMG" -o "$OUT_IMG.t1" -q --threads 1 $REFERENCE_FORMATS
  rm -rf "$OUT_DIR.t1"
  run_once roo_dir_t1 /dev/null "$RI" --dir "$TREE" -o "$OUT_DIR.t1" -q --threads 1 $REFERENCE_FORMATS
  run_once baseline "$WORKDIR/baseline.$1.txt" "$BASE" "@$WORKDIR/roo-files.txt"
}

log "warming the page cache"
cat "$IMG" > /dev/null
# The baseline parses exactly the JSON files roo-ingest parsed: the --dir run's report.json files_parsed, read from
# the host tree (warm cache). SQLite databases (state.vscdb and its -wal) are not JSON and are left out; the
# command-output text files are read but not parsed (rapidjson_baseline.cpp).
rm -rf "$OUT_DIR"
"$RI" --dir "$TREE" -o "$OUT_DIR" -q || [[ $? == 5 ]]
python3 - "$OUT_DIR/report.json" "$TREE" > "$WORKDIR/roo-files.txt" <<'EOF'
import json, sys
rep = json.load(open(sys.argv[1]))
for part in rep["partitions"]:
    for f in part.get("scan", {}).get("files_parsed", []):
        if f["kind"] in ("global_state_db", "workspace_state_db", "state_db_wal"):
            continue
        print(sys.argv[2] + f["path"])
EOF

# A previous run with more rounds leaves baseline.N.txt files this one does not write: the figures read below must
# be this run's only.
rm -f "$WORKDIR"/baseline.*.txt
log "warm-up round, then $REPEATS timed rounds (fls, roo-ingest image, roo-ingest --dir, baseline), best of each"
measure_round warm
BEST=() MAXRSS=()
for ((i = 1; i <= REPEATS; i++)); do
  log "round $i/$REPEATS"
  measure_round "$i"
done
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)

FLS_ENTRIES=$(fls -r -p "$IMG" | wc -l)
python3 - "$WORKDIR" "$TREE.manifest.json" "$OUT_IMG/report.json" "$OUT_DIR/report.json" "$OUT_IMG/rows.jsonl" \
  "${BEST[fls]}" "${BEST[roo_image]}" "${BEST[roo_dir]}" "${MAXRSS[roo_image]}" "${MAXRSS[roo_dir]}" \
  "${MAXRSS[fls]}" "$REPEATS" "$FLS_ENTRIES" "$SCALE" "$IMG" "$RI" "$BUILD_TYPE" "$LOAD" "$BENCH_T0" \
  "${BEST[roo_all]}" "${MAXRSS[roo_all]}" "${BEST[roo_image_t1]}" "${BEST[roo_dir_t1]}" "${MAXRSS[roo_image_t1]}" <<'EOF'
import glob, json, os, platform, subprocess, sys, time
(workdir, manifest, rep_img, rep_dir, rows_img, fls_ns, img_ns, dir_ns, rss_img, rss_dir, rss_fls, repeats,
 fls_entries, scale, img, ri, build_type, load, t0, all_ns, rss_all, img1_ns, dir1_ns, rss_img1) = sys.argv[1:]
img1_s, dir1_s = int(img1_ns) / 1e9, int(dir1_ns) / 1e9
fls_s, img_s, dir_s = int(fls_ns) / 1e9, int(img_ns) / 1e9, int(dir_ns) / 1e9
man = json.load(open(manifest))

def parsed(path):
    rep = json.load(open(path))
    files = [f for p in rep["partitions"] for f in p.get("scan", {}).get("files_parsed", [])]
    errs = [e for p in rep["partitions"] for e in p.get("scan", {}).get("errors", [])]
    statuses = [p.get("status") for p in rep["partitions"]]
    return files, errs, statuses, rep.get("rows", {})

f_img, e_img, s_img, rows = parsed(rep_img)
f_dir, e_dir, s_dir, _ = parsed(rep_dir)
# Ratio 2 is about JSON: the state databases roo-ingest only hashes (and lists) are not counted, as the baseline
# leaves them out too.
NOT_JSON = ("global_state_db", "workspace_state_db", "state_db_wal")
f_img = [f for f in f_img if f["kind"] not in NOT_JSON]
f_dir = [f for f in f_dir if f["kind"] not in NOT_JSON]
bytes_img = sum(f["bytes"] for f in f_img)
bytes_dir = sum(f["bytes"] for f in f_dir)
same_files = sorted((f["path"], f["bytes"], f["sha256"]) for f in f_img) == sorted((f["path"], f["bytes"], f["sha256"]) for f in f_dir)

# Best of the timed rounds for each baseline figure.
base = []
for p in sorted(glob.glob(os.path.join(workdir, "baseline.[0-9]*.txt"))):
    kv = dict(x.split("=", 1) for x in open(p).read().split())
    base.append(kv)
b_bytes = int(base[0]["bytes"])
b_read = min(float(k["read_s"]) for k in base)
b_def = min(float(k["parse_default_s"]) for k in base)
b_fpi = min(float(k["parse_fullprec_iter_s"]) for k in base)

MB, MiB = 1e6, 1048576
cpu = "?"
for line in open("/proc/cpuinfo"):
    if line.startswith("model name"):
        cpu = line.split(":", 1)[1].strip()
        break
fls_ver = subprocess.run(["fls", "-V"], capture_output=True, text=True).stdout.strip()
ri_ver = subprocess.run([ri, "--version"], capture_output=True, text=True).stdout.strip()
rows_total = rows.get("total") if isinstance(rows, dict) else None

tp_roo = bytes_dir / dir_s
tp_def = b_bytes / b_def
tp_def_read = b_bytes / (b_read + b_def)
tp_fpi = b_bytes / b_fpi
r1 = img_s / fls_s
r2 = tp_roo / tp_def
peak = max(int(rss_img), int(rss_dir)) / 1024

def verdict(ok):
    return "meets target" if ok else "MISSES target"

print()
print("roo-ingest benchmark (%s scale), best of %s warm runs each, measured in this run" % (scale, repeats))
print("=" * 100)
print("machine   nproc %d, %s, %s %s, load avg %s (at the end of the timed rounds)" %
      (os.cpu_count(), cpu, platform.system(), platform.release(), load))
print("tools     %s (%s build), %s, baseline g++ -O2 RapidJSON DOM" % (ri_ver, build_type or "?", fls_ver))
print("image     %s: %.0f MiB ext4 (4 KiB blocks), %d fls entries; %d unrelated files, %d Roo tasks, biggest "
      "ui_messages.json %.1f MB (%d records)" % (img, os.path.getsize(img) / MiB, int(fls_entries),
      man["unrelated_files"], man["tasks"], man["big"]["ui_messages_bytes"] / MB, man["big"]["ui_records"]))
print("roo json  %d files parsed, %.1f MB (image run %d files %.1f MB; generator wrote %d files %.1f MB)%s" %
      (len(f_dir), bytes_dir / MB, len(f_img), bytes_img / MB, man["roo_json_files"], man["roo_json_bytes"] / MB,
       "" if same_files else "  ** image and --dir runs parsed different files **"))
if e_img or e_dir or any(s != "parsed" for s in s_img + s_dir):
    print("warning   partitions %s / %s, errors %d / %d (image / dir): see the report.json files" %
          (s_img, s_dir, len(e_img), len(e_dir)))
print()
print("absolute figures")
print("  fls -r -p IMG > /dev/null                  %8.3f s                      max RSS %7.1f MiB" % (fls_s, int(rss_fls) / 1024))
print("  roo-ingest IMG -o OUT -q                   %8.3f s  %7.1f MB/s Roo JSON  max RSS %7.1f MiB" % (img_s, bytes_img / img_s / MB, int(rss_img) / 1024))
print("  roo-ingest --dir TREE -o OUT -q            %8.3f s  %7.1f MB/s Roo JSON  max RSS %7.1f MiB" % (dir_s, tp_roo / MB, int(rss_dir) / 1024))
print("    (both with --format jsonl,body,report: the reference outputs; default --threads: one per core = %d)" % os.cpu_count())
print("  roo-ingest IMG -o OUT -q --threads 1       %8.3f s  %7.1f MB/s Roo JSON  max RSS %7.1f MiB" % (img1_s, bytes_img / img1_s / MB, int(rss_img1) / 1024))
print("  roo-ingest --dir TREE -o OUT -q --threads 1 %7.3f s  %7.1f MB/s Roo JSON" % (dir1_s, bytes_dir / dir1_s / MB))
print("  roo-ingest IMG -o OUT -q, every format     %8.3f s  (+%.3f s deriving Timesketch, l2tcsv, CSV, SQLite,"
      " HTML)  max RSS %7.1f MiB" % (int(all_ns) / 1e9, int(all_ns) / 1e9 - img_s, int(rss_all) / 1024))
print("  RapidJSON DOM, default flags (parse only)  %8.3f s  %7.1f MB/s" % (b_def, tp_def / MB))
print("  RapidJSON DOM, FullPrecision|Iterative     %8.3f s  %7.1f MB/s" % (b_fpi, tp_fpi / MB))
print("  reading the files whole (host page cache)  %8.3f s  (read + default parse: %.1f MB/s)" % (b_read, tp_def_read / MB))
if rows_total is not None:
    print("  rows written: %s, rows.jsonl %.1f MB" % (rows_total, os.path.getsize(rows_img) / MB))
print()
print("ratios (same run)                                                 value    target")
print("  1. roo-ingest IMG wall / fls -r -p wall                      %8.3f    <= 0.5   %s" % (r1, verdict(r1 <= 0.5)))
print("  2. roo-ingest --dir Roo JSON MB/s / RapidJSON DOM MB/s        %8.3f    >= 0.7   %s" % (r2, verdict(r2 >= 0.7)))
print("       same, vs FullPrecision|Iterative DOM parse                %8.3f" % (tp_roo / tp_fpi))
print("       same, vs read + default DOM parse                         %8.3f" % (tp_roo / tp_def_read))
print("     with --threads 1: ratio 1 %.3f, ratio 2 %.3f" % (img1_s / fls_s, (bytes_dir / dir1_s) / tp_def))
print("  3. roo-ingest peak RSS (max of parent and workers), MiB      %8.1f    <= 128   %s" % (peak, verdict(peak <= 128)))
all_s = int(all_ns) / 1e9
r4 = all_s / img_s
print("  4. default run (every format) wall / reference-outputs wall  %8.3f    <= 2     %s" % (r4, verdict(r4 <= 2)))
print("       default %.3f s, reference (jsonl,body,report) %.3f s, fls -r -p %.3f s; default / fls = %.3f" %
      (all_s, img_s, fls_s, all_s / fls_s))
print()
print("notes: warm page cache for everything (the image is read once before the runs; the baseline reads the Roo")
print("  files from the host tree that the image was built from, the same files roo-ingest --dir parsed). Peak RSS")
print("  is GNU time's ru_maxrss: max of roo-ingest's own peak and its reaped workers' peaks, never a sum.")
print("  Ratio 2's roo-ingest time is the whole --dir run (discovery, sha256, rows, report); the baseline's is")
print("  the DOM parse alone. Benchmarks never fail on timing. Total bench run: %.0f s." % ((time.time_ns() - int(t0)) / 1e9))
EOF

# ---- 6. what discovery costs ---------------------------------------------------------------------------------
# Ratio 1 times discovery together with reading, hashing and parsing the Roo JSON and writing its rows. The same
# generator, seed and unrelated files with ONE small task (--tasks 1 --big-mib 1) leave discovery nearly alone:
# roo-ingest there ÷ fls -r -p there is what finding the Roo files costs against walking every name.
if [[ $SMALL == 0 ]]; then
  DTREE=$WORKDIR/discovery-tree DIMG=$WORKDIR/discovery.ext4
  make_tree "$DTREE" "$WORKDIR/discovery-tree.key" "$WORKDIR/discovery-image.key" --tasks 1 --big-mib 1
  make_image "$DTREE" "$DIMG" "$WORKDIR/discovery-tree.key" "$WORKDIR/discovery-image.key"
  log "discovery-only image: warm-up, then $REPEATS timed rounds (fls, roo-ingest)"
  cat "$DIMG" > /dev/null
  run_once fls /dev/null fls -r -p "$DIMG"
  BEST=() MAXRSS=()
  for ((i = 1; i <= REPEATS; i++)); do
    run_once fls /dev/null fls -r -p "$DIMG"
    rm -rf "$OUTS/out-discovery"
    run_once roo_image /dev/null "$RI" "$DIMG" -o "$OUTS/out-discovery" -q $REFERENCE_FORMATS
  done
  python3 - "${BEST[fls]}" "${BEST[roo_image]}" "$(fls -r -p "$DIMG" | wc -l)" "$OUTS/out-discovery/report.json" \
    "$REPEATS" <<'PY'
import json, sys
fls_ns, roo_ns, entries, report = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), json.load(open(sys.argv[4]))
repeats = sys.argv[5]
files = [f for p in report["partitions"] for f in p.get("scan", {}).get("files_parsed", [])]
print()
print("discovery alone (same unrelated files, %d fls entries; one task: %d files parsed with the stores, %.1f MB), best of %s:"
      % (entries, len(files), sum(f["bytes"] for f in files) / 1e6, repeats))
print("  fls -r -p %.3f s, roo-ingest %.3f s: roo-ingest / fls = %.3f (ratio 1 above adds reading, hashing and"
      " parsing the Roo JSON and writing its rows)" % (fls_ns / 1e9, roo_ns / 1e9, roo_ns / fls_ns))
PY
fi
