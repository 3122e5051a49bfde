// Parser behaviour on literal bytes. Expected values are written from docs/row-contract.md and its rules, never
// produced by the code under test.
#include <gtest/gtest.h>

#include "core/parsers/parsers.h"
#include "test_util.h"

namespace roo {
namespace {

using test::MemoryBytes;
using test::ParserHarness;
using test::run_api;
using test::run_ui;

TEST(ApiHistory, UserTurnUnwrapsEnvelopeAndSkipsEnvironmentDetails) {
  ParserHarness h;
  run_api(h, R"([{"role":"user","content":[{"type":"text","text":"<user_message>\nfix tests\n</user_message>"},)"
             R"({"type":"text","text":"<environment_details>\n# Current Time\n</environment_details>"}],"ts":1760000000000}])");
  // <environment_details> is never the user's words: it is the client's context, an environment row.
  ASSERT_EQ(h.rows.rows.size(), 2u);
  EXPECT_EQ(h.rows.str(1, "kind"), "environment");
  EXPECT_EQ(h.rows.str(1, "role"), "system");
  EXPECT_EQ(h.rows.str(0, "kind"), "user_message");
  EXPECT_EQ(h.rows.str(0, "text"), "fix tests");
  EXPECT_EQ(h.rows.str(0, "role"), "user");
  EXPECT_EQ(h.rows.str(0, "time_utc"), "2025-10-09T08:53:20.000Z");
  EXPECT_EQ(h.rows.str(0, "time_source"), "api.ts");
  EXPECT_EQ(h.rows.str(0, "project_path"), "/home/alice/proj");
  EXPECT_EQ(h.rows.src(0)["record_index"].GetInt(), 0);
  EXPECT_EQ(h.rows.src(0)["sub_index"].GetInt(), 0);
}

// docs/row-contract.md, "A time outside JavaScript's Date range is no time": 8.64e15 is the last Date (275760-09-13),
// one millisecond more is none; the record's number stays on the row, and no other time is made from it.
TEST(ApiHistory, TsOutsideJavaScriptDatesIsNoTimeButIsKept) {
  ParserHarness h;
  run_api(h, R"([{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"execute_command","input":{"command":"ls"}}],"ts":8640000000000000},)"
             R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.txt"}],"ts":9300000000000000},)"
             R"({"role":"assistant","content":"done","ts":-9300000000000000}])");
  ASSERT_EQ(h.rows.rows.size(), 3u);
  EXPECT_EQ(h.rows.str(0, "kind"), "command");
  EXPECT_EQ(h.rows.str(0, "time_utc"), "275760-09-13T00:00:00.000Z");
  EXPECT_EQ(h.rows.str(0, "time_source"), "api.ts");
  EXPECT_FALSE(h.rows.rows[0].HasMember("result_time_utc"));  // the result's number is no time
  EXPECT_EQ(h.rows.str(1, "kind"), "tool_result");
  EXPECT_TRUE(h.rows.rows[1]["time_utc"].IsNull());
  EXPECT_EQ(h.rows.str(1, "time_source"), "out_of_range");
  EXPECT_EQ(h.rows.rows[1]["raw_time_ms"].GetInt64(), 9300000000000000);
  EXPECT_EQ(h.rows.str(1, "raw_time_source"), "api.ts");
  EXPECT_EQ(h.rows.str(2, "kind"), "assistant_message");
  EXPECT_EQ(h.rows.str(2, "time_source"), "out_of_range");
  EXPECT_EQ(h.rows.rows[2]["raw_time_ms"].GetInt64(), -9300000000000000);
}

TEST(UiMessages, TsOutsideJavaScriptDatesIsNoTimeButIsKept) {
  ParserHarness h;
  const ParseStats stats = run_ui(h, R"([{"ts":100000000000000000,"type":"say","say":"text","text":"first"},)"
                                     R"({"ts":8640000000000001,"type":"say","say":"text","text":"second"},)"
                                     R"({"ts":-8640000000000000,"type":"say","say":"text","text":"third"}])");
  ASSERT_EQ(h.rows.rows.size(), 3u);
  EXPECT_TRUE(h.rows.rows[0]["time_utc"].IsNull());
  EXPECT_EQ(h.rows.str(0, "time_source"), "out_of_range");
  EXPECT_EQ(h.rows.rows[0]["raw_time_ms"].GetInt64(), 100000000000000000);
  EXPECT_EQ(h.rows.str(0, "raw_time_source"), "ui.ts");
  EXPECT_EQ(h.rows.rows[1]["raw_time_ms"].GetInt64(), 8640000000000001);
  EXPECT_EQ(h.rows.str(2, "time_utc"), "-271821-04-20T00:00:00.000Z");
  EXPECT_EQ(h.rows.str(2, "time_source"), "ui.ts");
  EXPECT_EQ(stats.first_ts, -8640000000000000);  // the first record whose number is a time
}

// XML era: the first prompt is wrapped in <task> (docs/roo-format.md §4).
TEST(ApiHistory, TaskEnvelopeOfTheXmlEraIsUnwrapped) {
  EXPECT_EQ(unwrap_user_text("<task>\nlist files\n</task>"), "list files");
  EXPECT_EQ(unwrap_user_text("plain words"), "plain words");
  // A user text block that opens (after blanks) with <environment_details> is an environment row, not the user's.
  ParserHarness h;
  run_api(h, R"([{"role":"user","content":[{"type":"text","text":"  <environment_details>\nx"}],"ts":1760000000000}])");
  ASSERT_EQ(h.rows.rows.size(), 1u);
  EXPECT_EQ(h.rows.str(0, "kind"), "environment");
}

// A tool_use and its tool_result in Roo's shape (docs/roo-format.md §3.1). An execute_command call is a command row.
TEST(ApiHistory, ToolUseAndResultKeepIdsInputAndErrorFlag) {
  ParserHarness h;
  run_api(h, R"([{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01A","name":"execute_command","input":{"command":"pytest -q"}}],"ts":1760000002000},)"
             R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01A","content":"3 passed","is_error":false}],"ts":1760000003000}])");
  ASSERT_EQ(h.rows.rows.size(), 2u);
  EXPECT_EQ(h.rows.str(0, "kind"), "command");
  EXPECT_EQ(h.rows.str(0, "text"), "pytest -q");
  EXPECT_EQ(h.rows.str(0, "outcome"), "completed");
  EXPECT_FALSE(h.rows.rows[0].HasMember("exit_code"));  // "3 passed" states no exit code: none is invented
  EXPECT_EQ(h.rows.str(0, "tool_name"), "execute_command");
  EXPECT_EQ(h.rows.str(0, "tool_use_id"), "toolu_01A");
  EXPECT_STREQ(h.rows.rows[0]["tool_input"]["command"].GetString(), "pytest -q");
  EXPECT_EQ(h.rows.str(1, "kind"), "tool_result");
  EXPECT_EQ(h.rows.str(1, "role"), "tool");
  EXPECT_EQ(h.rows.str(1, "text"), "3 passed");
  EXPECT_FALSE(h.rows.rows[1]["is_error"].GetBool());
  EXPECT_EQ(h.rows.src(1)["record_index"].GetInt(), 1);
}

