#include "core/store_assembly.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <deque>

#include "core/fs_lookup.h"
#include "core/sha256.h"
#include "core/parsers/store_parsers.h"
#include "core/source_reading.h"
#include "core/state_vscdb_rows.h"
#include "core/text_util.h"

namespace roo {

namespace {

const char* store_kind_name(StoreKind kind) {
  switch (kind) {
    case StoreKind::global_state_db: return "global_state_db";
    case StoreKind::workspace_state_db: return "workspace_state_db";
    case StoreKind::global_state_json: return "global_state";
    case StoreKind::workspace_state_json: return "workspace_state";
    case StoreKind::cli_secrets: return "cli_secrets";
    case StoreKind::mcp_settings: return "mcp_settings";
    case StoreKind::cli_history: return "cli_history";
    case StoreKind::cli_settings: return "cli_settings";
    case StoreKind::cli_credentials: return "cli_credentials";
    case StoreKind::cli_debug_log: return "cli_debug_log";
    case StoreKind::host_settings: return "host_settings";
    case StoreKind::extension_manifest: return "extension_manifest";
    case StoreKind::extension_dir: return "extension_dir";
    case StoreKind::cli_machine_id: return "cli_machine_id";
    case StoreKind::roo_config_entry: return "roo_config_entry";
    case StoreKind::worktree: return "worktree";
  }
  return "store";
}

// The setting as a row: examiners see where tasks were kept, and whether that place was found. Each Roo extension has
// its own setting (roo-cline.customStoragePath, the nightly's roo-code-nightly.customStoragePath, docs/roo-format.md
// §1.1); the rows of one file are numbered among their kind, the release's first. The nightly's row has its surface.
void host_settings_rows(FileSystemView& fs, SourceReading& src, std::deque<TaskIdentity>& identities) {
  const ParseContext& ctx = src.ctx;
  auto bytes = read_whole(*src.stream());
  if (!bytes) return;
  int64_t part = 0;
  for (const RooExtension& ext : roo_extensions()) {
    auto custom = custom_storage_path(*bytes, ext.setting_prefix);
    if (!custom) continue;
    const std::string key = std::string(ext.setting_prefix) + ".customStoragePath";
    TaskIdentity& identity = identities.emplace_back(*ctx.identity);
    if (ext.surface_override) identity.surface = ext.surface_override;
    ParseContext ext_ctx = ctx;
    ext_ctx.identity = &identity;
    Row r = ext_ctx.row("host_setting");
    r.role = "system";
    r.position.part_index = part++;  // whole-document rows are numbered among their kind (docs/row-contract.md)
    if (ctx.native) {
      rapidjson::Document one(rapidjson::kObjectType);
      one.AddMember(rapidjson::Value(key.data(), key.size(), one.GetAllocator()),
                    rapidjson::Value(custom->data(), custom->size(), one.GetAllocator()), one.GetAllocator());
      r.native = to_json_text(one);
    }
    ParseContext::stamp_file_time(r, ctx.source->file.mtime, "file.mtime");
    r.text = "host setting: " + key + "=" + *custom + " (from " + ctx.source->file.path + ", file mtime)";
    r.set("setting_key", key).set("setting_value", *custom);
    if (auto dir = find_directory(fs, *custom))
      r.set("resolved_path", dir->path).set("resolution", std::string("found on this file system"));
    else  // a drive letter may name another volume: the run looks there next (report.json says what it found)
      r.set("resolution", std::string(kNotOnThisFileSystem));
    ctx.sink->emit(std::move(r));
  }
}

// ~/.roo inventories and worktrees: one row per entry, timed by its modification time.
void inventory_row(const StorePattern& pattern, const FileMeta& dir, const ParseContext& ctx) {
  const FileMeta& f = ctx.source->file;
  const bool worktree = pattern.kind == StoreKind::worktree;
  Row r = ctx.row(worktree ? "worktree" : "roo_config_entry");
  r.role = "system";
  ParseContext::stamp_file_time(r, f.mtime, "file.mtime");
  // The area is the folder the entry is in: rules, rules-<mode>, commands, skills (~/.roo or ~/.agents).
  const std::string area = dir.name;
  if (worktree) {
    // docs/row-contract.md "Scratch directories": ~/.roo/worktrees/<project>-<suffix> is Roo's suggested worktree
    // root; a task whose workspace is there ran in a scratch checkout.
    r.text = "worktree: " + f.path + " (scratch directory)";
    r.set("classification", std::string("scratch"));
  } else {
    r.text = "roo config: " + area + "/" + f.name + (f.is_dir ? "/" : "");
    r.set("config_area", area);
  }
  r.set("entry_name", f.name).set("entry_path", f.path).set("is_dir", f.is_dir);
  if (!f.is_dir && f.size) r.set("size_bytes", static_cast<int64_t>(*f.size));
  ctx.sink->emit(std::move(r));
}

// ~/.vscode-mock/.machine-id: 64 hex characters naming this CLI install (docs/roo-format.md §1.3); kept even by
// --ephemeral runs, so it ties ephemeral traces to the home.
void machine_id_row(SourceReading& src) {
  const ParseContext& ctx = src.ctx;
  auto bytes = read_whole(*src.stream());
  if (!bytes) return;
  const std::string id(trim(*bytes));
  Row r = ctx.row("install_identity");
  r.role = "system";
  ParseContext::stamp_file_time(r, ctx.source->file.mtime, "file.mtime");
  const bool hex64 = id.size() == 64 && std::all_of(id.begin(), id.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
  r.text = "cli machine id: " + (hex64 ? id : std::string("(not 64 hex characters)")) + " (from " + ctx.source->file.path + ")";
  if (hex64) r.set("machine_id", id);
  if (ctx.native) r.native = *bytes;  // the file is the record (an identifier, not a secret)
  ctx.sink->emit(std::move(r));
}

}  // namespace

std::string cli_workspace_hash(std::string_view utf8_path) {
  int32_t h = 0;
  auto add = [&](uint32_t unit) { h = static_cast<int32_t>(static_cast<uint32_t>(h) * 31u + unit); };
  for (size_t i = 0; i < utf8_path.size();) {
    // Decode one UTF-8 character (invalid bytes count as U+FFFD, as Node's decoder gives), then feed UTF-16 units.
    const unsigned char c = static_cast<unsigned char>(utf8_path[i]);
    uint32_t cp = 0xFFFD;
    size_t len = 1;
    if (c < 0x80) {
      cp = c;
    } else if ((c >> 5) == 0x6 && i + 1 < utf8_path.size()) {
      cp = ((c & 0x1Fu) << 6) | (static_cast<unsigned char>(utf8_path[i + 1]) & 0x3Fu), len = 2;
    } else if ((c >> 4) == 0xE && i + 2 < utf8_path.size()) {
      cp = ((c & 0x0Fu) << 12) | ((static_cast<unsigned char>(utf8_path[i + 1]) & 0x3Fu) << 6) |
           (static_cast<unsigned char>(utf8_path[i + 2]) & 0x3Fu);
      len = 3;
    } else if ((c >> 3) == 0x1E && i + 3 < utf8_path.size()) {
      cp = ((c & 0x07u) << 18) | ((static_cast<unsigned char>(utf8_path[i + 1]) & 0x3Fu) << 12) |
           ((static_cast<unsigned char>(utf8_path[i + 2]) & 0x3Fu) << 6) |
           (static_cast<unsigned char>(utf8_path[i + 3]) & 0x3Fu);
      len = 4;
    }
    i += len;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      add(0xD800 + (cp >> 10));
      add(0xDC00 + (cp & 0x3FF));
    } else {
      add(cp);
    }
  }
  // Math.abs(-2^31) is 2^31 in JavaScript: the magnitude is taken in 64 bits.
  const int64_t magnitude = h < 0 ? -static_cast<int64_t>(h) : h;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(magnitude));
  return buf;
}

