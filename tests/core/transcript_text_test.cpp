// transcript_text on literal texts. Expected values come from docs/roo-format.md (§3.2, §3.4, §4), the Roo sources it
// cites and docs/row-contract.md, never from the code under test; epoch milliseconds are computed here independently.
#include "core/parsers/transcript_text.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cstring>
#include <string>

#include "core/parsers/parsers.h"

namespace roo::transcript {
namespace {

// Epoch ms of a UTC date-time by counting days year by year and month by month: an independent check of the
// parser's days_from_civil arithmetic.
int64_t epoch_ms(int y, int mo, int d, int h, int mi, int s, int ms) {
  auto leap = [](int yy) { return (yy % 4 == 0 && yy % 100 != 0) || yy % 400 == 0; };
  const int month_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int64_t days = 0;
  for (int yy = 1970; yy < y; ++yy) days += leap(yy) ? 366 : 365;
  for (int mm = 1; mm < mo; ++mm) days += month_days[mm - 1] + (mm == 2 && leap(y) ? 1 : 0);
  days += d - 1;
  return ((days * 24 + h) * 60 + mi) * 60000LL + s * 1000LL + ms;
}

// The first-turn block of the current form (getEnvironmentDetails.ts; docs/roo-format.md §3.4), as in the fixtures.
const char* kCurrentBlock =
    "<environment_details>\n"
    "# VSCode Visible Files\nsrc/dates.py\n\n"
    "# VSCode Open Tabs\nsrc/dates.py,tests/test_parse.py\n\n"
    "# Actively Running Terminals\n## Terminal 1 (Active)\n### Working Directory: `/home/alice/proj`\n"
    "### Original command: `npm run dev`\n### New Output\nready\n\n"
    "# Recently Modified Files\nThese files have been modified since you last accessed them:\nsrc/cli.py\n\n"
    "# Current Time\n"
    "Current time in ISO 8601 UTC format: 2026-03-10T09:15:02.123Z\n"
    "User time zone: Europe/Berlin, UTC+1:00\n\n"
    "# Git Status\n## main...origin/main\n M src/dates.py\n\n"
    "# Current Cost\n$0.12\n\n"
    "# Current Mode\n<slug>code</slug>\n<name>💻 Code</name>\n<model>claude-sonnet-4-5</model>\n\n\n"
    "# Current Workspace Directory (/home/alice/proj) Files\nREADME.md\nsrc/\nsrc/cli.py\n"
    "You have not created a todo list yet. Create one with `update_todo_list` if your task is complicated.\n"
    "</environment_details>";

TEST(EnvironmentDetails, EveryFieldOfTheCurrentForm_s3_4) {
  auto env = parse_environment_details(kCurrentBlock);
  ASSERT_TRUE(env);
  EXPECT_EQ(env->current_time, "2026-03-10T09:15:02.123Z");
  ASSERT_TRUE(env->current_time_ms);
  EXPECT_EQ(*env->current_time_ms, epoch_ms(2026, 3, 10, 9, 15, 2, 123));
  EXPECT_EQ(*env->current_time_ms, 1773134102123);
  EXPECT_EQ(env->time_zone, "Europe/Berlin");
  EXPECT_EQ(env->utc_offset, "UTC+1:00");
  EXPECT_EQ(env->workspace_dir, "/home/alice/proj");
  EXPECT_EQ(env->cost, "$0.12");
  EXPECT_EQ(env->mode_slug, "code");
  EXPECT_EQ(env->mode_name, "💻 Code");
  EXPECT_EQ(env->model, "claude-sonnet-4-5");
}

// Later turns carry no workspace section; the Windows fixture (bob) has a drive-letter cwd and a negative offset.
TEST(EnvironmentDetails, LaterTurnHasNoWorkspaceAndNegativeOffset_s3_4) {
  auto env = parse_environment_details(
      "<environment_details>\n# VSCode Visible Files\nsrc\\a.ts\n\n# Current Time\n"
      "Current time in ISO 8601 UTC format: 2025-08-12T12:13:26.847Z\nUser time zone: America/Chicago, UTC-5:00\n\n"
      "# Current Cost\n$0.04\n\n# Current Mode\n<slug>ask</slug>\n<name>❓ Ask</name>\n"
      "<model>claude-sonnet-4-20250514</model>\n</environment_details>");
  ASSERT_TRUE(env);
  EXPECT_FALSE(env->workspace_dir);
  EXPECT_EQ(env->current_time_ms, epoch_ms(2025, 8, 12, 12, 13, 26, 847));
  EXPECT_EQ(env->time_zone, "America/Chicago");
  EXPECT_EQ(env->utc_offset, "UTC-5:00");
  EXPECT_EQ(env->mode_slug, "ask");
  EXPECT_EQ(env->model, "claude-sonnet-4-20250514");
}

TEST(EnvironmentDetails, WindowsWorkspaceDirectory_s3_4) {
  auto env = parse_environment_details(
      "<environment_details>\n# Current Workspace Directory (c:/Users/bob/src/app) Files\npackage.json\n"
      "</environment_details>");
  ASSERT_TRUE(env);
  EXPECT_EQ(env->workspace_dir, "c:/Users/bob/src/app");
  EXPECT_FALSE(env->current_time);
  EXPECT_FALSE(env->cost);
}

TEST(EnvironmentDetails, ModelIsAbsentInOlderVersions_s3_4) {
  auto env = parse_environment_details(
      "<environment_details>\n# Current Mode\n<slug>architect</slug>\n<name>Architect</name>\n</environment_details>");
  ASSERT_TRUE(env);
  EXPECT_EQ(env->mode_slug, "architect");
  EXPECT_EQ(env->mode_name, "Architect");
  EXPECT_FALSE(env->model);
}

// v3.2x wrote local time ("3/10/2026, 10:15:02 AM (Europe/Berlin, UTC+1:00)"): kept as recorded, zone and offset
// read, but no epoch ms (resolving local time needs the zone's rules).
TEST(EnvironmentDetails, OlderLocalTimeFormKeepsTextWithoutEpoch_s3_4) {
  auto env = parse_environment_details(
      "<environment_details>\n# Current Time\n3/10/2026, 10:15:02 AM (Europe/Berlin, UTC+1:00)\n\n"
      "# Current Mode\n<slug>code</slug>\n<name>Code</name>\n</environment_details>");
  ASSERT_TRUE(env);
  EXPECT_EQ(env->current_time, "3/10/2026, 10:15:02 AM");
  EXPECT_FALSE(env->current_time_ms);
  EXPECT_EQ(env->time_zone, "Europe/Berlin");
  EXPECT_EQ(env->utc_offset, "UTC+1:00");
}

// A time written with "+00:00" instead of "Z" is the same UTC instant; any other offset is not read as epoch ms.
TEST(EnvironmentDetails, PlusZeroOffsetIsUtcOtherOffsetsAreNot) {
  auto env = parse_environment_details(
      "<environment_details>\n# Current Time\nCurrent time in ISO 8601 UTC format: 2025-01-01T00:00:00+00:00\n"
      "</environment_details>");
  ASSERT_TRUE(env);
  EXPECT_EQ(env->current_time, "2025-01-01T00:00:00+00:00");
  EXPECT_EQ(env->current_time_ms, epoch_ms(2025, 1, 1, 0, 0, 0, 0));
  env = parse_environment_details(
      "<environment_details>\n# Current Time\nCurrent time in ISO 8601 UTC format: 2025-01-01T00:00:00+01:00\n"
      "</environment_details>");
  ASSERT_TRUE(env);
  EXPECT_FALSE(env->current_time_ms);
}

TEST(EnvironmentDetails, HalfHourOffsetIsRead) {
  auto env = parse_environment_details(
      "<environment_details>\n# Current Time\nCurrent time in ISO 8601 UTC format: 2026-01-01T00:00:00.000Z\n"
      "User time zone: Asia/Kolkata, UTC+5:30\n</environment_details>");
  ASSERT_TRUE(env);
  EXPECT_EQ(env->time_zone, "Asia/Kolkata");
  EXPECT_EQ(env->utc_offset, "UTC+5:30");
  EXPECT_EQ(env->current_time_ms, epoch_ms(2026, 1, 1, 0, 0, 0, 0));
}

std::optional<int64_t> ms_of(const std::string& iso) {
  auto env = parse_environment_details(
      "<environment_details>\n# Current Time\n"
      "Current time in ISO 8601 UTC format: " +
      iso + "\n</environment_details>");
  EXPECT_TRUE(env);
  EXPECT_EQ(env->current_time, iso);  // kept as recorded, valid or not
  return env->current_time_ms;
}

TEST(EnvironmentDetails, InvalidDatesHaveNoEpoch) {
  EXPECT_FALSE(ms_of("2026-13-10T09:15:02.123Z"));  // month 13
  EXPECT_FALSE(ms_of("2026-02-30T09:15:02.123Z"));  // Feb 30
  EXPECT_FALSE(ms_of("2025-02-29T09:15:02.123Z"));  // not a leap year
  EXPECT_FALSE(ms_of("2100-02-29T00:00:00.000Z"));  // century, not a leap year
  EXPECT_FALSE(ms_of("2026-03-10T24:00:00.000Z"));
  EXPECT_FALSE(ms_of("2026-03-10T09:60:00.000Z"));
  EXPECT_FALSE(ms_of("2026-03-10T09:15:02.123"));        // no Z: not stated as UTC
  EXPECT_FALSE(ms_of("2026-03-10T09:15:02.123+01:00"));  // an offset form Roo never writes
  EXPECT_FALSE(ms_of("+012026-03-10T09:15:02.123Z"));    // extended year
  EXPECT_FALSE(ms_of("2026-03-10T09:15:02.Z"));
  EXPECT_FALSE(ms_of("2026-3-10T09:15:02.123Z"));
}

TEST(EnvironmentDetails, EdgeDatesAreExact) {
  EXPECT_EQ(ms_of("2024-02-29T00:00:00.000Z"), epoch_ms(2024, 2, 29, 0, 0, 0, 0));
  EXPECT_EQ(ms_of("2000-02-29T23:59:59.999Z"), epoch_ms(2000, 2, 29, 23, 59, 59, 999));
  EXPECT_EQ(ms_of("1970-01-01T00:00:00.000Z"), 0);
  EXPECT_EQ(ms_of("1969-12-31T23:59:59.999Z"), -1);
  EXPECT_EQ(ms_of("2026-03-10T09:15:02Z"), epoch_ms(2026, 3, 10, 9, 15, 2, 0));
  EXPECT_EQ(ms_of("2026-03-10T09:15:02.1Z"), epoch_ms(2026, 3, 10, 9, 15, 2, 100));
  EXPECT_EQ(ms_of("2026-03-10T09:15:02.123456Z"), epoch_ms(2026, 3, 10, 9, 15, 2, 123));
}

TEST(EnvironmentDetails, CrlfLineEnds) {
  std::string crlf;
  for (const char* p = kCurrentBlock; *p; ++p) {
    if (*p == '\n') crlf += '\r';
    crlf += *p;
  }
  auto env = parse_environment_details("\r\n  " + crlf);
  ASSERT_TRUE(env);
  EXPECT_EQ(env->current_time, "2026-03-10T09:15:02.123Z");
  EXPECT_EQ(env->current_time_ms, 1773134102123);
  EXPECT_EQ(env->time_zone, "Europe/Berlin");
  EXPECT_EQ(env->utc_offset, "UTC+1:00");
  EXPECT_EQ(env->workspace_dir, "/home/alice/proj");
  EXPECT_EQ(env->cost, "$0.12");
  EXPECT_EQ(env->mode_slug, "code");
  EXPECT_EQ(env->mode_name, "💻 Code");
  EXPECT_EQ(env->model, "claude-sonnet-4-5");
}

// Extra sections (a todo reminder, # Git Status) are skipped, and a heading inside terminal output, which comes
// before the real sections, does not win over them.
TEST(EnvironmentDetails, ExtraSectionsAndStrayHeadingsAreIgnored_s3_4) {
  auto env = parse_environment_details(
      "<environment_details>\n# Actively Running Terminals\n## Terminal 1 (Active)\n### New Output\n"
      "# Current Cost\n$99.99\n\n# Reminder: Instructions for Tool Use\nanything\n\n# Current Cost\n$0.07\n\n"
      "# Git Status\n## main\n\n\n====\n\nREMINDERS\n| # | Content | Status |\n</environment_details>");
  ASSERT_TRUE(env);
  EXPECT_EQ(env->cost, "$0.07");
  EXPECT_FALSE(env->current_time);
  EXPECT_FALSE(env->mode_slug);
}

TEST(EnvironmentDetails, OnlyAnEnvironmentDetailsBlockParses) {
  EXPECT_FALSE(parse_environment_details("hello <environment_details>\n</environment_details>"));
  EXPECT_FALSE(parse_environment_details(""));
  EXPECT_TRUE(parse_environment_details(" \n<environment_details>\n</environment_details>"));
  // A cut block (no closing tag) is read as far as it goes.
  auto env = parse_environment_details("<environment_details>\n# Current Cost\n$0.01\n# Current Mode\n<slug>co");
  ASSERT_TRUE(env);
  EXPECT_EQ(env->cost, "$0.01");
  EXPECT_FALSE(env->mode_slug);
}

// ---- classify_user_text ----

TEST(UserText, TaskEnvelopeIsUnwrapped_s4) {
  UserText u = classify_user_text("<task>\nWhat does src/a.ts export?\n</task>");
  EXPECT_EQ(u.kind, UserTextKind::words);
  EXPECT_EQ(u.text, "What does src/a.ts export?");
}

TEST(UserText, UserMessageEnvelopeIsUnwrapped_s3_2) {
  UserText u = classify_user_text("<user_message>\nRun ruff on src.\n</user_message>");
  EXPECT_EQ(u.kind, UserTextKind::words);
  EXPECT_EQ(u.text, "Run ruff on src.");
}

TEST(UserText, PlainWordsAreKeptAsRecorded) {
  UserText u = classify_user_text("  fix it \n");
  EXPECT_EQ(u.kind, UserTextKind::words);
  EXPECT_EQ(u.text, "  fix it \n");
  EXPECT_FALSE(u.tool_name);
}

// The words must agree byte for byte with api_history's unwrap_user_text, which writes the user_message rows.
TEST(UserText, WordsAgreeWithApiHistoryUnwrap) {
  for (const char* t : {"<task>\na\n</task>", "<task>a</task>", "  <user_message>\n\nb\n\n</user_message>  ",
                        "<task>\na\n</task>\nmore", "<task></task>", "<task>", "<user_message>\r\nc\r\n</user_message>",
                        "<task>x</task> and <task>y</task>", "", "   ", "words"}) {
    UserText u = classify_user_text(t);
    ASSERT_EQ(u.kind, UserTextKind::words) << t;
    EXPECT_EQ(u.text, roo::unwrap_user_text(t)) << t;
  }
}

TEST(UserText, EnvironmentDetailsAreNotWords_s3_2) {
  UserText u = classify_user_text("\n<environment_details>\n# Current Cost\n$0.00\n</environment_details>");
  EXPECT_EQ(u.kind, UserTextKind::environment_details);
  EXPECT_EQ(u.text, "\n<environment_details>\n# Current Cost\n$0.00\n</environment_details>");
}

TEST(UserText, NoToolRetryPrompt_s3_4) {
  std::string t =
      "[ERROR] You did not use a tool in your previous response! Please retry with a tool use.\n\n"
      "# Reminder: Instructions for Tool Use\n\nTool uses are formatted using XML-style tags.\n\n# Next Steps\n\n…";
  UserText u = classify_user_text(t);
  EXPECT_EQ(u.kind, UserTextKind::roo_text);
  EXPECT_STREQ(u.roo_text->kind, "retry_prompt");
  EXPECT_EQ(u.text, t);
  EXPECT_FALSE(u.feedback);
}

// formatResponse.tooManyMistakes, src/core/prompts/responses.ts at v3.3.26 (text) and v3.52.1 (JSON): Roo's guidance,
// with the user's words inside it read out.
TEST(UserText, MistakeGuidanceKeepsTheUsersFeedback_row_contract) {
  UserText old = classify_user_text(
      "You seem to be having trouble proceeding. The user has provided the following feedback to help guide you:\n"
      "<feedback>\nuse the existing helper in utils.py\n</feedback>");
  EXPECT_EQ(old.kind, UserTextKind::roo_text);
  EXPECT_STREQ(old.roo_text->kind, "mistake_guidance");
  EXPECT_EQ(old.feedback, std::optional<std::string>("use the existing helper in utils.py"));
  UserText now = classify_user_text(R"({"status":"guidance","feedback":"stop and ask me first"})");
  EXPECT_EQ(now.kind, UserTextKind::roo_text);
  EXPECT_STREQ(now.roo_text->kind, "mistake_guidance");
  EXPECT_EQ(now.feedback, std::optional<std::string>("stop and ask me first"));
  // The same JSON without feedback, and a user who types the sentence in other words, are what they are.
  EXPECT_FALSE(classify_user_text(R"({"status":"guidance"})").feedback);
  EXPECT_EQ(classify_user_text("you seem to be having trouble proceeding").kind, UserTextKind::words);
}

TEST(UserText, TaskResumptionWithNewInstructions_s4) {
  UserText u = classify_user_text(
      "[TASK RESUMPTION] This task was interrupted 2 hours ago. It may or may not be complete, so please reassess "
      "the task context.\n\nNew instructions for task continuation:\n<user_message>\nalso add tests\n"
      "</user_message>");
  EXPECT_EQ(u.kind, UserTextKind::task_resumption);
  EXPECT_EQ(u.text, "also add tests");
}

TEST(UserText, TaskResumptionWithoutInstructionsKeepsWholeText_s3_2) {
  UserText u = classify_user_text("[TASK RESUMPTION] Resuming task...");
  EXPECT_EQ(u.kind, UserTextKind::task_resumption);
  EXPECT_EQ(u.text, "[TASK RESUMPTION] Resuming task...");
  std::string old = "[TASK RESUMPTION] This task was interrupted 5 minutes ago. It may or may not be complete.";
  u = classify_user_text(old);
  EXPECT_EQ(u.kind, UserTextKind::task_resumption);
  EXPECT_EQ(u.text, old);
}

TEST(UserText, XmlResultHeaderAloneHasEmptyBody_s4) {
  UserText u = classify_user_text("[read_file for 'src/a.ts'] Result:");
  EXPECT_EQ(u.kind, UserTextKind::xml_tool_result);
  EXPECT_EQ(u.tool_name, "read_file");
  EXPECT_EQ(u.tool_description, "read_file for 'src/a.ts'");
  EXPECT_EQ(u.text, "");
}

TEST(UserText, XmlResultHeaderWithBodyInSameBlock_s4) {
  UserText u = classify_user_text(
      "[execute_command for 'ls'] Result:\nCommand executed in terminal within working directory '/x'. Exit code: 0"
      "\nOutput:\na.txt");
  EXPECT_EQ(u.kind, UserTextKind::xml_tool_result);
  EXPECT_EQ(u.tool_name, "execute_command");
  EXPECT_EQ(u.tool_description, "execute_command for 'ls'");
  EXPECT_EQ(u.text, "Command executed in terminal within working directory '/x'. Exit code: 0\nOutput:\na.txt");
}

// Description forms of presentAssistantMessage.ts (§3.4, §4).
TEST(UserText, XmlResultHeaderDescriptionForms_s4) {
  struct Case {
    const char* text;
    const char* name;  // nullptr: no snake_case first word
    const char* desc;
  };
  for (const Case& c : {
           Case{"[attempt_completion] Result:", "attempt_completion", "attempt_completion"},
           Case{"[update_todo_list] Result:", "update_todo_list", "update_todo_list"},
           Case{"[new_task in Code mode: 'write tests'] Result:", "new_task", "new_task in Code mode: 'write tests'"},
           Case{"[switch_mode to 'code' because: needs edits] Result:", "switch_mode",
                "switch_mode to 'code' because: needs edits"},
           Case{"[search_files for 'TODO' in '*.ts'] Result:", "search_files", "search_files for 'TODO' in '*.ts'"},
           Case{"[use_mcp_tool for 'github'] Result:", "use_mcp_tool", "use_mcp_tool for 'github'"},
           Case{"[browser_action for 'launch'] Result:", "browser_action", "browser_action for 'launch'"},
           Case{"[mcp_tool: github/create_issue] Result:", nullptr, "mcp_tool: github/create_issue"},
           Case{"[execute_command for 'echo a\necho b'] Result:\nout", "execute_command",
                "execute_command for 'echo a\necho b'"},
       }) {
    UserText u = classify_user_text(c.text);
    ASSERT_EQ(u.kind, UserTextKind::xml_tool_result) << c.text;
    EXPECT_EQ(u.tool_description, c.desc);
    if (c.name) {
      EXPECT_EQ(u.tool_name, c.name);
    } else {
      EXPECT_FALSE(u.tool_name) << c.text;
    }
  }
}

// "Tool [x] was not executed …" is a result body, not a header (v3.25 presentAssistantMessage.ts; §4).
TEST(UserText, ToolNotExecutedTextIsNotAResultHeader_s4) {
  UserText u = classify_user_text(
      "Tool [write_to_file] was not executed because a tool has already been used in this message. Only one tool "
      "may be used per message.");
  EXPECT_NE(u.kind, UserTextKind::xml_tool_result);
  EXPECT_EQ(u.kind, UserTextKind::words);
  // "] Result:" must end the header line.
  EXPECT_EQ(classify_user_text("[draft] Result: looks fine").kind, UserTextKind::words);
}

TEST(UserText, SubtaskCompleted_s3_2) {
  UserText u =
      classify_user_text("Subtask 019cd810-b732-7a07-b51c-2e9d4f6a8031 completed.\n\nResult:\nAll 12 tests pass.");
  EXPECT_EQ(u.kind, UserTextKind::subtask_completed);
  EXPECT_EQ(u.subtask_id, "019cd810-b732-7a07-b51c-2e9d4f6a8031");
  EXPECT_EQ(u.text, "All 12 tests pass.");
  EXPECT_EQ(classify_user_text("Subtask 3 completed. Nice!").kind, UserTextKind::words);
}

TEST(UserText, ToolResultRewrittenToText_s3_1) {
  UserText u = classify_user_text("Tool result:\n3 passed\n");
  EXPECT_EQ(u.kind, UserTextKind::tool_result_text);
  EXPECT_EQ(u.text, "3 passed\n");
}

TEST(UserText, SlidingWindowTruncationMarker_s3_1) {
  UserText u = classify_user_text("[Sliding window truncation: 12 messages hidden to reduce context]");
  EXPECT_EQ(u.kind, UserTextKind::roo_text);
  EXPECT_STREQ(u.roo_text->kind, "context_truncation");
  EXPECT_EQ(u.text, "[Sliding window truncation: 12 messages hidden to reduce context]");
}

// ---- first_xml_tool_call ----

XmlToolCall call_of(std::string_view text) {
  auto c = first_xml_tool_call(text);
  EXPECT_TRUE(c) << text;
  if (!c) return {};
  rapidjson::Document doc;
  doc.Parse(c->input_json.c_str(), c->input_json.size());
  EXPECT_FALSE(doc.HasParseError()) << c->input_json;
  EXPECT_TRUE(doc.IsObject()) << c->input_json;
  return *c;
}

TEST(XmlToolCall, ExecuteCommandWithCwd_s4) {
  std::string t = "I'll list.\n\n<execute_command>\n<command>ls -la</command>\n<cwd>/tmp/x</cwd>\n</execute_command>";
  XmlToolCall c = call_of(t);
  EXPECT_EQ(c.name, "execute_command");
  EXPECT_EQ(c.input_json, R"({"command":"ls -la","cwd":"/tmp/x"})");
  EXPECT_EQ(c.begin, t.find("<execute_command>"));
  EXPECT_EQ(c.end, t.size());
  EXPECT_TRUE(c.closed);
}

TEST(XmlToolCall, ParameterWhitespaceIsTrimmed_s4) {
  XmlToolCall c = call_of("<execute_command>\n<command>\n  npm test  \n</command>\n</execute_command>");
  EXPECT_EQ(c.input_json, R"({"command":"npm test"})");
}

TEST(XmlToolCall, ReadFileArgsWithTwoFilesAndRanges_s4) {
  XmlToolCall c = call_of(
      "<thinking>I should look</thinking>\n\n<read_file>\n<args>\n<file>\n<path>src/a.ts</path>\n"
      "<line_range>1-50</line_range>\n<line_range>80-90</line_range>\n</file>\n<file>\n<path>src/b.ts</path>\n"
      "</file>\n</args>\n</read_file>");
  EXPECT_EQ(c.name, "read_file");
  EXPECT_EQ(c.input_json, R"({"files":[{"path":"src/a.ts","line_ranges":["1-50","80-90"]},{"path":"src/b.ts"}]})");
}

// The Windows fixture's (bob) XML-era call, indented.
TEST(XmlToolCall, ReadFileArgsIndented_fixture) {
  XmlToolCall c = call_of(
      "<thinking>\nThe user wants to know what src/a.ts exports.\n</thinking>\n\n<read_file>\n<args>\n  <file>\n"
      "    <path>src/a.ts</path>\n  </file>\n</args>\n</read_file>");
  EXPECT_EQ(c.input_json, R"({"files":[{"path":"src/a.ts"}]})");
}

TEST(XmlToolCall, ReadFileBarePath_s4) {
  XmlToolCall c = call_of("<read_file>\n<path>src/main.py</path>\n</read_file>");
  EXPECT_EQ(c.input_json, R"({"path":"src/main.py"})");
}

// write_to_file content may hold any text; it ends at the last </content> before </write_to_file>
// (v3.25 parseAssistantMessage.ts write_to_file special case). One line end is trimmed each side, no more.
TEST(XmlToolCall, WriteToFileContentHoldsTagsUpToLastClose_s4) {
  std::string t =
      "<write_to_file>\n<path>docs/x.html</path>\n<content>\n  <b>bold</b> and </path> and <content>inner</content>"
      " tail\n\n</content>\n<line_count>1</line_count>\n</write_to_file>";
  XmlToolCall c = call_of(t);
  EXPECT_EQ(c.name, "write_to_file");
  EXPECT_EQ(c.input_json,
            R"({"path":"docs/x.html","content":"  <b>bold</b> and </path> and <content>inner</content> tail\n",)"
            R"("line_count":"1"})");
  EXPECT_TRUE(c.closed);
  EXPECT_EQ(c.end, t.size());
}

// Two write_to_file calls: the first one's content stops before the first </write_to_file>.
TEST(XmlToolCall, ContentDoesNotRunIntoALaterCall_row_contract) {
  XmlToolCall c = call_of(
      "<write_to_file><path>a</path><content>A</content></write_to_file>\n"
      "<write_to_file><path>b</path><content>B</content></write_to_file>");
  EXPECT_EQ(c.input_json, R"({"path":"a","content":"A"})");
}

TEST(XmlToolCall, ApplyDiffSearchReplace_s3_3) {
  XmlToolCall c = call_of(
      "<apply_diff>\n<path>src/dates.py</path>\n<diff>\n<<<<<<< SEARCH\n:start_line:3\n-------\n"
      "    return datetime.strptime(s, \"%Y-%d-%m\")\n=======\n    return datetime.strptime(s, \"%Y-%m-%d\")\n"
      ">>>>>>> REPLACE\n</diff>\n</apply_diff>");
  EXPECT_EQ(c.name, "apply_diff");
  EXPECT_EQ(c.input_json, R"({"path":"src/dates.py","diff":"<<<<<<< SEARCH\n:start_line:3\n-------\n)"
                          R"(    return datetime.strptime(s, \"%Y-%d-%m\")\n=======\n)"
                          R"(    return datetime.strptime(s, \"%Y-%m-%d\")\n>>>>>>> REPLACE"})");
}

