#include "core/parsers/tool_semantics.h"

#include <gtest/gtest.h>

#include <string>

#include "core/json_records.h"

namespace roo::tools {
namespace {

// ---- execute_command results (roo-format.md §3.4; ExecuteCommandTool.ts line numbers at cb83656) ----

TEST(CommandResult, ExitCodeZero_roo_format_3_4) {
  auto r = parse_command_result(
      "Command executed in terminal within working directory '/home/alice/proj'. Exit code: 0\nOutput:\n4 passed");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "exited");
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_FALSE(r->reported_unsuccessful);
  EXPECT_EQ(r->cwd, "/home/alice/proj");
  EXPECT_EQ(r->output, "4 passed");
}

// Found by fuzz_tool_semantics: a header cut right after the marker's own quote names no directory (it once read
// the marker's quote as the closing one and took a cwd of size -1). The rest is read as usual.
TEST(CommandResult, MarkerWithoutDirectoryGivesNoCwd_roo_format_3_4) {
  auto r = parse_command_result("Command executed in terminal within working directory '. Exit code: 0\nOutput:\nx");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "exited");
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_FALSE(r->cwd);
  EXPECT_EQ(r->output, "x");
}

// Seed 001: a failure puts "Command execution was not successful, …" there and the code on the next line.
TEST(CommandResult, NonZeroExitCodeAfterUnsuccessfulLine_seed_001) {
  auto r = parse_command_result(
      "Command executed in terminal within working directory '/home/alice/proj'. Command execution was not "
      "successful, inspect the cause and adjust as needed.\nExit code: 1\nOutput:\nFound 1 error.");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "exited");
  EXPECT_EQ(r->exit_code, 1);
  EXPECT_TRUE(r->reported_unsuccessful);
  EXPECT_EQ(r->cwd, "/home/alice/proj");
  EXPECT_EQ(r->output, "Found 1 error.");
}

TEST(CommandResult, NegativeExitCodeIsKept_roo_format_3_4) {
  auto r = parse_command_result(
      "Command executed in terminal within working directory '/p'. Command execution was not successful, inspect the "
      "cause and adjust as needed.\nExit code: -1\nOutput:\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->exit_code, -1);
  EXPECT_EQ(r->output, "");
}

TEST(CommandResult, SignalHasNoExitCode_roo_format_3_4) {
  auto r = parse_command_result(
      "Command executed in terminal within working directory '/p'. Process terminated by signal SIGKILL\nOutput:\nx");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "signal");
  EXPECT_EQ(r->signal, "SIGKILL");
  EXPECT_FALSE(r->exit_code);
  EXPECT_FALSE(r->core_dump_possible);
  EXPECT_EQ(r->output, "x");
}

TEST(CommandResult, SignalWithCoreDumpPossible_roo_format_3_4) {
  auto r = parse_command_result(
      "Command executed in terminal within working directory '/p'. Process terminated by signal SIGSEGV - core dump "
      "possible\nOutput:\nSegmentation fault");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "signal");
  EXPECT_EQ(r->signal, "SIGSEGV");
  EXPECT_TRUE(r->core_dump_possible);
  EXPECT_FALSE(r->exit_code);
  EXPECT_EQ(r->output, "Segmentation fault");
}

// v3.1x wrote the number and the name: "Process terminated by signal 9 (SIGKILL)".
TEST(CommandResult, OldSignalFormGivesTheName_v3_1x) {
  auto r = parse_command_result(
      "Command executed in terminal  within working directory '/p'. Process terminated by signal 9 "
      "(SIGKILL)\nOutput:\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "signal");
  EXPECT_EQ(r->signal, "SIGKILL");
  EXPECT_FALSE(r->exit_code);
}

TEST(CommandResult, UndefinedExitCodeIsNotInvented_roo_format_3_4) {
  auto r = parse_command_result(
      "Command executed in terminal within working directory '/p'. Exit code: <undefined, notify user>\nOutput:\n"
      "out<VSCE exit code is undefined: terminal output and command execution status is unknown.>");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "exit_code_undefined");
  EXPECT_FALSE(r->exit_code);
  EXPECT_EQ(r->output, "out<VSCE exit code is undefined: terminal output and command execution status is unknown.>");
}