// docs/roo-format.md §11 item 5: tool_result content can be a block list.
TEST(ApiHistory, BlockListResultJoinsTextBlocks) {
  ParserHarness h;
  run_api(h, R"([{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a"},{"type":"image","source":{}},{"type":"text","text":"b"}]}]}])");
  ASSERT_EQ(h.rows.rows.size(), 1u);
  EXPECT_EQ(h.rows.str(0, "text"), "a\nb");
  EXPECT_EQ(h.rows.str(0, "time_utc"), "<absent>");  // no ts recorded: no time, never invented
  EXPECT_EQ(h.rows.str(0, "time_source"), "none");
  EXPECT_FALSE(h.rows.rows[0].HasMember("is_error"));  // absent means unknown
}

// docs/roo-format.md §3.1: reasoning blocks, role-less legacy reasoning items, encrypted content.
TEST(ApiHistory, ReasoningInEveryRecordedShape) {
  ParserHarness h;
  run_api(h, R"([{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"s"},{"type":"reasoning","text":"r2","summary":[]},{"type":"text","text":"ok"}]},)"
             R"({"type":"reasoning","summary":[{"type":"summary_text","text":"sum"}]},{"type":"reasoning","encrypted_content":"gAAA","summary":[]}])");
  ASSERT_EQ(h.rows.rows.size(), 5u);
  EXPECT_EQ(h.rows.str(0, "kind"), "reasoning");
  EXPECT_EQ(h.rows.str(0, "text"), "hmm");
  EXPECT_EQ(h.rows.str(1, "text"), "r2");
  EXPECT_EQ(h.rows.str(2, "kind"), "assistant_message");
  EXPECT_EQ(h.rows.str(3, "text"), "sum");
  EXPECT_TRUE(h.rows.src(3)["sub_index"].IsNull());
  EXPECT_TRUE(h.rows.rows[4]["encrypted"].GetBool());
}

