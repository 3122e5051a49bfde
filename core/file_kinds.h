// The table of Roo file kinds: per kind the name Roo gives its files and where they sit, the opening bytes an
// orphan of the kind is told by, whether it is a JSON array of records, what parses it, its kind in report.json and
// the row kinds its parser may give. Discovery, orphan sniffing and the report read this table; adding a file kind
// is one row here plus its parser file and its test file (docs/architecture.md, "How to add a Roo file kind").
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace roo {

class HashingStream;
struct ParseContext;
struct ParseStats;
class ConversationTexts;

// The files of a task directory, by kind (docs/roo-format.md §2.1). unknown: any other name.
enum class TaskFileKind { ui_messages, api_history, legacy_claude_messages, history_item, task_metadata, unknown };

// Where the files of a kind sit in a Roo root.
enum class FilePlace {
  task_dir,            // tasks/<id>/<name>
  tasks_dir,           // tasks/<name> (the index)
  command_output_dir,  // tasks/<id>/command-output/<name>
};

// The opening bytes Roo's compact JSON.stringify writes for a kind (docs/roo-format.md §2.1–§2.9): a file is of the
// kind when it starts with one of `starts`, holds one of `any_of` (when there are any) and every one of `all_of`. A
// kind with no `starts` is never told by its bytes.
struct Sniff {
  std::vector<std::string_view> starts, any_of, all_of;
};

// A parser entry point of the table. api_texts: what the task's api history holds, for the kinds that fold against
// it (ui_messages); the others ignore it.
using FileParser = ParseStats (*)(HashingStream& in, const ParseContext& ctx, const ConversationTexts* api_texts);

struct FileKind {
  TaskFileKind kind;  // unknown for a file that is not one of a task directory's own (the index, command outputs)
  FilePlace place;
  // The name Roo writes; "prefix*suffix" matches every name with that prefix and suffix and at least one byte
  // between them.
  std::string_view name;
  Sniff sniff;
  bool orphans;   // an orphan file (its directory gone) so named, or so sniffed, is read as this kind (--deep)
  bool is_array;  // a JSON array of records: a version's records are folded against the live file's by digest
  // Reads a file of the kind on its own; null for the kinds whose rows need what only their task knows (the task
  // row of history_item.json, the index's entries), which core/task_assembly.cpp reads itself.
  FileParser parse;
  // The task's joins read these first, in table order (a ui file needs its api file's answers); the others of
  // FilePlace::task_dir are read after them, in table order.
  bool joined;
  const char* report_kind;                  // report.json files[].kind
  std::vector<std::string_view> row_kinds;  // what its parser may give, parser_error aside (docs/row-contract.md)
};

// Every kind, in the order files are sniffed.
const std::vector<FileKind>& file_kinds();
// The kind of a task directory's own file.
const FileKind& file_kind(TaskFileKind kind);
// The index's row (tasks/_index.json).
const FileKind& task_index_kind();
// The command outputs' row (tasks/<id>/command-output/cmd-*.txt).
const FileKind& command_output_kind();
// The row whose name matches file_name in place, if any.
const FileKind* file_kind_named(std::string_view file_name, FilePlace place);
// The first row whose sniff the opening bytes pass, if any.
const FileKind* file_kind_sniffed(std::string_view opening);
// Whether file_name matches a row's name (exactly, or as "prefix*suffix").
bool file_kind_name_matches(const FileKind& kind, std::string_view file_name);

// A task directory's own file kind by name; unknown for any other name.
TaskFileKind task_file_kind(std::string_view file_name);
// tasks/<id>/command-output/cmd-<executionId>.txt: a command's whole output when it exceeded the preview
// (docs/roo-format.md §2.7).
bool is_command_output_file(std::string_view file_name);

}  // namespace roo
