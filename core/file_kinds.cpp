#include "core/file_kinds.h"

#include "core/catalog.h"
#include "core/parsers/parsers.h"
#include "core/text_util.h"

namespace roo {

namespace {

ParseStats read_api_history(HashingStream& in, const ParseContext& ctx, const ConversationTexts*) {
  return parse_api_history(in, ctx);
}
ParseStats read_ui_messages(HashingStream& in, const ParseContext& ctx, const ConversationTexts* api_texts) {
  return parse_ui_messages(in, ctx, api_texts);
}
ParseStats read_task_metadata(HashingStream& in, const ParseContext& ctx, const ConversationTexts*) {
  return parse_task_metadata(in, ctx);
}
ParseStats read_command_output(HashingStream& in, const ParseContext& ctx, const ConversationTexts*) {
  return parse_command_output(in, ctx);
}

std::vector<FileKind> build_file_kinds() {
  const std::vector<std::string_view> api_rows = {
      "user_message", "assistant_message", "reasoning",       "tool_call",    "tool_result",
      "command",      "file_edit",         "file_read",       "environment",  "context_truncation",
      "condense_summary", "retry_prompt",  "mistake_guidance", "task_resumption", "permission_decision",
      "subtask_link", "mentioned_content"};
  // history_disagreement: an index entry that differs from the task's history_item.json (docs/row-contract.md
  // "Disagreeing reports").
  const std::vector<std::string_view> task_rows = {"task", "permission_mode", "subtask_link", "history_disagreement"};
  // Sniffing goes in this order: the first row whose opening bytes match decides.
  return {
      {TaskFileKind::ui_messages,
       FilePlace::task_dir,
       "ui_messages.json",
       {{R"([{"ts":)"}, {R"("type":"say")", R"("type":"ask")"}, {}},
       true,
       true,
       read_ui_messages,
       true,
       "ui_messages",
       {"ui_event", "api_request", "user_message", "assistant_message", "reasoning", "approval_request",
        "permission_decision", "command", "followup_question", "command_output", "checkpoint", "condense",
        "context_truncation", "user_edit", "ui_error", "ui_warning", "api_retry", "task_resumed", "subtask_result",
        "completion_prompt", "mcp_request", "mcp_response", "codebase_search_result", "todo_edit", "ui_image",
        "ui_tool", "browser_action", "browser_result"}},
      {TaskFileKind::api_history,
       FilePlace::task_dir,
       "api_conversation_history.json",
       {{R"([{"role":"user")", R"([{"role":"assistant")"}, {}, {}},
       true,
       true,
       read_api_history,
       true,
       "api_history",
       api_rows},
      // The Claude Dev name of the api history (docs/roo-format.md §2.1): the same bytes, so sniffed as api_history.
      {TaskFileKind::legacy_claude_messages, FilePlace::task_dir, "claude_messages.json", {}, true, true,
       read_api_history, true, "api_history", api_rows},
      {TaskFileKind::history_item,
       FilePlace::task_dir,
       "history_item.json",
       {{R"({"id":")"}, {}, {R"("ts":)", R"("task":)"}},
       true,
       false,
       nullptr,
       true,
       "history_item",
       task_rows},
      {TaskFileKind::task_metadata,
       FilePlace::task_dir,
       "task_metadata.json",
       {{R"({"files_in_context":)"}, {}, {}},
       true,
       false,
       read_task_metadata,
       false,
       "task_metadata",
       {"file_context"}},
      {TaskFileKind::unknown,
       FilePlace::tasks_dir,
       kTaskIndexFile,
       {{R"({"version":1,)"}, {}, {R"("entries":)"}},
       true,
       false,
       nullptr,
       false,
       "task_index",
       task_rows},
      {TaskFileKind::unknown, FilePlace::command_output_dir, "cmd-*.txt", {}, false, false, read_command_output,
       false, "command_output", {"command_output"}},
  };
}

bool sniff_matches(const Sniff& s, std::string_view b) {
  auto has = [&](std::string_view x) { return b.find(x) != std::string_view::npos; };
  bool start = false;
  for (std::string_view p : s.starts) start = start || starts_with(b, p);
  if (!start) return false;
  if (!s.any_of.empty()) {
    bool any = false;
    for (std::string_view x : s.any_of) any = any || has(x);
    if (!any) return false;
  }
  for (std::string_view x : s.all_of)
    if (!has(x)) return false;
  return true;
}

}  // namespace

const std::vector<FileKind>& file_kinds() {
  static const std::vector<FileKind> kinds = build_file_kinds();
  return kinds;
}

const FileKind& file_kind(TaskFileKind kind) {
  for (const FileKind& k : file_kinds())
    if (k.kind == kind && k.place == FilePlace::task_dir) return k;
  static const FileKind unknown{TaskFileKind::unknown, FilePlace::task_dir, "unknown", {}, false, false, nullptr,
                                false, "unknown", {}};
  return unknown;
}

const FileKind& task_index_kind() { return *file_kind_named(kTaskIndexFile, FilePlace::tasks_dir); }

const FileKind& command_output_kind() {
  for (const FileKind& k : file_kinds())
    if (k.place == FilePlace::command_output_dir) return k;
  return file_kind(TaskFileKind::unknown);
}

bool file_kind_name_matches(const FileKind& kind, std::string_view name) {
  const size_t star = kind.name.find('*');
  if (star == std::string_view::npos) return name == kind.name;
  const std::string_view prefix = kind.name.substr(0, star), suffix = kind.name.substr(star + 1);
  return name.size() > prefix.size() + suffix.size() && name.substr(0, prefix.size()) == prefix &&
         name.substr(name.size() - suffix.size()) == suffix;
}

const FileKind* file_kind_named(std::string_view name, FilePlace place) {
  for (const FileKind& k : file_kinds())
    if (k.place == place && file_kind_name_matches(k, name)) return &k;
  return nullptr;
}

const FileKind* file_kind_sniffed(std::string_view opening) {
  for (const FileKind& k : file_kinds())
    if (k.orphans && !k.sniff.starts.empty() && sniff_matches(k.sniff, opening)) return &k;
  return nullptr;
}

TaskFileKind task_file_kind(std::string_view name) {
  const FileKind* k = file_kind_named(name, FilePlace::task_dir);
  return k ? k->kind : TaskFileKind::unknown;
}

bool is_command_output_file(std::string_view name) {
  const FileKind* k = file_kind_named(name, FilePlace::command_output_dir);
  return k != nullptr;
}

}  // namespace roo
