#include "core/parsers/tool_semantics.h"

#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/json_records.h"

// A table row names only the fields its case checks (C++20 designated initializers); the others stay "not checked".
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace roo::tools {
namespace {

// The tables below hold one case per row: its input, and what each field must be. A field a row does not name is
// not checked; kAbsent says it must be unset, kPresent that it must be set (to anything).
struct Absent {};
constexpr Absent kAbsent;
struct Present {};
constexpr Present kPresent;

template <class T>
struct Want {
  enum class Kind { unchecked, absent, present, equals };
  Kind kind = Kind::unchecked;
  T value{};
  Want() = default;
  Want(Absent) : kind(Kind::absent) {}
  Want(Present) : kind(Kind::present) {}
  template <class U>
    requires std::is_constructible_v<T, U>
  Want(U&& v) : kind(Kind::equals), value(std::forward<U>(v)) {}
};

template <class>
constexpr bool kIsOptional = false;
template <class T>
constexpr bool kIsOptional<std::optional<T>> = true;

template <class T, class U>
void check(const char* field, const Want<T>& want, const U& got) {
  using Kind = typename Want<T>::Kind;
  if (want.kind == Kind::equals) {
    EXPECT_EQ(got, want.value) << field;
  } else if constexpr (kIsOptional<U>) {
    if (want.kind == Kind::absent) {
      EXPECT_FALSE(got) << field;
    } else if (want.kind == Kind::present) {
      EXPECT_TRUE(got) << field;
    }
  } else if (want.kind != Kind::unchecked) {
    ADD_FAILURE() << field << " is not optional";
  }
}

template <class Case>
std::string case_name(const testing::TestParamInfo<Case>& info) {
  return info.param.name;
}

// A failing case is named by its name, not by its bytes.
template <class Case>
  requires requires(const Case& c) { c.name; }
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

// ---- execute_command results (docs/roo-format.md §3.4; ExecuteCommandTool.ts line numbers at cb83656) ----

struct CommandCase {
  const char* name;
  std::string_view text;
  Want<std::string> status;
  Want<int64_t> exit_code;
  Want<std::string> signal;
  Want<bool> core_dump_possible;
  Want<bool> reported_unsuccessful;
  Want<std::string> cwd, output, artifact_id, persisted_size;
  Want<int64_t> timeout_seconds;
  Want<std::string> user_message;
};

const CommandCase kCommandCases[] = {
    {.name = "ExitCodeZero_roo_format_3_4",
     .text = "Command executed in terminal within working directory '/home/alice/proj'. Exit code: 0\nOutput:\n4 passed",
     .status = "exited",
     .exit_code = 0,
     .reported_unsuccessful = false,
     .cwd = "/home/alice/proj",
     .output = "4 passed"},
    // Found by fuzz_tool_semantics: a header cut right after the marker's own quote names no directory (it once read
    // the marker's quote as the closing one and took a cwd of size -1). The rest is read as usual.
    {.name = "MarkerWithoutDirectoryGivesNoCwd_roo_format_3_4",
     .text = "Command executed in terminal within working directory '. Exit code: 0\nOutput:\nx",
     .status = "exited",
     .exit_code = 0,
     .cwd = kAbsent,
     .output = "x"},
    // A failure puts "Command execution was not successful, …" there and the code on the next line.
    {.name = "NonZeroExitCodeAfterUnsuccessfulLine_roo_format_3_4",
     .text = "Command executed in terminal within working directory '/home/alice/proj'. Command execution was not "
             "successful, inspect the cause and adjust as needed.\nExit code: 1\nOutput:\nFound 1 error.",
     .status = "exited",
     .exit_code = 1,
     .reported_unsuccessful = true,
     .cwd = "/home/alice/proj",
     .output = "Found 1 error."},
    {.name = "NegativeExitCodeIsKept_roo_format_3_4",
     .text = "Command executed in terminal within working directory '/p'. Command execution was not successful, "
             "inspect the cause and adjust as needed.\nExit code: -1\nOutput:\n",
     .exit_code = -1,
     .output = ""},
    {.name = "SignalHasNoExitCode_roo_format_3_4",
     .text = "Command executed in terminal within working directory '/p'. Process terminated by signal "
             "SIGKILL\nOutput:\nx",
     .status = "signal",
     .exit_code = kAbsent,
     .signal = "SIGKILL",
     .core_dump_possible = false,
     .output = "x"},
    {.name = "SignalWithCoreDumpPossible_roo_format_3_4",
     .text = "Command executed in terminal within working directory '/p'. Process terminated by signal SIGSEGV - core "
             "dump possible\nOutput:\nSegmentation fault",
     .status = "signal",
     .exit_code = kAbsent,
     .signal = "SIGSEGV",
     .core_dump_possible = true,
     .output = "Segmentation fault"},
    // v3.1x wrote the number and the name: "Process terminated by signal 9 (SIGKILL)".
    {.name = "OldSignalFormGivesTheName_v3_1x",
     .text = "Command executed in terminal  within working directory '/p'. Process terminated by signal 9 "
             "(SIGKILL)\nOutput:\n",
     .status = "signal",
     .exit_code = kAbsent,
     .signal = "SIGKILL"},
    {.name = "UndefinedExitCodeIsNotInvented_roo_format_3_4",
     .text = "Command executed in terminal within working directory '/p'. Exit code: <undefined, notify user>\nOutput:\n"
             "out<VSCE exit code is undefined: terminal output and command execution status is unknown.>",
     .status = "exit_code_undefined",
     .exit_code = kAbsent,
     .output = "out<VSCE exit code is undefined: terminal output and command execution status is unknown.>"},
    {.name = "StillRunningWithUserMessage_roo_format_3_4",
     .text = "Command is still running in terminal from '/home/alice/proj'.\nHere's the output so far:\nserving on "
             ":3000\n\n<user_message>\nlooks good, stop it\n</user_message>",
     .status = "still_running",
     .exit_code = kAbsent,
     .cwd = "/home/alice/proj",
     .output = "serving on :3000",
     .user_message = "looks good, stop it"},
    {.name = "StillRunningWithoutOutput_roo_format_3_4",
     .text = "Command is still running in terminal from '/p'.\n\n\n<user_message>\nwait\n</user_message>",
     .status = "still_running",
     .output = kAbsent,
     .user_message = "wait"},
    {.name = "BackgroundedHasDoubleSpace_roo_format_3_4",
     .text = "Command is still running in terminal  from '/p'.\nHere's the output so far:\nwatching…\n\nYou will be "
             "updated on the terminal status and new output in the future.",
     .status = "backgrounded",
     .cwd = "/p",
     .output = "watching…",
     .user_message = kAbsent},
    // Cline heritage: "Command is still running in the user's terminal." with <feedback>.
    {.name = "ClineStillRunningWithFeedback_cline_heritage",
     .text = "Command is still running in the user's terminal.\nHere's the output so far:\nok\n\nThe user provided the "
             "following feedback:\n<feedback>\nfine\n</feedback>",
     .status = "still_running",
     .cwd = kAbsent,
     .output = "ok",
     .user_message = "fine"},
    {.name = "TimeoutGivesSeconds_roo_format_3_4",
     .text = "The command was terminated after exceeding a user-configured 30s timeout. Do not try to re-run the "
             "command.",
     .status = "timeout",
     .exit_code = kAbsent,
     .output = kAbsent,
     .timeout_seconds = 30},
    {.name = "TimeoutWithOutputAround_roo_format_3_4",
     .text = "partial line\nThe command was terminated after exceeding a user-configured 5s timeout. Do not try to "
             "re-run the command.\n",
     .status = "timeout",
     .output = "partial line",
     .timeout_seconds = 5},
    {.name = "BadCwd_roo_format_3_4",
     .text = "Working directory '/nope/dir' does not exist.",
     .status = "bad_cwd",
     .cwd = "/nope/dir"},
    {.name = "ShellIntegrationError_roo_format_3_4",
     .text = "Command failed to execute in terminal due to a shell integration error.",
     .status = "shell_integration_error",
     .exit_code = kAbsent},
    {.name = "CancelledByUser_ExecuteCommandTool",
     .text = "The command was cancelled by the user.",
     .status = "cancelled"},
    {.name = "PersistedOutputUsesPreview_roo_format_3_4",
     .text = "Command executed in '/home/alice/proj'. Command execution was not successful, inspect the cause and "
             "adjust as needed.\nExit code: 2\n\nOutput (164.9KB) persisted. Artifact ID: cmd-1760000000000.txt\n\n"
             "Preview:\nline 1\nline 2\n\nUse read_command_output tool to view full output if needed.",
     .status = "exited",
     .exit_code = 2,
     .reported_unsuccessful = true,
     .cwd = "/home/alice/proj",
     .output = "line 1\nline 2",
     .artifact_id = "cmd-1760000000000.txt",
     .persisted_size = "164.9KB"},
    {.name = "WindowsCwdRoundTrips_roo_format_3_4",
     .text = "Command executed in terminal within working directory 'C:\\Users\\bob\\src'. Exit code: 0\nOutput:\nok",
     .exit_code = 0,
     .cwd = "C:\\Users\\bob\\src"},
    {.name = "WindowsCwdRoundTripsInBadCwd_roo_format_3_4",
     .text = "Working directory 'C:\\Users\\bob\\gone' does not exist.",
     .cwd = "C:\\Users\\bob\\gone"},
    // A cwd may hold ". " and "'": the status is found after the ". " that a status follows.
    {.name = "CwdWithDotSpaceAndQuote_roo_format_3_4",
     .text = "Command executed in terminal within working directory '/tmp/it's. odd'. Exit code: 3\nOutput:\n",
     .exit_code = 3,
     .cwd = "/tmp/it's. odd"},
    // Older XML-era (v3.2x) results share the current text; v3.1x had a doubled space or the terminal id.
    {.name = "XmlEraFormsAreTheSame_v3_2x",
     .text = "Command executed in terminal 1 within working directory '/w'. Exit code: 0\nOutput:\nhi",
     .status = "exited",
     .cwd = "/w",
     .output = "hi"},
    {.name = "ClineCommandExecutedReportsNoCode_cline_heritage",
     .text = "Command executed.\nOutput:\nhello",
     .status = "exited_code_not_reported",
     .exit_code = kAbsent,
     .output = "hello"},
    {.name = "ClineCommandExecutedBareReportsNoCode_cline_heritage",
     .text = "Command executed.",
     .status = "exited_code_not_reported",
     .output = kAbsent},
    {.name = "UnknownStatusIsUnrecognisedNotInvented_roo_format_3_4",
     .text = "Command executed in terminal within working directory '/p'. Exit code: maybe\nOutput:\nzzz",
     .status = "unrecognised",
     .exit_code = kAbsent,
     .output = "zzz"},
    {.name = "UnknownTextIsUnrecognisedNotInvented_roo_format_3_4",
     .text = "Command rejected by policy",
     .status = "unrecognised"},
};

class CommandResultTable : public testing::TestWithParam<CommandCase> {};

TEST_P(CommandResultTable, Reads) {
  const CommandCase& c = GetParam();
  auto r = parse_command_result(c.text);
  ASSERT_TRUE(r);
  check("status", c.status, r->status);
  check("exit_code", c.exit_code, r->exit_code);
  check("signal", c.signal, r->signal);
  check("core_dump_possible", c.core_dump_possible, r->core_dump_possible);
  check("reported_unsuccessful", c.reported_unsuccessful, r->reported_unsuccessful);
  check("cwd", c.cwd, r->cwd);
  check("output", c.output, r->output);
  check("artifact_id", c.artifact_id, r->artifact_id);
  check("persisted_size", c.persisted_size, r->persisted_size);
  check("timeout_seconds", c.timeout_seconds, r->timeout_seconds);
  check("user_message", c.user_message, r->user_message);
}

INSTANTIATE_TEST_SUITE_P(CommandResult, CommandResultTable, testing::ValuesIn(kCommandCases),
                         case_name<CommandCase>);

TEST(CommandResult, StatusJsonIsNotACommandResult_roo_format_3_4) {
  for (std::string_view text : {R"({"status":"denied","message":"The user denied this operation."})",
                                "File: a.ts\n1 | x", ""}) {
    EXPECT_FALSE(parse_command_result(text)) << text;
  }
}

// ---- Status JSON (docs/roo-format.md §3.4, responses.ts) ----

struct StatusCase {
  const char* name;
  std::string_view text;
  Want<std::string> status, message, feedback, error, type, path, suggestion, rest;
};

const StatusCase kStatusCases[] = {
    {.name = "DeniedMessage_responses_ts_8",
     .text = R"({"status":"denied","message":"The user denied this operation."})",
     .status = "denied",
     .message = "The user denied this operation.",
     .feedback = kAbsent,
     .rest = ""},
    {.name = "DeniedWithFeedback_responses_ts_14",
     .text = R"({"status":"denied","feedback":"use pnpm, not npm"})",
     .status = "denied",
     .feedback = "use pnpm, not npm"},
    {.name = "ToolError_responses_ts_26",
     .text = "  \n{\"status\":\"error\",\"message\":\"The tool execution failed\",\"error\":\"Error executing command: "
             "{\\\"name\\\":\\\"Error\\\"}\"}",
     .status = "error",
     .message = "The tool execution failed",
     .error = "Error executing command: {\"name\":\"Error\"}"},
    {.name = "RooIgnoreAccessDenied_responses_ts_33",
     .text =
         R"({"status":"error","type":"access_denied","message":"Access blocked by .rooignore","path":".env","suggestion":"Try to continue without this file, or ask the user to update the .rooignore file"})",
     .message = "Access blocked by .rooignore",
     .type = "access_denied",
     .path = ".env",
     .suggestion = kPresent},
    {.name = "Guidance_responses_ts_57",
     .text = R"({"status":"guidance","feedback":"Try a smaller step."})",
     .status = "guidance",
     .feedback = "Try a smaller step."},
    {.name = "McpUnknownToolType_responses_ts_69",
     .text = R"({"status":"error","type":"unknown_tool","message":"Tool 'x' does not exist"})",
     .type = "unknown_tool"},
};

class ResultStatusTable : public testing::TestWithParam<StatusCase> {};

TEST_P(ResultStatusTable, Reads) {
  const StatusCase& c = GetParam();
  auto s = parse_result_status(c.text);
  ASSERT_TRUE(s);
  check("status", c.status, s->status);
  check("message", c.message, s->message);
  check("feedback", c.feedback, s->feedback);
  check("error", c.error, s->error);
  check("type", c.type, s->type);
  check("path", c.path, s->path);
  check("suggestion", c.suggestion, s->suggestion);
  check("rest", c.rest, s->rest);
}

INSTANTIATE_TEST_SUITE_P(ResultStatus, ResultStatusTable, testing::ValuesIn(kStatusCases), case_name<StatusCase>);

TEST(ResultStatus, ApprovedWithFeedbackKeepsToolOutputInRest_presentAssistantMessage_472) {
  auto s = parse_result_status(
      "{\"status\":\"approved\",\"feedback\":\"Keep the route {above} \\\"app\\\".\"}\n\n{\"path\":\"src/server.ts\","
      "\"operation\":\"modified\"}");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->status, "approved");
  EXPECT_EQ(s->feedback, "Keep the route {above} \"app\".");
  EXPECT_EQ(s->rest, R"({"path":"src/server.ts","operation":"modified"})");
  auto edit = parse_edit_result(s->rest);
  ASSERT_TRUE(edit);
  EXPECT_EQ(edit->operation, "modified");
}

TEST(ResultStatus, NotAStatus_roo_format_3_4) {
  for (std::string_view text : {R"({"path":"a","operation":"created"})", R"({"status":3})", "Command executed.",
                                R"({"status":"denied")",  // cut off
                                ""}) {
    EXPECT_FALSE(parse_result_status(text)) << text;
  }
}

// ---- Edit result JSON (DiffViewProvider.ts:313-362) ----

TEST(EditResultJson, ModifiedWithNoticeSuffix_DiffViewProvider) {
  auto e = parse_edit_result(
      R"({"path":"src/dates.py","operation":"modified","notice":"You do not need to re-read the file","user_edits":"@@ -1 +1 @@\n-a\n+b"})"
      "\n<notice>Making multiple related changes in a single apply_diff is more efficient.</notice>");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->path, "src/dates.py");
  EXPECT_EQ(e->operation, "modified");
  EXPECT_EQ(e->user_edits, "@@ -1 +1 @@\n-a\n+b");
  EXPECT_FALSE(e->problems);
}