TEST(CommandResult, StillRunningWithUserMessage_roo_format_3_4) {
  auto r = parse_command_result(
      "Command is still running in terminal from '/home/alice/proj'.\nHere's the output so far:\nserving on :3000\n"
      "\n<user_message>\nlooks good, stop it\n</user_message>");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "still_running");
  EXPECT_EQ(r->cwd, "/home/alice/proj");
  EXPECT_EQ(r->output, "serving on :3000");
  EXPECT_EQ(r->user_message, "looks good, stop it");
  EXPECT_FALSE(r->exit_code);
}

TEST(CommandResult, StillRunningWithoutOutput_roo_format_3_4) {
  auto r = parse_command_result(
      "Command is still running in terminal from '/p'.\n\n\n<user_message>\nwait\n</user_message>");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "still_running");
  EXPECT_FALSE(r->output);
  EXPECT_EQ(r->user_message, "wait");
}

TEST(CommandResult, BackgroundedHasDoubleSpace_roo_format_3_4) {
  auto r = parse_command_result(
      "Command is still running in terminal  from '/p'.\nHere's the output so far:\nwatching…\n\nYou will be updated "
      "on the terminal status and new output in the future.");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "backgrounded");
  EXPECT_EQ(r->cwd, "/p");
  EXPECT_EQ(r->output, "watching…");
  EXPECT_FALSE(r->user_message);
}

// Cline heritage: "Command is still running in the user's terminal." with <feedback>.
TEST(CommandResult, ClineStillRunningWithFeedback_cline_heritage) {
  auto r = parse_command_result(
      "Command is still running in the user's terminal.\nHere's the output so far:\nok\n\nThe user provided the "
      "following feedback:\n<feedback>\nfine\n</feedback>");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "still_running");
  EXPECT_FALSE(r->cwd);
  EXPECT_EQ(r->output, "ok");
  EXPECT_EQ(r->user_message, "fine");
}

TEST(CommandResult, TimeoutGivesSeconds_roo_format_3_4) {
  auto r = parse_command_result(
      "The command was terminated after exceeding a user-configured 30s timeout. Do not try to re-run the command.");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "timeout");
  EXPECT_EQ(r->timeout_seconds, 30);
  EXPECT_FALSE(r->output);
  EXPECT_FALSE(r->exit_code);
}

TEST(CommandResult, TimeoutWithOutputAround_roo_format_3_4) {
  auto r = parse_command_result(
      "partial line\nThe command was terminated after exceeding a user-configured 5s timeout. Do not try to re-run the "
      "command.\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "timeout");
  EXPECT_EQ(r->timeout_seconds, 5);
  EXPECT_EQ(r->output, "partial line");
}

TEST(CommandResult, BadCwd_roo_format_3_4) {
  auto r = parse_command_result("Working directory '/nope/dir' does not exist.");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "bad_cwd");
  EXPECT_EQ(r->cwd, "/nope/dir");
}

TEST(CommandResult, ShellIntegrationError_roo_format_3_4) {
  auto r = parse_command_result("Command failed to execute in terminal due to a shell integration error.");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "shell_integration_error");
  EXPECT_FALSE(r->exit_code);
}

TEST(CommandResult, CancelledByUser_ExecuteCommandTool) {
  auto r = parse_command_result("The command was cancelled by the user.");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "cancelled");
}

TEST(CommandResult, PersistedOutputUsesPreview_roo_format_3_4) {
  auto r = parse_command_result(
      "Command executed in '/home/alice/proj'. Command execution was not successful, inspect the cause and adjust as "
      "needed.\nExit code: 2\n\nOutput (164.9KB) persisted. Artifact ID: cmd-1760000000000.txt\n\nPreview:\nline 1\n"
      "line 2\n\nUse read_command_output tool to view full output if needed.");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "exited");
  EXPECT_EQ(r->exit_code, 2);
  EXPECT_TRUE(r->reported_unsuccessful);
  EXPECT_EQ(r->cwd, "/home/alice/proj");
  EXPECT_EQ(r->persisted_size, "164.9KB");
  EXPECT_EQ(r->artifact_id, "cmd-1760000000000.txt");
  EXPECT_EQ(r->output, "line 1\nline 2");
}

