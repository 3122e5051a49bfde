#!/usr/bin/env bash
# The --deep carving benchmark (docs/row-contract.md "Carved records"): builds a ≥ 1 GiB ext4 image whose space is mostly
# unallocated and holds Roo records among filler, and prints, measured side by side in one run on the same image:
#   1. carving throughput ÷ `blkls` throughput, with 1 and with 2 carving threads   (targets ≥ 0.9 and ≥ 1.5)
#   2. roo-ingest --deep peak RSS                                                    (target ≤ 128 MiB)
# Carving throughput = report.json's scan.carving.bytes_carved ÷ scan.carving.seconds (the carving phase alone:
# reading the runs, finding and decoding the records, writing their rows, and listing the digests of the records the
# scan read, which carving folds against: that part is also printed on its own, as it grows with the live Roo files,
# not with the space carved); blkls throughput = the unallocated bytes
# it writes ÷ its wall time (output to /dev/null). It never fails on timing: it prints the figures and exits 0
# (non-zero only when a step breaks).
#
#   tests/bench/run-carve-bench.sh [WORKDIR]
#
#   WORKDIR   where the tree, the image and outputs live (default ${TMPDIR:-/tmp}/roo-carve-bench); the image is
#             kept there and reused by later runs.
#
# Environment:
#   ROO_INGEST=PATH   use this roo-ingest binary instead of building $BUILD_DIR
#   BUILD_DIR=DIR     build directory (default <repo>/build; configured with CMAKE_BUILD_TYPE=Release)
#   BENCH_REPEATS=N   timed runs per measurement (default 3; the best is reported)
#   IMAGE_MIB=N       image size (default 1100)
#   ROO_EVERY=N       one 8 MiB file in N is a Roo task file, the others filler (default 3: a third of the bytes are
#                     Roo records, a dense case; every record found must be checked, hashed and folded or decoded)
#
# Needs: python3, mkfs.ext4 and debugfs (e2fsprogs), blkls (sleuthkit), cmake, /usr/bin/time. Nothing is mounted.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
WORKDIR=${1:-${TMPDIR:-/tmp}/roo-carve-bench}
REPEATS=${BENCH_REPEATS:-3}
IMAGE_MIB=${IMAGE_MIB:-1100}
ROO_EVERY=${ROO_EVERY:-3}
mkdir -p "$WORKDIR"
WORKDIR=$(cd "$WORKDIR" && pwd)
export LC_ALL=C.UTF-8

log() { printf '== %s\n' "$*" >&2; }
die() { printf 'run-carve-bench: %s\n' "$*" >&2; exit 1; }
for t in python3 mkfs.ext4 debugfs blkls cmake; do command -v "$t" >/dev/null || die "missing tool: $t"; done
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing: apt-get install time"

# ---- roo-ingest -----------------------------------------------------------------------------------------
if [[ -n ${ROO_INGEST:-} ]]; then
  BIN=$ROO_INGEST
else
  BUILD_DIR=${BUILD_DIR:-$REPO/build}
  log "building roo-ingest in $BUILD_DIR"
  cmake -S "$REPO" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release > /dev/null
  cmake --build "$BUILD_DIR" -j2 --target roo-ingest > /dev/null
  BIN=$BUILD_DIR/plugin/roo-ingest
fi
[[ -x $BIN ]] || die "no roo-ingest at $BIN"

# ---- the image (cached) ---------------------------------------------------------------------------------
# A tree of 8 MiB files: one in ROO_EVERY a Roo task file (ui_messages or api history of generated records, with a
# history item), the others filler (random bytes, log text, zeros). mkfs.ext4 -d writes them, then debugfs deletes 90 % of the
# files, so most of the image is unallocated blocks that hold Roo records (what --deep carves) and filler.
IMG=$WORKDIR/carve-bench.ext4
# Outputs beside WORKDIR, not in it: roo-ingest writes nothing into the folder that holds an image.
OUTS=$WORKDIR.outputs
mkdir -p "$OUTS"
STAMP="v2 $IMAGE_MIB $ROO_EVERY"
if [[ ! -f $IMG || $(cat "$IMG.stamp" 2> /dev/null) != "$STAMP" ]]; then
  rm -rf "$WORKDIR/tree" "$IMG" "$IMG.stamp"
  log "generating the tree ($((IMAGE_MIB * 85 / 100)) MiB)"
  python3 - "$WORKDIR/tree" "$((IMAGE_MIB * 85 / 100))" "$ROO_EVERY" <<'PY'
