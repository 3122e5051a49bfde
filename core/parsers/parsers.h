// One parser per Roo file kind. Each is pure: bytes (a HashingStream) and a ParseContext in, rows out through
// ctx.sink. None throws on bad input: every good record gives its rows and every bad one a parser_error row.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/parsers/parse_context.h"

namespace roo {

// packages/types/src/history.ts HistoryItem (docs/roo-format.md §5). Absent fields stay absent.
struct HistoryItem {
  std::optional<std::string> id, root_task_id, parent_task_id, task, workspace, mode, api_config_name, status;
  std::optional<std::string> delegated_to_id, awaiting_child_id, completed_by_child_id;
  std::vector<std::string> child_ids;
  std::optional<int64_t> number, ts, tokens_in, tokens_out, cache_writes, cache_reads, size;
  std::optional<double> total_cost;
};
HistoryItem history_item_from_json(const rapidjson::Value& obj);

// tasks/<id>/history_item.json: one object. Returns the item when the file held one; *text gets the document.
std::optional<HistoryItem> parse_history_item_file(HashingStream& in, const ParseContext& ctx,
                                                   std::string* text = nullptr);

// The `task` row of a task, from its HistoryItem. known_from is "history_item", "index" or "global_state" (a legacy
// taskHistory entry); the row is timed by <known_from>.ts. rec is the index
// entry's position (none for a whole history_item.json, whose text is then given as document_text).
// It is followed by its permission_mode row (docs/row-contract.md "Mode") and subtask_link rows; task_dirs (the task
// directories of the same root) says whether each linked task's directory is there.
void emit_task_row(const HistoryItem& item, const ParseContext& ctx, const char* known_from, bool task_dir_present,
                   const JsonRecord* rec, const std::set<std::string>& task_dirs,
                   const std::string* document_text = nullptr);

// The format of a task id and the time it embeds (docs/roo-format.md §2.10): a UUIDv7's first 48 bits, or a 13-digit
// epoch-ms id of releases up to v3.1.5.
struct TaskIdTime {
  std::string format;  // uuidv7 | uuidv4 | uuid | epoch_ms | other
  std::optional<int64_t> ms;
};
TaskIdTime task_id_time(std::string_view id);

// tasks/_index.json: {version, updatedAt, entries: HistoryItem[]} (docs/roo-format.md §2.9).
struct IndexEntry {
  HistoryItem item;
  int64_t record_index = 0;  // position in entries[]; byte offsets are not tracked inside a whole-document parse
  std::string text;          // verbatim entry, for --native
};
// Reads the entries (emitting parser_error rows for bad ones); rows for them are emitted later by the caller,
// which knows which task dirs exist.
std::vector<IndexEntry> parse_task_index(HashingStream& in, const ParseContext& ctx);

// What a task's api history holds that ui records repeat, as digests: its texts (user words, assistant prose,
// reasoning, attempt_completion results, feedback inside tool results), the command lines it ran and the
// follow-up questions it asked. A ui record with the same text is the same fact.
class ConversationTexts {
 public:
  enum class Kind : char { text = 't', command = 'c', question = 'q' };
  void add(std::string_view text, Kind kind = Kind::text);
  bool contains(std::string_view text, Kind kind = Kind::text) const;
  bool empty() const { return digests_.empty(); }
  void merge(const ConversationTexts& other) { digests_.insert(other.digests_.begin(), other.digests_.end()); }

 private:
  std::set<std::string> digests_;
};

// api_conversation_history.json (or legacy claude_messages.json): the conversation (docs/roo-format.md §3).
// texts, when given, collects what ui records may be folded against.
ParseStats parse_api_history(HashingStream& in, const ParseContext& ctx, ConversationTexts* texts = nullptr);

// ui_messages.json (docs/roo-format.md §2.3). A conversation record (prompt, prose, reasoning, feedback, completion)
// whose text the api history also holds is the same fact and is folded (counted, not re-emitted); one the api
// history lacks — e.g. the completion of a print-mode run that ended before its last api write (docs/roo-format.md
// §11 item 1) — becomes its own row. api_texts is null when the task has no readable api history.
ParseStats parse_ui_messages(HashingStream& in, const ParseContext& ctx, const ConversationTexts* api_texts);

// The ui records of a ui_messages.json that time api rows (UiTurnTimes: the turns that time untimed api records,
// the records of the user's words); read without rows.
UiTurnTimes read_ui_turn_times(HashingStream& in);
// Whether the first record of an api history carries a ts (false too when the file has no record).
bool api_history_first_record_timed(HashingStream& in);
// The working directory the first <environment_details> of an api history names ("# Current Working Directory
// (<cwd>) Files" up to v3.11, "# Current Workspace Directory (<cwd>) Files" from v3.12; getEnvironmentDetails).
std::optional<std::string> api_history_first_workspace_dir(HashingStream& in);

// task_metadata.json: files_in_context[] (docs/roo-format.md §2.6).
ParseStats parse_task_metadata(HashingStream& in, const ParseContext& ctx);

// An editor's extensions/extensions.json: one installation row per Roo Code entry, timed by
// metadata.installedTimestamp. Other extensions give no row.
ParseStats parse_extensions_manifest(HashingStream& in, const ParseContext& ctx);
// An editor's extensions/rooveterinaryinc.roo-cline-<version>/ folder (ctx.source is the folder): one installation
// row, timed by the folder's creation time.
void emit_extension_dir_row(const ParseContext& ctx);

// tasks/<id>/command-output/cmd-<executionId>.txt (docs/roo-format.md §2.7): one command_output row holding the whole
// output, timed by the execution id (the ts of the command's ui ask).
ParseStats parse_command_output(HashingStream& in, const ParseContext& ctx);

// Envelope helpers (docs/roo-format.md §3.2, §4): the user's words inside <task>/<user_message>.
std::string unwrap_user_text(std::string_view text);
// The same, as a view into text.
std::string_view unwrapped_user_text(std::string_view text);

}  // namespace roo