TEST(CommandResult, WindowsCwdRoundTrips_roo_format_3_4) {
  auto r = parse_command_result(
      "Command executed in terminal within working directory 'C:\\Users\\bob\\src'. Exit code: 0\nOutput:\nok");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->cwd, "C:\\Users\\bob\\src");
  EXPECT_EQ(r->exit_code, 0);
  auto bad = parse_command_result("Working directory 'C:\\Users\\bob\\gone' does not exist.");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->cwd, "C:\\Users\\bob\\gone");
}

// A cwd may hold ". " and "'": the status is found after the ". " that a status follows.
TEST(CommandResult, CwdWithDotSpaceAndQuote_roo_format_3_4) {
  auto r = parse_command_result(
      "Command executed in terminal within working directory '/tmp/it's. odd'. Exit code: 3\nOutput:\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->cwd, "/tmp/it's. odd");
  EXPECT_EQ(r->exit_code, 3);
}

// Older XML-era (v3.2x) results share the current text; v3.1x had a doubled space or the terminal id.
TEST(CommandResult, XmlEraFormsAreTheSame_v3_2x) {
  auto r =
      parse_command_result("Command executed in terminal 1 within working directory '/w'. Exit code: 0\nOutput:\nhi");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "exited");
  EXPECT_EQ(r->cwd, "/w");
  EXPECT_EQ(r->output, "hi");
}

TEST(CommandResult, ClineCommandExecutedReportsNoCode_cline_heritage) {
  auto r = parse_command_result("Command executed.\nOutput:\nhello");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "exited_code_not_reported");
  EXPECT_FALSE(r->exit_code);
  EXPECT_EQ(r->output, "hello");
  auto bare = parse_command_result("Command executed.");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->status, "exited_code_not_reported");
  EXPECT_FALSE(bare->output);
}

TEST(CommandResult, UnknownStatusIsUnrecognisedNotInvented_roo_format_3_4) {
  auto r = parse_command_result(
      "Command executed in terminal within working directory '/p'. Exit code: maybe\nOutput:\nzzz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, "unrecognised");
  EXPECT_FALSE(r->exit_code);
  EXPECT_EQ(r->output, "zzz");
  auto other = parse_command_result("Command rejected by policy");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, "unrecognised");
}

TEST(CommandResult, StatusJsonIsNotACommandResult_roo_format_3_4) {
  EXPECT_FALSE(parse_command_result(R"({"status":"denied","message":"The user denied this operation."})"));
  EXPECT_FALSE(parse_command_result("File: a.ts\n1 | x"));
  EXPECT_FALSE(parse_command_result(""));
}

// ---- Status JSON (roo-format.md §3.4, responses.ts) ----

TEST(ResultStatus, DeniedMessage_responses_ts_8) {
  auto s = parse_result_status(R"({"status":"denied","message":"The user denied this operation."})");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->status, "denied");
  EXPECT_EQ(s->message, "The user denied this operation.");
  EXPECT_FALSE(s->feedback);
  EXPECT_EQ(s->rest, "");
}

TEST(ResultStatus, DeniedWithFeedback_responses_ts_14) {
  auto s = parse_result_status(R"({"status":"denied","feedback":"use pnpm, not npm"})");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->status, "denied");
  EXPECT_EQ(s->feedback, "use pnpm, not npm");
}

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

TEST(ResultStatus, ToolError_responses_ts_26) {
  auto s = parse_result_status(
      "  \n{\"status\":\"error\",\"message\":\"The tool execution failed\",\"error\":\"Error executing command: "
      "{\\\"name\\\":\\\"Error\\\"}\"}");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->status, "error");
  EXPECT_EQ(s->message, "The tool execution failed");
  EXPECT_EQ(s->error, "Error executing command: {\"name\":\"Error\"}");
}

