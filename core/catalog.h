// The declarative catalog: where Roo Code keeps its files. Adding a host or a home layout is one table row here (a
// file kind is one row of core/file_kinds.h); discovery (core/discovery.cpp) only interprets these tables.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/file_kinds.h"

namespace roo {

// Where user home directories sit, relative to a file system's root. "*" matches every child directory.
struct HomePattern {
  std::vector<std::string> segments;  // e.g. {"Users","*"}; {"root"} is itself a home
  const char* os;                     // "windows-or-macos", "linux"
};

// A Roo storage root, relative to a home directory.
struct RootPattern {
  std::string surface;                // row contract surface value
  std::vector<std::string> segments;  // path below the home
};

const std::vector<HomePattern>& home_patterns();
const std::vector<RootPattern>& root_patterns();

// The Roo Code extensions of the VS Code family (docs/roo-format.md §1.1): the release and the nightly build, which has
// its own id (its state.vscdb ItemTable key and secret:// extensionId), globalStorage folder and settings prefix.
struct RooExtension {
  const char* id;                // "RooVeterinaryInc.roo-cline" (src/package.json publisher.name)
  const char* folder;            // its globalStorage folder: the id lower-cased
  const char* setting_prefix;    // Package.name: its settings are <prefix>.<name>, e.g. roo-cline.customStoragePath
  const char* surface_override;  // the nightly build is its own surface; nullptr: the host's
};
const std::vector<RooExtension>& roo_extensions();

// Roo's files outside the task directories (docs/roo-format.md §1, §6–§8; docs/row-contract.md), by what reads them.
enum class StoreKind {
  global_state_db,     // VS Code User/globalStorage/state.vscdb (also a profile's): the extension's ItemTable row
  workspace_state_db,  // VS Code User/workspaceStorage/<id>/state.vscdb
  global_state_json,   // CLI ~/.vscode-mock/global-storage/global-state.json
  workspace_state_json,  // CLI ~/.vscode-mock/workspace-storage/<hash>/workspace-state.json
  cli_secrets,         // CLI ~/.vscode-mock/global-storage/secrets.json
  mcp_settings,        // <root>/settings/mcp_settings.json, legacy cline_mcp_settings.json
  cli_history,         // ~/.roo/cli-history.json
  cli_settings,        // ~/.roo/cli-settings.json
  cli_credentials,     // ~/.roo/cli-credentials.json
  cli_debug_log,       // ~/.roo/cli-debug.log (written only with --debug)
  host_settings,       // an editor's User/settings.json: roo-cline.customStoragePath (docs/roo-format.md §1.2)
  extension_manifest,  // an editor's extensions/extensions.json: which extensions are installed, since when
  extension_dir,       // an editor's extensions/rooveterinaryinc.roo-cline-<version>/ (a directory)
  cli_machine_id,      // ~/.vscode-mock/.machine-id: the CLI install's identity (docs/roo-format.md §1.3)
  roo_config_entry,    // an entry of ~/.roo/rules*/, commands/, skills/, ~/.agents/skills/ (names and times only)
  worktree,            // ~/.roo/worktrees/<project>-<suffix>/ (docs/row-contract.md "Scratch directories")
};
// Whether a store of this kind is a directory entry (matched by name) rather than a file to read.
bool store_is_directory(StoreKind kind);
// Whether a store of this kind may be a file or a directory (an inventory entry).
bool store_is_any_entry(StoreKind kind);
// The surface of the home's Roo files that every surface reads alike (~/.roo rules, commands, skills, worktrees;
// ~/.agents/skills): read by the extension in any editor and by the CLI (docs/roo-format.md §6).
inline constexpr const char* kSharedSurface = "shared";
// A store file, relative to a home. "*" in a segment matches every child directory; the last segment is the file
// name (matched case-insensitively, like every catalog name).
struct StorePattern {
  std::string surface;
  std::vector<std::string> segments;
  StoreKind kind;
};
const std::vector<StorePattern>& store_patterns();

inline constexpr std::string_view kTasksDir = "tasks";
inline constexpr std::string_view kTaskIndexFile = "_index.json";
// tasks/<id>/command-output/: the command outputs (core/file_kinds.h is_command_output_file).
inline constexpr std::string_view kCommandOutputDir = "command-output";

// Where `roo --ephemeral` makes its storage: os.tmpdir() (docs/roo-format.md §1.4). The segment "*" in position
// user_segment (when >= 0) is the home owner's name, so the rows there carry a user.
struct TempPattern {
  std::vector<std::string> segments;  // relative to the file system's root
  int user_segment = -1;
};
const std::vector<TempPattern>& temp_patterns();
// roo-cli-<13-digit epoch ms>-<1 to 9 of [0-9a-z]> (docs/roo-format.md §1.4); the ms when the name is one.
std::optional<int64_t> ephemeral_dir_time(std::string_view dir_name);
// The CLI storage inside an ephemeral dir is laid out as ~/.vscode-mock is: its catalog rows apply below it.
inline constexpr std::string_view kCliStorageDir = ".vscode-mock";

// safeWriteJson's temporary names (docs/roo-format.md §2.2): .<file>.new_<ms>_<rand36>.tmp (the next version, written
// before the rename that commits it) and .<file>.bak_<ms>_<rand36>.tmp (the previous version, unlinked after it).
struct TempFileName {
  std::string base;  // <file>
  std::string kind;  // "new" or "bak"
  int64_t ms = 0;
};
std::optional<TempFileName> parse_temp_file_name(std::string_view name);
// proper-lockfile's lock: a directory <file>.lock beside the file, removed on release (docs/roo-format.md §2.2).
inline constexpr std::string_view kLockSuffix = ".lock";

}  // namespace roo
