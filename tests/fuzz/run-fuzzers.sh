#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for SECONDS (default 20), starting from its committed corpus
# (tests/fuzz/corpus/<target>) and seeded from the fixture trees. Exits non-zero on any crash, leak or sanitizer
# report. With "merge" as third argument, the inputs a run found that add coverage are merged into the committed
# corpus (tests/fuzz/README.md); a fourth argument names the targets to run (default: all).
# Usage: tests/fuzz/run-fuzzers.sh [SECONDS] [BUILD_DIR] [merge|-] [TARGET...]
set -euo pipefail
seconds=${1:-20}
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${2:-$repo/build-fuzz}
merge=${3:-}
shift $(($# < 3 ? $# : 3))
all_targets="carve ui_messages api_history history_item task_index task_metadata tool_semantics transcript_text config_stores state_db catalog_names orphan_kind cli_debug_log filevault_keybag"
targets=${*:-$all_targets}
for target in $targets; do
  case " $all_targets " in *" $target "*) ;; *) echo "no fuzz target $target (targets: $all_targets)" >&2; exit 2 ;; esac
done
cmake -S "$repo" -B "$build" -DROO_FUZZ=ON -DROO_CORE_ONLY=ON -DROO_TESTS=OFF \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fsanitize-ignorelist=$repo/tests/fuzz/ubsan-ignore.txt" >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
# AddressSanitizer's bookkeeping per allocation, set for fuzzing speed where it costs no detection
# (tests/fuzz/README.md): no allocation and free stacks in a report (the report still names the access and the bad
# address; rerunning the crash file without these options gives the stacks), and a 64 MiB quarantine instead of 256
# MiB (no input of the committed corpus allocates 1 MiB in an execution, so what an execution frees is still
# poisoned if it uses it again). Options already in ASAN_OPTIONS come after these, so they win.
export ASAN_OPTIONS="malloc_context_size=0:quarantine_size_mb=64${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
TIMEFORMAT='%U %S'
corpus_root=$(mktemp -d)
trap 'rm -rf "$corpus_root"' EXIT
# Copies the fixture files named NAME into DIR, each behind the selector byte SELECTOR (fuzz_config_stores.cpp,
# fuzz_state_db.cpp: the first byte picks the parser or the key). Usage: seed_behind SELECTOR NAME DIR
seed_behind() {
  find "$repo/fixtures/trees" -name "$2" -print0 | while IFS= read -r -d '' file; do
    { printf "\\$(printf %o "$1")"; cat "$file"; } >"$3/$1-$(sha1sum <"$file" | cut -c1-12)"
  done
}
# config_stores seeds: each store's fixture files behind the selector of its parser (fuzz_config_stores.cpp's kStores
# order, then the host settings and workspace.json readers); a global state is also a state.vscdb value.
seed_config_stores() {
  local selector=0 name
  for name in global-state.json global-state.json workspace-state.json cli-settings.json cli-credentials.json \
    secrets.json mcp_settings.json cli-history.json extensions.json settings.json workspace.json; do
    seed_behind $selector "$name" "$1"
    selector=$((selector + 1))
  done
}
# state_db seeds: the fixtures' state.vscdb files, a bare SQLite header, and (when the sqlite3 shell is installed) a
# VS Code-like state.vscdb alone and followed by its -wal, copied while the writer is open (fuzz_state_db splits its
# input at a WAL header). Each starts with fuzz_state_db's selector byte (0: the first extension's key).
seed_state_db() (
  seed_behind 0 '*.vscdb' "$1"
  cd "$1"
  printf '\0SQLite format 3\0\020\000\001\001\000\100\040\040' >header.seed
  command -v sqlite3 >/dev/null || exit 0
  sqlite3 w.vscdb >/dev/null <<'SQL'
PRAGMA page_size=512; PRAGMA journal_mode=WAL;
CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
INSERT INTO ItemTable VALUES ('RooVeterinaryInc.roo-cline', '{"mode":"code"}'), ('workbench.x', '1'),
  ('secret://{"extensionId":"rooveterinaryinc.roo-cline","key":"openRouterApiKey"}', x'763130');
PRAGMA wal_checkpoint(TRUNCATE); PRAGMA wal_autocheckpoint=0;
.shell printf '\0' | cat - w.vscdb >plain.seed
UPDATE ItemTable SET value = '{"mode":"architect"}' WHERE key = 'RooVeterinaryInc.roo-cline';
.shell printf '\0' | cat - w.vscdb w.vscdb-wal >wal.seed
SQL
  rm -f w.vscdb w.vscdb-wal w.vscdb-shm
)
for target in $targets; do
  case $target in
    ui_messages) name=ui_messages.json ;;
    cli_debug_log) name=cli-debug.log ;;
    carve) name='*.json' ;;  # every kind of record the carver looks for, as carved bytes
    api_history) name=api_conversation_history.json ;;
    history_item) name=history_item.json ;;
    task_index) name=_index.json ;;
    task_metadata) name=task_metadata.json ;;
    config_stores) name= ;;  # seed_config_stores
    state_db) name= ;;  # seed_state_db
    catalog_names) name='*.tmp' ;;  # safeWriteJson temp files of the recovery trees (their names are seeded below)
    orphan_kind) name='*.json' ;;  # what an orphan's opening bytes can be (its names are in the committed corpus)
    # The text helpers are seeded with whole transcripts: their texts are what the helpers are given.
    tool_semantics | transcript_text) name=api_conversation_history.json ;;
    # Keybags are in no fixture tree: the committed corpus holds the fixture image's (extract-filevault-keybags.py).
    filevault_keybag) name= ;;
  esac
  corpus="$corpus_root/$target"  # the fixture seeds
  found="$corpus_root/$target.found"  # what the run finds
  mkdir -p "$corpus" "$found"
  case $target in
    config_stores) seed_config_stores "$corpus" ;;
    state_db) seed_state_db "$corpus" ;;
    filevault_keybag) ;;
    *) find "$repo/fixtures/trees" -name "$name" -exec cp -t "$corpus" --backup=numbered {} + ;;
  esac
  if [ "$target" = catalog_names ]; then
    n=0
    find "$repo/fixtures/trees" -name '*.tmp' -printf '%f\n' | while read -r tmp_name; do
      printf '%s' "$tmp_name" >"$corpus/name-$((n += 1))"
    done
  fi
  # Execution time grows with the input (tests/fuzz/README.md: 53 ms for a 40 KB transcript through fuzz_carve), so
  # inputs stay small; the harness reads in 256-byte pieces, so records still straddle reads. A SQLite file is pages
  # of 512 bytes or more: state_db gets room for a few.
  max_len=2048
  if [ "$target" = state_db ]; then max_len=16384; fi
  if [ "$target" = filevault_keybag ]; then max_len=4096; fi  # one keybag block (the fixture's blocks are 4 KiB)
  # New inputs go to the first directory (found), never into the seeds or the committed corpus. Entropic scheduling's bookkeeping per
  # feature was half of fuzz_carve's time; off, it ran twice the inputs in the same time (tests/fuzz/README.md).
  # The run's user + system CPU seconds go to $target.cpu (bash's time keyword, TIMEFORMAT below).
  if ! { time "$build/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -max_len=$max_len -rss_limit_mb=1024 \
    -entropic=0 -print_final_stats=1 "$found" "$corpus" "$repo/tests/fuzz/corpus/$target" 2>"$corpus_root/$target.log"; } \
    2>"$corpus_root/$target.cpu"; then
    tail -50 "$corpus_root/$target.log"
    exit 1
  fi
  # One line per target: libFuzzer's executions per second of wall time (what a shared machine's load divides), the
  # same executions over the run's CPU time (what the target itself costs), and the coverage (edges, features) at the
  # end of the run, then the machine's load average (the wall figure is a share of the CPUs the load leaves).
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$corpus_root/$target.log")
  echo "fuzz_$target: $(sed -n 's/^stat::average_exec_per_sec: *//p' "$corpus_root/$target.log") execs/s" \
    "($(awk -v runs="$runs" '{ printf "%.0f", runs / ($1 + $2 + 0.001) }' "$corpus_root/$target.cpu") per CPU second)," \
    "$(grep -o 'cov: [0-9]* ft: [0-9]*' "$corpus_root/$target.log" | tail -1) (${seconds}s, load $(cut -d' ' -f1 /proc/loadavg))"
  # merge: the committed corpus becomes the set libFuzzer picks from the committed inputs and what this run found,
  # beyond the features of the seeds (each run gets them anyway, so they are not committed again): -set_cover_merge=1,
  # which is -merge=1 with a greedy set cover and keeps every feature in fewer inputs (the carve corpus: 440 inputs
  # and 468 KB, against 802 and 682 KB with -merge=1), into a directory holding the seeds alone, whose features then
  # count as had. Kept inputs are cut to max_len and named by their SHA-1.
  if [ "$merge" = merge ]; then
    merged="$corpus_root/$target.merged"
    cp -r "$corpus" "$merged"
    "$build/tests/fuzz/fuzz_$target" -set_cover_merge=1 -max_len=$max_len -rss_limit_mb=1024 "$merged" \
      "$repo/tests/fuzz/corpus/$target" "$found" 2>"$corpus_root/$target.merge.log" ||
      { tail -50 "$corpus_root/$target.merge.log"; exit 1; }
    (cd "$corpus" && find . -type f -exec rm -f "$merged/{}" \;)
    find "$repo/tests/fuzz/corpus/$target" -type f -delete
    find "$merged" -type f -exec cp -p -t "$repo/tests/fuzz/corpus/$target" {} +
    echo "  corpus/$target: $(find "$repo/tests/fuzz/corpus/$target" -type f | wc -l) inputs," \
      "$(du -sb "$repo/tests/fuzz/corpus/$target" | cut -f1) bytes"
  fi
done
echo "fuzzers: no crash"