TEST(ResultStatus, RooIgnoreAccessDenied_responses_ts_33) {
  auto s = parse_result_status(
      R"({"status":"error","type":"access_denied","message":"Access blocked by .rooignore","path":".env","suggestion":"Try to continue without this file, or ask the user to update the .rooignore file"})");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->type, "access_denied");
  EXPECT_EQ(s->path, ".env");
  EXPECT_EQ(s->message, "Access blocked by .rooignore");
  ASSERT_TRUE(s->suggestion);
}

TEST(ResultStatus, Guidance_responses_ts_57) {
  auto s = parse_result_status(R"({"status":"guidance","feedback":"Try a smaller step."})");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->status, "guidance");
  EXPECT_EQ(s->feedback, "Try a smaller step.");
}

TEST(ResultStatus, McpUnknownToolType_responses_ts_69) {
  auto s = parse_result_status(R"({"status":"error","type":"unknown_tool","message":"Tool 'x' does not exist"})");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->type, "unknown_tool");
}

TEST(ResultStatus, NotAStatus_roo_format_3_4) {
  EXPECT_FALSE(parse_result_status(R"({"path":"a","operation":"created"})"));
  EXPECT_FALSE(parse_result_status(R"({"status":3})"));
  EXPECT_FALSE(parse_result_status("Command executed."));
  EXPECT_FALSE(parse_result_status(R"({"status":"denied")"));  // cut off
  EXPECT_FALSE(parse_result_status(""));
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

TEST(SkippedTool, SkippingAfterRejection_presentAssistantMessage_393) {
  auto s = parse_skipped_tool(
      "Skipping tool [execute_command for 'git add src/dates.py'] due to user rejecting a "
      "previous tool.");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->reason, "skipped_after_rejection");
  EXPECT_EQ(s->description, "execute_command for 'git add src/dates.py'");
}

TEST(SkippedTool, InterruptedAfterRejection_presentAssistantMessage_400) {
  auto s = parse_skipped_tool(
      "Tool [read_file for 'a[1].ts'] was interrupted and not executed due to user rejecting a previous tool.");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->reason, "interrupted_after_rejection");
  EXPECT_EQ(s->description, "read_file for 'a[1].ts'");
}

TEST(SkippedTool, McpToolSkipped_presentAssistantMessage_114) {
  auto s = parse_skipped_tool("Skipping MCP tool mcp--github--create_issue due to user rejecting a previous tool.");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->reason, "skipped_after_rejection");
  EXPECT_EQ(s->description, "mcp--github--create_issue");
  auto i = parse_skipped_tool(
      "MCP tool mcp--github--create_issue was interrupted and not executed due to user rejecting a previous tool.");
  ASSERT_TRUE(i);
  EXPECT_EQ(i->reason, "interrupted_after_rejection");
}

TEST(SkippedTool, OtherTextIsNotSkipped_presentAssistantMessage) {
  EXPECT_FALSE(parse_skipped_tool("Skipping tool [] due to user rejecting a previous tool."));
  EXPECT_FALSE(parse_skipped_tool("Task was interrupted before this tool call could be completed."));
}

// ---- Edits (seed 001; roo-format.md §3.3) ----

rapidjson::Document json(const std::string& text) {
  rapidjson::Document doc;
  EXPECT_TRUE(parse_json(text.data(), text.size(), doc, nullptr)) << text;
  return doc;
}

