// What every parser is given, and the shared shapes of the rows they all make.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_records.h"
#include "core/row.h"

namespace roo {

// Where else a record's exact bytes are held: another version of the same task file (a deleted copy, a temp file),
// or the same file in a snapshot with unchanged extents (FileMeta::same_in_snapshots).
struct RecordCopy {
  std::string path;
  std::optional<uint64_t> inode;
  std::string recovery;  // recovery_name() of the copy's source
  std::optional<int64_t> record_index;  // none for a row of a whole file's copy that is not about one record
  std::optional<SnapshotRef> snapshot;  // the snapshot the copy is in
};
// Folding a task file's versions into it (records identical to the live file's are one row, both sources
// listed; records that differ keep their own rows). Keys are the sha256 of a record's bytes.
struct RecordFolds {
  std::set<std::string> live;                                  // every record of the task's own file
  std::map<std::string, std::vector<RecordCopy>> in_versions;  // records of versions that the own file also has
};

// The ui records that time api records which carry no ts of their own (roo-cline up to v2.2.35 wrote none,
// Cline.ts addToApiConversationHistory; docs/row-contract.md "Times of untimed api records"). A ui record shows the
// same turn as an api record: the one whose conversationHistoryIndex is that record's index (Cline wrote it,
// Cline.ts addToClineMessages), else, by order, the n-th api_req_started for the n-th user message (said just before
// that message was written, Cline.ts recursivelyMakeClineRequests) and the first record after it for the reply.
struct UiTurnTimes {
  struct Mark {
    int64_t ts = 0;
    int64_t ui_index = 0;
    // For user_words keyed by the words as Roo sent them (transcript::url_mentions_as_sent): the words as typed.
    std::string typed;
  };
  std::vector<Mark> request_starts;                 // each api_req_started, in order
  std::vector<std::optional<Mark>> replies;         // the first other timed record after each of them
  std::map<int64_t, Mark> by_history_index;         // the first record of each conversationHistoryIndex
  // The ui records of the user's own words, which time the api rows of the same words (docs/row-contract.md "Which
  // record times a row"): the first say:"text" (the prompt, Cline.ts startTask at v3.3.26, Task.ts startTask at
  // v3.52.1) and every say:"user_feedback", keyed by the sha256 of the trimmed text, in file order; a text with URL
  // mentions also by the sha256 of the text as Roo sent it, whose api copy then takes the typed words back.
  std::map<std::string, std::vector<Mark>> user_words;
};

struct ParseContext {
  const TaskIdentity* identity = nullptr;
  const SourceRef* source = nullptr;
  std::string file_name;  // for parser_error texts ("ui_messages.json")
  bool native = false;    // copy the verbatim record into rows (--native)
  RowSink* sink = nullptr;
  // The task directories of the root being read: says whether a linked task's directory is there.
  const std::set<std::string>* task_dirs = nullptr;
  // Of those, the ones there only as a deleted name: a link to one says its directory was found deleted.
  const std::set<std::string>* deleted_task_dirs = nullptr;
  // Set when the task file has versions: reading the task's own file, each row of a record a version also holds
  // gets `also_in` (folds_are_live); reading a version, a record the own file has is skipped and counted as folded.
  const RecordFolds* folds = nullptr;
  bool folds_are_live = false;
  // Reading a version: the indices of its records the own file has. They still go through the parser, so what
  // later records depend on (the first prompt, a call before its result, the model) stays right, but a sink that
  // drops their rows (FoldedRecordRows) is put in front.
  std::set<int64_t>* folded_records = nullptr;
  // Reading an api history whose records have no ts: the ui records that time them (UiTurnTimes).
  const UiTurnTimes* ui_turns = nullptr;
  // Reading an api history beside a ui_messages.json: its records of the user's words (UiTurnTimes::user_words).
  const UiTurnTimes* ui_words = nullptr;

  // A row of this source at this record position, with the task's identity.
  Row row(const char* kind, const JsonRecord* rec = nullptr, std::optional<int64_t> sub_index = std::nullopt) const;
  // Times a row by one of its source file's own times (file.mtime, file.crtime); nothing when the file has none.
  static void stamp_file_time(Row& r, const std::optional<FsTime>& t, const char* source_name);
  // A parser_error row worded as docs/row-contract.md "Bad-line rows".
  void error(std::string text, const JsonRecord* rec = nullptr) const;
};

// Record counts a parser reports back for the run report.
struct ParseStats {
  int64_t records = 0;       // array elements seen
  int64_t good_records = 0;  // elements that parsed as the expected shape
  int64_t errors = 0;        // parser_error rows
  int64_t folded = 0;        // records that are the same fact as a row from another file (not re-emitted)
  int64_t version_folded = 0;  // records of a version identical to the task's own file's (RecordFolds)
  std::optional<int64_t> first_ts;  // the `ts` of the first record whose ts is a time (task id time cross-check)
};

// A path a tool call recorded, resolved against the task's workspace (docs/row-contract.md "Workspace paths"): a
// relative path joined to the workspace with the workspace's own separator; nothing when the path is absolute or the
// task records no workspace (the recorded path is then all there is).
std::optional<std::string> resolve_task_path(std::string_view recorded, const std::optional<std::string>& workspace);

// Drives a top-level JSON array record by record and turns every framing problem into its parser_error row:
// empty file, not an array, unparseable record N, array cut off after record N. on_object gets each record that
// parsed as a JSON object; other record values are reported as unparseable.
// before_end, when given, runs after the last record and before any end-of-array error row, so rows a parser
// still holds (calls waiting for a result) come before the report of a cut.
ParseStats for_each_object_record(HashingStream& in, const ParseContext& ctx,
                                  const std::function<void(const JsonRecord&)>& on_object,
                                  const std::function<void()>& before_end = {});

// The same for an array inside a whole document (_index.json entries, task_metadata.json files_in_context): each
// element that is an object goes to on_object with its index; any other gets its unparseable-record row.
ParseStats for_each_object_element(const rapidjson::Value& array, const ParseContext& ctx,
                                   const std::function<void(const rapidjson::Value&, int64_t index)>& on_object);

// Reads a whole JSON document that must be an object; on failure emits `parser: <name> is not a JSON object` (or the
// read/parse reason) and returns false.
// *text receives the document's bytes (for --native) when given.
bool read_object_document(HashingStream& in, const ParseContext& ctx, rapidjson::Document& doc,
                          std::string* text = nullptr);
// The same, counting the failure in stats.errors (the usual first step of a whole-document parser).
inline bool read_object_document(HashingStream& in, const ParseContext& ctx, rapidjson::Document& doc,
                                 ParseStats& stats) {
  if (read_object_document(in, ctx, doc)) return true;
  ++stats.errors;
  return false;
}

// The parser_error row for bytes between an array's records (after its end, or junk where a record should start):
// rec's offset and length, no array position. Returns what stats.errors should count: 1.
int emit_between_records(const ParseContext& ctx, const JsonRecord& rec, JsonArrayReader::Status status);

// At most this many bytes of a bad record are echoed into its parser_error row.
inline constexpr size_t kRawEchoLimit = 200;
// A bad record as its parser_error row echoes it: the first kRawEchoLimit bytes, "…" when cut.
std::string raw_echo(const std::string& text);
// The same in its two pieces, for a text built in one piece (concat).
inline std::string_view raw_echo_head(std::string_view text) { return text.substr(0, kRawEchoLimit); }
inline std::string_view raw_echo_tail(std::string_view text) { return text.size() > kRawEchoLimit ? "…" : ""; }

}  // namespace roo
