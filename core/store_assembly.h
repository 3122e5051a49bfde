// Roo's files outside the task directories (catalog StoreKind): settings, permissions, credentials, the cloud
// retry queue, CLI history. Discovery finds them (core/catalog.cpp store_patterns); this reads each one.
#pragma once

#include <map>
#include <set>
#include <string>

#include "core/catalog.h"
#include "core/fs_lookup.h"
#include "core/parsers/parsers.h"
#include "core/scan_report.h"
#include "core/task_assembly.h"

namespace roo {

// What the tasks of one home leave for that home's stores to be compared with.
struct HomeTasks {
  std::map<std::string, std::set<std::string>> task_ids_by_root;  // root path → ids of its task dirs and index
  ConversationTexts user_words;  // every user_message row's text: the CLI history lines a task also holds fold into it
  // Every task's workspace and the surface of its first task: names the CLI's workspace-storage/<hash>, and leads
  // to the project's own .roo/mcp.json.
  std::map<std::string, std::string> project_paths;
  // The place in the plan (TaskRunner::position) of the task that put each workspace in project_paths: with
  // --threads, what the task items told is merged and the surface of the task that came first is kept, as one
  // thread would.
  std::map<std::string, int64_t> project_units;
};

// Passes rows on and remembers the text of every user_message row and every task's workspace.
class UserWordsCollector : public RowFilter {
 public:
  // unit, when given, is the current place in the plan (TaskRunner::position) read as each task row passes.
  UserWordsCollector(RowSink& out, HomeTasks& home, const int64_t* unit = nullptr)
      : RowFilter(out), home_(home), unit_(unit) {}

 private:
  void adapt(Row& row) override {
    if (row.kind == "user_message" && row.text) home_.user_words.add(*row.text);
    if (row.kind == "task" && row.identity && row.identity->project_path &&
        home_.project_paths.emplace(*row.identity->project_path, row.identity->surface).second)
      home_.project_units[*row.identity->project_path] = unit_ ? *unit_ : 0;
  }
  HomeTasks& home_;
  const int64_t* unit_;
};

// The CLI's workspace-storage folder name for a workspace path (docs/roo-format.md §1.3, packages/vscode-shim
// hashWorkspacePath): Java's String.hashCode over UTF-16 code units, as a signed 32-bit value, then Math.abs in hex.
std::string cli_workspace_hash(std::string_view utf8_path);

// The folder a VS Code workspaceStorage/<id>/workspace.json names ({"folder": "file:///c%3A/x"} or
// {"workspace": "<uri of a .code-workspace>"}), URI-decoded; nothing when it names none.
std::optional<std::string> workspace_json_folder(const std::string& workspace_json);

// <setting_prefix>.customStoragePath of an editor's settings.json bytes (JSONC), when set and not empty
// (docs/roo-format.md §1.2); the nightly's is roo-code-nightly.customStoragePath (RooExtension::setting_prefix).
std::optional<std::string> custom_storage_path(const std::string& settings_json,
                                               std::string_view setting_prefix = "roo-cline");

// The host_setting row's resolution when the settings' own file system does not hold the path: true of this file
// system only; the run then looks for it on every other one (report.json custom_storage_path_resolution).
inline constexpr std::string_view kNotOnThisFileSystem =
    "not on this file system; looked for on the evidence's other file systems (report.json "
    "custom_storage_path_resolution)";

// The setting that named a custom storage path of this surface (CustomStoragePath::surface): the nightly's
// roo-code-nightly.customStoragePath for its surface, else roo-cline.customStoragePath.
std::string custom_storage_setting_key(std::string_view surface);

// The roots an editor's roo-cline.customStoragePath or roo-code-nightly.customStoragePath (or the CLI global state's
// roo-cline.customStoragePath) moves tasks to
// (docs/roo-format.md §1.2, §1.3), for every host of one home, when the path is found on this file system (find_directory). Checkpoints stay in the default root.
// Every custom path met is recorded in report.custom_storage_paths, found here or not.
std::vector<RooRoot> custom_storage_roots(FileSystemView& fs, const FileMeta& home, ScanReport& report);

// The taskHistory entries of every global state of one home (GlobalHistory), read without rows.
void read_home_global_history(FileSystemView& fs, const FileMeta& home, const SourceOptions& opts,
                              GlobalHistory& out);

// Reads one store file (found in dir) and writes its rows. user: the home's name.
void process_store(FileSystemView& fs, const StorePattern& pattern, const FileMeta& dir, const FileMeta& file,
                   const std::optional<std::string>& user, RowSink& out, ScanReport& report, const SourceOptions& opts,
                   const HomeTasks& home, const std::optional<std::string>& project_path = std::nullopt);

}  // namespace roo