// v3.2x multi-file apply_diff <args>.
TEST(XmlToolCall, ApplyDiffMultiFileArgs_s4) {
  XmlToolCall c = call_of(
      "<apply_diff>\n<args>\n<file>\n<path>a.py</path>\n<diff>\n<content>\n<<<<<<< SEARCH\nx = 1\n=======\n"
      "x = 2\n>>>>>>> REPLACE\n</content>\n<start_line>3</start_line>\n</diff>\n<diff>\n<content>\nB</content>\n"
      "</diff>\n</file>\n<file>\n<path>b.py</path>\n<diff><content>C</content><start_line>9</start_line></diff>\n"
      "</file>\n</args>\n</apply_diff>");
  EXPECT_EQ(c.input_json,
            R"({"files":[{"path":"a.py","diffs":[{"content":"<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE",)"
            R"("start_line":"3"},{"content":"B"}]},{"path":"b.py","diffs":[{"content":"C","start_line":"9"}]}]})");
}

TEST(XmlToolCall, AskFollowupQuestionSuggests_s3_3) {
  XmlToolCall c = call_of(
      "<ask_followup_question>\n<question>Which file?</question>\n<follow_up>\n<suggest>a.ts</suggest>\n"
      "<suggest mode=\"code\">b.ts</suggest>\n</follow_up>\n</ask_followup_question>");
  EXPECT_EQ(c.input_json, R"({"question":"Which file?","follow_up":[{"text":"a.ts"},{"text":"b.ts","mode":"code"}]})");
}

