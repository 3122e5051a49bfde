#include "core/catalog.h"

namespace roo {

const std::vector<HomePattern>& home_patterns() {
  static const std::vector<HomePattern> homes = {
      {{"Users", "*"}, "windows-or-macos"},  // C:\Users\<u>, /Users/<u>
      {{"home", "*"}, "linux"},
      {{"root"}, "linux"},
  };
  return homes;
}

namespace {

// VS Code-family hosts: the user-data dir is named after the product's nameShort (docs/roo-format.md §1.1).
struct Host {
  const char* surface;
  const char* product;
};
const Host kHosts[] = {
    {"vscode", "Code"},
    {"vscode-insiders", "Code - Insiders"},
    {"vscodium", "VSCodium"},
    {"vscodium-insiders", "VSCodium - Insiders"},
    {"cursor", "Cursor"},
    {"windsurf", "Windsurf"},
};

// Per-OS location of <userDataDir>, relative to the home (docs/roo-format.md §1.1). $XDG_CONFIG_HOME cannot be known
// from an image, so Linux uses the default ~/.config.
const std::vector<std::string> kUserDataBases[] = {
    {"AppData", "Roaming"},
    {"Library", "Application Support"},
    {".config"},
};

// The extension's globalStorage folder is the lower-cased extension id (docs/roo-format.md §1.1): roo_extensions().
using Extension = RooExtension;

std::vector<RootPattern> build_roots() {
  std::vector<RootPattern> roots;
  for (const Extension& ext : roo_extensions()) {
    for (const Host& host : kHosts) {
      for (const auto& base : kUserDataBases) {
        RootPattern r;
        r.surface = ext.surface_override ? ext.surface_override : host.surface;
        r.segments = base;
        for (const char* s : {host.product, "User", "globalStorage", ext.folder}) r.segments.emplace_back(s);
        roots.push_back(std::move(r));
      }
    }
    // Remote, WSL and dev-container sessions keep the extension's data on the remote side (docs/roo-format.md §1.1).
    for (const char* server : {".vscode-server", ".vscode-server-insiders"}) {
      RootPattern r;
      r.surface = ext.surface_override ? ext.surface_override : "vscode-server";
      r.segments = {server, "data", "User", "globalStorage", ext.folder};
      roots.push_back(std::move(r));
    }
  }
  // The CLI's VS Code shim: no per-extension folder under global-storage (docs/roo-format.md §1.3).
  roots.push_back({"cli", {".vscode-mock", "global-storage"}});
  return roots;
}

std::vector<StorePattern> build_stores() {
  std::vector<StorePattern> stores;
  auto add = [&](std::string surface, std::vector<std::string> segs, StoreKind kind) {
    stores.push_back({std::move(surface), std::move(segs), kind});
  };
  for (const Host& host : kHosts) {
    for (const auto& base : kUserDataBases) {
      std::vector<std::string> user = base;
      user.emplace_back(host.product);
      user.emplace_back("User");
      auto under = [&](std::initializer_list<const char*> rest) {
        std::vector<std::string> segs = user;
        for (const char* s : rest) segs.emplace_back(s);
        return segs;
      };
      // The editor's own state databases (microsoft/vscode extensionStorage.ts; docs/roo-format.md §7).
      add(host.surface, under({"settings.json"}), StoreKind::host_settings);
      add(host.surface, under({"globalStorage", "state.vscdb"}), StoreKind::global_state_db);
      add(host.surface, under({"profiles", "*", "globalStorage", "state.vscdb"}), StoreKind::global_state_db);
      add(host.surface, under({"workspaceStorage", "*", "state.vscdb"}), StoreKind::workspace_state_db);
      for (const Extension& ext : roo_extensions())
        for (const char* name : {"mcp_settings.json", "cline_mcp_settings.json"})
          add(ext.surface_override ? ext.surface_override : host.surface,
              under({"globalStorage", ext.folder, "settings", name}), StoreKind::mcp_settings);
    }
  }
  for (const char* server : {".vscode-server", ".vscode-server-insiders"}) {
    add("vscode-server", {server, "data", "User", "globalStorage", "state.vscdb"}, StoreKind::global_state_db);
    add("vscode-server", {server, "data", "User", "workspaceStorage", "*", "state.vscdb"},
        StoreKind::workspace_state_db);
    for (const Extension& ext : roo_extensions())  // the nightly's settings dir too
      for (const char* name : {"mcp_settings.json", "cline_mcp_settings.json"})
        add(ext.surface_override ? ext.surface_override : "vscode-server",
            {server, "data", "User", "globalStorage", ext.folder, "settings", name}, StoreKind::mcp_settings);
  }
  // Installed extensions: each editor's extensions folder in the home (~/.vscode/extensions on every OS, VSCodium's
  // ~/.vscode-oss, Cursor's ~/.cursor, …) holds extensions.json and one <publisher>.<name>-<version> folder per
  // installed version.
  const std::pair<const char*, const char*> kExtensionFolders[] = {
      {"vscode", ".vscode"},          {"vscode-insiders", ".vscode-insiders"}, {"vscodium", ".vscode-oss"},
      {"cursor", ".cursor"},          {"windsurf", ".windsurf"},               {"vscode-server", ".vscode-server"},
      {"vscode-server", ".vscode-server-insiders"},
  };
  for (auto [surface, folder] : kExtensionFolders) {
    add(surface, {folder, "extensions", "extensions.json"}, StoreKind::extension_manifest);
    for (const Extension& ext : roo_extensions())
      add(ext.surface_override ? ext.surface_override : surface, {folder, "extensions", std::string(ext.folder) + "-*"},
          StoreKind::extension_dir);
  }
  // The CLI's shim and ~/.roo (docs/roo-format.md §1.3, §6).
  add("cli", {".vscode-mock", "global-storage", "global-state.json"}, StoreKind::global_state_json);
  add("cli", {".vscode-mock", "global-storage", "secrets.json"}, StoreKind::cli_secrets);
  add("cli", {".vscode-mock", "global-storage", "settings", "mcp_settings.json"}, StoreKind::mcp_settings);
  add("cli", {".vscode-mock", "workspace-storage", "*", "workspace-state.json"}, StoreKind::workspace_state_json);
  add("cli", {".roo", "cli-settings.json"}, StoreKind::cli_settings);
  add("cli", {".roo", "cli-credentials.json"}, StoreKind::cli_credentials);
  add("cli", {".roo", "cli-debug.log"}, StoreKind::cli_debug_log);
  add("cli", {".vscode-mock", ".machine-id"}, StoreKind::cli_machine_id);
  // Global rules, slash commands and skills (docs/roo-format.md §6): which exist and when they changed, not the text.
  // The extension in every editor and the CLI read them alike (src/services/roo-config/index.ts; the CLI runs the
  // same bundle), and the worktree dialog that suggests ~/.roo/worktrees is the extension's: no one surface owns
  // them, so their rows say `shared`.
  for (const char* area : {"rules", "rules-*", "commands", "skills", "skills-*"})
    add(kSharedSurface, {".roo", area, "*"}, StoreKind::roo_config_entry);
  add(kSharedSurface, {".agents", "skills", "*"}, StoreKind::roo_config_entry);
  add(kSharedSurface, {".roo", "worktrees", "*"}, StoreKind::worktree);
  add("cli", {".roo", "cli-history.json"}, StoreKind::cli_history);  // last: it is compared with every task's words
  return stores;
}

}  // namespace

bool store_is_directory(StoreKind kind) { return kind == StoreKind::extension_dir || kind == StoreKind::worktree; }
bool store_is_any_entry(StoreKind kind) { return kind == StoreKind::roo_config_entry; }

const std::vector<RooExtension>& roo_extensions() {
  static const std::vector<RooExtension> extensions = {
      {"RooVeterinaryInc.roo-cline", "rooveterinaryinc.roo-cline", "roo-cline", nullptr},
      // apps/vscode-nightly/package.nightly.json renames the package (docs/roo-format.md §1.1).
      {"RooVeterinaryInc.roo-code-nightly", "rooveterinaryinc.roo-code-nightly", "roo-code-nightly", "vscode-nightly"},
  };
  return extensions;
}

const std::vector<StorePattern>& store_patterns() {
  static const std::vector<StorePattern> stores = build_stores();
  return stores;
}

const std::vector<RootPattern>& root_patterns() {
  static const std::vector<RootPattern> roots = build_roots();
  return roots;
}

const std::vector<TempPattern>& temp_patterns() {
  static const std::vector<TempPattern> patterns = {
      {{"tmp"}},                                           // Linux; TMPDIR is not knowable from an image
      {{"var", "tmp"}},                                    // Linux, kept across reboots
      {{"private", "tmp"}},                                // macOS /tmp
      {{"private", "var", "folders", "*", "*", "T"}},      // macOS per-user os.tmpdir()
      {{"Users", "*", "AppData", "Local", "Temp"}, 1},     // Windows %TEMP%
      {{"Windows", "Temp"}},                               // Windows %SystemRoot%\temp
  };
  return patterns;
}

namespace {
bool all_of_class(std::string_view s, bool (*ok)(char)) {
  for (char c : s)
    if (!ok(c)) return false;
  return true;
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_base36(char c) { return is_digit(c) || (c >= 'a' && c <= 'z'); }
int64_t to_ms(std::string_view digits) {
  int64_t v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  return v;
}
}  // namespace

std::optional<int64_t> ephemeral_dir_time(std::string_view name) {
  constexpr std::string_view prefix = "roo-cli-";
  if (name.substr(0, prefix.size()) != prefix) return std::nullopt;
  name.remove_prefix(prefix.size());
  if (name.size() < 15 || name[13] != '-') return std::nullopt;
  const std::string_view ms = name.substr(0, 13), rand = name.substr(14);
  if (!all_of_class(ms, is_digit) || rand.empty() || rand.size() > 9 || !all_of_class(rand, is_base36))
    return std::nullopt;
  return to_ms(ms);
}

std::optional<TempFileName> parse_temp_file_name(std::string_view name) {
  constexpr std::string_view tmp = ".tmp";
  if (name.size() < 2 || name[0] != '.' || name.size() < tmp.size() ||
      name.substr(name.size() - tmp.size()) != tmp)
    return std::nullopt;
  name = name.substr(1, name.size() - 1 - tmp.size());  // <file>.<kind>_<ms>_<rand>
  const size_t rand_at = name.rfind('_');
  if (rand_at == std::string_view::npos) return std::nullopt;
  const size_t ms_at = name.rfind('_', rand_at - 1);
  if (ms_at == std::string_view::npos || ms_at < 5) return std::nullopt;
  const std::string_view rand = name.substr(rand_at + 1), ms = name.substr(ms_at + 1, rand_at - ms_at - 1);
  const std::string_view head = name.substr(0, ms_at);  // <file>.new or <file>.bak
  const std::string_view kind = head.substr(head.size() - 4);
  if ((kind != ".new" && kind != ".bak") || head.size() == 4 || ms.empty() || ms.size() > 16 || rand.empty() ||
      !all_of_class(ms, is_digit) || !all_of_class(rand, is_base36))
    return std::nullopt;
  return TempFileName{std::string(head.substr(0, head.size() - 4)), std::string(kind.substr(1)), to_ms(ms)};
}

}  // namespace roo
