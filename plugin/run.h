// One run of roo-ingest: evidence in, OUTDIR out. Kept apart from main.cpp so tests can drive it.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "core/exit_codes.h"

namespace roo {

struct RunOptions {
  std::vector<std::string> image_paths;  // IMAGE [MORE_SEGMENTS…]
  std::string folder;                    // --dir
  std::string out_dir;
  bool force = false;   // write into a non-empty OUTDIR
  bool native = false;  // copy verbatim records into rows
  bool quiet = false;
  bool isolate = true;  // one child process per file system (off only for debugging)
  // --format: names from output_formats() (plugin/formats/derive.h); empty = all. rows.jsonl and report.json are
  // written whatever it says: rows.jsonl is the reference every other format is derived from.
  std::set<std::string> formats;
  std::string display_tz = "UTC";  // --tz: the zone l2t.csv and rows.csv show times in
  // --deep: also read $OrphanFiles and carve unallocated space, file slack and unpartitioned space.
  bool deep = false;
  // --verify: hash the whole image and compare with the hashes the container stores (E01), in report.json.
  bool verify = false;
  // --threads: worker threads for parsing and carving; 0 = one per CPU core.
  unsigned threads = 0;
  // --stall-timeout: a file system's worker whose progress (bytes read, rows written) has not moved for this long
  // is ended and its file system reported as hung; 0 = wait for ever.
  int stall_timeout_seconds = 180;
  // --password-file / --password-stdin: passwords tried in turn on each encrypted APFS volume (FileVault). Read
  // before the run, never from the command line, and written nowhere; workers get them as the copy of this
  // process's memory fork() gives them.
  std::vector<std::string> passwords;
  std::vector<std::string> command_line;
};

int run(const RunOptions& opts);

// The passwords of a --password-file or of --password-stdin's input: one a line, each line as it is (spaces kept)
// but for its line end (LF or CR LF); empty lines are left out. In the order given.
std::vector<std::string> password_lines(const std::string& text);

}  // namespace roo