TEST(EditResultJson, NonStringProblemsKeptAsCompactJson_DiffViewProvider) {
  auto e = parse_edit_result(R"({"path":"a.ts","operation":"created","problems": [ {"line": 3} ]})");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->problems, R"([{"line":3}])");
  EXPECT_FALSE(parse_edit_result(R"({"status":"denied"})"));
  EXPECT_FALSE(parse_edit_result("not json"));
}

// ---- Skipped tools (presentAssistantMessage.ts:114-116, 393-403) ----

struct SkippedCase {
  const char* name;
  std::string_view text;
  Want<std::string> reason, description;
};

const SkippedCase kSkippedCases[] = {
    {.name = "SkippingAfterRejection_presentAssistantMessage_393",
     .text = "Skipping tool [execute_command for 'git add src/dates.py'] due to user rejecting a previous tool.",
     .reason = "skipped_after_rejection",
     .description = "execute_command for 'git add src/dates.py'"},
    {.name = "InterruptedAfterRejection_presentAssistantMessage_400",
     .text = "Tool [read_file for 'a[1].ts'] was interrupted and not executed due to user rejecting a previous tool.",
     .reason = "interrupted_after_rejection",
     .description = "read_file for 'a[1].ts'"},
    {.name = "McpToolSkipped_presentAssistantMessage_114",
     .text = "Skipping MCP tool mcp--github--create_issue due to user rejecting a previous tool.",
     .reason = "skipped_after_rejection",
     .description = "mcp--github--create_issue"},
    {.name = "McpToolInterrupted_presentAssistantMessage_114",
     .text = "MCP tool mcp--github--create_issue was interrupted and not executed due to user rejecting a previous "
             "tool.",
     .reason = "interrupted_after_rejection"},
};

