// What the texts of a transcript are: the user's words, or what the client wrote around them
// (<environment_details>, retry prompts, resumption notices, XML-era tool calls and results, subtask injections).
// Pure functions on strings: no rows, no I/O (docs/roo-format.md §3.2, §3.4, §4; docs/row-contract.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roo::transcript {

// ---- <environment_details> (getEnvironmentDetails.ts; docs/roo-format.md §3.4) ----
struct EnvironmentDetails {
  std::optional<std::string> current_time;    // as recorded: "2026-03-10T09:15:02.123Z" (or the older local form)
  std::optional<int64_t> current_time_ms;     // the same, as epoch ms, only when it parses unambiguously as UTC
  std::optional<std::string> time_zone;       // "Europe/Berlin" of "User time zone: Europe/Berlin, UTC+1:00"
  std::optional<std::string> utc_offset;      // "UTC+1:00"
  std::optional<std::string> workspace_dir;   // "(<cwd>)" of "# Current Workspace Directory (<cwd>) Files"
  std::optional<std::string> cost;            // "$0.12" of "# Current Cost"
  std::optional<std::string> mode_slug, mode_name;  // <slug>…</slug> <name>…</name> of "# Current Mode"
  std::optional<std::string> model;           // <model>…</model> of "# Current Mode"
};
// The text must be one <environment_details> block (leading whitespace allowed). nullopt otherwise.
std::optional<EnvironmentDetails> parse_environment_details(std::string_view text);

// ---- What a user-role text block is ----
enum class UserTextKind {
  words,                // the user's own words (envelopes removed)
  environment_details,  // client-appended context, never the user's words
  roo_text,             // a text Roo writes into a user turn (roo_texts(): retry prompt, mistake guidance, …)
  task_resumption,      // "[TASK RESUMPTION] …" (v3.25 Task.ts:1178-1184; current Task.ts:2213-2218)
  xml_tool_result,      // "[<tool> for '…'] Result:" and the other XML-era "[…] Result:" headers (§4)
  subtask_completed,    // "Subtask <id> completed.\n\nResult:\n<summary>" (ClineProvider.ts:3414-3480)
  tool_result_text,     // "Tool result:\n<content>" (a tool_result rewritten to text, Task.ts:1003-1016)
};

// Roo's own texts (docs/row-contract.md "Roo's texts in user turns"): the ones it writes as text blocks of a user
// turn, never the user's words, and the ones it writes as a tool's result, which say what became of the call. One
// entry per wording, known by its fixed opening (and, where two wordings share an opening, by a fixed phrase the
// text also holds), with what it is, the releases that write it and where.
struct RooText {
  enum class In : char { user_turn, result };
  // What it carries besides Roo's words: the user's <feedback> block or JSON "feedback" (user words), or, for
  // toolError, the <error> block or JSON "error", which may itself be another Roo text (missingToolParameterError).
  enum class Carries : char { none, feedback_tag, feedback_json, error_tag, error_json };
  In in;
  std::string_view opening;
  std::string_view marker;  // a phrase the text also holds within its first kMarkerWindow bytes; empty: none needed
  const char* kind;         // user_turn: the row kind; result: the call's outcome (docs/row-contract.md "outcome")
  const char* writer;       // the formatResponse member or the code that writes it
  const char* versions;     // the Roo releases whose source writes this wording
  const char* source;       // path and function at those tags (RooCodeInc/Roo-Code)
  Carries carries = Carries::none;
  // result: the decision an XML-era sentence states (denied | approved | error), read as parse_xml_decision does;
  // nullptr for the status JSON forms (parse_result_status reads those) and for other results.
  const char* decision = nullptr;
  bool tool_failure = false;  // a tool's own failure sentence: the result row's failure_form (the opening, no colon)
};
constexpr size_t kMarkerWindow = 8192;
const std::vector<RooText>& roo_texts();
// The entry whose wording `text` (leading whitespace skipped) is, among those written where `in` says; nullptr when
// none. Picks candidates by the first byte and compares literals only: no text is scanned past kMarkerWindow.
const RooText* find_roo_text(std::string_view text, RooText::In in);
// A tool result's Roo text, and the one it wraps: toolError's <error> body or JSON "error" when that is a Roo text
// itself (toolError(missingToolParameterError(…)), toolError(rooIgnoreError(…))).
struct RooResult {
  const RooText* text = nullptr;
  const RooText* wrapped = nullptr;
  const RooText* most_specific() const { return wrapped ? wrapped : text; }
};
RooResult find_roo_result(std::string_view result_text);
struct UserText {
  UserTextKind kind = UserTextKind::words;
  std::string text;  // words: unwrapped from <task>/<user_message> (one adjacent newline removed each side);
                     // task_resumption: the new instructions inside its <user_message>, or the whole text when none;
                     // xml_tool_result / subtask_completed / tool_result_text: the result body after the header;
                     // others: the text as recorded
  std::optional<std::string> tool_name;    // xml_tool_result: "execute_command" of "[execute_command for 'ls'] Result:"
  std::optional<std::string> tool_description;  // "execute_command for 'ls'"
  std::optional<std::string> subtask_id;   // subtask_completed
  const RooText* roo_text = nullptr;       // roo_text: its table entry
  std::optional<std::string> feedback;     // roo_text: the words the user typed inside it, when it carries any
};
UserText classify_user_text(std::string_view text);
// The subtask id when classify_user_text would find text a subtask_completed one, without copying the rest of it.
std::optional<std::string> completed_subtask_id(std::string_view text);