import json, os, random, sys
root, mib, roo_every = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(5)
tasks = os.path.join(root, "home/bench/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks")
filler = os.path.join(root, "var/cache/blobs")
os.makedirs(filler, exist_ok=True)
words = "the build failed because of a missing import in src/app.py so I fixed it and ran the tests again".split()
def ui_records(task_ts, n):
    out = [{"ts": task_ts, "type": "say", "say": "text", "text": " ".join(rng.choices(words, k=12)), "images": []}]
    for i in range(1, n):
        ts = task_ts + i * 997
        kind = rng.random()
        if kind < 0.3:
            out.append({"ts": ts, "type": "say", "say": "api_req_started", "text": json.dumps(
                {"apiProtocol": "anthropic", "tokensIn": rng.randint(1, 9999), "tokensOut": rng.randint(1, 999),
                 "cacheWrites": 0, "cacheReads": 0, "cost": round(rng.random() / 10, 4)}, separators=(",", ":"))})
        elif kind < 0.6:
            out.append({"ts": ts, "type": "ask", "ask": "command", "text": "pytest -q tests/" + rng.choice(words)})
        else:
            out.append({"ts": ts, "type": "say", "say": "text", "text": " ".join(rng.choices(words, k=rng.randint(20, 400))),
                        "partial": False})
    return out
def api_records(task_ts, n):
    out = []
    for i in range(n):
        role = "user" if i % 2 == 0 else "assistant"
        out.append({"role": role, "content": [{"type": "text", "text": " ".join(rng.choices(words, k=rng.randint(20, 300)))}],
                    "ts": task_ts + i * 1013})
    return out
