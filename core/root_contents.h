// What discovery lists in one Roo root (core/discovery.h list_root) and task assembly reads (core/task_assembly.h):
// its task directories, each with its own files, their other copies, command outputs and notes, and its index.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/catalog.h"
#include "core/evidence.h"

namespace roo {

// A copy of a task file other than the one read as the task's own: a deleted copy, or a safeWriteJson temp file
// (allocated or deleted). Versions are evidence: each is parsed as its kind, its rows kept.
struct FileVersion {
  TaskFileKind kind;
  FileMeta file;
  std::optional<TempFileName> temp;  // set for a .new_/.bak_ temp file
};

// A name that gets a row of its own but has nothing to parse: a deleted entry whose content cannot be trusted or
// is not a task file, or a lock directory left behind.
struct EntryNote {
  FileMeta file;
  const char* kind;     // "deleted_entry", "lock_dir" or "temp_file" (an index temp file, listed, not read)
  std::string outcome;  // what was (not) done with it, and why
  std::optional<TempFileName> temp = std::nullopt;
};

struct TaskDir {
  FileMeta dir;                            // allocated, or a deleted directory whose names libtsk still lists
  std::map<TaskFileKind, FileMeta> files;  // the task's own files by kind: the allocated one, else a deleted copy
  std::vector<FileVersion> versions;       // every other copy of a task file, by name
  std::vector<FileMeta> command_outputs;   // command-output/cmd-*.txt, allocated and deleted, by name
  std::vector<EntryNote> notes;
  std::optional<FileMeta> checkpoints;     // checkpoints/: the task's shadow git repository (docs/roo-format.md §9.1)
};

// A copy of tasks/_index.json other than the one read as the root's index: a deleted one, or a safeWriteJson temp
// file of it. Parsed as an index; entries identical to the index's are folded into it.
struct IndexVersion {
  FileMeta file;
  std::optional<TempFileName> temp;
};

struct RootContents {
  std::vector<TaskDir> tasks;  // sorted by directory name (a deleted directory after a live one of the same name)
  std::optional<FileMeta> index;  // the allocated _index.json, else a deleted one (a deleted root's only index)
  std::vector<IndexVersion> index_versions;  // every other copy of it, by name
  std::vector<EntryNote> notes;  // in tasks/ itself (a deleted _index.json, an _index.json.lock, index temp files)
  int64_t deleted_names = 0;     // deleted names seen under tasks/
  bool tasks_name_first_byte_lost = false;  // tasks/ is FAT's deleted "_asks": its rows say name_match
};

}  // namespace roo