TEST(Edits, ApplyDiffTwoBlocksAndOneUnterminated_seed_001) {
  auto doc = json(
      R"({"path":"src/server.ts","diff":"<<<<<<< SEARCH\n:start_line:5\n-------\napp.listen(3000);\n=======\napp.get(\"/h\");\napp.listen(3000);\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\nconst a = 1;\n=======\nconst a = 2;\n>>>>>>> REPLACE\n<<<<<<< SEARCH\n:start_line:9\n-------\nlost\n=======\nnever closed"})");
  auto edits = file_edits("apply_diff", doc);
  ASSERT_EQ(edits.size(), 1u);
  const FileEdit& e = edits[0];
  EXPECT_EQ(e.path, "src/server.ts");
  EXPECT_EQ(e.form, "search_replace_blocks");
  ASSERT_EQ(e.hunks.size(), 2u);
  EXPECT_EQ(e.hunks[0].old_text, "app.listen(3000);");
  EXPECT_EQ(e.hunks[0].new_text, "app.get(\"/h\");\napp.listen(3000);");
  EXPECT_EQ(e.hunks[0].start_line, 5);
  EXPECT_EQ(e.hunks[1].old_text, "const a = 1;");
  EXPECT_EQ(e.hunks[1].new_text, "const a = 2;");
  EXPECT_FALSE(e.hunks[1].start_line);
  EXPECT_EQ(e.unterminated_blocks, 1);
}

// A block cut before its REPLACE marker and followed by another block: the cut one records nothing.
TEST(Edits, ApplyDiffBlockCutBeforeNextBlockRecordsNothing_seed_001) {
  auto doc =
      json(R"({"path":"a","diff":"<<<<<<< SEARCH\nx\n=======\ny\n<<<<<<< SEARCH\np\n=======\nq\n>>>>>>> REPLACE"})");
  auto edits = file_edits("apply_diff", doc);
  ASSERT_EQ(edits.size(), 1u);
  ASSERT_EQ(edits[0].hunks.size(), 1u);
  EXPECT_EQ(edits[0].hunks[0].old_text, "p");
  EXPECT_EQ(edits[0].unterminated_blocks, 1);
}

// multi-search-replace.ts unescapes "\=======" and friends inside content; :end_line: is skipped.
TEST(Edits, ApplyDiffEscapedMarkersAndEndLine_multi_search_replace) {
  auto doc = json(
      R"({"path":"a","diff":"<<<<<<< SEARCH\n:start_line:3\n:end_line:4\n-------\n\\=======\nkeep\n=======\n\\>>>>>>> REPLACE\n>>>>>>> REPLACE"})");
  auto edits = file_edits("apply_diff", doc);
  ASSERT_EQ(edits.size(), 1u);
  ASSERT_EQ(edits[0].hunks.size(), 1u);
  EXPECT_EQ(edits[0].hunks[0].old_text, "=======\nkeep");
  EXPECT_EQ(edits[0].hunks[0].new_text, ">>>>>>> REPLACE");
  EXPECT_EQ(edits[0].hunks[0].start_line, 3);
}

TEST(Edits, ApplyDiffMultiFileForm_v3_2x) {
  auto doc = json(
      R"({"files":[{"path":"a.ts","diffs":[{"content":"<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE","start_line":7},{"content":"<<<<<<< SEARCH\n:start_line:9\n-------\np\n=======\nq\n>>>>>>> REPLACE","start_line":1}]},{"path":"b.ts","diffs":[{"content":"<<<<<<< SEARCH\nm\n=======\nn\n>>>>>>> REPLACE"}]},{"diffs":[]}]})");
  auto edits = file_edits("apply_diff", doc);
  ASSERT_EQ(edits.size(), 2u);
  EXPECT_EQ(edits[0].path, "a.ts");
  ASSERT_EQ(edits[0].hunks.size(), 2u);
  EXPECT_EQ(edits[0].hunks[0].start_line, 7);  // from the diff entry
  EXPECT_EQ(edits[0].hunks[1].start_line, 9);  // the block's own :start_line: wins
  EXPECT_EQ(edits[1].path, "b.ts");
  EXPECT_EQ(edits[1].hunks[0].new_text, "n");
}

