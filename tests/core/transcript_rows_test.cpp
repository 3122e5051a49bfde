// What the transcript parsers make of calls, results, decisions and context (docs/row-contract.md "Transcript
// semantics", "Rules the rows follow"; docs/roo-format.md §2–§5). Inputs are literal bytes in Roo's shapes; expected
// values are written from the contract and its rules.
#include <gtest/gtest.h>

#include "core/parsers/parsers.h"
#include "test_util.h"

namespace roo {
namespace {

using test::MemoryBytes;
using test::ParserHarness;
using test::run_api;
using test::run_ui;

std::string call(const std::string& id, const std::string& name, const std::string& input, int64_t ts) {
  return R"({"role":"assistant","content":[{"type":"tool_use","id":")" + id + R"(","name":")" + name +
         R"(","input":)" + input + R"(}],"ts":)" + std::to_string(ts) + "}";
}
std::string result(const std::string& id, const std::string& content_json, int64_t ts) {
  return R"({"role":"user","content":[{"type":"tool_result","tool_use_id":")" + id + R"(","content":)" +
         content_json + R"(}],"ts":)" + std::to_string(ts) + "}";
}

// The ui records that time api rows (docs/row-contract.md "Which record times a row", "Times of untimed api
// records"), read from real ui bytes.
UiTurnTimes turns_of(const std::string& ui) {
  MemoryBytes src(ui);
  HashingStream in(src);
  return read_ui_turn_times(in);
}
// A timed api history beside its ui records: only the user's words are timed from the ui.
ParseStats run_api_beside_ui(ParserHarness& h, const std::string& api, const UiTurnTimes& ui,
                             ConversationTexts* texts = nullptr) {
  MemoryBytes src(api);
  HashingStream in(src);
  ParseContext ctx = h.ctx("api_conversation_history.json");
  ctx.ui_words = &ui;
  return parse_api_history(in, ctx, texts);
}

// Kinds of the rows, in order, for compact order checks.
std::vector<std::string> kinds(const ParserHarness& h) {
  std::vector<std::string> out;
  for (size_t i = 0; i < h.rows.rows.size(); ++i) out.push_back(h.rows.str(i, "kind"));
  return out;
}

// "Exit codes" / docs/roo-format.md §3.4: the exit code is read out of the result and joined onto the command row.
TEST(CommandRows, ExitCodesAreJoinedFromTheirResults_row_contract) {
  ParserHarness h;
  run_api(h, "[" + call("c1", "execute_command", R"({"command":"make","cwd":null,"timeout":null})", 1000) + "," +
                 result("c1", R"("Command executed in terminal within working directory '/w'. Command execution was not successful, inspect the cause and adjust as needed.\nExit code: 2\nOutput:\nboom")", 2000) +
                 "," + call("c2", "execute_command", R"({"command":"sleep 99"})", 3000) + "," +
                 result("c2", R"("Command executed in terminal within working directory '/w'. Process terminated by signal SIGKILL\nOutput:\n")", 4000) +
                 "]");
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"command", "tool_result", "command", "tool_result"}));
  EXPECT_EQ(h.rows.rows[0]["exit_code"].GetInt(), 2);
  EXPECT_EQ(h.rows.str(0, "command_status"), "exited");
  EXPECT_EQ(h.rows.str(0, "outcome"), "completed");
  EXPECT_EQ(h.rows.str(0, "cwd"), "/w");  // the input's cwd is null: the one the result names
  EXPECT_EQ(h.rows.str(0, "result_time_utc"), "1970-01-01T00:00:02.000Z");
  EXPECT_EQ(h.rows.str(0, "time_utc"), "1970-01-01T00:00:01.000Z");  // the call's own time
  EXPECT_EQ(h.rows.str(2, "command_status"), "signal");
  EXPECT_EQ(h.rows.str(2, "signal"), "SIGKILL");
  EXPECT_FALSE(h.rows.rows[2].HasMember("exit_code"));  // killed: no code, none invented
  EXPECT_EQ(h.rows.str(2, "cwd"), "/w");
}

// docs/roo-format.md §2.7, §11 item 3: a persisted output names its artifact, which joins the cmd-<ts>.txt file.
TEST(CommandRows, PersistedOutputNamesItsArtifact_roo_format_2_7) {
  ParserHarness h;
  run_api(h, "[" + call("c1", "execute_command", R"({"command":"cat big.log"})", 1000) + "," +
                 result("c1", R"("Command executed in '/w'. Exit code: 0\n\nOutput (164.9KB) persisted. Artifact ID: cmd-1760000000000.txt\n\nPreview:\nhead\n\nUse read_command_output tool to view full output if needed.")", 2000) +
                 "]");
  EXPECT_EQ(h.rows.str(0, "output_artifact"), "cmd-1760000000000.txt");
  EXPECT_EQ(h.rows.rows[0]["exit_code"].GetInt(), 0);

  ParserHarness f;
  MemoryBytes bytes("line 1\nline 2\n\xff\n");
  HashingStream in(bytes);
  parse_command_output(in, f.ctx("cmd-1760000000000.txt"));
  ASSERT_EQ(f.rows.rows.size(), 1u);
  EXPECT_EQ(f.rows.str(0, "kind"), "command_output");
  EXPECT_EQ(f.rows.str(0, "output_artifact"), "cmd-1760000000000.txt");
  EXPECT_EQ(f.rows.str(0, "execution_id"), "1760000000000");
  EXPECT_EQ(f.rows.str(0, "time_source"), "command_output.execution_id");
  EXPECT_EQ(f.rows.str(0, "time_utc"), "2025-10-09T08:53:20.000Z");
  EXPECT_EQ(f.rows.str(0, "text"), "line 1\nline 2\n\xEF\xBF\xBD\n");  // invalid UTF-8 → U+FFFD, nothing lost
}

// A denial and an approval-with-feedback result (docs/roo-format.md §3.4), worded as "Permission rows".
TEST(PermissionRows, ApiStatusResultsGiveDecisionRows_row_contract) {
  ParserHarness h;
  run_api(h, R"([{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01B","name":"write_to_file","input":{"path":"conftest.py","content":"x"}},{"type":"tool_use","id":"toolu_01C","name":"execute_command","input":{"command":"pytest"}}],"ts":1760000004000},)"
             R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01B","content":"{\"status\":\"denied\",\"feedback\":\"leave conftest alone\"}"},{"type":"tool_result","tool_use_id":"toolu_01C","content":"{\"status\":\"approved\",\"feedback\":\"ok\"}\n\nCommand executed in terminal within working directory '/w'. Exit code: 0\nOutput:\n[pytest]"}],"ts":1760000005000}])");
  // The feedback typed on each decision is also the person's words, right after the decision and linked to it.
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"file_edit", "tool_result", "permission_decision", "user_message",
                                                "command", "tool_result", "permission_decision", "user_message"}));
  EXPECT_EQ(h.rows.str(0, "outcome"), "denied");
  EXPECT_EQ(h.rows.str(2, "text"), "permission decision: denied feedback=leave conftest alone");
  EXPECT_EQ(h.rows.str(2, "tool_use_id"), "toolu_01B");
  EXPECT_EQ(h.rows.str(2, "tool_name"), "write_to_file");
  EXPECT_EQ(h.rows.str(2, "decision"), "denied");
  EXPECT_EQ(h.rows.str(3, "text"), "leave conftest alone");
  EXPECT_EQ(h.rows.str(3, "role"), "user");
  EXPECT_EQ(h.rows.str(3, "feedback_on_decision"), "denied");
  EXPECT_EQ(h.rows.str(3, "tool_use_id"), "toolu_01B");
  EXPECT_EQ(h.rows.str(3, "tool_name"), "write_to_file");
  EXPECT_EQ(h.rows.str(3, "time_source"), "api.ts");  // no ui record shows it here
  EXPECT_EQ(h.rows.str(6, "text"), "permission decision: approved feedback=ok");
  EXPECT_EQ(h.rows.str(7, "text"), "ok");
  EXPECT_EQ(h.rows.str(7, "feedback_on_decision"), "approved");
  EXPECT_EQ(h.rows.str(7, "tool_use_id"), "toolu_01C");
  // The approval JSON opens the result; the command's own status follows it (docs/roo-format.md §3.4).
  EXPECT_EQ(h.rows.rows[4]["exit_code"].GetInt(), 0);
  EXPECT_EQ(h.rows.str(5, "result_status"), "approved");
}

