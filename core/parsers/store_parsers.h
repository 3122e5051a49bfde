// Roo Code's settings, permission and credential stores (docs/row-contract.md "Permission rows", "Sync, relay and
// origin rows", "Past-use rows and secondary sources", "Bad-line rows"; docs/roo-format.md §6, §7, §8):
//
//   global-state.json / the state.vscdb row   permission_setting, sync_setting, credential_present (+ taskHistory)
//   workspace-state.json / its state.vscdb row cloud_upload_queued, credential_present
//   ~/.roo/cli-settings.json                  permission_setting, cli_setting, credential_present
//   ~/.roo/cli-credentials.json               credential_present
//   ~/.roo/cli-debug.log                      cli_debug_log, credential_present (timed by each entry, not the mtime)
//   ~/.vscode-mock/global-storage/secrets.json credential_present, provider_profile
//   settings/mcp_settings.json, .roo/mcp.json  mcp_server, mcp_always_allow, credential_present
//   ~/.roo/cli-history.json                   cli_history (emitted by the caller, see below)
//
// Every parser is pure (bytes and a ParseContext in, rows out through ctx.sink) and never throws. Rows are role
// "system" and keep the identity the caller's ctx gives (these files belong to no task). Unless said otherwise a
// row's time is the source file's mtime (time_source "file.mtime"; none when the file has none): a store records
// no time for its settings, and the mtime is when the file, so the last of its settings, was written.
//
// Secrets: no credential value is ever written — not in text, fields or native, not even a prefix or a length. A
// credential_present row names the key and where it is; it has no native. Other rows' native (--native) is only
// the key and value the row states, never the whole document (it may hold secrets).
//
// Row ids: a whole-document row has no record_index, so each row gets source.part_index = its 0-based position
// among the rows of its kind from that document (document order), which keeps row ids distinct and stable.
#pragma once

#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "core/parsers/parsers.h"

namespace roo {

// The taskHistory of a global state (legacy; docs/roo-format.md §5, §7.1): its HistoryItems for the caller, which makes
// their task rows (emit_task_row, known_from as it chooses). Non-object entries already gave their parser_error rows.
struct GlobalStateTask {
  HistoryItem item;
  int64_t record_index = 0;  // position in taskHistory[]
  std::string text;          // the entry as compact JSON, only with ctx.native
};
struct GlobalStateResult {
  bool read = false;  // the state was a JSON object
  std::vector<GlobalStateTask> task_history;
  ParseStats stats;
};

// The CLI's ~/.vscode-mock/global-storage/global-state.json (`where` = the file's path).
GlobalStateResult parse_global_state_file(HashingStream& in, const ParseContext& ctx);
// The same object from a VS Code state.vscdb ItemTable row; `where` names it, e.g.
// "/home/u/.config/Code/User/globalStorage/state.vscdb ItemTable RooVeterinaryInc.roo-cline". A value that is not
// an object gives `parser: <ctx.file_name> is not a JSON object` (the value is never echoed).
// The caller that reads both the mixed-case and the lower-case ItemTable key of one database should give the second
// call a different ctx.source (or record position), since both would otherwise make the same row ids.
GlobalStateResult parse_global_state(const rapidjson::Value& state, const ParseContext& ctx, const std::string& where);

// ~/.vscode-mock/workspace-storage/<hash>/workspace-state.json, or its state.vscdb row: one cloud_upload_queued row
// per roo.retryQueue request (record_index = its position), each followed by a credential_present row when its
// headers carry an Authorization value. The task id of a request is the row's task_id field; session_id stays as the
// caller's identity gives it (rows point at the identity, which must outlive the sink's hold on them).
ParseStats parse_workspace_state_file(HashingStream& in, const ParseContext& ctx);
ParseStats parse_workspace_state(const rapidjson::Value& state, const ParseContext& ctx, const std::string& where);

// ~/.roo/cli-settings.json (docs/roo-format.md §6).
ParseStats parse_cli_settings(HashingStream& in, const ParseContext& ctx);

// ~/.roo/cli-credentials.json (docs/roo-format.md §6): token and apiKeys.<provider>, as credential_present rows.
ParseStats parse_cli_credentials(HashingStream& in, const ParseContext& ctx);

// ~/.roo/cli-debug.log (docs/roo-format.md §6): one cli_debug_log row per entry, timed by the entry's ISO time
// (docs/row-contract.md "CLI debug log"); record_index = the entry's position. Secrets redacted, each named by a
// credential_present row after its entry's row.
ParseStats parse_cli_debug_log(HashingStream& in, const ParseContext& ctx);

// ~/.vscode-mock/global-storage/secrets.json (docs/roo-format.md §8), including the provider profiles inside
// roo_cline_config_api_config.
ParseStats parse_cli_secrets(HashingStream& in, const ParseContext& ctx);

// settings/mcp_settings.json, legacy cline_mcp_settings.json, a project's .roo/mcp.json (docs/roo-format.md §7.3).
ParseStats parse_mcp_settings(HashingStream& in, const ParseContext& ctx);

// ~/.roo/cli-history.json, {version:1, entries:[string…]} (docs/roo-format.md §6). Returns the string entries; a
// non-string entry, an unparseable one and a cut file give their parser_error rows here ("Bad-line rows": the entries
// before a cut are kept). The caller keeps an entry only when no task has a user row with the same text ("Past-use
// rows and secondary sources", both docs/row-contract.md) and emits it with emit_cli_history_row.
struct CliHistoryEntry {
  int64_t record_index = 0;  // position in entries[]
  std::string text;
  uint64_t byte_offset = 0, byte_length = 0;  // of the entry's JSON string in the file
  std::string raw;                            // the entry's JSON text, for --native
};
struct CliHistory {
  std::vector<CliHistoryEntry> entries;
  ParseStats stats;
};
CliHistory parse_cli_history(HashingStream& in, const ParseContext& ctx);
// kind cli_history, role user, text = the entry, no time (the file records none), record_index = its position.
void emit_cli_history_row(const CliHistoryEntry& entry, const ParseContext& ctx);

}  // namespace roo
