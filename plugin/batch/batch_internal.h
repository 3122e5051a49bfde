// What batch.cpp (items, markers, status) and merge.cpp share: the places in BATCHDIR and an item's status.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "plugin/batch/batch.h"

namespace roo::batch::detail {

std::filesystem::path items_dir(const BatchOptions& o);
std::filesystem::path item_out(const BatchOptions& o, const ManifestItem& i);
std::filesystem::path marker_path(const BatchOptions& o, const ManifestItem& i);

std::string exit_meaning(int code);
std::optional<std::string> read_file(const std::filesystem::path& p);
std::optional<rapidjson::Document> read_json(const std::filesystem::path& p);
bool write_atomically(const std::filesystem::path& p, const std::string& bytes);
int64_t int_member(const rapidjson::Value& v, const char* key, int64_t fallback = -1);

// A Slurm array task of the batch that squeue lists, for the item its task id names.
struct QueuedTask {
  std::string job_id;  // "1234_7"
  std::string state;   // squeue's: PENDING, RUNNING, COMPLETING ...
  std::string reason;  // squeue's %r: JobHeldUser, JobArrayTaskLimit, None ...
};

struct ItemStatus {
  const ManifestItem* item = nullptr;
  // done (exit 0), partial (marked 5, 6, 7), failed (no marker), queued (a Slurm task waits for it), running (a
  // process holds its lock, or its Slurm task runs), missing
  std::string status;
  int exit_code = -1;
  int64_t rows = -1;
  std::string why;
  std::optional<QueuedTask> slurm;  // the Slurm task listed for it, when there is one
};
// `queued`: the batch's array tasks squeue lists, by manifest index; nullptr when Slurm was not asked.
ItemStatus item_status(const ManifestItem& item, const BatchOptions& o,
                       const std::map<int, QueuedTask>* queued = nullptr);

}  // namespace roo::batch::detail