// Feedback on a denial is said in the ui first (askApproval: say("user_feedback") before pushToolResult,
// presentAssistantMessage.ts v3.52.1): that record times the user row and folds into it.
TEST(PermissionRows, FeedbackOnADenialIsTimedByItsUiRecordAndFoldsIt_row_contract) {
  const UiTurnTimes ui = turns_of(
      R"([{"ts":10,"type":"say","say":"text","text":"go"},{"ts":20,"type":"ask","ask":"tool","text":"{}"},)"
      R"({"ts":30,"type":"say","say":"user_feedback","text":"leave conftest alone"},)"
      R"({"ts":40,"type":"say","say":"api_req_started","text":"{}"}])");
  ParserHarness h;
  ConversationTexts texts;
  run_api_beside_ui(h, R"([{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"write_to_file","input":{"path":"c.py","content":"x"}}],"ts":15},)"
                    R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"{\"status\":\"denied\",\"feedback\":\"leave conftest alone\"}"}],"ts":45}])", ui, &texts);
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"file_edit", "tool_result", "permission_decision", "user_message"}));
  EXPECT_EQ(h.rows.str(2, "time_utc"), "1970-01-01T00:00:00.045Z");
  EXPECT_EQ(h.rows.str(3, "time_utc"), "1970-01-01T00:00:00.030Z");  // before the request at 0.040
  EXPECT_EQ(h.rows.rows[3]["time_from_ui_record"].GetInt(), 2);
  ParserHarness u;
  run_ui(u, R"([{"ts":30,"type":"say","say":"user_feedback","text":"leave conftest alone"}])", &texts);
  EXPECT_TRUE(u.rows.rows.empty());  // the same words: one row
}

// docs/row-contract.md "outcome": a tool's failure told in its own words is an error, not completed.
TEST(CallJoin, FailuresInTheToolsOwnWordsAreErrors_row_contract) {
  ParserHarness h;
  run_api(h, "[" + call("r1", "read_file", R"({"path":"notes.txt"})", 1) + "," +
                 result("r1", R"("File: notes.txt\nError: ENOENT: no such file or directory, open '/w/notes.txt'")", 2) +
                 "," + call("r2", "read_command_output", R"({"artifact_id":"cmd-1.txt"})", 3) + "," +
                 result("r2", R"("Error: Artifact not found: cmd-1.txt")", 4) + "," +
                 call("r3", "apply_diff", R"({"path":"a.py","diff":"<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE"})", 5) +
                 "," + result("r3", R"("Unable to apply diff to file: /w/a.py\n\n<error_details>\nNo sufficiently similar match found\n</error_details>")", 6) +
                 "," + call("r4", "read_file", R"({"path":"ok.txt"})", 7) + "," +
                 result("r4", R"("File: ok.txt\nLines 1-1:\n1 | Error: this line is file content")", 8) + "]");
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"file_read", "tool_result", "tool_call", "tool_result", "file_edit",
                                                "tool_result", "file_read", "tool_result"}));
  EXPECT_EQ(h.rows.str(0, "outcome"), "error");
  EXPECT_EQ(h.rows.str(1, "failure_form"), "File: … Error");
  EXPECT_EQ(h.rows.str(2, "outcome"), "error");
  EXPECT_EQ(h.rows.str(3, "failure_form"), "Error");
  EXPECT_EQ(h.rows.str(4, "outcome"), "error");
  EXPECT_EQ(h.rows.str(5, "failure_form"), "Unable to apply diff to file");
  EXPECT_EQ(h.rows.str(6, "outcome"), "completed");  // a read whose file says "Error" is still a read
  EXPECT_FALSE(h.rows.rows[7].HasMember("failure_form"));
}

// "Roo's texts in user turns": the mistake-limit guidance is Roo's; the feedback inside it the user's.
TEST(UserTurns, MistakeGuidanceIsRoosItsFeedbackTheUsers_row_contract) {
  ParserHarness h;
  run_api(h, R"([{"role":"user","content":[{"type":"text","text":"{\"status\":\"guidance\",\"feedback\":\"read the file first\"}"}],"ts":1}])");
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"mistake_guidance", "user_message"}));
  EXPECT_EQ(h.rows.str(0, "role"), "system");
  EXPECT_EQ(h.rows.str(0, "roo_text"), R"({"status":"guidance")");
  EXPECT_EQ(h.rows.str(1, "text"), "read the file first");
  EXPECT_EQ(h.rows.str(1, "inside_roo_text"), "mistake_guidance");
}

// docs/roo-format.md §3.4 (responses.ts:99-111): a denial with images is a block list whose first text block is the
// JSON; .rooignore blocks are typed, not left as text.
TEST(PermissionRows, DenialWithImagesAndRooignoreBlock_roo_format_3_4) {
  ParserHarness h;
  run_api(h, R"([{"role":"assistant","content":[{"type":"tool_use","id":"d1","name":"execute_command","input":{"command":"rm x"}},{"type":"tool_use","id":"d2","name":"read_file","input":{"path":".env"}}],"ts":1},)"
             R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"d1","content":[{"type":"text","text":"{\"status\":\"denied\",\"feedback\":\"not that\"}"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBO"}}]},)"
             R"({"type":"tool_result","tool_use_id":"d2","content":"{\"status\":\"error\",\"type\":\"access_denied\",\"message\":\"Access blocked by .rooignore\",\"path\":\".env\",\"suggestion\":\"ask\"}"}],"ts":2}])");
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"command", "tool_result", "permission_decision", "user_message",
                                                "file_read", "tool_result"}));
  EXPECT_EQ(h.rows.str(2, "text"), "permission decision: denied feedback=not that");
  EXPECT_EQ(h.rows.str(3, "text"), "not that");
  EXPECT_EQ(h.rows.str(4, "outcome"), "access_denied");
  EXPECT_EQ(h.rows.str(5, "error_type"), "access_denied");
  EXPECT_EQ(h.rows.str(5, "blocked_path"), ".env");
}

// With no api history, the ui's command output belongs to the ui's command (its execution id is the ask's ts).
TEST(CommandRows, UiOnlyCommandKeepsItsOutput_roo_format_2_7) {
  ParserHarness h;
  run_ui(h, R"([{"ts":7,"type":"ask","ask":"command","text":"ls","isAnswered":true},{"ts":8,"type":"ask","ask":"command_output","text":""},{"ts":8,"type":"say","say":"command_output","text":"a.txt"}])");
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"approval_request", "permission_decision", "command",
                                                "command_output", "command_output"}));
  EXPECT_EQ(h.rows.str(4, "text"), "a.txt");
  EXPECT_EQ(h.rows.str(4, "execution_id"), "7");
}

// "Permission rows": a ui tool ask with isAnswered:true; "Overlapping reports": an ask without it is a request only.
TEST(PermissionRows, UiAnsweredAskIsAnApprovalUnansweredIsARequestOnly_row_contract) {
  ParserHarness h;
  run_ui(h, R"([{"ts":1760000002000,"type":"ask","ask":"tool","text":"{\"tool\":\"appliedDiff\",\"path\":\"src/util.py\",\"diff\":\"-old\\n+new\"}","isAnswered":true},)"
            R"({"ts":1760000003000,"type":"ask","ask":"use_mcp_server","text":"{\"type\":\"use_mcp_tool\",\"serverName\":\"github\",\"toolName\":\"create_issue\"}"}])");
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"approval_request", "permission_decision", "approval_request"}));
  EXPECT_EQ(h.rows.str(0, "tool_name"), "appliedDiff");
  EXPECT_EQ(h.rows.str(0, "file_path_resolved"), "/home/alice/proj/src/util.py");
  EXPECT_EQ(h.rows.str(1, "text"), "permission decision: approved isAnswered=true");
  EXPECT_EQ(h.rows.str(1, "tool_use_id"), "1760000002000");  // the ask's ts
  EXPECT_EQ(h.rows.str(1, "decided_by"), "user_or_auto");
  EXPECT_EQ(h.rows.str(2, "mcp_server"), "github");
  EXPECT_FALSE(h.rows.rows[2].HasMember("is_answered"));
}