// ---- Mentions expanded into a user text (parseMentions, src/core/mentions/index.ts at v3.3.26) ----
// Roo replaces each @mention of the text by a sentence ("'a.py' (see below for file content)") and appends one block
// per mention after it: <file_content path="…">, <folder_content path="…">, <url_content url="…">,
// <workspace_diagnostics>, <git_working_state>, <git_commit hash="…">, <terminal_output>. Only a text whose tail is
// such blocks, each "\n\n"-separated to its end, is read so; any other text is the user's as it stands.
struct Mention {
  std::string kind;                   // file | folder | url | problems | git_changes | git_commit | terminal
  std::optional<std::string> target;  // the path, URL or commit hash the block names
  std::string content;                // the block's body
};
struct MentionSplit {
  std::string typed;                  // the words before the blocks, with Roo's sentences turned back into the
                                      // @mentions the user typed (what the ui's say:"text" holds)
  std::vector<Mention> mentions;
  size_t words_end = 0;               // where the blocks start in the text: text[0, words_end) is the words as recorded
};
// `file_blocks`: the v3.46.0+ mention blocks that followed the text as blocks of their own (read_file_mention), whose
// `'path'` in the text is turned back into @/path too; their count is not in `mentions`.
std::optional<MentionSplit> split_mentions(std::string_view text, const std::vector<Mention>& file_blocks = {});
// A reply the user typed inside a tool result (<feedback> from v3.3.26, <answer> and <user_message> from v3.25.0,
// only <user_message> from v3.42.0: processUserContentMentions.ts) with blocks after it: inline blocks only right after such a close, since any other result (a
// file's text, a command's output) may hold tags of its own. With `file_blocks` (found by the caller after a
// <user_message> part) there is a split even without an inline block.
std::optional<MentionSplit> split_reply_mentions(std::string_view text, const std::vector<Mention>& file_blocks = {});
// The words the user typed of a text Roo rewrote: its sentences and each file block's `'path'` back to @mentions.
std::string typed_words(std::string_view recorded, const std::vector<Mention>& file_blocks);
// The user's words as Roo v3.48.0+ sends them to the model: each URL mention `@https://…` quoted `'https://…'`, its
// page not fetched (parseMentions, src/core/mentions/index.ts v3.48.0 … v3.52.1; the mention as mentionRegex of
// src/shared/context-mentions.ts v3.52.1 finds it). No block follows, so the api copy alone cannot tell a quoted URL
// from one the user quoted; the ui record of the words (say:"text", say:"user_feedback") can. Nothing when `typed`
// holds no URL mention.
std::optional<std::string> url_mentions_as_sent(std::string_view typed);

// v3.46.0+ form (parseMentions' contentBlocks, src/core/mentions/index.ts v3.46.0 … v3.52.1; processUserContentMentions
// puts each right after the user's text as a text block of its own): "[read_file for 'P']\n…" for a file (its body,
// or an "Error: …" / "Note: …" line), "[read_file for folder 'P']\nFolder listing:\n…" for a folder. The mention's
// content is the whole block as recorded.
std::optional<Mention> read_file_mention(std::string_view block);

// ---- XML-era tool calls (docs/roo-format.md §4; only the first call of a message counts: docs/row-contract.md) ----
struct XmlToolCall {
  std::string name;         // a known tool name, e.g. "execute_command"
  std::string input_json;   // the parameters as a compact JSON object of strings, e.g. {"command":"ls","cwd":"/x"};
                            // read_file's <args><file><path>…</path><line_range>a-b</line_range></file>… becomes
                            // {"files":[{"path":"…","line_ranges":["a-b"]}]}; a single <path> becomes {"path":"…"}
  size_t begin = 0, end = 0;  // byte span of the call in the text (end = one past the closing tag)
  bool closed = true;         // false when the closing tag never came (a cut message): params read so far
};
// The first XML tool call in an assistant text. Tags inside <thinking>…</thinking> are not calls.
std::optional<XmlToolCall> first_xml_tool_call(std::string_view assistant_text);

// <thinking>…</thinking> blocks of an XML-era assistant text, in order.
std::vector<std::string> thinking_blocks(std::string_view assistant_text);

// XML-era decision texts inside a result: the roo_texts() entries with a `decision` (toolDenied,
// toolDeniedWithFeedback, toolApprovedWithFeedback, toolError of src/core/prompts/responses.ts, v2.1.2 … v3.41.3).
struct XmlDecision {
  std::string status;                    // denied | approved | error
  std::optional<std::string> feedback;   // the <feedback> body
  std::optional<std::string> error;      // the <error> body
};
std::optional<XmlDecision> parse_xml_decision(std::string_view result_text);
// The same, for a result whose Roo text was already found (find_roo_result(result_text).text).
std::optional<XmlDecision> parse_xml_decision(std::string_view result_text, const RooText* found);

}  // namespace roo::transcript