TEST(XmlToolCall, UseMcpToolKeepsJsonArgumentsAsString_s4) {
  XmlToolCall c = call_of(
      "<use_mcp_tool>\n<server_name>github</server_name>\n<tool_name>create_issue</tool_name>\n<arguments>\n"
      "{\n  \"title\": \"Bug\",\n  \"n\": 3\n}\n</arguments>\n</use_mcp_tool>");
  EXPECT_EQ(
      c.input_json,
      R"({"server_name":"github","tool_name":"create_issue","arguments":"{\n  \"title\": \"Bug\",\n  \"n\": 3\n}"})");
}

TEST(XmlToolCall, AttemptCompletion_fixture) {
  XmlToolCall c = call_of(
      "<thinking>\nThe file is small; I can answer directly.\n</thinking>\n\n<attempt_completion>\n<result>\n"
      "src/a.ts exports a function add(a, b).\n</result>\n</attempt_completion>");
  EXPECT_EQ(c.name, "attempt_completion");
  EXPECT_EQ(c.input_json, R"({"result":"src/a.ts exports a function add(a, b)."})");
}

TEST(XmlToolCall, OtherParameterShapes_s3_3) {
  EXPECT_EQ(call_of("<switch_mode><mode_slug>code</mode_slug><reason>edit</reason></switch_mode>").input_json,
            R"({"mode_slug":"code","reason":"edit"})");
  EXPECT_EQ(call_of("<new_task><mode>code</mode><message>Write <task> tests</message></new_task>").input_json,
            R"({"mode":"code","message":"Write <task> tests"})");
  EXPECT_EQ(call_of("<search_files><path>.</path><regex>a<b</regex><file_pattern>*.ts</file_pattern>"
                    "</search_files>")
                .input_json,
            R"({"path":".","regex":"a<b","file_pattern":"*.ts"})");
  EXPECT_EQ(call_of("<list_files><path>src</path><recursive>true</recursive></list_files>").input_json,
            R"({"path":"src","recursive":"true"})");
  EXPECT_EQ(call_of("<insert_content><path>a</path><line>0</line><content>\nx\n</content></insert_content>").input_json,
            R"({"path":"a","line":"0","content":"x"})");
  EXPECT_EQ(call_of("<update_todo_list><todos>\n[x] a\n[ ] b\n</todos></update_todo_list>").input_json,
            R"({"todos":"[x] a\n[ ] b"})");
}