// "Edits and reads": edits keep both sides and a sha256 of each; "Workspace paths": paths resolve against it.
TEST(EditRows, ApplyDiffBlocksAndPatchFilesBecomeFileEditRows_row_contract) {
  ParserHarness h;
  const std::string diff =
      R"(<<<<<<< SEARCH\n:start_line:3\n-------\nold a\n=======\nnew a\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\nold b\n=======\nnew b\n>>>>>>> REPLACE)";
  const std::string patch =
      R"(*** Begin Patch\n*** Add File: docs/new.md\n+hello\n*** Update File: src/x.py\n@@\n-a = 1\n+a = 2\n*** End Patch)";
  run_api(h, "[" + call("e1", "apply_diff", R"({"path":"src/y.py","diff":")" + diff + R"("})", 1000) + "," +
                 call("e2", "apply_patch", R"({"patch":")" + patch + R"("})", 1000) + "]");
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"file_edit", "file_edit", "file_edit"}));
  EXPECT_EQ(h.rows.str(0, "file_path"), "src/y.py");
  EXPECT_EQ(h.rows.str(0, "file_path_resolved"), "/home/alice/proj/src/y.py");
  EXPECT_EQ(h.rows.str(0, "edit_form"), "search_replace_blocks");
  ASSERT_EQ(h.rows.rows[0]["hunks"].Size(), 2u);
  EXPECT_STREQ(h.rows.rows[0]["hunks"][0]["old_text"].GetString(), "old a");
  EXPECT_STREQ(h.rows.rows[0]["hunks"][0]["new_text"].GetString(), "new a");
  EXPECT_EQ(h.rows.rows[0]["hunks"][0]["start_line"].GetInt(), 3);
  // sha256("old a"), computed with coreutils: printf 'old a' | sha256sum
  EXPECT_STREQ(h.rows.rows[0]["hunks"][0]["old_sha256"].GetString(),
               "eda24220aaabb967c3198b14fad462ab6215f7fac85ae789a90a07e1ad77ec3f");
  EXPECT_EQ(h.rows.rows[0]["hunk_count"].GetInt(), 2);
  EXPECT_FALSE(h.rows.rows[0].HasMember("old_text"));  // the sides are only in hunks
  EXPECT_FALSE(h.rows.rows[0]["result_recorded"].GetBool());  // the file ended before a result
  EXPECT_EQ(h.rows.str(1, "file_path"), "docs/new.md");
  EXPECT_EQ(h.rows.str(1, "edit_form"), "patch_add");
  EXPECT_EQ(h.rows.src(1)["part_index"].GetInt(), 0);
  EXPECT_EQ(h.rows.str(2, "file_path"), "src/x.py");
  EXPECT_EQ(h.rows.src(2)["part_index"].GetInt(), 1);
  EXPECT_NE(h.rows.str(1, "row_id"), h.rows.str(2, "row_id"));
}

// docs/roo-format.md §3.3: read_file's legacy files list, here as a JSON string.
TEST(ReadRows, LegacyFilesStringGivesOneRowPerPath_roo_format_3_3) {
  ParserHarness h;
  run_api(h, "[" + call("r1", "read_file", R"({"files":"[{\"path\":\"a.py\",\"line_ranges\":[[1,40]]},{\"path\":\"/abs/b.py\"}]"})", 1000) + "]");
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"file_read", "file_read"}));
  EXPECT_EQ(h.rows.str(0, "line_ranges"), "1-40");
  EXPECT_EQ(h.rows.str(0, "file_path_resolved"), "/home/alice/proj/a.py");
  EXPECT_FALSE(h.rows.rows[1].HasMember("file_path_resolved"));  // absolute: nothing to resolve
}

// "Workspace paths": the path stays as recorded when the task has no workspace.
TEST(ReadRows, NoWorkspaceKeepsTheRecordedPath_row_contract) {
  EXPECT_EQ(resolve_task_path("loop.go", std::nullopt), std::nullopt);
  EXPECT_EQ(resolve_task_path("src/a.ts", std::string("c:\\Users\\bob\\app")), "c:\\Users\\bob\\app\\src\\a.ts");
  EXPECT_EQ(resolve_task_path("./a.ts", std::string("/p/")), "/p/a.ts");
  EXPECT_EQ(resolve_task_path("C:\\x\\a.ts", std::string("/p")), std::nullopt);
}

const std::string kXmlTask =
    R"([{"role":"user","content":[{"type":"text","text":"<task>\nmake it\n</task>"}],"ts":1000},)"
    R"({"role":"assistant","content":[{"type":"text","text":"<thinking>\nwrite it\n</thinking>\n\n<write_to_file>\n<path>a.html</path>\n<content>\n<div>hi</div>\n</content>\n</write_to_file>\n<read_file>\n<path>b</path>\n</read_file>"}],"ts":2000},)"
    R"({"role":"user","content":[{"type":"text","text":"[write_to_file for 'a.html'] Result:"},{"type":"text","text":"The user denied this operation and provided the following feedback:\n<feedback>\nuse a span\n</feedback>"},{"type":"text","text":"Tool [read_file] was not executed because a tool has already been used in this message. Only one tool may be used per message."},{"type":"text","text":"<environment_details>\n# Current Mode\n<slug>code</slug>\n<model>m-2</model>\n</environment_details>"}],"ts":3000},)"
    R"({"role":"assistant","content":[{"type":"text","text":"ok"}],"ts":4000}])";

// "XML-era tool calls": in a task with no tool_use block, the first XML call of a message is a call; its result comes
// back as a "[tool] Result:" text; the XML-era denial text is a decision (docs/roo-format.md §4).
TEST(XmlEra, FirstXmlCallIsACallAndItsDenialADecision_row_contract) {
  ParserHarness h;
  run_api(h, kXmlTask);
  // The text after the first call (a second call the client never ran) is still what the model wrote.
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"user_message", "reasoning", "assistant_message", "file_edit",
                                                "tool_result", "permission_decision", "user_message", "tool_result",
                                                "environment", "assistant_message"}));
  EXPECT_EQ(h.rows.str(0, "text"), "make it");
  EXPECT_EQ(h.rows.str(1, "text"), "write it");
  EXPECT_EQ(h.rows.str(2, "text"), "<read_file>\n<path>b</path>\n</read_file>");
  EXPECT_EQ(h.rows.str(3, "call_format"), "xml");
  EXPECT_STREQ(h.rows.rows[3]["hunks"][0]["new_text"].GetString(), "<div>hi</div>");
  EXPECT_FALSE(h.rows.rows[3]["hunks"][0].HasMember("old_text"));  // write_to_file records the written side only
  EXPECT_EQ(h.rows.str(3, "outcome"), "denied");
  EXPECT_FALSE(h.rows.rows[3].HasMember("tool_use_id"));
  EXPECT_EQ(h.rows.str(4, "tool_name"), "write_to_file");
  EXPECT_EQ(h.rows.str(5, "text"), "permission decision: denied feedback=use a span");
  EXPECT_EQ(h.rows.str(6, "text"), "use a span");  // feedback typed beside a result is the person's
  EXPECT_EQ(h.rows.str(6, "feedback_on_decision"), "denied");
  EXPECT_EQ(h.rows.str(6, "tool_name"), "write_to_file");
  EXPECT_EQ(h.rows.str(7, "skipped"), "not_executed");  // the second call was never run: no call row for it
  EXPECT_EQ(h.rows.str(9, "model"), "m-2");  // the model the environment block named serves the next request
  EXPECT_EQ(h.rows.str(9, "model_source"), "environment_details");
  EXPECT_FALSE(h.rows.rows[3].HasMember("model"));  // before any environment block: no model
}

