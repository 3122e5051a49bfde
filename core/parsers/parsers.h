// One parser per Roo file kind. Each is pure: bytes (a HashingStream) and a ParseContext in, rows out through
// ctx.sink. None throws on bad input: every good record gives its rows and every bad one a parser_error row.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/parsers/parse_context.h"

namespace roo {

// packages/types/src/history.ts HistoryItem (roo-format.md §5). Absent fields stay absent.
struct HistoryItem {
  std::optional<std::string> id, root_task_id, parent_task_id, task, workspace, mode, api_config_name, status;
  std::optional<int64_t> number, ts, tokens_in, tokens_out, cache_writes, cache_reads, size;
  std::optional<double> total_cost;
};
HistoryItem history_item_from_json(const rapidjson::Value& obj);

// tasks/<id>/history_item.json: one object. Returns the item when the file held one.
std::optional<HistoryItem> parse_history_item_file(HashingStream& in, const ParseContext& ctx);

// The `task` row of a task, from its HistoryItem. known_from is "history_item" or "index".
void emit_task_row(const HistoryItem& item, const ParseContext& ctx, const char* known_from, bool task_dir_present,
                   const JsonRecord* rec);

// tasks/_index.json: {version, updatedAt, entries: HistoryItem[]} (roo-format.md §2.9).
struct IndexEntry {
  HistoryItem item;
  int64_t record_index = 0;  // position in entries[]; byte offsets are not tracked inside a whole-document parse
  std::string text;          // verbatim entry, for --native
};
// Reads the entries (emitting parser_error rows for bad ones); rows for them are emitted later by the caller,
// which knows which task dirs exist.
std::vector<IndexEntry> parse_task_index(HashingStream& in, const ParseContext& ctx);

// api_conversation_history.json (or legacy claude_messages.json): the conversation (roo-format.md §3).
ParseStats parse_api_history(HashingStream& in, const ParseContext& ctx);

// ui_messages.json (roo-format.md §2.3). With has_api_history the ui's conversation records (prompt, prose,
// reasoning, feedback, completion) are the same facts as the api rows and are folded, not re-emitted.
ParseStats parse_ui_messages(HashingStream& in, const ParseContext& ctx, bool has_api_history);

// task_metadata.json: files_in_context[] (roo-format.md §2.6).
ParseStats parse_task_metadata(HashingStream& in, const ParseContext& ctx);

// Envelope helpers (seed 001; roo-format.md §3.2, §4): the user's words inside <task>/<user_message>.
std::string unwrap_user_text(std::string_view text);
bool is_environment_details(std::string_view text);

}  // namespace roo