TEST(Edits, ReplaceInFileLegacyBlocks_seed_001) {
  auto doc = json(
      R"({"path":"a.py","diff":"------- SEARCH\nold\n=======\nnew\n+++++++ REPLACE\n<<<<<<< SEARCH\no2\n=======\nn2\n>>>>>>> REPLACE"})");
  auto edits = file_edits("replace_in_file", doc);
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(edits[0].form, "search_replace_blocks");
  ASSERT_EQ(edits[0].hunks.size(), 2u);
  EXPECT_EQ(edits[0].hunks[0].old_text, "old");
  EXPECT_EQ(edits[0].hunks[1].new_text, "n2");
}

TEST(Edits, SearchAndReplacePlain_seed_001) {
  auto doc = json(R"({"path":"a.txt","search":"foo","replace":"bar","start_line":3,"end_line":9})");
  auto edits = file_edits("search_and_replace", doc);
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(edits[0].form, "search_replace");
  ASSERT_EQ(edits[0].hunks.size(), 1u);
  EXPECT_EQ(edits[0].hunks[0].old_text, "foo");
  EXPECT_EQ(edits[0].hunks[0].new_text, "bar");
  EXPECT_EQ(edits[0].hunks[0].start_line, 3);
}

// Seed 001: a search_and_replace with use_regex records neither side.
TEST(Edits, SearchAndReplaceRegexRecordsNoSide_seed_001) {
  auto doc = json(R"({"path":"a.txt","search":"fo+","replace":"bar","use_regex":true,"ignore_case":true})");
  auto edits = file_edits("search_and_replace", doc);
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(edits[0].form, "regex_replace");
  EXPECT_TRUE(edits[0].hunks.empty());
}

TEST(Edits, SearchAndReplaceLegacyOperations_v3_35) {
  auto doc = json(
      R"({"path":"a.txt","operations":[{"search":"a","replace":"b"},{"search":"c+","replace":"d","use_regex":true},{"search":"e","replace":null}]})");
  auto edits = file_edits("search_and_replace", doc);
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(edits[0].form, "search_replace");
  ASSERT_EQ(edits[0].hunks.size(), 3u);
  EXPECT_EQ(edits[0].hunks[0].old_text, "a");
  EXPECT_FALSE(edits[0].hunks[1].old_text);  // regex: neither side
  EXPECT_FALSE(edits[0].hunks[1].new_text);
  EXPECT_EQ(edits[0].hunks[2].old_text, "e");
  EXPECT_FALSE(edits[0].hunks[2].new_text);  // null is skipped, not stringified
  auto all_regex = json(R"({"path":"a.txt","operations":[{"search":"x+","replace":"y","use_regex":true}]})");
  auto r = file_edits("search_and_replace", all_regex);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].form, "regex_replace");
  EXPECT_TRUE(r[0].hunks.empty());
}

// Current Roo stores edit's arguments under the search_and_replace alias (seed 001, tools.ts:337-340).
TEST(Edits, SearchAndReplaceAsEditAlias_seed_001) {
  auto doc = json(R"({"file_path":"src/a.ts","old_string":"x","new_string":"y","replace_all":true})");
  auto edits = file_edits("search_and_replace", doc);
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(edits[0].form, "old_new_string");
  EXPECT_EQ(edits[0].path, "src/a.ts");
  EXPECT_EQ(edits[0].hunks[0].old_text, "x");
  EXPECT_EQ(edits[0].hunks[0].new_text, "y");
  EXPECT_EQ(edits[0].replace_all, true);
}

TEST(Edits, EditWithReplaceAll_edit_ts) {
  auto doc = json(R"j({"file_path":"/abs/b.go","old_string":"foo()","new_string":"bar()","replace_all":false})j");
  auto edits = file_edits("edit", doc);
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(edits[0].form, "old_new_string");
  EXPECT_EQ(edits[0].path, "/abs/b.go");
  EXPECT_EQ(edits[0].replace_all, false);
  EXPECT_FALSE(edits[0].expected_replacements);
}

TEST(Edits, SearchReplaceTool_search_replace_ts) {
  auto doc = json(R"({"file_path":"c.rs","old_string":"a","new_string":"b"})");
  auto edits = file_edits("search_replace", doc);
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(edits[0].hunks[0].old_text, "a");
  EXPECT_FALSE(edits[0].replace_all);
}