// "outcome", "Roo's texts in user turns": results in Roo's words of the XML era (src/core/Cline.ts and
// src/core/prompts/responses.ts v3.3.26, v3.10.0; src/core/tools/useMcpToolTool.ts v3.30.0) say what became of the
// call, and the result row names the wording and the releases that write it.
TEST(XmlEra, ResultsInRoosWordsGiveTheirOutcome_row_contract) {
  auto turn = [](const std::string& call_xml, const std::string& header, const std::string& body, int ts) {
    return R"({"role":"assistant","content":[{"type":"text","text":")" + call_xml + R"("}],"ts":)" +
           std::to_string(ts) + R"(},{"role":"user","content":[{"type":"text","text":")" + header +
           R"("},{"type":"text","text":")" + body + R"("}],"ts":)" + std::to_string(ts + 1) + "}";
  };
  ParserHarness h;
  run_api(h, "[" +
                 turn(R"(<use_mcp_tool>\n<server_name>github</server_name>\n<tool_name>create_issue</tool_name>\n</use_mcp_tool>)",
                      "[use_mcp_tool for 'github'] Result:",
                      R"(Tool 'create_issue' does not exist on server 'github'.\n\nAvailable tools on this server: list_issues\n\nPlease use one of the available tools or check if the server is properly configured.)",
                      10) +
                 "," +
                 turn(R"(<read_file>\n<path>.env</path>\n</read_file>)", "[read_file for '.env'] Result:",
                      R"(The tool execution failed with the following error:\n<error>\nAccess to .env is blocked by the .rooignore file settings. You must try to continue in the task without using this file, or ask the user to update the .rooignore file.\n</error>)",
                      20) +
                 "," +
                 turn(R"(<write_to_file>\n<path>a.py</path>\n</write_to_file>)", "[write_to_file] Result:",
                      R"(The tool execution failed with the following error:\n<error>\nMissing value for required parameter 'content'. Please retry with complete response.\n\n# Reminder: Instructions for Tool Use\n\nTool uses are formatted using XML-style tags. The tool name is enclosed in opening and closing tags\n</error>)",
                      30) +
                 "," +
                 turn(R"(<apply_diff>\n<path>a.py</path>\n<diff>\nx\n</diff>\n</apply_diff>)", "[apply_diff for 'a.py'] Result:",
                      "Changes were rejected by the user.", 40) +
                 "," + turn(R"(<list_files>\n<path>.</path>\n</list_files>)", "[list_files for '.'] Result:", "a.py", 50) + "]");
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"tool_call", "tool_result", "file_read", "tool_result", "file_edit",
                                                "tool_result", "file_edit", "tool_result", "tool_call", "tool_result"}));
  EXPECT_EQ(h.rows.str(0, "outcome"), "error");  // was "completed": the sentence is not the tool's output
  EXPECT_EQ(h.rows.str(1, "roo_text"), "Tool '");
  EXPECT_EQ(h.rows.str(1, "roo_text_releases"), "v3.26.7 … v3.41.3");
  EXPECT_EQ(h.rows.str(2, "outcome"), "access_denied");  // toolError(rooIgnoreError): the wrapped text tells
  EXPECT_EQ(h.rows.str(3, "roo_text"), "Access to ");
  EXPECT_EQ(h.rows.str(3, "result_status"), "error");
  EXPECT_EQ(h.rows.str(4, "outcome"), "error");
  EXPECT_EQ(h.rows.str(5, "roo_text"), "Missing value for required parameter '");
  EXPECT_EQ(h.rows.str(5, "roo_text_releases"), "v2.1.2 … v3.16.1");
  EXPECT_EQ(h.rows.str(6, "outcome"), "denied");
  EXPECT_EQ(h.rows.str(7, "roo_text"), "Changes were rejected by the user.");
  EXPECT_EQ(h.rows.str(8, "outcome"), "completed");
  EXPECT_FALSE(h.rows.rows[9].HasMember("roo_text"));  // the tool's own output
}

// "XML-era tool calls": in a task with a tool_use block anywhere (here: later), XML in a text is what the model showed.
TEST(XmlEra, XmlInANativeTaskIsOnlyText_row_contract) {
  ParserHarness h;
  run_api(h, R"([{"role":"assistant","content":[{"type":"text","text":"Use <execute_command><command>ls</command></execute_command>"}],"ts":1},)" +
                 call("n1", "list_files", R"({"path":".","recursive":false})", 2) + "]");
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"assistant_message", "tool_call"}));
  EXPECT_EQ(h.rows.str(1, "file_path"), ".");
}

// docs/roo-format.md §3.2, §3.4: retry prompts, resumptions and subtask injections are not the user's words.
TEST(UserTurns, ClientTextsAreTypedNotUserWords_roo_format_3_4) {
  ParserHarness h;
  run_api(h, R"([{"role":"user","content":[{"type":"text","text":"[ERROR] You did not use a tool in your previous response! Please retry with a tool use."}],"ts":1},)"
             R"({"role":"user","content":[{"type":"text","text":"[TASK RESUMPTION] This task was interrupted 2 hours ago.\n\nNew instructions for task continuation:\n<user_message>\ngo on\n</user_message>"}],"ts":2},)"
             R"({"role":"user","content":[{"type":"text","text":"Subtask 019d-child completed.\n\nResult:\ndone"}],"ts":3}])");
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"retry_prompt", "task_resumption", "user_message", "tool_result",
                                                "subtask_link"}));
  EXPECT_EQ(h.rows.str(2, "text"), "go on");
  EXPECT_EQ(h.rows.str(3, "subtask_id"), "019d-child");
  EXPECT_EQ(h.rows.str(4, "relation"), "completed_by_child");
  EXPECT_EQ(h.rows.str(4, "linked_session_id"), "019d-child");
}

// The answer to ask_followup_question is a user row ("XML-era tool calls"); the api question folds the ui followup ask.
TEST(UserTurns, FollowupAnswerIsAUserRow_row_contract) {
  ParserHarness h;
  ConversationTexts texts;
  run_api(h, "[" + call("q1", "ask_followup_question", R"({"question":"Which db?","follow_up":[{"text":"pg","mode":null}]})", 1) +
                 "," + result("q1", R"("<user_message>\npostgres\n</user_message>")", 2) + "]",
          &texts);
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"tool_call", "tool_result", "user_message"}));
  EXPECT_EQ(h.rows.str(0, "question"), "Which db?");
  EXPECT_STREQ(h.rows.rows[0]["suggestions"][0].GetString(), "pg");
  EXPECT_EQ(h.rows.str(2, "text"), "postgres");
  ParserHarness u;
  run_ui(u, R"([{"ts":1,"type":"ask","ask":"followup","text":"{\"question\":\"Which db?\",\"suggest\":[{\"answer\":\"pg\"}]}","isAnswered":true},{"ts":2,"type":"say","say":"user_feedback","text":"postgres"}])",
         &texts);
  EXPECT_TRUE(u.rows.rows.empty());  // both are the api's facts again
}

// docs/row-contract.md "Mentions": the prompt's row holds what the user typed (the ui's text, which then folds), each
// expanded block is a mentioned_content row naming the path, with its size and sha256.
TEST(Mentions, ThePromptKeepsTheTypedWordsAndEachExpansionIsARow_row_contract) {
  const UiTurnTimes ui = turns_of(R"([{"ts":100,"type":"say","say":"text","text":"Explain @/a.py"}])");
  ParserHarness h;
  ConversationTexts texts;
  run_api_beside_ui(
      h,
      R"([{"role":"user","content":[{"type":"text","text":"<task>\nExplain 'a.py' (see below for file content)\n</task>\n\n<file_content path=\"a.py\">\n1 | x = 1\n</file_content>"}],"ts":150}])",
      ui, &texts);
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"user_message", "mentioned_content"}));
  EXPECT_EQ(h.rows.str(0, "text"), "Explain @/a.py");
  EXPECT_EQ(h.rows.str(0, "time_source"), "ui.ts");
  EXPECT_EQ(h.rows.str(1, "role"), "system");
  EXPECT_EQ(h.rows.str(1, "text"), "1 | x = 1");
  EXPECT_EQ(h.rows.str(1, "mention_kind"), "file");
  EXPECT_EQ(h.rows.str(1, "mentioned_path"), "a.py");
  EXPECT_EQ(h.rows.str(1, "mentioned_path_resolved"), "/home/alice/proj/a.py");
  EXPECT_EQ(h.rows.rows[1]["content_size"].GetInt(), 9);
  // sha256 of "1 | x = 1" (printf '1 | x = 1' | sha256sum).
  EXPECT_EQ(h.rows.str(1, "content_sha256"), "99c67bea37fb57304beb6c2dfe3e743496bf77ca09b729effe8d5828a850098c");
  ParserHarness u;
  run_ui(u, R"([{"ts":100,"type":"say","say":"text","text":"Explain @/a.py"}])", &texts);
  EXPECT_TRUE(u.rows.rows.empty());  // one user row for the prompt
}