class SkippedToolTable : public testing::TestWithParam<SkippedCase> {};

TEST_P(SkippedToolTable, Reads) {
  const SkippedCase& c = GetParam();
  auto s = parse_skipped_tool(c.text);
  ASSERT_TRUE(s);
  check("reason", c.reason, s->reason);
  check("description", c.description, s->description);
}

INSTANTIATE_TEST_SUITE_P(SkippedTool, SkippedToolTable, testing::ValuesIn(kSkippedCases), case_name<SkippedCase>);

TEST(SkippedTool, OtherTextIsNotSkipped_presentAssistantMessage) {
  EXPECT_FALSE(parse_skipped_tool("Skipping tool [] due to user rejecting a previous tool."));
  EXPECT_FALSE(parse_skipped_tool("Task was interrupted before this tool call could be completed."));
}

// ---- Edits (docs/roo-format.md §3.3; docs/row-contract.md "Edits and reads") ----

rapidjson::Document json(const std::string& text) {
  rapidjson::Document doc;
  EXPECT_TRUE(parse_json(text.data(), text.size(), doc, nullptr)) << text;
  return doc;
}

struct HunkWant {
  Want<std::string> old_text, new_text;
  Want<int64_t> start_line;
};
using Hunks = std::vector<HunkWant>;