TEST(XmlToolCall, OnlyFirstCallCounts_row_contract) {
  XmlToolCall c = call_of(
      "<read_file><path>a.ts</path></read_file>\n\n<execute_command><command>rm -rf x</command></execute_command>");
  EXPECT_EQ(c.name, "read_file");
  EXPECT_EQ(c.input_json, R"({"path":"a.ts"})");
  EXPECT_EQ(c.begin, 0u);
  EXPECT_EQ(c.end, std::string("<read_file><path>a.ts</path></read_file>").size());
}

TEST(XmlToolCall, CallInsideThinkingIsNotACall_row_contract) {
  XmlToolCall c = call_of(
      "<thinking>Maybe <execute_command><command>rm -rf /</command></execute_command>? No.</thinking>\n"
      "<list_files><path>.</path></list_files>");
  EXPECT_EQ(c.name, "list_files");
  EXPECT_FALSE(first_xml_tool_call("<thinking>\n<read_file><path>a</path></read_file>\n</thinking>"));
  // An unclosed thinking block runs to the end: nothing after it is a call.
  EXPECT_FALSE(first_xml_tool_call("<thinking>I might <read_file><path>a</path></read_file>"));
}

TEST(XmlToolCall, UnknownTagsAreText_s4) {
  EXPECT_FALSE(first_xml_tool_call("<foo><bar>x</bar></foo> and <read_files><path>a</path></read_files>"));
  EXPECT_FALSE(first_xml_tool_call("no calls here, a < b and <read_file attr=\"1\">"));
  XmlToolCall c = call_of(
      "<answer>x</answer>\n<execute_command><command>ls</command><bogus>1</bogus>"
      "</execute_command>");
  EXPECT_EQ(c.name, "execute_command");
  EXPECT_EQ(c.input_json, R"({"command":"ls","bogus":"1"})");
  EXPECT_FALSE(first_xml_tool_call(""));
  EXPECT_FALSE(first_xml_tool_call("plain text"));
}