// docs/row-contract.md "Mentions", v3.46.0+ form (processUserContentMentions.ts v3.52.1): the file and folder
// mentions follow the prompt as text blocks of their own, each a mentioned_content row with its own sub_index; the
// prompt is one user row with the typed words.
TEST(Mentions, CurrentFormFileBlocksAreRowsAndThePromptIsOneRow_row_contract) {
  const std::string ui_bytes = R"([{"ts":100,"type":"say","say":"text","text":"Fix @/a.py in @/lib/ and @problems"}])";
  const UiTurnTimes ui = turns_of(ui_bytes);
  ParserHarness h;
  ConversationTexts texts;
  run_api_beside_ui(
      h,
      R"([{"role":"user","content":[)"
      R"({"type":"text","text":"<user_message>\nFix 'a.py' in 'lib/' and Workspace Problems (see below for diagnostics)\n</user_message>\n\n<workspace_diagnostics>\nNo errors or warnings detected.\n</workspace_diagnostics>"},)"
      R"({"type":"text","text":"[read_file for 'a.py']\nFile: a.py\n1 | x = 1"},)"
      R"({"type":"text","text":"[read_file for folder 'lib/']\nFolder listing:\n└── b.py\n"},)"
      R"({"type":"text","text":"<environment_details>\n# Current Mode\n<slug>code</slug>\n</environment_details>"}],"ts":150}])",
      ui, &texts);
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"user_message", "mentioned_content", "mentioned_content",
                                                "mentioned_content", "environment"}));
  EXPECT_EQ(h.rows.str(0, "text"), "Fix @/a.py in @/lib/ and @problems");
  EXPECT_EQ(h.rows.str(0, "time_source"), "ui.ts");
  EXPECT_EQ(h.rows.str(1, "mention_kind"), "problems");
  EXPECT_EQ(h.rows.str(2, "mention_kind"), "file");
  EXPECT_EQ(h.rows.str(2, "mentioned_path"), "a.py");
  EXPECT_EQ(h.rows.str(2, "mentioned_path_resolved"), "/home/alice/proj/a.py");
  EXPECT_EQ(h.rows.str(2, "text"), "[read_file for 'a.py']\nFile: a.py\n1 | x = 1");
  EXPECT_EQ(h.rows.rows[2]["content_size"].GetInt(), 43);
  // printf "[read_file for 'a.py']\nFile: a.py\n1 | x = 1" | sha256sum
  EXPECT_EQ(h.rows.str(2, "content_sha256"), "45cd2eab177b3f5395ed781cbd8bbd67096a70713b3dc6913be94c9117cc9691");
  EXPECT_EQ(h.rows.rows[2]["source"]["sub_index"].GetInt(), 1);
  EXPECT_EQ(h.rows.str(3, "mention_kind"), "folder");
  EXPECT_EQ(h.rows.rows[3]["source"]["sub_index"].GetInt(), 2);
  EXPECT_EQ(h.rows.rows[4]["source"]["sub_index"].GetInt(), 3);
  ParserHarness u;
  run_ui(u, ui_bytes, &texts);
  EXPECT_TRUE(u.rows.rows.empty());  // the ui's prompt folds into the one user row
}

// A URL mention of v3.48.0+ is sent only quoted, its page not fetched (parseMentions, src/core/mentions/index.ts
// v3.52.1: `'${mention}'`), so no block tells it from a quote the user typed: the ui record of the prompt does, and
// the prompt is still one user row of the typed words, timed by that record.
TEST(Mentions, AQuotedUrlMentionIsTheTypedMentionWhenTheUiRecordSaysSo_row_contract) {
  const std::string ui_bytes =
      R"([{"ts":100,"type":"say","say":"text","text":"Style of @https://peps.python.org/pep-0008/, see 'https://x.org'"},)"
      R"({"ts":300,"type":"say","say":"user_feedback","text":"Use 'https://y.org' as written"}])";
  const UiTurnTimes ui = turns_of(ui_bytes);
  ParserHarness h;
  ConversationTexts texts;
  run_api_beside_ui(
      h,
      R"([{"role":"user","content":[{"type":"text","text":"<user_message>\nStyle of 'https://peps.python.org/pep-0008/', see 'https://x.org'\n</user_message>"}],"ts":150},)"
      R"({"role":"user","content":[{"type":"text","text":"<user_message>\nUse 'https://y.org' as written\n</user_message>"}],"ts":350}])",
      ui, &texts);
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"user_message", "user_message"}));
  // Only the URL the user mentioned becomes @ again; the one typed in quotes stays quoted.
  EXPECT_EQ(h.rows.str(0, "text"), "Style of @https://peps.python.org/pep-0008/, see 'https://x.org'");
  EXPECT_EQ(h.rows.str(0, "time_source"), "ui.ts");
  EXPECT_EQ(h.rows.rows[0]["time_from_ui_record"].GetInt(), 0);
  EXPECT_EQ(h.rows.str(1, "text"), "Use 'https://y.org' as written");
  EXPECT_EQ(h.rows.rows[1]["time_from_ui_record"].GetInt(), 1);
  ParserHarness u;
  run_ui(u, ui_bytes, &texts);
  EXPECT_TRUE(u.rows.rows.empty());  // both ui records fold into the api rows
}

// A follow-up answer of v3.52.1 (AskFollowupQuestionTool.ts): "<user_message>…" as a tool_result, which
// processUserContentMentions turns into parts: the words, then each file block. The result keeps the words part,
// the answer is a user row of the typed words, each expansion a row with part_index.
TEST(Mentions, AnAnswerInAResultKeepsTheWordsAndEachExpansionIsARow_row_contract) {
  const UiTurnTimes ui = turns_of(R"([{"ts":1900,"type":"say","say":"user_feedback","text":"see @terminal and @/a.py"}])");
  ParserHarness h;
  run_api_beside_ui(
      h,
      "[" + call("q1", "ask_followup_question", R"({"question":"Which?","follow_up":[{"text":"a","mode":null}]})", 1000) +
          R"(,{"role":"user","content":[{"type":"tool_result","tool_use_id":"q1","content":[)"
          R"({"type":"text","text":"<user_message>\nsee Terminal Output (see below for output) and 'a.py'\n</user_message>\n\n<terminal_output>\n$ ls\n</terminal_output>"},)"
          R"({"type":"text","text":"[read_file for 'a.py']\nFile: a.py\n1 | x"}]}],"ts":2000}])",
      ui);
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"tool_call", "tool_result", "user_message", "mentioned_content",
                                                "mentioned_content"}));
  EXPECT_EQ(h.rows.str(0, "outcome"), "completed");
  EXPECT_EQ(h.rows.str(1, "text"), "<user_message>\nsee Terminal Output (see below for output) and 'a.py'\n</user_message>");
  EXPECT_EQ(h.rows.str(2, "text"), "see @terminal and @/a.py");
  EXPECT_EQ(h.rows.str(2, "time_source"), "ui.ts");
  EXPECT_EQ(h.rows.str(3, "mention_kind"), "terminal");
  EXPECT_EQ(h.rows.str(3, "text"), "$ ls");
  EXPECT_EQ(h.rows.rows[3]["source"]["part_index"].GetInt(), 0);
  EXPECT_EQ(h.rows.str(4, "mentioned_path"), "a.py");
  EXPECT_EQ(h.rows.rows[4]["source"]["part_index"].GetInt(), 1);
}

// XML era (loadContext, src/core/Cline.ts v3.3.26): a denial's <feedback> is expanded, the block after
// "</feedback>". The decision's feedback and the user row are the typed words; the block is a row after them.
TEST(Mentions, FeedbackOnADenialKeepsTheTypedWords_row_contract) {
  ParserHarness h;
  run_api(h, R"([{"role":"assistant","content":[{"type":"text","text":"<execute_command>\n<command>cat a.py</command>\n</execute_command>"}],"ts":1000},)"
             R"({"role":"user","content":[{"type":"text","text":"[execute_command for 'cat a.py'] Result:"},)"
             R"({"type":"text","text":"The user denied this operation and provided the following feedback:\n<feedback>\nRead 'a.py' (see below for file content)\n</feedback>\n\n<file_content path=\"a.py\">\n1 | x\n</file_content>"}],"ts":2000}])");
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"command", "tool_result", "permission_decision", "user_message",
                                                "mentioned_content"}));
  EXPECT_EQ(h.rows.str(0, "outcome"), "denied");
  EXPECT_EQ(h.rows.str(1, "feedback"), "Read @/a.py");
  EXPECT_EQ(h.rows.str(1, "text"),
            "The user denied this operation and provided the following feedback:\n<feedback>\nRead 'a.py' (see below "
            "for file content)\n</feedback>");
  EXPECT_EQ(h.rows.str(2, "text"), "permission decision: denied feedback=Read @/a.py");
  EXPECT_EQ(h.rows.str(3, "text"), "Read @/a.py");
  EXPECT_EQ(h.rows.str(3, "feedback_on_decision"), "denied");
  EXPECT_EQ(h.rows.str(4, "text"), "1 | x");
  EXPECT_EQ(h.rows.str(4, "mentioned_path"), "a.py");
}

