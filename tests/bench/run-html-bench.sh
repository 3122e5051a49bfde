#!/usr/bin/env bash
# report.html benchmark: how fast headless Chromium shows a 1,000-task case, before and after the report was split
# into an index page and parts (report/*.js), measured side by side in one run. It prints, for the bench tree's
# --dir run, the sizes of what the browser must read and Chromium's own times (html_paint.py: first paint, first
# contentful paint, and when the view is usable) for the overview, a median task and the largest task, with the
# ratio after ÷ before. It never fails on timing (non-zero only when a step breaks).
#
#   tests/bench/run-html-bench.sh [--small] [WORKDIR]
#
#   --small   smoke scale (100 tasks)
#   WORKDIR   the bench tree's folder, shared with run-bench.sh (default ${TMPDIR:-/tmp}/roo-bench[-small]); the
#             tree is made there by `run-bench.sh --image-only`, or reused
#
# Environment:
#   ROO_INGEST=PATH          the "after" binary (default: cmake build of this checkout in $BUILD_DIR, default build)
#   ROO_INGEST_BEFORE=PATH   the "before" binary; default: built from BEFORE_REF in WORKDIR.html/before-build
#   BEFORE_REF=REF           the commit whose single-file writer is "before" (default 2e1c56b, the last commit
#                            with one self-contained report.html)
#   BENCH_REPEATS=N          Chromium runs per view (default 3, round-robin; the best of each figure is reported)
#
# Needs: python3, chromium (Debian package), cmake, and what run-bench.sh --image-only needs.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
SMALL=0
WORKDIR=
for a in "$@"; do
  case $a in
    --small) SMALL=1 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    -*) echo "run-html-bench: unknown option $a" >&2; exit 2 ;;
    *) WORKDIR=$a ;;
  esac
done
WORKDIR=${WORKDIR:-${TMPDIR:-/tmp}/roo-bench$([[ $SMALL == 1 ]] && echo -small || true)}
REPEATS=${BENCH_REPEATS:-3}
BEFORE_REF=${BEFORE_REF:-2e1c56ba0676ce726f4b7d4d5688ed21b5f1619f}
export LC_ALL=C.UTF-8
log() { printf '== %s\n' "$*" >&2; }
die() { printf 'run-html-bench: %s\n' "$*" >&2; exit 1; }
command -v chromium >/dev/null || die "missing chromium (apt-get install chromium)"

# ---- the tree --------------------------------------------------------------------------------------------
"$HERE/run-bench.sh" --image-only $([[ $SMALL == 1 ]] && echo --small) "$WORKDIR" >/dev/null
WORKDIR=$(cd "$WORKDIR" && pwd)
TREE=$WORKDIR/tree
# Outputs beside WORKDIR, as run-bench.sh keeps them.
OUTS=$WORKDIR.html
mkdir -p "$OUTS"

# ---- the two binaries --------------------------------------------------------------------------------------
cmake_build() {  # SOURCE BUILD_DIR: a Release roo-ingest
  (cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release > "$2.log" 2>&1 &&
    cmake --build "$2" -j"$(nproc)" --target roo-ingest >> "$2.log" 2>&1) || { tail -30 "$2.log" >&2; die "build of $1 failed"; }
}
if [[ -n ${ROO_INGEST:-} ]]; then
  AFTER=$ROO_INGEST
else
  BUILD_DIR=${BUILD_DIR:-$REPO/build}
  log "after: cmake build in $BUILD_DIR"
  mkdir -p "$BUILD_DIR"
  cmake_build "$REPO" "$BUILD_DIR"
  AFTER=$BUILD_DIR/plugin/roo-ingest
fi
if [[ -n ${ROO_INGEST_BEFORE:-} ]]; then
  BEFORE=$ROO_INGEST_BEFORE
else
  src=$OUTS/before-src
  if [[ ! -f $src/.ref || $(cat "$src/.ref") != "$BEFORE_REF" ]]; then
    log "before: sources of $BEFORE_REF (git archive)"
    rm -rf "$src" && mkdir -p "$src"
    git -C "$REPO" archive "$BEFORE_REF" | tar -x -C "$src"
    echo "$BEFORE_REF" > "$src/.ref"
  fi
  log "before: cmake build in $OUTS/before-build"
  mkdir -p "$OUTS/before-build"
  cmake_build "$src" "$OUTS/before-build"
  BEFORE=$OUTS/before-build/plugin/roo-ingest
