// Batch runs: many drives from a manifest into one BATCHDIR, item by item, resumable, merged into one case
// (README.md "Many drives").
//
// The contract every engine keeps (the local pool here, the Slurm engine in plugin/batch/slurm_engine.*):
//   - An item is one data line of the manifest, numbered from 1 (comments and the header do not count): the number
//     a Slurm array task finds in SLURM_ARRAY_TASK_ID. Exactly one process runs an item:
//         roo-ingest --manifest M -o B --run-item N [the batch's scan options, item_scan_args()]
//     It writes only under B (layout below), holds B/markers/.<id>.lock while it runs, and ends with the item's exit
//     code (core/exit_codes.h). The local engine spawns that very command line, N at a time.
//   - An item is done when its marker B/markers/<id>.done.json is valid (marker_valid()): written last, atomically,
//     for the exit codes 0, 5, 6 and 7, and still matching the evidence's sizes and mtimes, the tool version and the
//     output-changing options. pending_items() lists the items without one: what an engine submits (Slurm:
//     --array=<format_index_list(pending)>%<parallel>). A rerun thus redoes only those.
//   - After every item has ended, one process merges:
//         roo-ingest --manifest M -o B --merge [the same scan options]
//     (Slurm: a job with --dependency=afterany:<array job>, so failed tasks do not keep it from starting). The merge
//     reads only markers and item folders, so it gives the same case whichever engine ran the items.
//
// Layout of B:
//   items/<id>/               the item's usual outputs (rows.jsonl, report.json, report.html …), once it ended
//   items/.<id>.part/         the run in progress (removed or renamed into items/<id>/ when it ends)
//   items/<id>.log            what the item's run wrote on stderr
//   markers/<id>.done.json    the done marker (marker_json in batch.cpp says what it holds)
//   markers/<id>.failed.json  the last run that ended without a marker: exit code and why (retried next time)
//   .merge/<id>-<marker sha256 prefix>.sqlite   the item's merged part, rebuilt only when its marker changes
//   case.sqlite, case.rows.jsonl, case.html     the merged case
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace roo::batch {

// One manifest data line.
struct ManifestItem {
  int index = 0;             // data line number, from 1 (SLURM_ARRAY_TASK_ID)
  int file_line = 0;         // line number in the file, for error messages
  std::string id;            // the lab's evidence id: a folder name under items/
  bool folder = false;       // --dir evidence (path written with a trailing '/', or an existing directory)
  std::vector<std::string> paths;  // resolved against the manifest's folder when relative; image + extra segments
};

struct Manifest {
  std::string path;
  std::vector<ManifestItem> items;
  const ManifestItem* item(int index) const;
};

// What a batch run is given on the command line.
struct BatchOptions {
  std::string manifest;
  std::string batch_dir;
  std::string engine = "auto";  // local, slurm, auto (slurm when sbatch answers, else local)
  int parallel = 2;             // items at once (local workers; Slurm's array throttle %N)
  std::string progress = "auto";
  bool quiet = false;
  bool json = false;  // --status: JSON instead of a table
  // The scan options handed to every item. deep, native, verify, tz and formats change an item's output and are
  // part of its marker; threads and stall_timeout do not.
  bool deep = false;
  bool native = false;
  bool verify = false;
  std::string tz = "UTC";
  std::string formats = "all";
  unsigned threads = 0;
  int stall_timeout_seconds = 180;
  std::string self_exe;  // this binary, for the local engine's workers (/proc/self/exe)
};

// Reads and checks a manifest; nothing with *error set (naming the line) when it cannot be used: no header, a bad or
// repeated evidence id, the same image (or segment) on two lines.
std::optional<Manifest> load_manifest(const std::string& path, std::string* error);

// Why the batch may not run into batch_dir (it is, or lies inside, the directory of some evidence), or nothing.
std::optional<std::string> batch_dir_refused(const Manifest& m, const std::string& batch_dir);

// The options that change an item's output, as the marker records them ({"deep":false,…}).
std::string output_options_json(const BatchOptions& o);
// The scan options as command-line arguments, for the --run-item and --merge command lines an engine builds.
std::vector<std::string> item_scan_args(const BatchOptions& o);

// Whether items/<id>'s marker is there and valid for the evidence as it is now and these options; *why says what
// made it invalid (a changed size, another version …) when it is there but stale.
bool marker_valid(const ManifestItem& item, const BatchOptions& o, std::string* why = nullptr);
// Item indexes (1-based, ascending) with no valid marker and not running now.
std::vector<int> pending_items(const Manifest& m, const BatchOptions& o);
// 1,3,7,8,9 → "1,3,7-9" (sbatch --array's list form).
std::string format_index_list(const std::vector<int>& indexes);

// --run-item N: runs one item into its folder and writes its marker; returns the item's exit code.
int run_item(const Manifest& m, const BatchOptions& o, int index);
// The local engine: every pending item, `parallel` at a time, then the merge.
int run_local(const Manifest& m, const BatchOptions& o);
// --status: done, partial, failed (with why), running and missing items, on stdout.
int print_status(const Manifest& m, const BatchOptions& o);
// --merge: case.sqlite, case.rows.jsonl and case.html from the items with a valid marker.
int merge(const Manifest& m, const BatchOptions& o);

}  // namespace roo::batch