// One edited file. `hunks` unset: not checked; set: exactly these hunks, in order.
struct FileEditWant {
  Want<std::string> path, form;
  std::optional<Hunks> hunks;
  Want<bool> replace_all;
  Want<int64_t> expected_replacements;
  Want<std::string> move_to;
  Want<int64_t> unterminated_blocks;
};

struct EditCase {
  const char* name;
  std::string_view tool;
  std::string input;
  std::vector<FileEditWant> files;  // exactly these files, in order
};

const EditCase kEditCases[] = {
    {.name = "ApplyDiffTwoBlocksAndOneUnterminated_row_contract",
     .tool = "apply_diff",
     .input =
         R"({"path":"src/server.ts","diff":"<<<<<<< SEARCH\n:start_line:5\n-------\napp.listen(3000);\n=======\napp.get(\"/h\");\napp.listen(3000);\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\nconst a = 1;\n=======\nconst a = 2;\n>>>>>>> REPLACE\n<<<<<<< SEARCH\n:start_line:9\n-------\nlost\n=======\nnever closed"})",
     .files = {{.path = "src/server.ts",
                .form = "search_replace_blocks",
                .hunks = Hunks{{.old_text = "app.listen(3000);",
                                .new_text = "app.get(\"/h\");\napp.listen(3000);",
                                .start_line = 5},
                               {.old_text = "const a = 1;", .new_text = "const a = 2;", .start_line = kAbsent}},
                .unterminated_blocks = 1}}},
    // A block cut before its REPLACE marker and followed by another block: the cut one records nothing.
    {.name = "ApplyDiffBlockCutBeforeNextBlockRecordsNothing_row_contract",
     .tool = "apply_diff",
     .input = R"({"path":"a","diff":"<<<<<<< SEARCH\nx\n=======\ny\n<<<<<<< SEARCH\np\n=======\nq\n>>>>>>> REPLACE"})",
     .files = {{.hunks = Hunks{{.old_text = "p"}}, .unterminated_blocks = 1}}},
    // multi-search-replace.ts unescapes "\=======" and friends inside content; :end_line: is skipped.
    {.name = "ApplyDiffEscapedMarkersAndEndLine_multi_search_replace",
     .tool = "apply_diff",
     .input =
         R"({"path":"a","diff":"<<<<<<< SEARCH\n:start_line:3\n:end_line:4\n-------\n\\=======\nkeep\n=======\n\\>>>>>>> REPLACE\n>>>>>>> REPLACE"})",
     .files = {{.hunks = Hunks{{.old_text = "=======\nkeep", .new_text = ">>>>>>> REPLACE", .start_line = 3}}}}},
    {.name = "ApplyDiffMultiFileForm_v3_2x",
     .tool = "apply_diff",
     .input =
         R"({"files":[{"path":"a.ts","diffs":[{"content":"<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE","start_line":7},{"content":"<<<<<<< SEARCH\n:start_line:9\n-------\np\n=======\nq\n>>>>>>> REPLACE","start_line":1}]},{"path":"b.ts","diffs":[{"content":"<<<<<<< SEARCH\nm\n=======\nn\n>>>>>>> REPLACE"}]},{"diffs":[]}]})",
     .files = {{.path = "a.ts",
                .hunks = Hunks{{.start_line = 7},    // from the diff entry
                               {.start_line = 9}}},  // the block's own :start_line: wins
               {.path = "b.ts", .hunks = Hunks{{.new_text = "n"}}}}},
    {.name = "ReplaceInFileLegacyBlocks_roo_format_3_3",
     .tool = "replace_in_file",
     .input =
         R"({"path":"a.py","diff":"------- SEARCH\nold\n=======\nnew\n+++++++ REPLACE\n<<<<<<< SEARCH\no2\n=======\nn2\n>>>>>>> REPLACE"})",
     .files = {{.form = "search_replace_blocks", .hunks = Hunks{{.old_text = "old"}, {.new_text = "n2"}}}}},
    {.name = "SearchAndReplacePlain_roo_format_3_3",
     .tool = "search_and_replace",
     .input = R"({"path":"a.txt","search":"foo","replace":"bar","start_line":3,"end_line":9})",
     .files = {{.form = "search_replace", .hunks = Hunks{{.old_text = "foo", .new_text = "bar", .start_line = 3}}}}},
    // A search_and_replace with use_regex records neither side.
    {.name = "SearchAndReplaceRegexRecordsNoSide_row_contract",
     .tool = "search_and_replace",
     .input = R"({"path":"a.txt","search":"fo+","replace":"bar","use_regex":true,"ignore_case":true})",
     .files = {{.form = "regex_replace", .hunks = Hunks{}}}},
    {.name = "SearchAndReplaceLegacyOperations_v3_35",
     .tool = "search_and_replace",
     .input =
         R"({"path":"a.txt","operations":[{"search":"a","replace":"b"},{"search":"c+","replace":"d","use_regex":true},{"search":"e","replace":null}]})",
     .files = {{.form = "search_replace",
                .hunks = Hunks{{.old_text = "a"},
                               {.old_text = kAbsent, .new_text = kAbsent},   // regex: neither side
                               {.old_text = "e", .new_text = kAbsent}}}}},  // null is skipped, not stringified
    {.name = "SearchAndReplaceLegacyOperationsAllRegex_v3_35",
     .tool = "search_and_replace",
     .input = R"({"path":"a.txt","operations":[{"search":"x+","replace":"y","use_regex":true}]})",
     .files = {{.form = "regex_replace", .hunks = Hunks{}}}},
    // Current Roo stores edit's arguments under the search_and_replace alias (tools.ts:337-340).
    {.name = "SearchAndReplaceAsEditAlias_roo_format_3_3",
     .tool = "search_and_replace",
     .input = R"({"file_path":"src/a.ts","old_string":"x","new_string":"y","replace_all":true})",
     .files = {{.path = "src/a.ts",
                .form = "old_new_string",
                .hunks = Hunks{{.old_text = "x", .new_text = "y"}},
                .replace_all = true}}},
    {.name = "EditWithReplaceAll_edit_ts",
     .tool = "edit",
     .input = R"j({"file_path":"/abs/b.go","old_string":"foo()","new_string":"bar()","replace_all":false})j",
     .files = {{.path = "/abs/b.go",
                .form = "old_new_string",
                .replace_all = false,
                .expected_replacements = kAbsent}}},
    {.name = "SearchReplaceTool_search_replace_ts",
     .tool = "search_replace",
     .input = R"({"file_path":"c.rs","old_string":"a","new_string":"b"})",
     .files = {{.hunks = Hunks{{.old_text = "a"}}, .replace_all = kAbsent}}},
    {.name = "EditFileExpectedReplacements_edit_file_ts",
     .tool = "edit_file",
     .input = R"({"file_path":"d.md","old_string":"t","new_string":"u","expected_replacements":3})",
     .files = {{.expected_replacements = 3}}},
    {.name = "EditFileCreate_edit_file_ts",
     .tool = "edit_file",
     .input = R"({"file_path":"new.md","old_string":"","new_string":"# Title\n"})",
     .files = {{.hunks = Hunks{{.old_text = "",  // recorded, so kept
                                .new_text = "# Title\n"}}}}},
    {.name = "WriteToFileWholeFile_roo_format_3_3",
     .tool = "write_to_file",
     .input = R"({"path":"src/dates.py","content":"line\n","line_count":1})",
     .files = {{.form = "whole_file", .hunks = Hunks{{.old_text = kAbsent, .new_text = "line\n"}}}}},
    {.name = "WriteFileAlias_tools_ts_338",
     .tool = "write_file",
     .input = R"({"path":"x.txt","content":"hi"})",
     .files = {{.form = "whole_file", .hunks = Hunks{{.new_text = "hi"}}}}},
    {.name = "InsertContentAtLine_v3_35",
     .tool = "insert_content",
     .input = R"({"path":"a.py","line":12,"content":"import os"})",
     .files = {{.form = "insert", .hunks = Hunks{{.old_text = kAbsent, .new_text = "import os", .start_line = 12}}}}},
    {.name = "ApplyPatchAddUpdateMoveDelete_apply_patch_ts",
     .tool = "apply_patch",
     .input =
         R"({"patch":"*** Begin Patch\n*** Add File: docs/new.md\n+# New\n+\n+text\n*** Update File: src/a.py\n*** Move to: src/b.py\n@@ def f():\n     x = 1\n-    return x\n+    return x + 1\n@@ def g():\n-    pass\n+    return 0\n*** End of File\n*** Delete File: old.txt\n*** End Patch"})",
     .files = {{.path = "docs/new.md",
                .form = "patch_add",
                .hunks = Hunks{{.old_text = kAbsent, .new_text = "# New\n\ntext"}}},
               // Context lines are on both sides, so each side is a contiguous span of the file.
               {.path = "src/a.py",
                .form = "patch_update",
                .hunks = Hunks{{.old_text = "    x = 1\n    return x", .new_text = "    x = 1\n    return x + 1"},
                               {.old_text = "    pass", .new_text = "    return 0"}},
                .move_to = "src/b.py"},
               {.path = "old.txt", .form = "patch_delete", .hunks = Hunks{}}}},
    // A null or missing path, another tool, or an input that is no object records nothing; a path with no usable
    // content records the file without hunks.
    {.name = "NullPathRecordsNothing_roo_format_3_3", .tool = "apply_diff", .input = R"({"path":null,"diff":"x"})"},
    {.name = "MissingPathRecordsNothing_roo_format_3_3", .tool = "write_to_file", .input = R"({"content":"x"})"},
    {.name = "MissingFilePathRecordsNothing_roo_format_3_3",
     .tool = "edit",
     .input = R"({"old_string":"a","new_string":"b"})"},
    {.name = "ReadToolRecordsNoEdit_roo_format_3_3", .tool = "read_file", .input = R"({"path":"a"})"},
    {.name = "ArrayInputRecordsNothing_roo_format_3_3", .tool = "write_to_file", .input = R"([1,2])"},
    {.name = "NullContentRecordsNoHunk_roo_format_3_3",
     .tool = "write_to_file",
     .input = R"({"path":"a","content":null})",
     .files = {{.hunks = Hunks{}}}},
    {.name = "NumberDiffRecordsNoHunk_roo_format_3_3",
     .tool = "apply_diff",
     .input = R"({"path":"a","diff":7})",
     .files = {{.hunks = Hunks{}}}},
};