fi
[[ -x $BEFORE && -x $AFTER ]] || die "no roo-ingest binary"

# ---- the two reports ---------------------------------------------------------------------------------------
for side in before after; do
  bin=$BEFORE; [[ $side == after ]] && bin=$AFTER
  log "$side: roo-ingest --dir TREE --format html"
  rm -rf "$OUTS/$side"
  /usr/bin/time -f "%e %M" -o "$OUTS/$side.time" "$bin" --dir "$TREE" -o "$OUTS/$side" -q --format html || [[ $? == 5 ]]
done

# ---- Chromium, round-robin -----------------------------------------------------------------------------------
log "chromium: $REPEATS round(s) of 3 views x 2 reports (load average $(cut -d' ' -f1-3 /proc/loadavg))"
python3 - "$OUTS" "$REPEATS" "$HERE/html_paint.py" <<'PY'
import json, os, pathlib, statistics, subprocess, sys
outs, repeats, paint = pathlib.Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]

page = (outs / "after" / "report.html").read_text(encoding="utf-8")
at = page.index('id="roo-index">') + len('id="roo-index">')
groups = sorted(json.loads(page[at:page.index("</script>", at)])["groups"], key=lambda g: g["rows"])
median, largest = groups[len(groups) // 2], groups[-1]
views = [("overview", ""), (f"median task ({median['rows']} rows)", "#task=" + median["id"]),
         (f"largest task ({largest['rows']} rows)", "#task=" + largest["id"])]

best = {}
for _ in range(repeats):
    urls = [(outs / side / "report.html").resolve().as_uri() + frag for _, frag in views for side in ("before", "after")]
    proc = subprocess.run([sys.executable, paint, "--repeats", "1", *urls], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit("html_paint.py failed: " + proc.stderr[-2000:])
    for line in proc.stdout.splitlines():
        got = json.loads(line)
        b = best.setdefault(got["url"], {})
        for k in ("first_paint_ms", "first_contentful_paint_ms", "usable_ms"):
            if got[k] is not None:
                b[k] = min(b.get(k, float("inf")), got[k])

def size(p):
    return sum(f.stat().st_size for f in p.rglob("*") if f.is_file()) if p.is_dir() else p.stat().st_size
MB = 1e6
parts = outs / "after" / "report"
print()
print("report.html of the bench tree (--dir, --format html)")
print("  before: report.html %9.1f MB (one file)" % (size(outs / "before" / "report.html") / MB))
print("  after:  report.html %9.1f MB; report/ %.1f MB in %d parts; median task's part %.3f MB, largest task's %.1f MB"
      % (size(outs / "after" / "report.html") / MB, size(parts) / MB, len(list(parts.iterdir())),
         size(parts / (median["part"] + ".js")) / MB, size(parts / (largest["part"] + ".js")) / MB))
for side in ("before", "after"):
    wall, rss = (outs / (side + ".time")).read_text().split()
    print("  roo-ingest %-6s %6.1f s, max RSS %6.1f MiB (whole --dir run)" % (side, float(wall), int(rss) / 1024))
print()
print("headless Chromium, best of %d, ms since navigation (first paint = first-contentful-paint; usable = the" % repeats)
print("overview's task list or the task's rows in the DOM)")
print("  %-28s %12s %12s %8s   %12s %12s %8s" % ("view", "paint before", "paint after", "ratio", "usable before", "usable after", "ratio"))
for name, frag in views:
    b = best[(outs / "before" / "report.html").resolve().as_uri() + frag]
    a = best[(outs / "after" / "report.html").resolve().as_uri() + frag]
    fb, fa = b["first_contentful_paint_ms"], a["first_contentful_paint_ms"]
    ub, ua = b["usable_ms"], a["usable_ms"]
    print("  %-28s %12.0f %12.0f %8.3f   %12.0f %12.0f %8.3f" % (name, fb, fa, fa / fb, ub, ua, ua / ub))
print("  (ratio = after / before, both measured in this run; load average %s)" % open("/proc/loadavg").read().split()[0])
PY