// A cut message: the closing tag never came. Parameters read so far are kept, the last one as far as it goes.
TEST(XmlToolCall, UnclosedCallKeepsParametersReadSoFar_s4) {
  std::string t = "<write_to_file>\n<path>a.txt</path>\n<content>\nline 1\nline 2";
  XmlToolCall c = call_of(t);
  EXPECT_FALSE(c.closed);
  EXPECT_EQ(c.end, t.size());
  EXPECT_EQ(c.input_json, R"({"path":"a.txt","content":"line 1\nline 2"})");

  c = call_of("<execute_command>\n<command>ls</command>\n");
  EXPECT_FALSE(c.closed);
  EXPECT_EQ(c.input_json, R"({"command":"ls"})");

  c = call_of("<read_file>\n<args>\n<file>\n<path>src/a");
  EXPECT_FALSE(c.closed);
  EXPECT_EQ(c.input_json, R"({"files":[{"path":"src/a"}]})");

  c = call_of("<attempt_completion>");
  EXPECT_FALSE(c.closed);
  EXPECT_EQ(c.input_json, "{}");
}

TEST(XmlToolCall, RepeatedParameterKeepsLastValue) {
  EXPECT_EQ(call_of("<execute_command><command>a</command><command>b</command></execute_command>").input_json,
            R"({"command":"b"})");
}

TEST(XmlToolCall, ValuesAreEscapedAndBytesKept) {
  std::string t =
      std::string("<execute_command><command>echo \"a\\b\"\t\x01 \xff\xfe") + '\0' + "</command></execute_command>";
  XmlToolCall c = call_of(t);
  rapidjson::Document doc;
  doc.Parse(c.input_json.c_str(), c.input_json.size());
  ASSERT_TRUE(doc.IsObject());
  EXPECT_EQ(std::string(doc["command"].GetString(), doc["command"].GetStringLength()),
            std::string("echo \"a\\b\"\t\x01 \xff\xfe") + '\0');
}

// Hostile shapes are read to their end without recursion: many unclosed raw values, many sibling diffs,
// deep-looking nesting. (Tests never time anything; a quadratic scan would show as a ctest timeout here and in the
// fuzzer's slow-input report.)
TEST(XmlToolCall, HostileInputsAreReadWithoutRecursion) {
  const size_t n = 200000;
  std::string many_content = "<write_to_file>";
  for (size_t i = 0; i < n; ++i) many_content += "<content>x</content>";
  std::string many_diffs = "<apply_diff><args><file>";
  for (size_t i = 0; i < n; ++i) many_diffs += "<diff><content>";
  std::string nested = "<read_file>";
  for (size_t i = 0; i < n; ++i) nested += "<args><file>";
  std::string opens;
  for (size_t i = 0; i < n; ++i) opens += "<write_to_file><content></write_to_file>";
  for (const std::string* t : {&many_content, &many_diffs, &nested, &opens}) {
    auto c = first_xml_tool_call(*t);
    ASSERT_TRUE(c);
    thinking_blocks(*t);
    classify_user_text(*t);
  }
}

// ---- thinking_blocks ----

TEST(Thinking, BlocksInOrderWithOneLineEndTrimmed_s4) {
  auto blocks = thinking_blocks(
      "<thinking>\nfirst\n\n</thinking>\n<read_file><path>a</path></read_file>\n<thinking>second</thinking>");
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0], "first\n");
  EXPECT_EQ(blocks[1], "second");
}

TEST(Thinking, UnclosedBlockAtTheEndIsTheRest) {
  auto blocks = thinking_blocks("<thinking>a</thinking> text <thinking>\nstill thinking");
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[1], "still thinking");
  EXPECT_TRUE(thinking_blocks("no thinking").empty());
}

// ---- parse_xml_decision (v3.25 responses.ts:8-16; docs/roo-format.md §4) ----

TEST(XmlDecision, Denied_s4) {
  auto d = parse_xml_decision("The user denied this operation.");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->status, "denied");
  EXPECT_FALSE(d->feedback);
  EXPECT_FALSE(d->error);
}

TEST(XmlDecision, DeniedWithFeedback_s4) {
  auto d = parse_xml_decision(
      "\nThe user denied this operation and provided the following feedback:\n<feedback>\nuse pytest -q\n</feedback>");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->status, "denied");
  EXPECT_EQ(d->feedback, "use pytest -q");
}

TEST(XmlDecision, ApprovedWithFeedbackFollowedByResult_s4) {
  auto d = parse_xml_decision(
      "The user approved this operation and provided the following context:\n<feedback>\nonly src\n</feedback>\n\n"
      "Command executed in terminal. Output:\n<feedback>not this</feedback>");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->status, "approved");
  EXPECT_EQ(d->feedback, "only src");
}

TEST(XmlDecision, ToolError_s4) {
  auto d = parse_xml_decision("The tool execution failed with the following error:\n<error>\nENOENT: a.txt\n</error>");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->status, "error");
  EXPECT_EQ(d->error, "ENOENT: a.txt");
  EXPECT_FALSE(d->feedback);
}

TEST(XmlDecision, MustStartWithTheSentence_s4) {
  EXPECT_FALSE(parse_xml_decision("Note: The user denied this operation."));
  EXPECT_FALSE(parse_xml_decision(""));
  EXPECT_FALSE(parse_xml_decision("[read_file for 'a'] Result:"));
}

// ---- split_mentions (parseMentions, src/core/mentions/index.ts v3.3.26) ----

TEST(Mentions, ExpandedBlocksAreSplitOffAndTheTypedWordsComeBack_row_contract) {
  auto split = split_mentions(
      "<task>\nExplain 'src/a.py' (see below for file content) and fix Workspace Problems (see below for "
      "diagnostics), see 'https://x.org/doc' (see below for site content)\n</task>\n\n"
      "<file_content path=\"src/a.py\">\n1 | x = 1\n2 | y = \"</file_content>\"\n</file_content>\n\n"
      "<workspace_diagnostics>\nNo errors or warnings detected.\n</workspace_diagnostics>\n\n"
      "<url_content url=\"https://x.org/doc\">\n# Doc\n</url_content>");
  ASSERT_TRUE(split);
  EXPECT_EQ(split->typed, "Explain @/src/a.py and fix @problems, see @https://x.org/doc");
  ASSERT_EQ(split->mentions.size(), 3u);
  EXPECT_EQ(split->mentions[0].kind, "file");
  EXPECT_EQ(split->mentions[0].target, std::optional<std::string>("src/a.py"));
  // A close inside the file is content: the block ends at the close followed by the next block.
  EXPECT_EQ(split->mentions[0].content, "1 | x = 1\n2 | y = \"</file_content>\"");
  EXPECT_EQ(split->mentions[1].kind, "problems");
  EXPECT_FALSE(split->mentions[1].target);
  EXPECT_EQ(split->mentions[1].content, "No errors or warnings detected.");
  EXPECT_EQ(split->mentions[2].kind, "url");
  EXPECT_EQ(split->mentions[2].content, "# Doc");
}