// The mistake-limit prompt's <feedback> (tooManyMistakes, src/core/prompts/responses.ts v3.3.26) is expanded too.
TEST(Mentions, FeedbackInsideAMistakeLimitPromptKeepsTheTypedWords_row_contract) {
  ParserHarness h;
  run_api(h, R"([{"role":"user","content":[{"type":"text","text":"You seem to be having trouble proceeding. The user has provided the following feedback to help guide you:\n<feedback>\nRead 'a.py' (see below for file content)\n</feedback>\n\n<file_content path=\"a.py\">\n1 | x\n</file_content>"}],"ts":1}])");
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"mistake_guidance", "user_message", "mentioned_content"}));
  EXPECT_EQ(h.rows.str(0, "text"),
            "You seem to be having trouble proceeding. The user has provided the following feedback to help guide "
            "you:\n<feedback>\nRead 'a.py' (see below for file content)\n</feedback>");
  EXPECT_EQ(h.rows.str(1, "text"), "Read @/a.py");
  EXPECT_EQ(h.rows.str(1, "inside_roo_text"), "mistake_guidance");
  EXPECT_EQ(h.rows.str(2, "text"), "1 | x");
}

// Cut or malformed expansions never crash and lose nothing: a file block whose header line is cut is the user's
// text as recorded, a reply whose block never closes keeps the recorded feedback, a record cut in a block is a
// parser_error after the rows before it.
TEST(Mentions, CutExpansionsStayAsRecorded_row_contract) {
  ParserHarness h;
  run_api(h, R"([{"role":"user","content":[{"type":"text","text":"<user_message>\nFix 'a.py'\n</user_message>"},)"
             R"({"type":"text","text":"[read_file for 'a.py"}],"ts":1}])");
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"user_message", "user_message"}));
  EXPECT_EQ(h.rows.str(0, "text"), "Fix 'a.py'");
  EXPECT_EQ(h.rows.str(1, "text"), "[read_file for 'a.py");

  ParserHarness d;
  run_api(d, R"([{"role":"assistant","content":[{"type":"text","text":"<execute_command>\n<command>ls</command>\n</execute_command>"}],"ts":1},)"
             R"({"role":"user","content":[{"type":"text","text":"[execute_command for 'ls'] Result:"},)"
             R"({"type":"text","text":"The user denied this operation and provided the following feedback:\n<feedback>\nRead 'a.py' (see below for file content)\n</feedback>\n\n<file_content path=\"a.py\">\n1 | x"}],"ts":2}])");
  ASSERT_EQ(kinds(d), (std::vector<std::string>{"command", "tool_result", "permission_decision", "user_message"}));
  EXPECT_EQ(d.rows.str(3, "text"), "Read 'a.py' (see below for file content)");

  ParserHarness c;
  run_api(c, R"([{"role":"user","content":[{"type":"text","text":"<user_message>\nFix 'a.py'\n</user_message>"}],"ts":1},)"
             R"({"role":"user","content":[{"type":"text","text":"<user_message>\nFix 'a.py'\n</user_message>"},{"type":"text","text":"[read_file for 'a.py']\nFi)");
  ASSERT_EQ(kinds(c), (std::vector<std::string>{"user_message", "parser_error"}));
}

// docs/roo-format.md §3.1: condensed messages are kept and marked; the summary is its own row.
TEST(Condense, HiddenMessagesAreKeptAndMarked_roo_format_3_1) {
  ParserHarness h;
  run_api(h, R"([{"role":"user","content":[{"type":"text","text":"old words"}],"ts":1,"condenseParent":"c-1"},)"
             R"({"role":"user","content":[{"type":"text","text":"## Conversation Summary\nshort"}],"ts":2,"isSummary":true,"condenseId":"c-1"},)"
             R"({"role":"user","content":"[Sliding window truncation: 4 messages hidden to reduce context]","ts":3,"isTruncationMarker":true,"truncationId":"t-1"}])");
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"user_message", "condense_summary", "context_truncation"}));
  EXPECT_EQ(h.rows.str(0, "hidden_by_condense"), "c-1");
  EXPECT_EQ(h.rows.str(1, "condense_id"), "c-1");
  EXPECT_EQ(h.rows.str(2, "truncation_id"), "t-1");
}

// A call whose result never came is written before the report of a cut file, marked result_recorded:false.
TEST(CallJoin, UnansweredCallComesBeforeTheCutReport) {
  ParserHarness h;
  run_api(h, "[" + call("x", "execute_command", R"({"command":"ls"})", 1) + R"(,{"role":"user","cont)");
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"command", "parser_error"}));
  EXPECT_FALSE(h.rows.rows[0]["result_recorded"].GetBool());
  EXPECT_EQ(h.rows.str(1, "text"), "parser: array cut off after record 1");
}

// docs/row-contract.md "Typed ui rows": UI-only records each get a kind; unknown kinds stay ui_event.
TEST(UiRows, UiOnlyRecordsAreTyped) {
  ParserHarness h;
  run_ui(h, R"([{"ts":1,"type":"say","say":"checkpoint_saved","text":"0123456789abcdef0123456789abcdef01234567","checkpoint":{"from":"aaa","to":"bbb","suppressMessage":false}},)"
            R"({"ts":2,"type":"say","say":"condense_context","contextCondense":{"cost":0.02,"prevContextTokens":90000,"newContextTokens":12000,"summary":"sum","condenseId":"c-1"}},)"
            R"({"ts":3,"type":"ask","ask":"resume_task"},{"ts":4,"type":"say","say":"error","text":"boom"},)"
            R"({"ts":5,"type":"say","say":"too_many_tools_warning","text":"{\"toolCount\":70,\"serverCount\":3,\"threshold\":60}"},)"
            R"({"ts":6,"type":"say","say":"brand_new","text":"?"}])");
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"checkpoint", "condense", "task_resumed", "ui_error", "ui_warning",
                                                "ui_event"}));
  EXPECT_EQ(h.rows.str(0, "commit_hash"), "0123456789abcdef0123456789abcdef01234567");
  EXPECT_EQ(h.rows.str(0, "checkpoint_to"), "bbb");
  EXPECT_EQ(h.rows.rows[1]["prev_context_tokens"].GetInt(), 90000);
  EXPECT_EQ(h.rows.str(1, "text"), "sum");
  EXPECT_EQ(h.rows.str(2, "text"), "<absent>");
  EXPECT_EQ(h.rows.rows[4]["tool_count"].GetInt(), 70);
  EXPECT_EQ(h.rows.str(5, "ui_kind"), "brand_new");
}