std::optional<std::string> workspace_json_folder(const std::string& workspace_json) {
  rapidjson::Document doc;
  if (!parse_json(workspace_json.data(), workspace_json.size(), doc, nullptr) || !doc.IsObject()) return std::nullopt;
  auto uri = get_string(doc, "folder");
  if (!uri) uri = get_string(doc, "workspace");
  if (!uri || !starts_with(*uri, "file://")) return std::nullopt;
  std::string path;
  const std::string& u = *uri;
  for (size_t i = 7; i < u.size(); ++i) {
    auto hex = [](char c) { return c >= '0' && c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
    if (u[i] == '%' && i + 2 < u.size() && std::isxdigit(static_cast<unsigned char>(u[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(u[i + 2]))) {
      path += static_cast<char>(hex(u[i + 1]) * 16 + hex(u[i + 2]));
      i += 2;
    } else {
      path += u[i];
    }
  }
  // file:///c:/Users/x is VS Code's Uri for the fsPath c:\Users\x: a lower-case drive letter and backslashes, the
  // form task rows carry as their workspace (history_item.workspace), so the two join.
  if (path.size() >= 3 && path[0] == '/' && path[2] == ':' && std::isalpha(static_cast<unsigned char>(path[1]))) {
    path.erase(0, 1);
    path[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(path[0])));
    std::replace(path.begin(), path.end(), '/', '\\');
  }
  return path;
}

std::optional<std::string> custom_storage_path(const std::string& settings_json, std::string_view setting_prefix) {
  rapidjson::Document doc;
  const std::string json = strip_jsonc(settings_json);
  if (!parse_json(json.data(), json.size(), doc, nullptr) || !doc.IsObject()) return std::nullopt;
  auto path = get_string(doc, (std::string(setting_prefix) + ".customStoragePath").c_str());
  if (!path || trim(*path).empty()) return std::nullopt;
  return std::string(trim(*path));
}

std::string custom_storage_setting_key(std::string_view surface) {
  for (const RooExtension& ext : roo_extensions())
    if (ext.surface_override && surface == ext.surface_override)
      return std::string(ext.setting_prefix) + ".customStoragePath";
  return "roo-cline.customStoragePath";
}

std::vector<RooRoot> custom_storage_roots(FileSystemView& fs, const FileMeta& home, ScanReport& report) {
  std::vector<RooRoot> roots;
  for (const StorePattern& sp : store_patterns()) {
    // The CLI keeps VS Code configuration in its global state under the same dotted key (docs/roo-format.md §1.3).
    if (sp.kind != StoreKind::host_settings && sp.kind != StoreKind::global_state_json) continue;
    std::vector<std::string> dirs(sp.segments.begin(), sp.segments.end() - 1);
    for (const FileMeta& dir : resolve(fs, home, dirs))
      for (const FileMeta& file : children(fs, dir, sp.segments.back(), false)) {
        if (file.is_dir) continue;
        const std::string bytes = read_file_bytes(fs, file);
        for (const RooExtension& ext : roo_extensions()) {
          // The CLI runs the release's bundle (Package.name roo-cline): the nightly's setting is an editor's only.
          if (ext.surface_override && sp.kind != StoreKind::host_settings) continue;
          auto custom = custom_storage_path(bytes, ext.setting_prefix);
          if (!custom) continue;
          const std::string surface = ext.surface_override ? ext.surface_override : sp.surface;
          auto root = find_directory(fs, *custom);
          report.custom_storage_paths.push_back(
              {surface, home.name, file.path, *custom, root.has_value(), root ? root->path : std::string()});
          if (root) roots.push_back({surface, home.name, *root, "customStoragePath in " + file.path});
        }
      }
  }
  return roots;
}

void read_home_global_history(FileSystemView& fs, const FileMeta& home, const SourceOptions& opts,
                              GlobalHistory& out) {
  std::set<std::string> seen;
  for (const StorePattern& sp : store_patterns()) {
    if (sp.kind != StoreKind::global_state_db && sp.kind != StoreKind::global_state_json) continue;
    const std::vector<std::string> dirs(sp.segments.begin(), sp.segments.end() - 1);
    for (const FileMeta& dir : resolve(fs, home, dirs))
      for (const FileMeta& file : children(fs, dir, sp.segments.back(), false)) {
        if (file.is_dir || !seen.insert(file.path).second) continue;
        const std::string bytes = read_file_bytes(fs, file);
        if (bytes.empty()) continue;
        std::vector<SurfacedHistoryTask> tasks;
        if (sp.kind == StoreKind::global_state_db) {
          tasks = state_vscdb_task_history(fs, dir, file, bytes, sp.surface, opts.scratch_dir, opts.native);
        } else {
          rapidjson::Document doc;
          if (!parse_json(bytes.data(), bytes.size(), doc, nullptr) || !doc.IsObject()) continue;
          struct Discard : RowSink {
            void emit(const Row&) override {}
          } discard;
          const TaskIdentity identity{sp.surface, {}, {}, {}, {}, {}};
          const SourceRef source{&fs.volume(), file};
          ParseContext ctx;
          ctx.identity = &identity;
          ctx.source = &source;
          ctx.file_name = file.name;
          ctx.native = opts.native;
          ctx.sink = &discard;
          for (GlobalStateTask& t : parse_global_state(doc, ctx, file.path).task_history)
            tasks.push_back({sp.surface, file.path, std::move(t)});
        }
        if (tasks.empty()) continue;
        const std::string sha = sha256_hex(bytes);
        std::map<std::string, const GlobalHistory::File*> by_where;
        for (SurfacedHistoryTask& t : tasks) {
          if (!t.task.item.id) continue;
          const GlobalHistory::File*& f = by_where[t.where];
          if (!f) f = &out.files.emplace_back(GlobalHistory::File{{&fs.volume(), file}, sha, t.where});
          out.by_id[*t.task.item.id].push_back({std::move(t.task), t.surface, f});
        }
      }
  }
}

void process_store(FileSystemView& fs, const StorePattern& pattern, const FileMeta& dir, const FileMeta& file,
                   const std::optional<std::string>& user, RowSink& out, ScanReport& report, const SourceOptions& opts,
                   const HomeTasks& home, const std::optional<std::string>& project_path) {
  TaskIdentity identity{pattern.surface, user, {}, {}, {}, project_path};
  if (store_is_directory(pattern.kind) || store_is_any_entry(pattern.kind)) {
    // An entry whose name and times are the fact: its contents are not read (rules and skills are the user's
    // text, a worktree a whole checkout).
    SourceRef entry{&fs.volume(), file};
    ParseContext ctx;
    ctx.identity = &identity;
    ctx.source = &entry;
    ctx.file_name = file.name;
    ctx.sink = &out;
    if (pattern.kind == StoreKind::extension_dir)
      emit_extension_dir_row(ctx);
    else
      inventory_row(pattern, dir, ctx);
    out.end_source("");
    return;
  }
  // Workspace state belongs to a project: VS Code names it in workspace.json beside it, the CLI only by a hash of
  // its path, matched against the workspaces of this home's tasks.
  if (pattern.kind == StoreKind::workspace_state_db) {
    std::vector<FileMeta> scratch;
    for (const FileMeta& f : dir_listing(fs, dir, scratch))
      if (f.name_allocated && !f.is_dir && iequals(f.name, "workspace.json"))
        identity.project_path = workspace_json_folder(read_file_bytes(fs, f));
  } else if (pattern.kind == StoreKind::workspace_state_json) {
    for (const auto& [p, surface] : home.project_paths)
      if (cli_workspace_hash(p) == dir.name) identity.project_path = p;
  }
  std::deque<TaskIdentity> task_identities;  // rows of taskHistory tasks point here until the source ends
  SourceReading src(fs, file, &identity, out, report, opts.native, store_kind_name(pattern.kind));
  HashingStream* in = src.stream();
  if (!in) return;
  const ParseContext& ctx = src.ctx;
  switch (pattern.kind) {
    case StoreKind::global_state_db:
    case StoreKind::workspace_state_db: {
      read_state_vscdb(fs, pattern, dir, src, opts, home.task_ids_by_root, report, out, task_identities);
      break;
    }
    case StoreKind::global_state_json: {
      GlobalStateResult g = parse_global_state_file(*in, ctx);
      src.add_stats(g.stats);
      emit_history_tasks(g.task_history, pattern.surface, home.task_ids_by_root, ctx, task_identities);
      break;
    }
    case StoreKind::workspace_state_json: {
      TaskSessionSink by_task(out, task_identities);
      ParseContext task_ctx = ctx;
      task_ctx.sink = &by_task;
      src.add_stats(parse_workspace_state_file(*in, task_ctx));
      break;
    }
    case StoreKind::cli_secrets: src.add_stats(parse_cli_secrets(*in, ctx)); break;
    case StoreKind::mcp_settings: src.add_stats(parse_mcp_settings(*in, ctx)); break;
    case StoreKind::cli_settings: src.add_stats(parse_cli_settings(*in, ctx)); break;
    case StoreKind::cli_credentials: src.add_stats(parse_cli_credentials(*in, ctx)); break;
    case StoreKind::cli_debug_log: src.add_stats(parse_cli_debug_log(*in, ctx)); break;
    case StoreKind::host_settings: host_settings_rows(fs, src, task_identities); break;
    case StoreKind::extension_manifest: src.add_stats(parse_extensions_manifest(*in, ctx)); break;
    case StoreKind::extension_dir:
    case StoreKind::roo_config_entry:
    case StoreKind::worktree: break;  // entries: handled above
    case StoreKind::cli_machine_id: machine_id_row(src); break;
    case StoreKind::cli_history: {
      // docs/row-contract.md "Past-use rows and secondary sources": a line is kept only when no task of this home
      // has a user row with its text; the others are the same fact as that row (counted as folded).
      CliHistory history = parse_cli_history(*in, ctx);
      for (const CliHistoryEntry& e : history.entries) {
        if (home.user_words.contains(e.text))
          ++history.stats.folded;
        else
          emit_cli_history_row(e, ctx);
      }
      src.add_stats(history.stats);
      break;
    }
  }
}

}  // namespace roo