TEST(Mentions, TextsThatAreNotExpansionsStayWhole_row_contract) {
  // Tags the user pasted, with words after them: not blocks Roo appended.
  EXPECT_FALSE(split_mentions("see\n\n<file_content path=\"a\">\nx\n</file_content>\nand more"));
  EXPECT_FALSE(split_mentions("see\n\n<file_content path=\"a\">\nnever closed"));
  EXPECT_FALSE(split_mentions("plain words"));
  // Folder, commit, git changes and terminal sentences come back as typed.
  auto split = split_mentions(
      "'lib/' (see below for folder content) at Git commit 'abc1234' (see below for commit info) with Working "
      "directory changes (see below for details) and Terminal Output (see below for output)\n\n"
      "<folder_content path=\"lib/\">\n└── a.py\n</folder_content>\n\n<git_commit hash=\"abc1234\">\nfix\n"
      "</git_commit>\n\n<git_working_state>\nM a.py\n</git_working_state>\n\n<terminal_output>\n$ ls\n</terminal_output>");
  ASSERT_TRUE(split);
  EXPECT_EQ(split->typed, "@/lib/ at @abc1234 with @git-changes and @terminal");
  ASSERT_EQ(split->mentions.size(), 4u);
  EXPECT_EQ(split->mentions[1].kind, "git_commit");
  EXPECT_EQ(split->mentions[1].target, std::optional<std::string>("abc1234"));
  EXPECT_EQ(split->mentions[3].content, "$ ls");
}

// ---- roo_texts: Roo's own texts, one entry per wording (docs/row-contract.md "Roo's texts in user turns") ----
// Each text below is copied from RooCodeInc/Roo-Code at the tag named (git show <tag>:<path>), the template's
// arguments filled in by hand; a long reminder is cut after the line that tells its wording.

// The table itself: every entry says what it is, where and when; an entry with a marker is never behind an earlier
// marker-less one with the same opening (it could never be reached), and no two entries are the same wording.
TEST(RooTexts, EveryEntryIsReachableAndSaysWhereItComesFrom_row_contract) {
  const auto& table = roo_texts();
  ASSERT_GT(table.size(), 40u);
  for (size_t i = 0; i < table.size(); ++i) {
    const RooText& r = table[i];
    EXPECT_FALSE(r.opening.empty());
    EXPECT_TRUE(r.kind && *r.kind && r.writer && *r.writer && r.source && *r.source) << r.opening;
    EXPECT_EQ(r.versions[0], 'v') << r.opening;
    EXPECT_NE(std::string_view(r.versions).find(" … v"), std::string_view::npos) << r.opening;  // first … last tag
    EXPECT_TRUE(r.in == RooText::In::result || (!r.decision && !r.tool_failure)) << r.opening;
    for (size_t j = 0; j < i; ++j) {
      const RooText& e = table[j];
      if (e.in != r.in || e.opening != r.opening) continue;
      EXPECT_FALSE(e.marker.empty()) << "entry " << i << " is behind entry " << j << ": " << r.opening;
      EXPECT_NE(e.marker, r.marker) << r.opening;
    }
  }
}

const std::string kXmlReminderV3_3 =
    "# Reminder: Instructions for Tool Use\n\nTool uses are formatted using XML-style tags. The tool name is enclosed "
    "in opening and closing tags, and each parameter is similarly enclosed within its own set of tags. Here's the "
    "structure:\n\n<tool_name>\n";
const std::string kXmlReminderV3_20 =
    "# Reminder: Instructions for Tool Use\n\nTool uses are formatted using XML-style tags. The tool name itself "
    "becomes the XML tag name. Each parameter is enclosed within its own set of tags. Here's the structure:\n\n"
    "<actual_tool_name>\n";
const std::string kNativeReminderV3_52 =
    "# Reminder: Instructions for Tool Use\n\nTools are invoked using the platform's native tool calling mechanism. "
    "Each tool requires specific parameters as defined in the tool descriptions. Refer to the tool definitions "
    "provided in your system instructions for the correct parameter structure and usage examples.\n\nAlways ensure "
    "you provide all required parameters for the tool you wish to use.";

// noToolsUsed (src/core/prompts/responses.ts) opens alike in every release; its reminder tells the era.
TEST(RooTexts, TheRetryPromptTellsItsEraByItsReminder_row_contract) {
  const std::string head = "[ERROR] You did not use a tool in your previous response! Please retry with a tool use.\n\n";
  struct Case {
    std::string reminder;
    const char* versions;
  } cases[] = {
      {kXmlReminderV3_3, "v2.1.2 … v3.16.1"},                                                  // v3.3.26
      {kXmlReminderV3_20, "v3.16.2 … v3.41.3 (XML protocol only from v3.31.1)"},              // v3.20.3
      {kNativeReminderV3_52, "v3.31.1 … v3.52.1 (native protocol; the only form from v3.42.0)"},  // v3.52.1
      {"# Reminder: Instructions for Tool Use\n\nTool uses are", "v2.1.2 … v3.52.1 (reminder cut or not recorded)"},
  };
  for (const Case& c : cases) {
    UserText u = classify_user_text(head + c.reminder + "\n\n# Next Steps\n\nIf you have completed the user's task, "
                                                        "use the attempt_completion tool.");
    ASSERT_EQ(u.kind, UserTextKind::roo_text) << c.versions;
    EXPECT_STREQ(u.roo_text->kind, "retry_prompt");
    EXPECT_STREQ(u.roo_text->versions, c.versions);
    EXPECT_STREQ(u.roo_text->writer, "noToolsUsed");
  }
}

// tooManyMistakes in its three wordings: v3.3.26 (text), v3.33.1 native (JSON with message), v3.52.1 (JSON).
TEST(RooTexts, MistakeGuidanceInEachWordingKeepsTheUsersWords_row_contract) {
  struct Case {
    const char* text;
    const char* versions;
  } cases[] = {
      {"You seem to be having trouble proceeding. The user has provided the following feedback to help guide you:\n"
       "<feedback>\nread the tests first\n</feedback>",
       "v2.1.2 … v3.41.3 (XML protocol only from v3.33.1)"},
      {R"({"status":"guidance","message":"You seem to be having trouble proceeding","feedback":"read the tests first"})",
       "v3.33.1 … v3.41.3 (native protocol)"},
      {R"({"status":"guidance","feedback":"read the tests first"})",
       R"(v3.42.0 … v3.52.1 ({"status":"guidance","feedback":…}))"},
  };
  for (const Case& c : cases) {
    UserText u = classify_user_text(c.text);
    ASSERT_EQ(u.kind, UserTextKind::roo_text) << c.text;
    EXPECT_STREQ(u.roo_text->kind, "mistake_guidance");
    EXPECT_STREQ(u.roo_text->versions, c.versions);
    EXPECT_EQ(u.feedback, std::optional<std::string>("read the tests first"));
  }
}

// Results are not user-turn texts: a decision sentence in a text block is left to the result reader.
TEST(RooTexts, ResultTextsAreNotUserTurnTexts_row_contract) {
  EXPECT_EQ(classify_user_text("The user denied this operation.").kind, UserTextKind::words);
  EXPECT_EQ(find_roo_text("The user denied this operation.", RooText::In::user_turn), nullptr);
  EXPECT_EQ(find_roo_text("[ERROR] You did not use a tool in your previous response!", RooText::In::result), nullptr);
  ASSERT_NE(find_roo_text("The user denied this operation.", RooText::In::result), nullptr);
}

