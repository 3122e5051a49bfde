// What batch.cpp (items, markers, status) and merge.cpp share: the places in BATCHDIR and an item's status.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <filesystem>
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

struct ItemStatus {
  const ManifestItem* item = nullptr;
  std::string status;  // done (exit 0), partial (marked 5, 6, 7), failed (no marker), running, missing
  int exit_code = -1;
  int64_t rows = -1;
  std::string why;
};
ItemStatus item_status(const ManifestItem& item, const BatchOptions& o);

}  // namespace roo::batch::detail