// docs/row-contract.md "Bad-line rows": exact texts; every good record is kept.
TEST(BadLineRows, UnparseableRecordAndCutOffAreWordedAsSeed000) {
  ParserHarness h;
  ParseStats s = run_api(h, R"([{"role":"user","content":"a"},5,{"role":"user","content":tru},{"role":"user","content":"b"},{"role":"user","cont)");
  ASSERT_EQ(h.rows.rows.size(), 5u);
  EXPECT_EQ(h.rows.str(0, "text"), "a");
  EXPECT_EQ(h.rows.str(1, "text"), "parser: unparseable record 2 (not a JSON object): 5");
  EXPECT_EQ(h.rows.str(1, "kind"), "parser_error");
  EXPECT_EQ(h.rows.str(1, "role"), "system");
  EXPECT_EQ(h.rows.str(2, "text").rfind("parser: unparseable record 3 (Invalid value. at byte ", 0), 0u);
  EXPECT_EQ(h.rows.str(3, "text"), "b");
  EXPECT_EQ(h.rows.str(4, "text"), "parser: array cut off after record 4");
  EXPECT_EQ(h.rows.src(4)["record_index"].GetInt(), 4);
  EXPECT_EQ(s.good_records, 2);
  EXPECT_EQ(s.errors, 3);
}

TEST(BadLineRows, WholeDocumentsThatAreNotObjects) {
  ParserHarness h;
  MemoryBytes src("[1,2]");
  HashingStream in(src);
  EXPECT_FALSE(parse_history_item_file(in, h.ctx("history_item.json")));
  ASSERT_EQ(h.rows.rows.size(), 1u);
  EXPECT_EQ(h.rows.str(0, "text"), "parser: history_item.json is not a JSON object");

  MemoryBytes zeros(std::string(64, '\0'));  // deleted content read back as zeros: a row, not silence
  HashingStream in2(zeros);
  run_ui(h, "", nullptr);
  HashingStream in3(zeros);
  parse_ui_messages(in3, h.ctx("ui_messages.json"), nullptr);
  EXPECT_EQ(h.rows.str(1, "text"), "parser: ui_messages.json is empty");
  EXPECT_EQ(h.rows.str(2, "text"), "parser: ui_messages.json is not a JSON array");
}

// docs/roo-format.md §2.3 / §11 item 8: usage only as recorded; a request with no tokens has no token fields.
TEST(UiMessages, ApiRequestUsageIsNeverInventedAsZero) {
  ParserHarness h;
  run_ui(h, R"([{"ts":1760000001000,"type":"say","say":"api_req_started","text":"{\"apiProtocol\":\"anthropic\",\"tokensIn\":1200,\"tokensOut\":80,\"cacheWrites\":0,\"cacheReads\":0,\"cost\":0.0041}"},)"
            R"({"ts":1760000009000,"type":"say","say":"api_req_started","text":"{\"apiProtocol\":\"anthropic\"}"}])",
         nullptr);
  ASSERT_EQ(h.rows.rows.size(), 2u);
  EXPECT_EQ(h.rows.str(0, "kind"), "api_request");
  EXPECT_EQ(h.rows.rows[0]["tokens_in"].GetInt(), 1200);
  EXPECT_EQ(h.rows.rows[0]["cache_reads"].GetInt(), 0);  // recorded zero stays zero
  EXPECT_DOUBLE_EQ(h.rows.rows[0]["cost_usd"].GetDouble(), 0.0041);
  EXPECT_EQ(h.rows.str(0, "time_source"), "ui.ts");
  EXPECT_FALSE(h.rows.rows[1].HasMember("tokens_in"));
  EXPECT_FALSE(h.rows.rows[1].HasMember("cost_usd"));
  EXPECT_EQ(h.rows.str(1, "api_protocol"), "anthropic");
}

const char* kUiConversation =
    R"([{"ts":1,"type":"say","say":"text","text":"prompt","images":[]},{"ts":2,"type":"say","say":"text","text":"prose"},)"
    R"({"ts":3,"type":"ask","ask":"command","text":"npm test"},{"ts":4,"type":"say","say":"user_feedback","text":"more"},)"
    R"({"ts":5,"type":"say","say":"weird_new_kind","text":"x","partial":true}])";

TEST(UiMessages, ConversationRecordsFoldIntoApiRowsOnlyWhenTheApiHasTheText) {
  ParserHarness h;
  ConversationTexts api;
  api.add("prompt");
  api.add("prose");  // "more" is not in the api history: it must stay a row of its own
  api.add("npm test", ConversationTexts::Kind::command);
  ParseStats s = run_ui(h, kUiConversation, &api);
  // The command ask is the request to run the api's command: an approval_request, no second command row, and
  // no decision (it has no isAnswered: an ask records a request, docs/row-contract.md "Overlapping reports").
  ASSERT_EQ(h.rows.rows.size(), 3u);
  EXPECT_EQ(h.rows.str(0, "kind"), "approval_request");
  EXPECT_EQ(h.rows.str(0, "ui_kind"), "command");
  EXPECT_EQ(h.rows.str(0, "command"), "npm test");
  EXPECT_EQ(h.rows.str(1, "kind"), "user_message");
  EXPECT_EQ(h.rows.str(1, "text"), "more");
  EXPECT_EQ(h.rows.str(2, "ui_kind"), "weird_new_kind");  // unknown kinds are kept, never dropped
  EXPECT_TRUE(h.rows.rows[2]["partial"].GetBool());
  EXPECT_EQ(s.folded, 2);
}