class FileEditsTable : public testing::TestWithParam<EditCase> {};

TEST_P(FileEditsTable, Reads) {
  const EditCase& c = GetParam();
  auto edits = file_edits(c.tool, json(c.input));
  ASSERT_EQ(edits.size(), c.files.size());
  for (size_t f = 0; f < edits.size(); ++f) {
    SCOPED_TRACE("file " + std::to_string(f));
    const FileEditWant& want = c.files[f];
    const FileEdit& e = edits[f];
    check("path", want.path, e.path);
    check("form", want.form, e.form);
    check("replace_all", want.replace_all, e.replace_all);
    check("expected_replacements", want.expected_replacements, e.expected_replacements);
    check("move_to", want.move_to, e.move_to);
    check("unterminated_blocks", want.unterminated_blocks, e.unterminated_blocks);
    if (!want.hunks) continue;
    ASSERT_EQ(e.hunks.size(), want.hunks->size());
    for (size_t h = 0; h < e.hunks.size(); ++h) {
      SCOPED_TRACE("hunk " + std::to_string(h));
      check("old_text", (*want.hunks)[h].old_text, e.hunks[h].old_text);
      check("new_text", (*want.hunks)[h].new_text, e.hunks[h].new_text);
      check("start_line", (*want.hunks)[h].start_line, e.hunks[h].start_line);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Edits, FileEditsTable, testing::ValuesIn(kEditCases), case_name<EditCase>);

// ---- Reads ----

struct ReadWant {
  Want<std::string> path, line_ranges, mode;
  Want<int64_t> offset, limit;
};

struct ReadCase {
  const char* name;
  std::string_view tool;
  std::string input;
  std::vector<ReadWant> reads;  // exactly these paths, in order
};

const ReadCase kReadCases[] = {
    {.name = "NewFormPathModeOffsetLimit_read_file_ts",
     .tool = "read_file",
     .input = R"({"path":"src/a.ts","mode":"slice","offset":100,"limit":50,"indentation":null})",
     .reads = {{.path = "src/a.ts", .line_ranges = kAbsent, .mode = "slice", .offset = 100, .limit = 50}}},
    {.name = "LegacyTupleRanges_NativeToolCallParser_331",
     .tool = "read_file",
     .input = R"({"files":[{"path":"a.ts","line_ranges":[[1,50],[80,90]]},{"path":"b.ts"}]})",
     .reads = {{.line_ranges = "1-50,80-90"}, {.path = "b.ts", .line_ranges = kAbsent}}},
    {.name = "LegacyObjectRangesUnderLineRangesOrLineRangesCamel_row_contract",
     .tool = "read_file",
     .input =
         R"({"files":[{"path":"a.ts","line_ranges":[{"start":1,"end":50}]},{"path":"c.ts","lineRanges":[{"start":5,"end":6}]}],"_legacyFormat":true})",
     .reads = {{.line_ranges = "1-50"}, {.line_ranges = "5-6"}}},
    {.name = "LegacyStringRanges_NativeToolCallParser_331",
     .tool = "read_file",
     .input = R"({"files":[{"path":"a.ts","line_ranges":["1-50","80-90"]}]})",
     .reads = {{.line_ranges = "1-50,80-90"}}},
    {.name = "FilesAsJsonString_NativeToolCallParser_331",
     .tool = "read_file",
     .input = R"({"files":"[{\"path\":\"a.ts\",\"line_ranges\":[[2,3]]},{\"path\":\"b.ts\"}]"})",
     .reads = {{.path = "a.ts", .line_ranges = "2-3"}, {.path = "b.ts"}}},
    // Other tools and bad shapes read nothing.
    {.name = "OtherToolReadsNothing_roo_format_3_3", .tool = "write_to_file", .input = R"({"path":"a"})"},
    {.name = "FilesNotJsonReadsNothing_roo_format_3_3", .tool = "read_file", .input = R"({"files":"not json"})"},
    {.name = "FilesWithoutPathsReadNothing_roo_format_3_3",
     .tool = "read_file",
     .input = R"({"files":[{"path":null},3]})"},
};

class FileReadsTable : public testing::TestWithParam<ReadCase> {};

TEST_P(FileReadsTable, Reads) {
  const ReadCase& c = GetParam();
  auto reads = file_reads(c.tool, json(c.input));
  ASSERT_EQ(reads.size(), c.reads.size());
  for (size_t i = 0; i < reads.size(); ++i) {
    SCOPED_TRACE("read " + std::to_string(i));
    check("path", c.reads[i].path, reads[i].path);
    check("line_ranges", c.reads[i].line_ranges, reads[i].line_ranges);
    check("mode", c.reads[i].mode, reads[i].mode);
    check("offset", c.reads[i].offset, reads[i].offset);
    check("limit", c.reads[i].limit, reads[i].limit);
  }
}

INSTANTIATE_TEST_SUITE_P(Reads, FileReadsTable, testing::ValuesIn(kReadCases), case_name<ReadCase>);

// ---- MCP names (src/utils/mcp-name.ts) ----

TEST(McpName, DoubleHyphen_mcp_name_ts) {
  auto n = split_mcp_tool_name("mcp--github--create_issue");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->server, "github");
  EXPECT_EQ(n->tool, "create_issue");
}

TEST(McpName, DoubleUnderscoreFromModels_mcp_name_ts) {
  auto n = split_mcp_tool_name("mcp__my-server__get-forecast_now");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->server, "my-server");
  EXPECT_EQ(n->tool, "get-forecast_now");
}