TEST(Edits, EditFileExpectedReplacementsAndCreate_edit_file_ts) {
  auto doc = json(R"({"file_path":"d.md","old_string":"t","new_string":"u","expected_replacements":3})");
  auto edits = file_edits("edit_file", doc);
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(edits[0].expected_replacements, 3);
  auto create = json(R"({"file_path":"new.md","old_string":"","new_string":"# Title\n"})");
  auto c = file_edits("edit_file", create);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].hunks[0].old_text, "");  // recorded, so kept
  EXPECT_EQ(c[0].hunks[0].new_text, "# Title\n");
}

TEST(Edits, WriteToFileWholeFile_seed_001) {
  auto doc = json(R"({"path":"src/dates.py","content":"line\n","line_count":1})");
  auto edits = file_edits("write_to_file", doc);
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(edits[0].form, "whole_file");
  ASSERT_EQ(edits[0].hunks.size(), 1u);
  EXPECT_FALSE(edits[0].hunks[0].old_text);
  EXPECT_EQ(edits[0].hunks[0].new_text, "line\n");
}

TEST(Edits, WriteFileAlias_tools_ts_338) {
  auto doc = json(R"({"path":"x.txt","content":"hi"})");
  auto edits = file_edits("write_file", doc);
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(edits[0].form, "whole_file");
  EXPECT_EQ(edits[0].hunks[0].new_text, "hi");
}

TEST(Edits, InsertContentAtLine_v3_35) {
  auto doc = json(R"({"path":"a.py","line":12,"content":"import os"})");
  auto edits = file_edits("insert_content", doc);
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(edits[0].form, "insert");
  ASSERT_EQ(edits[0].hunks.size(), 1u);
  EXPECT_FALSE(edits[0].hunks[0].old_text);
  EXPECT_EQ(edits[0].hunks[0].new_text, "import os");
  EXPECT_EQ(edits[0].hunks[0].start_line, 12);
}