TEST(UiMessages, ConversationRecordsBecomeRowsWithoutApiHistory) {
  ParserHarness h;
  run_ui(h, kUiConversation, nullptr);
  ASSERT_EQ(h.rows.rows.size(), 6u);
  EXPECT_EQ(h.rows.str(0, "kind"), "user_message");
  EXPECT_EQ(h.rows.str(0, "text"), "prompt");
  EXPECT_EQ(h.rows.str(1, "kind"), "assistant_message");
  EXPECT_EQ(h.rows.str(2, "kind"), "approval_request");
  // With no api history the ui is all there is of the command: its row comes from here, with no exit code.
  EXPECT_EQ(h.rows.str(3, "kind"), "command");
  EXPECT_EQ(h.rows.str(3, "call_format"), "ui");
  EXPECT_FALSE(h.rows.rows[3].HasMember("exit_code"));
  EXPECT_EQ(h.rows.str(4, "kind"), "user_message");
  EXPECT_EQ(h.rows.str(4, "role"), "user");
}

TEST(HistoryItem, TaskRowCarriesRecordedFieldsOnly) {
  ParserHarness h;
  // An _index.json entry in Roo's shape (docs/roo-format.md §2.9, §5).
  MemoryBytes src(R"({"version":1,"updatedAt":1760000005000,"entries":[{"id":"8f1c2b7e-1","number":1,"ts":1760000000000,"task":"fix tests","tokensIn":1200,"tokensOut":80,"totalCost":0.0041,"workspace":"/home/u/proj","mode":"code","status":"completed"},"junk"]})");
  HashingStream in(src);
  ParseContext ctx = h.ctx("_index.json");
  std::vector<IndexEntry> entries = parse_task_index(in, ctx);
  ASSERT_EQ(entries.size(), 1u);
  ASSERT_EQ(h.rows.rows.size(), 1u);
  EXPECT_EQ(h.rows.str(0, "text"), "parser: unparseable record 2 (not a JSON object): \"junk\"");
  JsonRecord pos;
  pos.index = entries[0].record_index;
  emit_task_row(entries[0].item, ctx, "index", false, &pos, {});
  EXPECT_EQ(h.rows.str(1, "kind"), "task");
  EXPECT_EQ(h.rows.str(1, "text"), "fix tests");
  EXPECT_EQ(h.rows.str(1, "time_source"), "index.ts");
  EXPECT_EQ(h.rows.str(1, "known_from"), "index");
  EXPECT_FALSE(h.rows.rows[1]["task_dir_present"].GetBool());
  EXPECT_EQ(h.rows.rows[1]["tokens_in"].GetInt(), 1200);
  EXPECT_FALSE(h.rows.rows[1].HasMember("cache_reads"));
  EXPECT_EQ(h.rows.str(1, "status"), "completed");
  // docs/row-contract.md "Mode": the task row is followed by "permission mode: <mode>" at the task's ts.
  ASSERT_EQ(h.rows.rows.size(), 3u);
  EXPECT_EQ(h.rows.str(2, "kind"), "permission_mode");
  EXPECT_EQ(h.rows.str(2, "text"), "permission mode: code");
  EXPECT_EQ(h.rows.str(2, "time_utc"), h.rows.str(1, "time_utc"));
  EXPECT_EQ(h.rows.str(2, "time_source"), "index.ts");
}

TEST(TaskMetadata, EachEntryIsTimedByTheDateOfItsSource) {
  ParserHarness h;
  MemoryBytes src(R"({"files_in_context":[{"path":"src/a.ts","record_state":"active","record_source":"read_tool","roo_read_date":1760000000000,"roo_edit_date":null},)"
                  R"({"path":"src/a.ts","record_state":"stale","record_source":"user_edited","roo_read_date":null,"roo_edit_date":null,"user_edit_date":1760000060000}]})");
  HashingStream in(src);
  parse_task_metadata(in, h.ctx("task_metadata.json"));
  ASSERT_EQ(h.rows.rows.size(), 2u);
  EXPECT_EQ(h.rows.str(0, "time_source"), "task_metadata.roo_read_date");
  EXPECT_EQ(h.rows.str(1, "time_source"), "task_metadata.user_edit_date");
  EXPECT_EQ(h.rows.str(1, "time_utc"), "2025-10-09T08:54:20.000Z");
  EXPECT_EQ(h.rows.str(1, "file_path"), "src/a.ts");
}

}  // namespace
}  // namespace roo