// docs/row-contract.md "Typed ui rows": the asks and says @roo-code/types names get kinds of their own, told by the
// record's type as well as its name (a say:"resume_task" is no resumption; ask:"completion_result" is the prompt
// after a result). Record texts in the shapes of the Roo tools that write them (RooCodeInc/Roo-Code v3.52.1, v3.47.0).
TEST(UiRows, NamedAsksAndSaysGetTheirKinds) {
  ParserHarness h;
  run_ui(h, R"([{"ts":1,"type":"ask","ask":"completion_result","text":""},)"
            R"({"ts":2,"type":"say","say":"mcp_server_request_started"},)"
            R"({"ts":3,"type":"say","say":"mcp_server_response","text":"{\"ok\":true}"},)"
            R"({"ts":4,"type":"say","say":"codebase_search_result","text":"{\"tool\":\"codebaseSearch\",\"content\":{\"query\":\"auth\",\"results\":[{\"filePath\":\"a.ts\",\"score\":0.9,\"startLine\":1,\"endLine\":9,\"codeChunk\":\"x\"},{\"filePath\":\"b.ts\",\"score\":0.5,\"startLine\":2,\"endLine\":3,\"codeChunk\":\"y\"}]}}"},)"
            R"({"ts":5,"type":"say","say":"user_edit_todos","text":"{\"tool\":\"updateTodoList\",\"todos\":[]}"},)"
            R"({"ts":6,"type":"say","say":"image","text":"{\"imageUri\":\"vscode-file://x\",\"imagePath\":\"out/cat.png\"}"},)"
            R"({"ts":7,"type":"say","say":"tool","text":"{\"tool\":\"readCommandOutput\",\"readStart\":0}"},)"
            R"({"ts":8,"type":"ask","ask":"browser_action_launch","text":"http://localhost:3000"},)"
            R"({"ts":9,"type":"say","say":"browser_action","text":"{\"action\":\"click\",\"coordinate\":\"10,20\"}"},)"
            R"({"ts":10,"type":"say","say":"resume_task","text":"?"}])");
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"completion_prompt", "mcp_request", "mcp_response",
                                                "codebase_search_result", "todo_edit", "ui_image", "ui_tool",
                                                "browser_action", "browser_action", "ui_event"}));
  EXPECT_EQ(h.rows.str(0, "ui_kind"), "completion_result");
  EXPECT_EQ(h.rows.str(0, "role"), "system");
  EXPECT_EQ(h.rows.str(0, "text"), "");
  EXPECT_EQ(h.rows.str(1, "text"), "<absent>");
  EXPECT_EQ(h.rows.str(2, "role"), "tool");
  EXPECT_EQ(h.rows.str(2, "text"), R"({"ok":true})");
  EXPECT_EQ(h.rows.str(3, "query"), "auth");
  EXPECT_EQ(h.rows.rows[3]["result_count"].GetInt(), 2);
  EXPECT_EQ(h.rows.str(4, "role"), "user");
  EXPECT_EQ(h.rows.str(5, "file_path"), "out/cat.png");
  EXPECT_EQ(h.rows.str(5, "file_path_resolved"), "/home/alice/proj/out/cat.png");
  EXPECT_EQ(h.rows.str(6, "tool_name"), "readCommandOutput");
  EXPECT_EQ(h.rows.str(7, "url"), "http://localhost:3000");
  EXPECT_EQ(h.rows.str(8, "browser_action"), "click");
  EXPECT_EQ(h.rows.str(9, "ui_type"), "say");  // resume_task is an ask: this say is nothing Roo names
  EXPECT_EQ(h.rows.str(9, "ui_kind"), "resume_task");
}

// docs/row-contract.md "Unfinished API requests": the last api_req_started with neither cost nor cancelReason, with
// no api_req_started or api_req_finished after it, is what a killed task leaves (Task.ts v3.52.1:2024-2041).
bool unfinished(const ParserHarness& h, size_t i) {
  auto it = h.rows.rows.at(i).FindMember("unfinished");
  return it != h.rows.rows.at(i).MemberEnd() && it->value.IsBool() && it->value.GetBool();
}
TEST(UiRows, TheLastRequestWithNoCostNorCancelReasonIsUnfinished) {
  ParserHarness h;
  run_ui(h, R"([{"ts":1,"type":"say","say":"text","text":"go"},)"
            R"({"ts":2,"type":"say","say":"api_req_started","text":"{\"apiProtocol\":\"openai\"}"},)"
            R"({"ts":3,"type":"say","say":"api_req_started","text":"{\"apiProtocol\":\"openai\",\"tokensIn\":10,\"cost\":0.01}"},)"
            R"({"ts":4,"type":"say","say":"api_req_started","text":"{\"cost\":0,\"cancelReason\":\"user_cancelled\"}"},)"
            R"({"ts":5,"type":"say","say":"api_req_started","text":"{\"apiProtocol\":\"anthropic\"}"},)"
            R"({"ts":6,"type":"say","say":"text","text":"partly said","partial":true}])");
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"user_message", "api_request", "api_request", "api_request",
                                                "api_request", "assistant_message"}));
  EXPECT_FALSE(unfinished(h, 1));  // a later request started: this one is not the last
  EXPECT_FALSE(unfinished(h, 2));
  EXPECT_FALSE(unfinished(h, 3));  // cancelled, with its reason
  EXPECT_TRUE(unfinished(h, 4));
  EXPECT_EQ(h.rows.str(5, "time_utc"), "1970-01-01T00:00:00.006Z");  // held, still after it

  ParserHarness finished;  // the older api_req_finished after it
  run_ui(finished, R"([{"ts":1,"type":"say","say":"api_req_started","text":"{\"request\":\"r\"}"},)"
                   R"({"ts":2,"type":"say","say":"api_req_finished","text":"{\"cost\":0.1}"}])");
  ASSERT_EQ(kinds(finished), (std::vector<std::string>{"api_request", "api_retry"}));
  EXPECT_FALSE(unfinished(finished, 0));

  ParserHarness cut;  // a file cut off after the request: still unfinished, and the cut reported after it
  run_ui(cut, R"([{"ts":1,"type":"say","say":"api_req_started","text":"{}"},{"ts":2,"type":"sa)");
  ASSERT_EQ(kinds(cut), (std::vector<std::string>{"api_request", "parser_error"}));
  EXPECT_TRUE(unfinished(cut, 0));
}

// The hold is bounded: with more than 255 rows after the request they are let go in order, the request unmarked.
TEST(UiRows, TheHoldAfterAnUnpricedRequestIsBounded) {
  std::string ui = R"([{"ts":1,"type":"say","say":"api_req_started","text":"{}"})";
  for (int i = 0; i < 300; ++i) ui += R"(,{"ts":2,"type":"say","say":"error","text":"e)" + std::to_string(i) + "\"}";
  ParserHarness h;
  run_ui(h, ui + "]");
  ASSERT_EQ(h.rows.rows.size(), 301u);
  EXPECT_EQ(h.rows.str(0, "kind"), "api_request");
  EXPECT_FALSE(unfinished(h, 0));
  EXPECT_EQ(h.rows.str(300, "text"), "e299");
  ParserHarness under;  // 255 rows after it: marked
  std::string small = R"([{"ts":1,"type":"say","say":"api_req_started","text":"{}"})";
  for (int i = 0; i < 255; ++i) small += R"(,{"ts":2,"type":"say","say":"error","text":"e"})";
  run_ui(under, small + "]");
  EXPECT_TRUE(unfinished(under, 0));
}

// docs/roo-format.md §2.10: id formats and the time a UUIDv7 or a 13-digit id embeds.
TEST(TaskIds, FormatsAndEmbeddedTimes_roo_format_2_10) {
  TaskIdTime v7 = task_id_time("019cd70b-cb3d-73c1-9a4e-5f0b2d7c8e16");
  EXPECT_EQ(v7.format, "uuidv7");
  EXPECT_EQ(v7.ms, 0x019cd70bcb3dLL);
  EXPECT_EQ(task_id_time("3b9f2c1e-7a4d-4e8b-9c61-5d2f0a8e4b17").format, "uuidv4");
  EXPECT_EQ(task_id_time("1736934000123").ms, 1736934000123LL);
  EXPECT_EQ(task_id_time("8f1c2b7e-1").format, "other");
}


ParseStats run_api_with_turns(ParserHarness& h, const std::string& api, const UiTurnTimes& turns) {
  MemoryBytes src(api);
  HashingStream in(src);
  ParseContext ctx = h.ctx("api_conversation_history.json");
  ctx.ui_turns = &turns;
  ctx.ui_words = &turns;
  return parse_api_history(in, ctx);
}