MB = 1 << 20
made, i = 0, 0
while made < mib:
    i += 1
    kind = -1 if i % roo_every == 0 else i % 4
    if kind == -1:  # a Roo task file, about 8 MiB
        kind = 0 if (i // roo_every) % 2 == 0 else 3
        ts = 1779000000000 + i * 3600000
        tid = "%08x-%04x-7%03x-8%03x-%012x" % (ts >> 16, ts & 0xffff, i & 0xfff, i & 0xfff, i)
        d = os.path.join(tasks, tid)
        os.makedirs(d, exist_ok=True)
        name = "ui_messages.json" if kind == 0 else "api_conversation_history.json"
        recs, size = [], 0
        gen = ui_records if kind == 0 else api_records
        while size < 8 * MB:
            batch = gen(ts + size, 200)
            recs.extend(batch)
            size += sum(len(json.dumps(r)) for r in batch)
        with open(os.path.join(d, name), "w") as f:
            f.write(json.dumps(recs, separators=(",", ":"), ensure_ascii=False))
        with open(os.path.join(d, "history_item.json"), "w") as f:
            f.write(json.dumps({"id": tid, "number": 1, "ts": ts, "task": "bench task %d" % i, "tokensIn": 1,
                                "tokensOut": 2, "totalCost": 0.01, "size": size, "workspace": "/home/bench/p",
                                "mode": "code"}, separators=(",", ":")))
    elif kind in (0, 1):  # random bytes
        with open(os.path.join(filler, "blob%05d.bin" % i), "wb") as f:
            f.write(rng.randbytes(8 * MB))
    elif kind == 2:  # log text
        line = ("2026-05-17T06:40:00Z INFO worker %d processed batch {id=%d} in 12 ms\n")
        with open(os.path.join(filler, "log%05d.txt" % i), "w") as f:
            f.write("".join(line % (j % 7, j) for j in range(8 * MB // 60)))
    else:  # zeros (a preallocated file)
        with open(os.path.join(filler, "zero%05d.dat" % i), "wb") as f:
            f.write(bytes(8 * MB))
    made += 8
PY
  log "mkfs.ext4 ($IMAGE_MIB MiB)"
  truncate -s "${IMAGE_MIB}M" "$IMG"
  mkfs.ext4 -q -F -b 4096 -d "$WORKDIR/tree" "$IMG"
  log "deleting 90 % of the files with debugfs"
  (cd "$WORKDIR/tree" && find . -type f | LC_ALL=C sort | awk 'NR % 10 != 0 { print "rm \"/" substr($0, 3) "\"" }') \
    > "$WORKDIR/rm.cmds"
  debugfs -w -f "$WORKDIR/rm.cmds" "$IMG" > "$WORKDIR/debugfs.log" 2>&1 || die "debugfs failed (see $WORKDIR/debugfs.log)"
  rm -rf "$WORKDIR/tree"
  echo "$STAMP" > "$IMG.stamp"
fi

# ---- measurements -----------------------------------------------------------------------------------------
best() { sort -g | head -1; }
seconds_of() { local t0 t1; t0=$(date +%s%N); "$@"; t1=$(date +%s%N); echo "scale=6; ($t1 - $t0) / 1000000000" | bc; }

log "blkls (x$REPEATS)"
BLKLS_BYTES=$(blkls "$IMG" | wc -c)
BLKLS_S=$(for _ in $(seq "$REPEATS"); do seconds_of sh -c "blkls '$IMG' > /dev/null"; done | best)

carve_run() { # threads -> "seconds bytes rss_kib"
  local out=$OUTS/out-$1
  rm -rf "$out"
  /usr/bin/time -v -o "$WORKDIR/time-$1.txt" "$BIN" --quiet --deep --threads "$1" --format jsonl "$IMG" -o "$out" \
    > /dev/null 2> "$WORKDIR/roo-$1.err" || die "roo-ingest --deep --threads $1 failed (see $WORKDIR/roo-$1.err)"
  python3 - "$out/report.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["partitions"][0]["scan"]["carving"]
print(c["seconds"], c["bytes_carved"], sum(v["found"] for v in c["records"].values()), c["known_records_seconds"])
PY
  sed -n 's/^\tMaximum resident set size (kbytes): //p' "$WORKDIR/time-$1.txt"
}

declare -A CARVE_S CARVE_BYTES RSS FOUND KNOWN_S
for threads in 1 2; do
  log "roo-ingest --deep --threads $threads (x$REPEATS)"
  best_s= ; max_rss=0
  for _ in $(seq "$REPEATS"); do
    mapfile -t r < <(carve_run "$threads")
    read -r s bytes found known_s <<< "${r[0]}"
    if [[ -z $best_s ]] || (( $(echo "$s < $best_s" | bc) )); then best_s=$s; KNOWN_S[$threads]=$known_s; fi
    (( r[1] > max_rss )) && max_rss=${r[1]}
    CARVE_BYTES[$threads]=$bytes; FOUND[$threads]=$found
  done
  CARVE_S[$threads]=$best_s; RSS[$threads]=$max_rss
done

# ---- report -----------------------------------------------------------------------------------------------
ratio() { echo "scale=3; $1 / $2" | bc; }
BLKLS_TP=$(ratio "$BLKLS_BYTES" "$BLKLS_S")
printf '\ncarving benchmark  image %s (%s MiB, one file in %s a Roo task file)  load average: %s\n' "$IMG" "$IMAGE_MIB" \
  "$ROO_EVERY" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '  blkls:            %12d unallocated bytes in %8.3f s = %8.1f MiB/s\n' "$BLKLS_BYTES" "$BLKLS_S" \
  "$(echo "$BLKLS_TP / 1048576" | bc -l)"
for threads in 1 2; do
  tp=$(ratio "${CARVE_BYTES[$threads]}" "${CARVE_S[$threads]}")
  printf '  carving, %d thread(s): %12d bytes in %8.3f s (of which %.3f s listing the known records) = %8.1f MiB/s   ÷ blkls = %5.2f (target %s)   records found %s   peak RSS %d MiB (target ≤ 128)\n' \
    "$threads" "${CARVE_BYTES[$threads]}" "${CARVE_S[$threads]}" "${KNOWN_S[$threads]}" "$(echo "$tp / 1048576" | bc -l)" \
    "$(ratio "$tp" "$BLKLS_TP")" "$([[ $threads == 1 ]] && echo '≥ 0.9' || echo '≥ 1.5')" "${FOUND[$threads]}" \
    "$(( RSS[$threads] / 1024 ))"
done