// Every formatResponse result of every era, and the results Roo's task and tool code writes in its own words: what
// each says became of the call.
TEST(RooTexts, EveryResultWordingHasItsOutcome_row_contract) {
  struct Case {
    std::string text;
    const char* writer;
    const char* outcome;
    const char* first_tag;  // how its versions start
  } cases[] = {
      // src/core/prompts/responses.ts v3.3.26
      {"The user denied this operation.", "toolDenied", "denied", "v2.1.2 "},
      {"The user denied this operation and provided the following feedback:\n<feedback>\nno\n</feedback>",
       "toolDeniedWithFeedback", "denied", "v2.1.2 "},
      {"The user approved this operation and provided the following context:\n<feedback>\nok\n</feedback>",
       "toolApprovedWithFeedback", "completed", "v3.3.7 "},
      {"The tool execution failed with the following error:\n<error>\nError writing file: EACCES\n</error>",
       "toolError", "error", "v2.1.2 "},
      {"Invalid JSON argument used with github for create_issue. Please retry with a properly formatted JSON argument.",
       "invalidMcpToolArgumentError", "error", "v2.2.1 "},
      // v3.10.0
      {"Access to .env is blocked by the .rooignore file settings. You must try to continue in the task without using "
       "this file, or ask the user to update the .rooignore file.",
       "rooIgnoreError", "access_denied", "v3.8.0 "},
      // v3.20.3
      {"This appears to be a new file.\nNote: Your response may have been truncated because it exceeded your output "
       "limit. You wrote 120 lines of content, but the line_count parameter was either missing or not included in "
       "your response.\n\nRECOMMENDED APPROACH:\n",
       "lineCountTruncationError", "error", "v3.14.0 "},
      {"This appears to be content for an existing file.\nNote: Your response may have been truncated because it "
       "exceeded your output limit. You wrote 80 lines of content, but the line_count parameter was either missing "
       "or not included in your response.\n\nRECOMMENDED APPROACH:\n1. Try again with the line_count parameter in "
       "your response if you forgot to include it\n2. Or use search_and_replace for specific text replacements\n",
       "lineCountTruncationError", "error", "v3.14.0 "},
      // v3.30.0
      {"This appears to be content for an existing file.\nNote: Your response may have been truncated because it "
       "exceeded your output limit. You wrote 80 lines of content, but the line_count parameter was either missing "
       "or not included in your response.\n\nRECOMMENDED APPROACH:\n1. Try again with the line_count parameter in "
       "your response if you forgot to include it\n2. Or use insert_content to add specific content at particular "
       "lines\n",
       "lineCountTruncationError", "error", "v3.29.4 "},
      {"Tool 'create_issue' does not exist on server 'github'.\n\nAvailable tools on this server: list_issues\n\n"
       "Please use one of the available tools or check if the server is properly configured.",
       "unknownMcpToolError", "error", "v3.26.7 "},
      {"Server 'gitlab' is not configured. Available servers: github", "unknownMcpServerError", "error", "v3.26.7 "},
      // v3.33.1 (native protocol)
      {R"({"status":"denied","message":"The user denied this operation."})", "toolDenied", "denied", "v3.33.1 "},
      {R"({"status":"denied","message":"The user denied this operation and provided the following feedback","feedback":"no"})",
       "toolDeniedWithFeedback", "denied", "v3.33.1 "},
      {R"({"status":"approved","message":"The user approved this operation and provided the following context","feedback":"ok"})",
       "toolApprovedWithFeedback", "completed", "v3.33.1 "},
      // v3.52.1
      {R"({"status":"denied","feedback":"no"})", "toolDeniedWithFeedback", "denied", "v3.42.0 "},
      {R"({"status":"approved","feedback":"ok"})", "toolApprovedWithFeedback", "completed", "v3.42.0 "},
      {R"({"status":"error","message":"The tool execution failed","error":"EACCES"})", "toolError", "error", "v3.33.1 "},
      {R"({"status":"error","type":"access_denied","message":"Access blocked by .rooignore","path":".env","suggestion":"Try to continue without this file, or ask the user to update the .rooignore file"})",
       "rooIgnoreError", "access_denied", "v3.33.1 "},
      {R"({"status":"error","type":"invalid_argument","message":"Invalid JSON argument","server":"github","tool":"create_issue","suggestion":"Please retry with a properly formatted JSON argument"})",
       "invalidMcpToolArgumentError", "error", "v3.33.1 "},
      {R"({"status":"error","type":"unknown_tool","message":"Tool does not exist on server","server":"github","tool":"x","available_tools":[],"suggestion":"Please use one of the available tools or check if the server is properly configured"})",
       "unknownMcpToolError", "error", "v3.33.1 "},
      {R"({"status":"error","type":"unknown_server","message":"Server is not configured","server":"gitlab","available_servers":["github"]})",
       "unknownMcpServerError", "error", "v3.33.1 "},
      // Cline.ts v3.3.26, src/core/tools/*.ts and Task.ts v3.52.1
      {"The user has provided feedback on the results. Consider their input to continue the task, and then attempt "
       "completion again.\n<feedback>\nalso the footer\n</feedback>",
       "attempt_completion", "completed", "v2.1.2 "},
      {"Changes were rejected by the user.", "edit tools", "denied", "v3.3.5 "},
      {"No changes needed for 'src/a.ts'", "edit tools", "completed", "v3.3.5 "},
      {"(tool did not return anything)", "pushToolResult", "completed", "v2.1.2 "},
      {"Task was interrupted before this tool call could be completed.", "resumeTaskFromHistory", "interrupted",
       "v2.1.2 "},
      {"This tool was not executed because new_task was called in the same message turn. The new_task tool must be "
       "the last tool in a message.",
       "recursivelyMakeClineRequests", "not_executed", "v3.44.2 "},
      {"Tool [read_file] was not executed because a tool has already been used in this message. Only one tool may be "
       "used per message. You must assess the first tool's result before proceeding to use the next tool.",
       "presentAssistantMessage", "not_executed", "v2.1.2 "},
      {"Skipping tool [execute_command for 'ls'] due to user rejecting a previous tool.", "presentAssistantMessage",
       "skipped_after_rejection", "v2.1.2 "},
      {"Tool [execute_command for 'ls'] was interrupted and not executed due to user rejecting a previous tool.",
       "presentAssistantMessage", "interrupted_after_rejection", "v2.1.2 "},
      {"Skipping MCP tool mcp--github--list due to user rejecting a previous tool.", "presentAssistantMessage",
       "skipped_after_rejection", "v3.34.4 "},
      {"MCP tool mcp--github--list was interrupted and not executed due to user rejecting a previous tool.",
       "presentAssistantMessage", "interrupted_after_rejection", "v3.34.4 "},
      {"Unable to apply diff to file: /w/a.py", "apply_diff", "error", "v2.1.19 "},
      {"No match found in file: a.py", "edit_file", "error", "v3.39.2 "},
  };
  for (const Case& c : cases) {
    const RooResult found = find_roo_result(c.text);
    ASSERT_NE(found.text, nullptr) << c.text;
    EXPECT_EQ(found.wrapped, nullptr) << c.text;
    EXPECT_STREQ(found.text->writer, c.writer) << c.text;
    EXPECT_STREQ(found.text->kind, c.outcome) << c.text;
    EXPECT_EQ(std::string_view(found.text->versions).substr(0, std::strlen(c.first_tag)), c.first_tag) << c.text;
  }
}

