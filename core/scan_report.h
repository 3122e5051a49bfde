// What the scan of one file system reports (ScanReport), the Roo roots it reads (RooRoot) and what reading a source
// needs of its options (SourceOptions). Discovery, task and store assembly and source reading all use these, so they
// sit below all of them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/evidence.h"
#include "core/row.h"

namespace roo {

struct RooRoot {
  std::string surface;
  std::optional<std::string> user;  // the home directory's name
  FileMeta dir;
  std::string found_by = "catalog";  // or "customStoragePath in <settings file>"
  // Reached through a FAT deleted entry matched with its first byte lost: its rows say so (kNameMatchFirstByteLost).
  bool name_first_byte_lost = false;
};

// What reading one source file needs of the scan's options (core/discovery.h ScanOptions holds the rest).
struct SourceOptions {
  bool native = false;      // copy each record's verbatim text into its rows (--native)
  std::string scratch_dir;  // a private directory for copies SQLite needs (never beside the evidence); empty: none,
                            // and state.vscdb files are reported as not read
};

// What was searched and found in one file system, for the run report.
struct FileParseRecord {
  std::string path;
  std::string kind;
  std::string sha256;
  int64_t records = 0, good_records = 0, errors = 0, folded = 0;
  int64_t version_folded = 0;  // records identical to the task's own file's (this file is a version of it)
  uint64_t bytes = 0;
  // The file as opened, and the identity its rows carry when it ends: --deep's carving folds what it finds against
  // the records of the Roo files the scan read, and attributes neighbours to their task (plugin/image_carving.cpp).
  FileMeta meta;
  std::optional<TaskIdentity> identity;
};
struct RootRecord {
  std::string surface;
  std::optional<std::string> user;
  std::string path;
  int64_t tasks = 0;
  // Directories of tasks/ that hold only checkpoints/ (no task file, no index entry): the default-root half of a task
  // whose files a customStoragePath moved (docs/roo-format.md §1.2). Counted here, not in tasks.
  int64_t checkpoint_only_dirs = 0;
  int64_t deleted_names = 0;
  std::string found_by;
};
// A roo-cline.customStoragePath an editor's settings name (docs/roo-format.md §1.2), and whether this file system holds
// it. One that is not here may be on another partition of the evidence (a Windows drive letter names a volume the
// file system cannot tie to itself): the run looks for it there (scan_custom_storage_path).
struct CustomStoragePath {
  std::string surface;
  std::optional<std::string> user;
  std::string settings_file;
  std::string recorded_path;
  bool found_here = false;
  std::string found_at;  // the directory's path in the file system that holds it
};

// --deep's look through $OrphanFiles: how many orphan files libtsk listed, how many were read as Roo files.
struct OrphanScan {
  int64_t files_seen = 0;
  int64_t roo_files_parsed = 0;
};

struct ScanReport {
  std::vector<std::string> homes_searched;
  std::vector<std::string> temp_dirs_searched;  // temp locations looked through for roo --ephemeral dirs
  std::vector<CustomStoragePath> custom_storage_paths;
  int64_t root_patterns = 0;
  std::vector<RootRecord> roots;
  std::vector<FileParseRecord> files;
  std::vector<std::string> errors;
  std::optional<OrphanScan> orphans;  // set when --deep looked through $OrphanFiles
  std::string carving_json;  // --deep: plugin/image_carving.cpp's counts (CarveStats::to_json), written as scan.carving
  // Called when a source file is done (after its line is added to `files`): the run's progress display.
  std::function<void(const FileParseRecord&)> file_done;
  // Called when a root's contents are listed, with the bytes of its task files and index: the progress total.
  std::function<void(uint64_t)> bytes_planned;
};

}  // namespace roo
