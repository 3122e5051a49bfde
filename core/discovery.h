// Discovery: interprets the catalog against one file system. It walks only the directories the catalog names
// (homes → host roots → tasks/), never the whole tree.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/catalog.h"
#include "core/evidence.h"
#include "core/row.h"

namespace roo {

struct RooRoot {
  std::string surface;
  std::optional<std::string> user;  // the home directory's name
  FileMeta dir;
};

struct TaskDir {
  FileMeta dir;
  std::map<TaskFileKind, FileMeta> files;  // allocated files by kind
  std::vector<FileMeta> command_outputs;   // allocated command-output/cmd-*.txt, by name
};

struct RootContents {
  std::vector<TaskDir> tasks;  // sorted by directory name
  std::optional<FileMeta> index;
  int64_t deleted_names = 0;  // deleted names seen under tasks/ (recovered in a later stage, counted now)
};

// Every Roo root in the file system, in catalog order: homes (Users/*, home/*, root) × root patterns. The paths of
// the homes searched are appended to *homes when given.
std::vector<RooRoot> find_roots(FileSystemView& fs, std::vector<std::string>* homes = nullptr);

// The task directories and index of one root.
RootContents list_root(FileSystemView& fs, const RooRoot& root);

// What was searched and found in one file system, for the run report.
struct FileParseRecord {
  std::string path;
  std::string kind;
  std::string sha256;
  int64_t records = 0, good_records = 0, errors = 0, folded = 0;
  uint64_t bytes = 0;
};
struct RootRecord {
  std::string surface;
  std::optional<std::string> user;
  std::string path;
  int64_t tasks = 0;
  int64_t deleted_names = 0;
};
struct ScanReport {
  std::vector<std::string> homes_searched;
  int64_t root_patterns = 0;
  std::vector<RootRecord> roots;
  std::vector<FileParseRecord> files;
  std::vector<std::string> errors;
};

// Parses every task of a root and writes its rows, file by file, through the writer.
void process_root(FileSystemView& fs, const RooRoot& root, RowSink& out, ScanReport& report, bool native);

// All of it for one file system: find roots, process each.
void scan_file_system(FileSystemView& fs, RowSink& out, ScanReport& report, bool native);

}  // namespace roo
