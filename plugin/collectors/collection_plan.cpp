#include "plugin/collectors/collection_plan.h"

#include <string_view>

#include "core/catalog.h"

namespace roo::collectors {

namespace {

constexpr const char* kExtensionStorage = "RooCodeExtensionStorage";
constexpr const char* kEditorState = "RooCodeEditorState";
constexpr const char* kCliStorage = "RooCodeCliStorage";
constexpr const char* kEphemeralDirs = "RooCodeEphemeralDirs";

// The OS a home-relative path belongs to, told by its first segment: the catalog tries every user-data base in every
// home (an image's OS is not known before it is read), but each base is one OS's (core/catalog.cpp kUserDataBases).
unsigned home_path_os(const std::vector<std::string>& segments) {
  if (segments.empty()) return kAnyOs;
  if (segments[0] == "AppData") return kWindows;
  if (segments[0] == "Library") return kDarwin;
  if (segments[0] == ".config") return kLinux;
  return kAnyOs;  // ~/.vscode-server, ~/.vscode-mock, ~/.roo, ~/.vscode/extensions: the same on every OS
}

// The OS a root-relative temp location belongs to (core/catalog.cpp temp_patterns()).
unsigned temp_path_os(const std::vector<std::string>& segments) {
  if (segments.empty()) return kAnyOs;
  if (segments[0] == "private") return kDarwin;
  if (segments[0] == "Users" || segments[0] == "Windows") return kWindows;
  return kLinux;
}

bool starts_with(const std::vector<std::string>& path, const std::vector<std::string>& prefix) {
  if (prefix.size() > path.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (path[i] != prefix[i]) return false;
  return true;
}

// Whether an item of the plan already gathers what item would: a recursive one above it, or every file of its folder.
bool gathered_by(const CollectionItem& item, const std::vector<CollectionItem>& plan) {
  for (const CollectionItem& other : plan) {
    if (other.anchor != item.anchor || (other.os & item.os) != item.os) continue;
    if (other.recursive ? starts_with(item.dir, other.dir) : other.file_mask == "*" && other.dir == item.dir)
      return true;
  }
  return false;
}

void add(std::vector<CollectionItem>& plan, CollectionItem item) {
  if (!gathered_by(item, plan)) plan.push_back(std::move(item));
}

std::vector<std::string> without_last(std::vector<std::string> segments) {
  segments.pop_back();
  return segments;
}

}  // namespace

std::vector<CollectionItem> collection_plan() {
  std::vector<CollectionItem> plan;
  // Each Roo root whole: tasks, the index, settings, cache, and safeWriteJson's temporary copies beside them.
  for (const RootPattern& root : root_patterns()) {
    add(plan, {home_path_os(root.segments), Anchor::home, root.segments, "*", true,
               "storage (" + root.surface + ")", kExtensionStorage});
  }
  // The CLI's VS Code shim whole (its global and workspace state, secrets, machine id), and ~/.roo's own files; not
  // ~/.roo/worktrees, whose checkouts are the user's projects (roo-ingest reads only their names and times).
  add(plan, {kAnyOs, Anchor::home, {std::string(kCliStorageDir)}, "*", true, "CLI storage", kCliStorage});
  add(plan, {kAnyOs, Anchor::home, {".roo"}, "*", false, "CLI settings, credentials and history", kCliStorage});
  for (const StorePattern& store : store_patterns()) {
    const std::vector<std::string> dir = without_last(store.segments);
    const std::string& name = store.segments.back();
    const unsigned os = home_path_os(store.segments);
    switch (store.kind) {
      case StoreKind::global_state_db:
      case StoreKind::workspace_state_db:
        // The database and its write-ahead log, which holds the newest values until a checkpoint
        // (core/state_vscdb_rows.cpp); a workspace's workspace.json names its project (core/store_assembly.cpp).
        add(plan, {os, Anchor::home, dir, name, false, "editor state database (" + store.surface + ")", kEditorState});
        add(plan, {os, Anchor::home, dir, name + "-wal", false, "editor state write-ahead log (" + store.surface + ")", kEditorState});
        if (store.kind == StoreKind::workspace_state_db)
          add(plan, {os, Anchor::home, dir, "workspace.json", false, "editor workspace folder (" + store.surface + ")", kEditorState});
        break;
      case StoreKind::host_settings:
      case StoreKind::extension_manifest:
        add(plan, {os, Anchor::home, dir, name, false,
                   store.kind == StoreKind::host_settings ? "editor settings (customStoragePath)" : "installed extensions",
                   kEditorState});
        break;
      case StoreKind::extension_dir:
        // roo-ingest reads an installed version's folder by its name and times; its manifest recreates the folder.
        add(plan, {os, Anchor::home, store.segments, "package.json", false, "installed Roo Code version", kEditorState});
        break;
      case StoreKind::roo_config_entry:
        add(plan, {os, Anchor::home, dir, "*", true, "global rules, commands and skills", kCliStorage});
        break;
      case StoreKind::worktree:
        break;  // names only, and the checkouts are not Roo's (above)
      default:
        add(plan, {os, Anchor::home, dir, name, false, "CLI store", kCliStorage});
        break;
    }
  }
  // `roo --ephemeral`'s storage in os.tmpdir(), kept when the CLI did not clean up.
  for (const TempPattern& temp : temp_patterns()) {
    std::vector<std::string> dir = temp.segments;
    dir.emplace_back("roo-cli-*");
    add(plan, {temp_path_os(temp.segments), Anchor::root, dir, "*", true, "CLI ephemeral storage", kEphemeralDirs});
  }
  return plan;
}

namespace {

std::string join(const std::vector<std::string>& segments, std::string_view separator) {
  std::string out;
  for (const std::string& s : segments) {
    if (!out.empty()) out += separator;
    out += s;
  }
  return out;
}

constexpr std::string_view kGeneratedBy =
    "Generated by roo-collectors from roo-ingest's catalog (core/catalog.cpp); regenerate, do not edit.";

}  // namespace

// KAPE targets (EricZimmerman/KapeFiles Targets/*.tkape): Windows paths, %user% for each profile, a trailing
// backslash on Path, FileMask for the names, Recursive for whole folders.
std::string kape_target() {
  std::string out;
  out += "Description: Roo Code AI coding agent - tasks, editor state, CLI storage and ephemeral dirs\n";
  out += "Author: roo-ingest\n";
  out += "Version: 1.0\n";
  out += "Id: e3be1f8e-748a-4f51-bd68-0aef4a0719c4\n";
  out += "RecreateDirectories: true\n";
  out += "Targets:\n";
  for (const CollectionItem& item : collection_plan()) {
    if (!(item.os & kWindows)) continue;
    std::vector<std::string> dir = item.dir;
    std::string path;
    if (item.anchor == Anchor::home) {
      path = "C:\\Users\\%user%\\";
    } else {
      path = "C:\\";
      // C:\Users\<u>\AppData\Local\Temp: the profile is KAPE's %user%.
      if (dir.size() > 1 && dir[0] == "Users" && dir[1] == "*") dir[1] = "%user%";
    }
    path += join(dir, "\\") + "\\";
    out += "    -\n";
    // KAPE names each target: what it is and where (its path below the profile or the drive is unique in the plan).
    std::string where = join(dir, "\\");
    if (item.file_mask != "*") where += "\\" + item.file_mask;
    out += "        Name: Roo Code, " + item.what + " - " + where + "\n";
    out += "        Category: Apps\n";
    out += "        Path: " + path + "\n";
    if (item.file_mask != "*") out += "        FileMask: " + item.file_mask + "\n";
    if (item.recursive) out += "        Recursive: true\n";
  }
  out += "\n# " + std::string(kGeneratedBy) + "\n";
  out += "# What each file holds and how roo-ingest reads the collection: docs/collectors.md\n";
  return out;
}

namespace {

// The glob of an item for one OS, Velociraptor's glob() syntax: "**" for every depth below a folder.
std::vector<std::string> velociraptor_globs(const CollectionItem& item, unsigned os) {
  const bool windows = os == kWindows;
  const std::string sep = windows ? "\\" : "/";
  std::vector<std::string> bases;
  if (item.anchor == Anchor::root)
    bases = {windows ? "C:" : ""};
  else if (os == kWindows)
    bases = {"C:\\Users\\*"};
  else if (os == kDarwin)
    bases = {"/Users/*"};
  else
    bases = {"/home/*", "/root"};
  std::vector<std::string> globs;
  for (const std::string& base : bases)
    globs.push_back(base + sep + join(item.dir, sep) + sep + (item.recursive ? "**" : item.file_mask));
  return globs;
}

}  // namespace

std::string velociraptor_artifact() {
  std::string out;
  out += "name: Generic.Forensic.RooCode\n";
  out += "description: |\n";
  out += "  Collects what roo-ingest reads of the Roo Code AI coding agent: every VS Code-family editor's Roo storage\n";
  out += "  (tasks, settings), the editors' state databases with their write-ahead logs, settings.json, the installed\n";
  out += "  versions, the CLI's ~/.vscode-mock and ~/.roo (not ~/.roo/worktrees) and leftover roo-cli-* ephemeral\n";
  out += "  directories. Each file is uploaded with its original times; run `roo-ingest --dir` on the collection.\n";
  out += "\n  " + std::string(kGeneratedBy) + "\n";
  out += "author: roo-ingest\n";
  out += "type: CLIENT\n";
  out += "parameters:\n";
  const std::pair<unsigned, const char*> kOses[] = {{kWindows, "Windows"}, {kDarwin, "Darwin"}, {kLinux, "Linux"}};
  for (auto [os, name] : kOses) {
    out += "  - name: " + std::string(name) + "Globs\n";
    out += "    type: csv\n";
    out += "    default: |\n";
    out += "      Glob\n";
    for (const CollectionItem& item : collection_plan())
      if (item.os & os)
        for (const std::string& glob : velociraptor_globs(item, os)) out += "      " + glob + "\n";
  }
  out += "sources:\n";
  out += "  - query: |\n";
  out += "      LET os <= SELECT OS FROM info()\n";
  out += "      LET globs <= if(condition=os[0].OS = \"windows\", then=WindowsGlobs.Glob,\n";
  out += "        else=if(condition=os[0].OS = \"darwin\", then=DarwinGlobs.Glob, else=LinuxGlobs.Glob))\n";
  out += "      SELECT OSPath, Size, Mtime, Atime, Ctime, Btime,\n";
  out += "             upload(file=OSPath, mtime=Mtime, atime=Atime, ctime=Ctime, btime=Btime) AS Upload\n";
  out += "      FROM glob(globs=globs)\n";
  out += "      WHERE NOT IsDir\n";
  return out;
}

namespace {

// An item's path in ForensicArtifacts' notation (the ForensicArtifacts format specification, as plaso applies it:
// %%users.*%% expansions, "**" for up to ten levels below a folder).
std::string artifacts_path(const CollectionItem& item, unsigned os) {
  const bool windows = os == kWindows;
  const std::string sep = windows ? "\\" : "/";
  std::vector<std::string> dir = item.dir;
  std::string base;
  auto take = [&](std::initializer_list<const char*> prefix, const char* variable) {
    if (dir.size() < prefix.size()) return false;
    size_t i = 0;
    for (const char* p : prefix)
      if (dir[i++] != p) return false;
    dir.erase(dir.begin(), dir.begin() + static_cast<std::ptrdiff_t>(prefix.size()));
    base = variable;
    return true;
  };
  if (item.anchor == Anchor::home) {
    if (!(windows && take({"AppData", "Roaming"}, "%%users.appdata%%")))
      base = windows ? "%%users.userprofile%%" : "%%users.homedir%%";
  } else if (windows) {
    if (!take({"Users", "*", "AppData", "Local", "Temp"}, "%%users.temp%%") &&
        !take({"Windows", "Temp"}, "%%environ_systemroot%%\\Temp"))
      base = "%%environ_systemdrive%%";
  }
  std::string path = base;
  for (const std::string& s : dir) path += sep + s;
  return path + sep + (item.recursive ? "**" : item.file_mask);
}

}  // namespace

std::string forensic_artifacts() {
  std::string out = "# Roo Code AI coding agent artifacts.\n";
  out += "# " + std::string(kGeneratedBy) + "\n";
  struct Group {
    const char* name;
    const char* doc;
  };
  const Group kGroups[] = {
      {kExtensionStorage, "Roo Code extension storage of VS Code-family editors (tasks, task index, settings)."},
      {kEditorState, "VS Code-family editor state databases, settings and extensions that hold Roo Code state."},
      {kCliStorage, "Roo Code CLI storage (~/.vscode-mock, ~/.roo) and global rules, commands and skills."},
      {kEphemeralDirs, "Roo Code CLI ephemeral storage directories (roo-cli-*) left in temporary directories."},
  };
  const std::pair<unsigned, const char*> kOses[] = {{kWindows, "Windows"}, {kDarwin, "Darwin"}, {kLinux, "Linux"}};
  for (const Group& group : kGroups) {
    out += "---\n";
    out += "name: " + std::string(group.name) + "\n";
    out += "doc: " + std::string(group.doc) + "\n";
    out += "sources:\n";
    std::string oses;
    for (auto [os, os_name] : kOses) {
      std::vector<std::string> paths;
      for (const CollectionItem& item : collection_plan())
        if (std::string_view(item.group) == group.name && (item.os & os)) paths.push_back(artifacts_path(item, os));
      if (paths.empty()) continue;
      oses += std::string(oses.empty() ? "" : ", ") + os_name;
      out += "- type: FILE\n";
      out += "  attributes:\n";
      out += "    paths:\n";
      for (const std::string& p : paths) out += "    - '" + p + "'\n";
      if (os == kWindows) out += "    separator: '\\'\n";
      out += "  supported_os: [" + std::string(os_name) + "]\n";
    }
    out += "supported_os: [" + oses + "]\n";
    out += "urls: ['https://github.com/RooCodeInc/Roo-Code']\n";
  }
  out += "---\n";
  out += "name: RooCode\n";
  out += "doc: Every file the Roo Code AI coding agent keeps, in editors and in its CLI.\n";
  out += "sources:\n";
  out += "- type: ARTIFACT_GROUP\n";
  out += "  attributes:\n";
  out += "    names:\n";
  for (const Group& group : kGroups) out += "    - " + std::string(group.name) + "\n";
  out += "supported_os: [Darwin, Linux, Windows]\n";
  out += "urls: ['https://github.com/RooCodeInc/Roo-Code']\n";
  return out;
}

}  // namespace roo::collectors