// toolError wraps other texts of Roo's (sayAndCreateMissingParamError: toolError(missingToolParameterError(…)),
// src/core/Cline.ts v3.3.26, src/core/task/Task.ts v3.52.1; toolError(rooIgnoreError(…)), Cline.ts v3.10.0): the
// wrapped one is the more specific.
TEST(RooTexts, TheTextAToolErrorWrapsIsFound_row_contract) {
  const RooResult v3_3 = find_roo_result("The tool execution failed with the following error:\n<error>\nMissing value "
                                         "for required parameter 'path'. Please retry with complete response.\n\n" +
                                         kXmlReminderV3_3 + "\n</error>");
  ASSERT_TRUE(v3_3.text && v3_3.wrapped);
  EXPECT_STREQ(v3_3.text->writer, "toolError");
  EXPECT_STREQ(v3_3.wrapped->writer, "missingToolParameterError");
  EXPECT_STREQ(v3_3.wrapped->versions, "v2.1.2 … v3.16.1");
  EXPECT_EQ(v3_3.most_specific(), v3_3.wrapped);

  const RooResult v3_10 = find_roo_result(
      "The tool execution failed with the following error:\n<error>\nAccess to .env is blocked by the .rooignore file "
      "settings. You must try to continue in the task without using this file, or ask the user to update the "
      ".rooignore file.\n</error>");
  ASSERT_TRUE(v3_10.wrapped);
  EXPECT_STREQ(v3_10.most_specific()->kind, "access_denied");

  // v3.52.1: JSON.stringify of toolError(missingToolParameterError("path")); its line ends are escaped.
  const RooResult v3_52 = find_roo_result(
      R"({"status":"error","message":"The tool execution failed","error":"Missing value for required parameter 'path'. Please retry with complete response.\n\n# Reminder: Instructions for Tool Use\n\nTools are invoked using the platform's native tool calling mechanism. Each tool requires specific parameters"})");
  ASSERT_TRUE(v3_52.wrapped);
  EXPECT_STREQ(v3_52.wrapped->versions, "v3.31.1 … v3.52.1 (native protocol; the only form from v3.42.0)");

  // An error of the tool's own is not a Roo text: the toolError alone.
  const RooResult plain = find_roo_result("The tool execution failed with the following error:\n<error>\nEACCES\n</error>");
  EXPECT_TRUE(plain.text && !plain.wrapped);
}

// Words of the user's or a tool's that open like a Roo text but lack its fixed phrase are not Roo's.
TEST(RooTexts, AnOpeningWithoutItsPhraseIsNotRoos_row_contract) {
  EXPECT_EQ(find_roo_result("Tool 'ruff' is not installed").text, nullptr);
  EXPECT_EQ(find_roo_result("Server 'api' started on :8080").text, nullptr);
  EXPECT_EQ(find_roo_result("Access to the API needs a token").text, nullptr);
  EXPECT_EQ(find_roo_result("Tool [x] is fine").text, nullptr);
  EXPECT_EQ(find_roo_result("").text, nullptr);
  EXPECT_EQ(find_roo_result("   ").text, nullptr);
  // The phrase must come within the window: a text that holds it only far later is not this wording.
  EXPECT_EQ(find_roo_result("Tool '" + std::string(kMarkerWindow, 'a') + "' does not exist on server 's'").text,
            nullptr);
}

// ---- the v3.46.0+ form: file and folder mentions as blocks of their own (src/core/mentions/index.ts v3.52.1) ----

// mentionRegex (src/shared/context-mentions.ts v3.52.1) decides what is a URL mention: after the start or a
// space, a scheme and ://, the shortest run without spaces or unescaped backslashes that ends before a space or the
// end, one trailing .,;:!? left out; parseMentions then quotes it (src/core/mentions/index.ts v3.52.1).
TEST(Mentions, UrlMentionsAreQuotedAsRooSendsThem_row_contract) {
  EXPECT_EQ(url_mentions_as_sent("see @https://a.org/x"), std::optional<std::string>("see 'https://a.org/x'"));
  EXPECT_EQ(url_mentions_as_sent("@http://a.org, and @ftp://b/c."),
            std::optional<std::string>("'http://a.org', and 'ftp://b/c'."));
  EXPECT_EQ(url_mentions_as_sent("at @https://a.org/?q=1!\nnext"), std::optional<std::string>("at 'https://a.org/?q=1'!\nnext"));
  // An escaped space stays in the mention; a punctuation mark inside it too.
  EXPECT_EQ(url_mentions_as_sent("@file://my\\ docs/a.b c"), std::optional<std::string>("'file://my\\ docs/a.b' c"));
  // Not mentions: glued to a word, no scheme, nothing after ://, a plain backslash, a file path (not a URL).
  EXPECT_EQ(url_mentions_as_sent("mail@https://a.org"), std::nullopt);
  EXPECT_EQ(url_mentions_as_sent("@a.org/x"), std::nullopt);
  EXPECT_EQ(url_mentions_as_sent("@https:// x"), std::nullopt);
  EXPECT_EQ(url_mentions_as_sent("@https://a\\b"), std::nullopt);
  EXPECT_EQ(url_mentions_as_sent("@/src/a.py"), std::nullopt);
  EXPECT_EQ(url_mentions_as_sent(""), std::nullopt);
}

TEST(Mentions, ReadFileBlocksNameTheirPath_row_contract) {
  auto file = read_file_mention("[read_file for 'src/a.py']\nFile: src/a.py\n1 | x = 1");
  ASSERT_TRUE(file);
  EXPECT_EQ(file->kind, "file");
  EXPECT_EQ(file->target, std::optional<std::string>("src/a.py"));
  EXPECT_EQ(file->content, "[read_file for 'src/a.py']\nFile: src/a.py\n1 | x = 1");  // the block as recorded
  auto folder = read_file_mention("[read_file for folder 'lib/']\nFolder listing:\n└── a.py\n");
  ASSERT_TRUE(folder);
  EXPECT_EQ(folder->kind, "folder");
  EXPECT_EQ(folder->target, std::optional<std::string>("lib/"));
  // The error form (getFileOrFolderContentWithMetadata's catch) is a mention block too.
  auto missing = read_file_mention("[read_file for 'gone.py']\nError: Failed to access path \"gone.py\": ENOENT");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->target, std::optional<std::string>("gone.py"));
  // The XML era's result header is not one; nor a header cut before its line ends, nor words.
  EXPECT_FALSE(read_file_mention("[read_file for 'a.py'] Result:\n1 | x"));
  EXPECT_FALSE(read_file_mention("[read_file for 'a.py"));
  EXPECT_FALSE(read_file_mention("[read_file for 'a.py']"));
  EXPECT_FALSE(read_file_mention("read a.py"));
  EXPECT_FALSE(read_file_mention(""));
}

TEST(Mentions, QuotedPathsOfFileBlocksComeBackAsTyped_row_contract) {
  const std::vector<Mention> blocks = {*read_file_mention("[read_file for 'todo.py']\nFile: todo.py\n1 | x"),
                                       *read_file_mention("[read_file for folder 'docs/']\nFolder listing:\n")};
  // @problems keeps its sentence and inline block; the two files are blocks of their own.
  auto split = split_mentions(
      "<user_message>\nTidy 'todo.py' in the style of 'docs/' and fix Workspace Problems (see below for "
      "diagnostics)\n</user_message>\n\n<workspace_diagnostics>\ntodo.py\n- [Pylance Error] 3 | x : bad\n"
      "</workspace_diagnostics>",
      blocks);
  ASSERT_TRUE(split);
  EXPECT_EQ(split->typed, "Tidy @/todo.py in the style of @/docs/ and fix @problems");
  ASSERT_EQ(split->mentions.size(), 1u);  // the inline block; the file blocks are the caller's
  EXPECT_EQ(split->mentions[0].kind, "problems");
  // Only file blocks: still a split, at the end of the text.
  auto only = split_mentions("<user_message>\nRead 'todo.py' twice: 'todo.py'\n</user_message>", blocks);
  ASSERT_TRUE(only);
  EXPECT_EQ(only->typed, "Read @/todo.py twice: @/todo.py");  // Roo quotes every occurrence of one mention
  EXPECT_TRUE(only->mentions.empty());
  // Without file blocks a quoted path is the user's own quote.
  EXPECT_FALSE(split_mentions("<user_message>\nRead 'todo.py'\n</user_message>"));
}

// ---- replies inside results (loadContext, src/core/Cline.ts v3.3.26; processUserContentMentions v3.25.0+) ----

TEST(Mentions, BlocksAfterAReplyInAResultAreSplitOff_row_contract) {
  const std::string_view denied =
      "The user denied this operation and provided the following feedback:\n<feedback>\nRead 'calc.py' (see below "
      "for file content) instead\n</feedback>\n\n<file_content path=\"calc.py\">\n1 | x\n</file_content>";
  auto split = split_reply_mentions(denied);
  ASSERT_TRUE(split);
  EXPECT_EQ(denied.substr(0, split->words_end),
            "The user denied this operation and provided the following feedback:\n<feedback>\nRead 'calc.py' (see "
            "below for file content) instead\n</feedback>");
  ASSERT_EQ(split->mentions.size(), 1u);
  EXPECT_EQ(split->mentions[0].target, std::optional<std::string>("calc.py"));
  EXPECT_EQ(typed_words("Read 'calc.py' (see below for file content) instead", {}), "Read @/calc.py instead");
  // A follow-up answer of v3.25.0 … v3.41.x (<answer>) and of v3.42.0+ (<user_message>).
  auto answer = split_reply_mentions("<answer>\nsee Terminal Output (see below for output)\n</answer>\n\n"
                                     "<terminal_output>\n$ ls\n</terminal_output>");
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->mentions[0].kind, "terminal");
  EXPECT_TRUE(split_reply_mentions("<user_message>\nfix Workspace Problems (see below for diagnostics)\n"
                                   "</user_message>\n\n<workspace_diagnostics>\nok\n</workspace_diagnostics>"));
}

TEST(Mentions, ResultsThatAreNotRepliesOrAreCutStayWhole_row_contract) {
  // A file's text that holds a mention block: no reply closes before it.
  EXPECT_FALSE(split_reply_mentions("1 | notes\n\n<file_content path=\"a\">\nx\n</file_content>"));
  // A reply whose block was cut off (a truncated file): the text stays as recorded.
  EXPECT_FALSE(split_reply_mentions("<feedback>\nsee 'a' (see below for file content)\n</feedback>\n\n"
                                    "<file_content path=\"a\">\n1 | x"));
  EXPECT_FALSE(split_reply_mentions("<feedback>\nsee 'a' (see below for file content)\n</feedback>\n\n"
                                    "<file_content path=\"a"));
  EXPECT_FALSE(split_reply_mentions("<feedback>\nwords\n</feedback>"));
  EXPECT_FALSE(split_reply_mentions(""));
}

}  // namespace
}  // namespace roo::transcript