// docs/row-contract.md "Which record times a row": Roo says the prompt (say:"text") and each later message
// (say:"user_feedback") when the user submits it, then say("api_req_started"), and writes the api copy last
// (recursivelyMakeClineRequests, src/core/Cline.ts v3.3.26). A user row takes the ui record's time and names it; the
// api record stays its source. Equal words take their ui records in order; words no ui record shows keep api.ts;
// assistant prose keeps api.ts even when a ui say:"text" shows it.
TEST(UserTime, UserRowsAreTimedByTheUiRecordOfTheirWords_row_contract) {
  const UiTurnTimes ui = turns_of(
      R"([{"ts":1000,"type":"say","say":"text","text":"fix the tests"},)"
      R"({"ts":1010,"type":"say","say":"api_req_started","text":"{}"},)"
      R"({"ts":1500,"type":"say","say":"text","text":"On it."},)"
      R"({"ts":2000,"type":"say","say":"user_feedback","text":"again"},)"
      R"({"ts":2010,"type":"say","say":"api_req_started","text":"{}"},)"
      R"({"ts":3000,"type":"say","say":"user_feedback","text":"\nagain"},)"
      R"({"ts":3010,"type":"say","say":"api_req_started","text":"{}"}])");
  ParserHarness h;
  run_api_beside_ui(h,
                    R"([{"role":"user","content":[{"type":"text","text":"<task>\nfix the tests\n</task>"}],"ts":1090},)"
                    R"({"role":"assistant","content":[{"type":"text","text":"On it."}],"ts":1600},)"
                    R"({"role":"user","content":[{"type":"text","text":"<user_message>\nagain\n</user_message>"}],"ts":2090},)"
                    R"({"role":"user","content":[{"type":"text","text":"again"}],"ts":3090},)"
                    R"({"role":"user","content":[{"type":"text","text":"again"}],"ts":4090}])",
                    ui);
  ASSERT_EQ(kinds(h), (std::vector<std::string>{"user_message", "assistant_message", "user_message", "user_message",
                                                "user_message"}));
  EXPECT_EQ(h.rows.str(0, "time_utc"), "1970-01-01T00:00:01.000Z");  // before the request at 1.010
  EXPECT_EQ(h.rows.str(0, "time_source"), "ui.ts");
  EXPECT_EQ(h.rows.rows[0]["time_from_ui_record"].GetInt(), 0);
  EXPECT_EQ(h.rows.rows[0]["source"]["record_index"].GetInt(), 0);  // the api record
  EXPECT_EQ(h.rows.str(1, "time_utc"), "1970-01-01T00:00:01.600Z");
  EXPECT_EQ(h.rows.str(1, "time_source"), "api.ts");
  EXPECT_FALSE(h.rows.rows[1].HasMember("time_from_ui_record"));
  EXPECT_EQ(h.rows.str(2, "time_utc"), "1970-01-01T00:00:02.000Z");
  EXPECT_EQ(h.rows.rows[2]["time_from_ui_record"].GetInt(), 3);
  EXPECT_EQ(h.rows.rows[2]["source"]["record_index"].GetInt(), 2);
  EXPECT_EQ(h.rows.str(3, "time_utc"), "1970-01-01T00:00:03.000Z");  // compared trimmed, the second "again"
  EXPECT_EQ(h.rows.rows[3]["time_from_ui_record"].GetInt(), 5);
  EXPECT_EQ(h.rows.str(4, "time_utc"), "1970-01-01T00:00:04.090Z");  // no third ui record of these words
  EXPECT_EQ(h.rows.str(4, "time_source"), "api.ts");
  EXPECT_FALSE(h.rows.rows[4].HasMember("time_from_ui_record"));
}

// roo-cline ≤ v2.2.35: no ts on api records, no conversationHistoryIndex on ui records: matched by order.
TEST(UntimedApi, TimedByTheUiRecordOfTheTurnByOrder_row_contract) {
  const UiTurnTimes turns = turns_of(
      R"([{"ts":1000,"type":"say","say":"text","text":"hi"},)"
      R"({"ts":1010,"type":"say","say":"api_req_started","text":"{}"},)"
      R"({"ts":1500,"type":"say","say":"text","text":"hello"},)"
      R"({"ts":1600,"type":"ask","ask":"completion_result","text":""},)"
      R"({"ts":2000,"type":"say","say":"api_req_started","text":"{}"}])");
  ParserHarness h;
  run_api_with_turns(h,
                     R"([{"role":"user","content":[{"type":"text","text":"<task>\nhi\n</task>"}]},)"
                     R"({"role":"assistant","content":[{"type":"text","text":"hello"}]},)"
                     R"({"role":"user","content":[{"type":"text","text":"more"}]},)"
                     R"({"role":"assistant","content":[{"type":"text","text":"done"}]},)"
                     R"({"role":"user","content":[{"type":"text","text":"again"}],"ts":5000}])",
                     turns);
  ASSERT_EQ(h.rows.rows.size(), 5u);
  // The prompt is the user's words, shown by ui record 0: its time, not the request's ("Which record times a row").
  EXPECT_EQ(h.rows.str(0, "time_utc"), "1970-01-01T00:00:01.000Z");
  EXPECT_EQ(h.rows.str(0, "time_source"), "ui.ts");
  EXPECT_EQ(h.rows.rows[0]["time_from_ui_record"].GetInt(), 0);
  EXPECT_EQ(h.rows.str(1, "time_utc"), "1970-01-01T00:00:01.500Z");  // the first record after it
  EXPECT_EQ(h.rows.rows[1]["time_from_ui_record"].GetInt(), 2);
  EXPECT_EQ(h.rows.str(2, "time_utc"), "1970-01-01T00:00:02.000Z");  // the second api_req_started: no ui words
  EXPECT_EQ(h.rows.str(2, "time_source"), "ui.ts.turn_order");
  EXPECT_EQ(h.rows.rows[2]["time_from_ui_record"].GetInt(), 4);
  // The reply to the second request has no ui record after it: the request's own record times it.
  EXPECT_EQ(h.rows.str(3, "time_utc"), "1970-01-01T00:00:02.000Z");
  EXPECT_EQ(h.rows.rows[3]["time_from_ui_record"].GetInt(), 4);
  // A record with a ts keeps it; and a third user turn has no third request to take a time from anyway.
  EXPECT_EQ(h.rows.str(4, "time_source"), "api.ts");
  EXPECT_FALSE(h.rows.rows[4].HasMember("time_from_ui_record"));
}

// Cline wrote conversationHistoryIndex on ui records: the first ui record naming an api record's index times it,
// and an api record no ui record names stays untimed (order would be a guess).
TEST(UntimedApi, TimedByConversationHistoryIndex_row_contract) {
  const UiTurnTimes turns = turns_of(
      R"([{"ts":1000,"type":"say","say":"text","text":"hi","conversationHistoryIndex":-1},)"
      R"({"ts":1010,"type":"say","say":"api_req_started","text":"{}","conversationHistoryIndex":-1},)"
      R"({"ts":1200,"type":"say","say":"text","text":"hello","conversationHistoryIndex":0},)"
      R"({"ts":1300,"type":"ask","ask":"tool","text":"{}","conversationHistoryIndex":0},)"
      R"({"ts":1900,"type":"say","say":"api_req_started","text":"{}","conversationHistoryIndex":1}])");
  ParserHarness h;
  run_api_with_turns(h,
                     R"([{"role":"user","content":[{"type":"text","text":"hi"}]},)"
                     R"({"role":"assistant","content":[{"type":"text","text":"hello"}]},)"
                     R"({"role":"user","content":[{"type":"text","text":"more"}]}])",
                     turns);
  ASSERT_EQ(h.rows.rows.size(), 3u);
  // The prompt is the user's words: ui record 0 shows them ("Which record times a row").
  EXPECT_EQ(h.rows.str(0, "time_utc"), "1970-01-01T00:00:01.000Z");
  EXPECT_EQ(h.rows.str(0, "time_source"), "ui.ts");
  EXPECT_EQ(h.rows.rows[0]["time_from_ui_record"].GetInt(), 0);
  EXPECT_EQ(h.rows.str(1, "time_utc"), "1970-01-01T00:00:01.900Z");
  EXPECT_EQ(h.rows.str(1, "time_source"), "ui.ts.conversation_history_index");
  EXPECT_EQ(h.rows.rows[1]["time_from_ui_record"].GetInt(), 4);
  EXPECT_EQ(h.rows.str(2, "time_source"), "none");
}

TEST(UntimedApi, FirstRecordTimedAndFirstWorkspaceDir_row_contract) {
  auto timed = [](const std::string& bytes) {
    MemoryBytes src(bytes);
    HashingStream in(src);
    return api_history_first_record_timed(in);
  };
  EXPECT_FALSE(timed(R"([{"role":"user","content":"a"},{"role":"user","content":"b","ts":5}])"));
  EXPECT_TRUE(timed(R"([{"role":"user","content":"a","ts":1735553400000}])"));
  EXPECT_FALSE(timed("[]"));
  auto dir = [](const std::string& bytes) {
    MemoryBytes src(bytes);
    HashingStream in(src);
    return api_history_first_workspace_dir(in);
  };
  // The first block that names one: not the assistant's text, not a block without the section.
  EXPECT_EQ(dir(R"([{"role":"assistant","content":"<environment_details>\n# Current Working Directory (/no) Files\n</environment_details>"},)"
                R"({"role":"user","content":[{"type":"text","text":"x"},{"type":"text","text":"<environment_details>\n# Current Time\nnow\n</environment_details>"}]},)"
                R"({"role":"user","content":[{"type":"text","text":"<environment_details>\n# Current Workspace Directory (/home/a/p) Files\nREADME.md\n</environment_details>"}]}])"),
            std::optional<std::string>("/home/a/p"));
  EXPECT_EQ(dir(R"([{"role":"user","content":"no env"}])"), std::nullopt);
}
}  // namespace
}  // namespace roo