TEST(McpName, NonMcpNamesAreNotSplit_mcp_name_ts) {
  EXPECT_FALSE(split_mcp_tool_name("read_file"));
  EXPECT_FALSE(split_mcp_tool_name("mcp--onlyserver"));
  EXPECT_FALSE(split_mcp_tool_name("mcp----tool"));
  EXPECT_FALSE(split_mcp_tool_name("mcp--server--"));
  EXPECT_FALSE(split_mcp_tool_name("use_mcp_tool"));
}

// The ten edit tools file_edits understands and the one read tool file_reads does: one input that names a path for
// every form, and each of these names (and none other) gives an edit or a read of it.
TEST(Edits, ToolNameListsCoverEveryEditAndReadTool_roo_format_3_3) {
  const std::vector<std::string_view> edit_tools = {"apply_diff",    "replace_in_file", "search_and_replace", "edit",
                                                    "search_replace", "edit_file",      "write_to_file",      "write_file",
                                                    "insert_content", "apply_patch"};
  auto input = json(
      R"({"path":"a.txt","file_path":"a.txt","diff":"<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE","search":"x",)"
      R"("replace":"y","old_string":"x","new_string":"y","content":"y","line":1,)"
      R"("patch":"*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** End Patch"})");
  size_t editing = 0;
  for (std::string_view name : edit_tools) {
    const std::vector<FileEdit> edits = file_edits(name, input);
    EXPECT_EQ(edits.size(), 1u) << name;
    if (!edits.empty() && edits[0].path == "a.txt") ++editing;
    EXPECT_TRUE(file_reads(name, input).empty()) << name;
  }
  EXPECT_EQ(editing, 10u);
  const std::vector<FileRead> reads = file_reads("read_file", input);
  ASSERT_EQ(reads.size(), 1u);
  EXPECT_EQ(reads[0].path, "a.txt");
  EXPECT_TRUE(file_edits("read_file", input).empty());
  EXPECT_TRUE(file_edits("list_files", input).empty());
  EXPECT_TRUE(file_reads("list_files", input).empty());
}

}  // namespace
}  // namespace roo::tools
