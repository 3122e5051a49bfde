// Roo's files outside the task directories (catalog StoreKind): settings, permissions, credentials, the cloud
// retry queue, CLI history. Discovery finds them (core/catalog.cpp store_patterns); this reads each one.
#pragma once

#include <map>
#include <set>
#include <string>

#include "core/catalog.h"
#include "core/discovery.h"
#include "core/parsers/parsers.h"

namespace roo {

// What the tasks of one home leave for that home's stores to be compared with.
struct HomeTasks {
  std::map<std::string, std::set<std::string>> task_ids_by_root;  // root path → ids of its task dirs and index
  ConversationTexts user_words;  // every user_message row's text, for the CLI history (seed 000 Secondary sources)
};

// Passes rows on and remembers the text of every user_message row.
class UserWordsCollector : public RowSink {
 public:
  UserWordsCollector(RowSink& out, ConversationTexts& words) : out_(out), words_(words) {}
  void emit(const Row& row) override {
    note(row);
    out_.emit(row);
  }
  void take(Row&& row) override {
    note(row);
    out_.emit(std::move(row));
  }
  void end_source(const std::string& sha) override { out_.end_source(sha); }

 private:
  void note(const Row& row) {
    if (row.kind == "user_message" && row.text) words_.add(*row.text);
  }
  RowSink& out_;
  ConversationTexts& words_;
};

// roo-cline.customStoragePath of an editor's settings.json bytes (JSONC), when set and not empty (roo-format.md §1.2).
std::optional<std::string> custom_storage_path(const std::string& settings_json);

// Where a recorded path (POSIX, or Windows with or without a drive letter) is in this file system: the directory
// reached from its root by the path's segments, matched case-insensitively. A drive letter cannot be tied to a
// volume from the file system alone, so it is dropped and the path is looked up here; how it was resolved is said
// in the report.
std::optional<FileMeta> find_directory(FileSystemView& fs, std::string_view recorded_path);

// The roots an editor's roo-cline.customStoragePath moves tasks to (roo-format.md §1.2), for every host of one
// home, when the path is found on this file system (find_directory). Checkpoints stay in the default root.
std::vector<RooRoot> custom_storage_roots(FileSystemView& fs, const FileMeta& home);

// Reads one store file (found in dir) and writes its rows. user: the home's name.
void process_store(FileSystemView& fs, const StorePattern& pattern, const FileMeta& dir, const FileMeta& file,
                   const std::optional<std::string>& user, RowSink& out, ScanReport& report, const ScanOptions& opts,
                   const HomeTasks& home);

}  // namespace roo