TEST(Edits, ApplyPatchAddUpdateMoveDelete_apply_patch_ts) {
  auto doc = json(
      R"({"patch":"*** Begin Patch\n*** Add File: docs/new.md\n+# New\n+\n+text\n*** Update File: src/a.py\n*** Move to: src/b.py\n@@ def f():\n     x = 1\n-    return x\n+    return x + 1\n@@ def g():\n-    pass\n+    return 0\n*** End of File\n*** Delete File: old.txt\n*** End Patch"})");
  auto edits = file_edits("apply_patch", doc);
  ASSERT_EQ(edits.size(), 3u);
  EXPECT_EQ(edits[0].form, "patch_add");
  EXPECT_EQ(edits[0].path, "docs/new.md");
  ASSERT_EQ(edits[0].hunks.size(), 1u);
  EXPECT_FALSE(edits[0].hunks[0].old_text);
  EXPECT_EQ(edits[0].hunks[0].new_text, "# New\n\ntext");

  EXPECT_EQ(edits[1].form, "patch_update");
  EXPECT_EQ(edits[1].path, "src/a.py");
  EXPECT_EQ(edits[1].move_to, "src/b.py");
  ASSERT_EQ(edits[1].hunks.size(), 2u);
  // Context lines are on both sides, so each side is a contiguous span of the file.
  EXPECT_EQ(edits[1].hunks[0].old_text, "    x = 1\n    return x");
  EXPECT_EQ(edits[1].hunks[0].new_text, "    x = 1\n    return x + 1");
  EXPECT_EQ(edits[1].hunks[1].old_text, "    pass");
  EXPECT_EQ(edits[1].hunks[1].new_text, "    return 0");

  EXPECT_EQ(edits[2].form, "patch_delete");
  EXPECT_EQ(edits[2].path, "old.txt");
  EXPECT_TRUE(edits[2].hunks.empty());
}

TEST(Edits, NullsAndMissingPathsRecordNothing_roo_format_3_3) {
  EXPECT_TRUE(file_edits("apply_diff", json(R"({"path":null,"diff":"x"})")).empty());
  EXPECT_TRUE(file_edits("write_to_file", json(R"({"content":"x"})")).empty());
  EXPECT_TRUE(file_edits("edit", json(R"({"old_string":"a","new_string":"b"})")).empty());
  EXPECT_TRUE(file_edits("read_file", json(R"({"path":"a"})")).empty());
  EXPECT_TRUE(file_edits("write_to_file", json(R"([1,2])")).empty());
  auto e = file_edits("write_to_file", json(R"({"path":"a","content":null})"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_TRUE(e[0].hunks.empty());
  auto d = file_edits("apply_diff", json(R"({"path":"a","diff":7})"));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_TRUE(d[0].hunks.empty());
}

// ---- Reads ----

TEST(Reads, NewFormPathModeOffsetLimit_read_file_ts) {
  auto doc = json(R"({"path":"src/a.ts","mode":"slice","offset":100,"limit":50,"indentation":null})");
  auto reads = file_reads("read_file", doc);
  ASSERT_EQ(reads.size(), 1u);
  EXPECT_EQ(reads[0].path, "src/a.ts");
  EXPECT_EQ(reads[0].mode, "slice");
  EXPECT_EQ(reads[0].offset, 100);
  EXPECT_EQ(reads[0].limit, 50);
  EXPECT_FALSE(reads[0].line_ranges);
}

TEST(Reads, LegacyTupleRanges_NativeToolCallParser_331) {
  auto doc = json(R"({"files":[{"path":"a.ts","line_ranges":[[1,50],[80,90]]},{"path":"b.ts"}]})");
  auto reads = file_reads("read_file", doc);
  ASSERT_EQ(reads.size(), 2u);
  EXPECT_EQ(reads[0].line_ranges, "1-50,80-90");
  EXPECT_EQ(reads[1].path, "b.ts");
  EXPECT_FALSE(reads[1].line_ranges);
}

TEST(Reads, LegacyObjectRangesUnderLineRangesOrLineRangesCamel_seed_001) {
  auto doc = json(
      R"({"files":[{"path":"a.ts","line_ranges":[{"start":1,"end":50}]},{"path":"c.ts","lineRanges":[{"start":5,"end":6}]}],"_legacyFormat":true})");
  auto reads = file_reads("read_file", doc);
  ASSERT_EQ(reads.size(), 2u);
  EXPECT_EQ(reads[0].line_ranges, "1-50");
  EXPECT_EQ(reads[1].line_ranges, "5-6");
}

TEST(Reads, LegacyStringRanges_NativeToolCallParser_331) {
  auto doc = json(R"({"files":[{"path":"a.ts","line_ranges":["1-50","80-90"]}]})");
  auto reads = file_reads("read_file", doc);
  ASSERT_EQ(reads.size(), 1u);
  EXPECT_EQ(reads[0].line_ranges, "1-50,80-90");
}

TEST(Reads, FilesAsJsonString_NativeToolCallParser_331) {
  auto doc = json(R"({"files":"[{\"path\":\"a.ts\",\"line_ranges\":[[2,3]]},{\"path\":\"b.ts\"}]"})");
  auto reads = file_reads("read_file", doc);
  ASSERT_EQ(reads.size(), 2u);
  EXPECT_EQ(reads[0].path, "a.ts");
  EXPECT_EQ(reads[0].line_ranges, "2-3");
  EXPECT_EQ(reads[1].path, "b.ts");
}

TEST(Reads, OtherToolsAndBadShapesReadNothing_roo_format_3_3) {
  EXPECT_TRUE(file_reads("write_to_file", json(R"({"path":"a"})")).empty());
  EXPECT_TRUE(file_reads("read_file", json(R"({"files":"not json"})")).empty());
  EXPECT_TRUE(file_reads("read_file", json(R"({"files":[{"path":null},3]})")).empty());
}

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
