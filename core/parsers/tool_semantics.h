// What a tool call and its result say, read out of their recorded text (docs/roo-format.md §3.3–§3.4).
// Pure functions on strings and RapidJSON values: no rows, no I/O. The transcript parsers turn their answers into
// command / file_edit / file_read / permission_decision rows.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roo::tools {

// ---- execute_command results (docs/roo-format.md §3.4, ExecuteCommandTool.ts; docs/row-contract.md "Exit codes") ----
struct CommandOutcome {
  // exited | signal | exit_code_undefined | still_running | backgrounded | timeout | bad_cwd |
  // shell_integration_error | unrecognised, and two more: cancelled ("The command was cancelled by the user.",
  // ExecuteCommandTool.ts) and exited_code_not_reported (Cline heritage "Command executed." texts, which name no code).
  std::string status;
  std::optional<int64_t> exit_code;           // only when the text states a number ("Exit code: N")
  std::optional<std::string> signal;          // "SIGKILL" from "Process terminated by signal SIGKILL"
  bool core_dump_possible = false;            // " - core dump possible"
  bool reported_unsuccessful = false;         // the "Command execution was not successful…" prefix was there
  std::optional<std::string> cwd;             // the working directory the text names
  std::optional<std::string> output;          // text after "Output:\n" (or the "Preview:\n" of a persisted output)
  std::optional<std::string> artifact_id;     // "cmd-1760000000000.txt" of "Artifact ID: …"
  std::optional<std::string> persisted_size;  // "164.9KB" of "Output (164.9KB) persisted."
  std::optional<int64_t> timeout_seconds;     // "exceeding a user-configured 30s timeout"
  std::optional<std::string> user_message;    // the <user_message> typed while the command ran
};
// nullopt when the text is not an execute_command result at all (e.g. a denial JSON, which the caller handles).
std::optional<CommandOutcome> parse_command_result(std::string_view text);

// ---- Status JSON opening a tool result (docs/roo-format.md §3.4; docs/row-contract.md "Permission rows") ----
struct ResultStatus {
  std::string status;  // "denied" | "approved" | "error" | "guidance" | any other recorded value
  std::optional<std::string> message, feedback, error, type, path, suggestion;
  std::string rest;    // what follows the JSON (after the blank line of an approval): the tool's own output
};
// A result text whose first JSON value is an object with a string "status". Only the first value is read.
std::optional<ResultStatus> parse_result_status(std::string_view text);

// The result JSON of a write/edit (DiffViewProvider): {"path","operation":"created"|"modified","notice",
// "user_edits"?,"problems"?}, possibly followed by a <notice>… suffix.
struct EditResult {
  std::optional<std::string> path, operation, user_edits, problems;
};
std::optional<EditResult> parse_edit_result(std::string_view text);

// "Skipping tool [<desc>] due to user rejecting a previous tool." / "Tool [<desc>] was interrupted and not executed
// due to user rejecting a previous tool." / "Skipping MCP tool <name> due to user rejecting a previous tool."
// (presentAssistantMessage.ts:114-116, 393-403).
struct SkippedTool {
  std::string reason;       // "skipped_after_rejection" | "interrupted_after_rejection"
  std::string description;  // "execute_command for 'ls'" or the MCP tool name
};
std::optional<SkippedTool> parse_skipped_tool(std::string_view text);

// ---- Failures told in Roo's words (docs/row-contract.md "outcome") ----
// A result text that opens with one of the sentences Roo's tools write when they fail, outside the status JSON and
// the XML era's toolError text: the sentence as the table in tool_semantics.cpp has it ("Unable to apply diff to
// file", "Error"), or nothing. `native` says the result is a tool_result block; the bare "Error…" openings are read
// only there (an XML-era result's text is the tool's output, which may start with anything).
std::optional<std::string_view> failure_form(std::string_view text, bool native);

// ---- Edits (docs/roo-format.md §3.3; docs/row-contract.md "Edits and reads") ----
struct EditHunk {
  std::optional<std::string> old_text;  // replaced side, when the call records it
  std::optional<std::string> new_text;  // written side
  std::optional<int64_t> start_line;    // ":start_line:N" of a SEARCH block, or insert_content's line
};
struct FileEdit {
  std::string path;             // as recorded (relative or absolute)
  std::string form;             // search_replace_blocks | old_new_string | search_replace | regex_replace |
                                // whole_file | insert | patch_add | patch_update | patch_delete
  std::vector<EditHunk> hunks;  // empty for regex_replace (use_regex records neither side) and patch_delete
  std::optional<bool> replace_all;
  std::optional<int64_t> expected_replacements;
  std::optional<std::string> move_to;  // apply_patch "*** Move to:"
  int64_t unterminated_blocks = 0;     // SEARCH blocks whose closing marker never arrived: recorded nothing
};
// The files an edit tool call changes, one entry per file, in order of appearance. Tool names: apply_diff
// (SEARCH/REPLACE blocks in `diff`, several per diff), replace_in_file (legacy, same blocks), search_and_replace
// (search/replace; use_regex → regex_replace with no sides; legacy operations[] → one hunk each; or edit's
// file_path/old_string/new_string, since it is edit's alias), edit / search_replace / edit_file
// (file_path, old_string, new_string; replace_all; expected_replacements), write_to_file / write_file (content),
// insert_content (content, line), apply_patch (patch body; one entry per file, one hunk per @@ section whose old side
// is its context and - lines and whose new side is its context and + lines, so each side is a contiguous span).
// Empty for any other tool or a call whose input lacks the path.
std::vector<FileEdit> file_edits(std::string_view tool_name, const rapidjson::Value& input);

// ---- Reads ----
struct FileRead {
  std::string path;
  std::optional<std::string> line_ranges;  // "1-50,80-90" from legacy line_ranges ([[1,50]], [{start,end}], ["1-50"])
  std::optional<std::string> mode;         // slice | indentation
  std::optional<int64_t> offset, limit;
};
// read_file in the new form ({path, mode, offset, limit}) and the legacy files:[{path, line_ranges}] form, also
// when `files` is a JSON string (NativeToolCallParser.ts:331-365). One entry per path. Empty for other tools.
std::vector<FileRead> file_reads(std::string_view tool_name, const rapidjson::Value& input);

// ---- Names ----
struct McpName {
  std::string server, tool;
};
// "mcp--server--tool" (models may also send "mcp__server__tool"); src/utils/mcp-name.ts.
std::optional<McpName> split_mcp_tool_name(std::string_view name);

}  // namespace roo::tools
