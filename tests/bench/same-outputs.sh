#!/usr/bin/env bash
# Runs two roo-ingest binaries over every fixture image (plain, --deep, --native, --tz) and every fixture tree
# (--dir), each case in a folder of its own with the same argv[0] and relative -o, and compares every output byte for byte.
# A refactoring that claims "behaviour unchanged" is checked with it: the binary before and the binary after.
# Timings aside (see below), every byte must agree. Prints one line per case and a last line "same: N of N"; exits 1 when any output differs.
# Usage: tests/bench/same-outputs.sh BIN_BEFORE BIN_AFTER [WORKDIR]
set -euo pipefail
before=$(realpath "$1")
after=$(realpath "$2")
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=${3:-$(mktemp -d)}
mkdir -p "$work/evidence"
# The images are copied into one evidence folder (outputs may not be written inside it).
cp "$repo"/fixtures/images/*.E0? "$repo"/fixtures/images/*.raw.00? "$work/evidence/"

cases=()
for image in "$work"/evidence/*.E01 "$work"/evidence/*.raw.001; do
  name=$(basename "$image")
  cases+=("$name|$image" "$name-deep|$image --deep" "$name-native|$image --native")
done
cases+=("demo-berlin|$work/evidence/demo.E01 --tz Europe/Berlin")
for tree in "$repo"/fixtures/trees/*/; do
  cases+=("dir-$(basename "$tree")|--dir $tree")
done

differ=0
total=0
for entry in "${cases[@]}"; do
  label=${entry%%|*}
  args=${entry#*|}
  total=$((total + 1))
  for side in before after; do
    bin=$before
    [ "$side" = after ] && bin=$after
    dir="$work/$side/$label"
    rm -rf "$dir"
    mkdir -p "$dir"
    # The same argv[0] and -o on both sides: report.json records the command line.
    ln -s "$bin" "$dir/roo-ingest"
    # shellcheck disable=SC2086 # args is a list of words
    (cd "$dir" && ./roo-ingest $args -o out -q >stdout 2>stderr; echo $? >rc) || true
  done
  # Timings are the one thing allowed to differ: report.json's "…seconds" fields, also inside report.html and
  # roo.sqlite (compared as its .dump), become T.
  for side in before after; do
    out="$work/$side/$label/out"
    [ -f "$out/roo.sqlite" ] && sqlite3 "$out/roo.sqlite" .dump >"$out/roo.sqlite.dump" && rm "$out/roo.sqlite"
    for f in "$out"/report.json "$out"/report.html "$out"/roo.sqlite.dump; do
      [ -f "$f" ] && sed -i -E 's/"([a-z_]*seconds)": ?[-0-9.e+]+/"\1":T/g' "$f"
    done
  done
  if diff -r -q -x roo-ingest "$work/before/$label" "$work/after/$label" >"$work/$label.diff" 2>&1; then
    echo "same     $label (exit $(cat "$work/after/$label/rc"))"
  else
    differ=$((differ + 1))
    echo "DIFFERS  $label: $(tr '\n' ';' <"$work/$label.diff")"
  fi
done
echo "same: $((total - differ)) of $total (outputs in $work)"
[ "$differ" -eq 0 ]
