// core/record_carver: bytes in, carved records and rows out (docs/row-contract.md "Carved records"). Every input is
// literal bytes; every expected offset is found in those bytes by a plain search, never taken from the carver.
#include "core/record_carver.h"

#include <gtest/gtest.h>

#include "core/json_records.h"
#include "core/sha256.h"
#include "test_util.h"

namespace roo {
namespace {

using test::CapturedRows;

const std::string kUi1 = R"({"ts":1777991411082,"type":"say","say":"text","text":"Fix the build","images":[]})";
const std::string kUi2 = R"({"ts":1777991411473,"type":"say","say":"api_req_started","text":"{\"apiProtocol\":\"anthropic\"}"})";
const std::string kUi3 = R"({"ts":1777991415693,"type":"say","say":"text","text":"It was a typo.","partial":false})";
const std::string kApi1 =
    R"({"role":"user","content":[{"type":"text","text":"<user_message>\nFix the build\n</user_message>"}],"ts":1777991411501})";
const std::string kHistory =
    R"({"id":"019df88b-e58a-7b13-8d2c-6e0f4a9b1c72","number":1,"ts":1777991416686,"task":"Fix the build","workspace":"/home/hana/proj","mode":"ask"})";
const std::string kHistory2 =
    R"({"id":"019df20b-59d9-7c4e-9a1b-3f6d2e8c0a51","number":2,"ts":1777882344377,"task":"Run the tests","mode":"code"})";

struct Found {
  uint64_t offset;
  std::string text;
  CarvedKind kind;
};

// Carves one run fed in pieces of `piece` bytes (0: all at once).
std::vector<Found> carve(const std::string& bytes, size_t piece = 0, uint64_t base = 4096, size_t max = kMaxCarvedValue) {
  std::vector<Found> out;
  Carver c([&](CarvedValue&& v) { out.push_back({v.offset, v.text, v.kind}); }, false, max);
  c.begin_run(base);
  if (piece == 0) piece = bytes.size();
  for (size_t at = 0; at < bytes.size(); at += piece) c.feed(bytes.data() + at, std::min(piece, bytes.size() - at));
  c.end_run();
  return out;
}

std::string filler(size_t n, char seed) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += static_cast<char>((i * 131 + static_cast<size_t>(seed)) % 251);  // binary junk
  return s;
}

TEST(Carver, FindsRecordsInJunkAtTheirImageOffsets) {
  const std::string bytes = filler(777, 1) + "[" + kUi1 + "," + kUi2 + "]" + filler(300, 2) + kHistory + filler(50, 3);
  auto found = carve(bytes);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].offset, 4096 + bytes.find(kUi1));
  EXPECT_EQ(found[0].text, kUi1);
  EXPECT_EQ(found[0].kind, CarvedKind::ui_message);
  EXPECT_EQ(found[1].offset, 4096 + bytes.find(kUi2));
  EXPECT_EQ(found[1].kind, CarvedKind::ui_message);
  EXPECT_EQ(found[2].offset, 4096 + bytes.find(kHistory));
  EXPECT_EQ(found[2].kind, CarvedKind::history_item);
}

// A record may straddle two reads of the same run: every cut gives the
// same records as one read.
TEST(Carver, StraddlingReadsGiveTheSameRecords) {
  const std::string bytes = filler(100, 4) + "[" + kUi1 + "," + kUi2 + "," + kUi3 + "]" + filler(40, 5) + "[" + kApi1 +
                            "]" + kHistory;
  const auto whole = carve(bytes);
  ASSERT_EQ(whole.size(), 5u);
  for (size_t piece = 1; piece <= bytes.size(); ++piece) {
    const auto cut = carve(bytes, piece);
    ASSERT_EQ(cut.size(), whole.size()) << "piece " << piece;
    for (size_t i = 0; i < cut.size(); ++i) {
      EXPECT_EQ(cut[i].offset, whole[i].offset) << "piece " << piece;
      EXPECT_EQ(cut[i].text, whole[i].text) << "piece " << piece;
    }
  }
}

// A cut array (a freed file's later blocks reused): the whole records before the cut are kept, the cut one is not.
TEST(Carver, CutArrayKeepsItsWholeRecords) {
  const std::string bytes = "[" + kUi1 + "," + kUi2 + "," + kUi3.substr(0, 30) + filler(500, 6);
  auto found = carve(bytes);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].text, kUi1);
  EXPECT_EQ(found[1].text, kUi2);
}

// An _index.json is one value (its entries are not found again); a cut one gives its whole entries as HistoryItems.
TEST(Carver, IndexWholeOrCut) {
  const std::string index = R"({"version":1,"updatedAt":1778260869012,"entries":[)" + kHistory + "," + kHistory2 + "]}";
  auto whole = carve(filler(64, 7) + index);
  ASSERT_EQ(whole.size(), 1u);
  EXPECT_EQ(whole[0].kind, CarvedKind::task_index);
  EXPECT_EQ(whole[0].text, index);
  auto cut = carve(index.substr(0, index.size() - 20) + std::string(100, '\0'));
  ASSERT_EQ(cut.size(), 1u);
  EXPECT_EQ(cut[0].kind, CarvedKind::history_item);
  EXPECT_EQ(cut[0].text, kHistory);
}

TEST(Carver, CliHistoryAndRetryRequest) {
  const std::string cli = "{\n\t\"version\": 1,\n\t\"entries\": [\n\t\t\"first prompt\",\n\t\t\"second\"\n\t]\n}";
  const std::string retry =
      R"({"id":"1778000000000-abcdefghi","url":"https://app.roocode.com/api/events","options":{"method":"POST"},"timestamp":1778000000000,"retryCount":2,"type":"telemetry"})";
  auto found = carve(filler(10, 8) + cli + filler(10, 9) + retry);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].kind, CarvedKind::cli_history);
  EXPECT_EQ(found[1].kind, CarvedKind::retry_request);
}

// NUL runs and garbage inside a value end it (JSON text never holds them); the next record is still found.
TEST(Carver, NulAndGarbageEndAValue) {
  std::string broken = kUi1;
  broken[40] = '\0';
  std::string zeros(8192, '\0');
  const std::string bytes = zeros + broken + zeros + "{\"ts\":\x01\x02\xff" + zeros + kUi3 + zeros;
  auto found = carve(bytes, 1000);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].text, kUi3);
  EXPECT_EQ(found[0].offset, 4096 + bytes.find(kUi3));
  EXPECT_TRUE(carve(std::string(1 << 20, '\0')).empty());
  EXPECT_TRUE(carve(filler(1 << 20, 10)).empty());
}

TEST(Carver, ValidJsonThatIsNoRooRecordGivesNothing) {
  EXPECT_TRUE(carve(R"({"ts":"not a number","type":"say"} {"id":"x","foo":1} {"role":"system","content":""})").empty());
}

// A huge string (a pasted image) is carved whole; a value over the cap is given up on, and records after it are
// still found.
TEST(Carver, HugeStringsAndTheSizeCap) {
  const std::string big = R"({"ts":1,"type":"say","say":"text","text":")" + std::string(3 << 20, 'A') + "\"}";
  auto found = carve(filler(10, 11) + big + kUi3, 1 << 16);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].text.size(), big.size());
  auto capped = carve(big + kUi3, 1 << 16, 0, 1 << 20);
  ASSERT_EQ(capped.size(), 1u);
  EXPECT_EQ(capped[0].text, kUi3);
}

// A run split into work units (scan_end) and the emitter's "inside a value already taken" rule give the records of
// one scan of the whole run.
TEST(Carver, WorkUnitsGiveTheRecordsOfOneScan) {
  const std::string index = R"({"version":1,"updatedAt":5,"entries":[)" + kHistory + "," + kHistory2 + "]}";
  const std::string bytes = filler(30, 12) + index + "[" + kUi1 + "," + kUi2 + "]" + filler(30, 13) + kApi1;
  const auto whole = carve(bytes, 0, 0);
  ASSERT_EQ(whole.size(), 4u);
  for (size_t cut = 1; cut < bytes.size(); ++cut) {
    std::vector<Found> got;
    uint64_t taken_end = 0;
    auto take = [&](CarvedValue&& v) {
      if (v.offset < taken_end) return;
      taken_end = v.end();
      got.push_back({v.offset, v.text, v.kind});
    };
    for (auto [from, to] : {std::pair<size_t, size_t>{0, cut}, {cut, bytes.size()}}) {
      Carver c(take);
      c.begin_run(from, std::string_view(bytes).substr(from >= 32 ? from - 32 : 0, std::min<size_t>(from, 32)));
      c.set_scan_end(to);
      size_t at = from;
      c.feed(bytes.data() + at, to - at);
      at = to;
      while (c.wants_more() && at < bytes.size()) {
        const size_t n = std::min<size_t>(7, bytes.size() - at);
        c.feed(bytes.data() + at, n);
        at += n;
      }
      c.end_run();
    }
    ASSERT_EQ(got.size(), whole.size()) << "cut at " << cut;
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].offset, whole[i].offset) << "cut at " << cut;
  }
}

// The carver's JSON check agrees with parse_json, which every row's record goes through. The check is seen through
// classify_carved: a UI message record holding the text as a member's value is one only when the text is JSON text.
// (One level of nesting more than the text alone: the depth limit is met one bracket sooner in both.)
TEST(Carver, JsonCheckAgreesWithTheParser) {
  const std::vector<std::string> texts = {
      "{}", "[]", R"({"a":[1,-2.5e+3,true,false,null,"x\u00e9\n"]})", R"({"a":1,})", R"({"a" 1})", "[1,]", "01",
      "-", "1.", "1e", R"("\x")", R"("\u12")", "{\"a\":1}", R"({"a":1} x)", R"( {"a":"\ud800"} )", "tru", "nul",
      std::string("{\"a\":\"b\0\"}", 9), std::string(300, '[') + std::string(300, ']'),
      std::string(255, '[') + std::string(255, ']'), std::string(256, '[') + std::string(256, ']'),
      std::string(257, '[') + std::string(257, ']'), kUi1, kApi1,
      // Numbers no double holds: parse_json refuses them, so a carved record holding one gives no document.
      "1e999", "[-1E400]", "1e-999", R"({"role":"user","content":[],"ts":177E3151600416})", "1" + std::string(400, '0'),
      "1" + std::string(400, '0') + ".5", "1e308", "-0.0e-5"};
  for (const std::string& t : texts) {
    const std::string record = R"({"ts":1,"type":"say","v":)" + t + "}";
    rapidjson::Document doc;
    std::string why;
    EXPECT_EQ(classify_carved(record) == CarvedKind::ui_message, parse_json(record.data(), record.size(), doc, &why))
        << t.substr(0, 80);
  }
}

// ---- rows ---------------------------------------------------------------------------------------------------

struct EmitHarness {
  KnownRecords known;
  std::vector<CarveRegion> regions;
  CapturedRows rows;
  CarveStats stats;
  EmitHarness() {
    CarveRegion r;
    r.volume = VolumeInfo{"carve.E01", {}, 1048576, "ext4", 0, {}, {}};
    r.file.path = "$Unallocated";
    r.file.name = "$Unallocated";
    r.file.name_allocated = r.file.meta_allocated = false;
    r.file.recovery = Recovery::carved;
    r.fs_offset = 1048576;
    r.block_size = 1024;
    regions.push_back(r);
  }
  void run(const std::string& bytes, uint64_t base) {
    CarvedRecordEmitter e(known, regions, rows, stats, false);
    Carver c([&](CarvedValue&& v) { e.add(std::move(v)); });
    c.begin_run(base);
    c.feed(bytes.data(), bytes.size());
    c.end_run();
    e.finish();
  }
};

// A carved record is attributed to a task by its neighbouring records, and one identical to a record read is folded.
TEST(CarvedRecordEmitter, FoldsKnownRecordsAndAttributesTheirNeighbours) {
  EmitHarness h;
  TaskIdentity t{"vscode", "hana", "019df88b-e58a-7b13-8d2c-6e0f4a9b1c72", {}, {}, "/home/hana/proj"};
  h.known.add_file("[" + kUi1 + "," + kUi2 + "]", &t);
  // An older version: the same first two records, then one with partial:true that the live file no longer has.
  const std::string old3 = R"({"ts":1777991415693,"type":"say","say":"text","text":"It was","partial":true})";
  const std::string bytes = filler(2000, 14) + "[" + kUi1 + "," + kUi2 + "," + old3 + "]" + filler(100, 15);
  const uint64_t base = 1048576 + 5 * 1024;
  h.run(bytes, base);
  ASSERT_EQ(h.rows.rows.size(), 1u);
  EXPECT_EQ(h.rows.str(0, "kind"), "assistant_message");  // not the prompt: the array's first record was kUi1
  EXPECT_EQ(h.rows.str(0, "text"), "It was");
  EXPECT_EQ(h.rows.str(0, "session_id"), "019df88b-e58a-7b13-8d2c-6e0f4a9b1c72");
  EXPECT_EQ(h.rows.str(0, "surface"), "vscode");
  EXPECT_EQ(h.rows.str(0, "attribution"), "neighbour_record");
  EXPECT_EQ(h.rows.str(0, "carved_kind"), "ui_message");
  const auto& src = h.rows.src(0);
  EXPECT_STREQ(src["recovery"].GetString(), "carved");
  EXPECT_STREQ(src["path"].GetString(), "$Unallocated");
  const uint64_t at = base + bytes.find(old3);
  EXPECT_EQ(src["byte_offset"].GetUint64(), at);
  EXPECT_EQ(src["byte_length"].GetUint64(), old3.size());
  EXPECT_TRUE(src["record_index"].IsNull());
  ASSERT_TRUE(src["blocks"].IsArray());
  EXPECT_EQ(src["blocks"][0][0].GetUint64(), (at - 1048576) / 1024);
  EXPECT_EQ(src["blocks"][0][1].GetUint64(), (at + old3.size() - 1 - 1048576) / 1024);
  EXPECT_EQ(h.stats.found[0], 3);
  EXPECT_EQ(h.stats.folded[0], 2);
  EXPECT_EQ(h.stats.kept[0], 1);
  EXPECT_EQ(h.stats.unattributed, 0);
}

// A long array is read in parts (memory stays bounded); its later parts keep the task its first part was given.
TEST(CarvedRecordEmitter, LongArraysKeepTheirTaskAcrossParts) {
  EmitHarness h;
  TaskIdentity t{"vscode", "hana", "019df88b-e58a-7b13-8d2c-6e0f4a9b1c72", {}, {}, "/home/hana/proj"};
  h.known.add_file("[" + kUi1 + "]", &t);
  std::string bytes = "[" + kUi1;
  const int n = static_cast<int>(kMaxGroupBytes / (1 << 20)) + 3;
  for (int i = 0; i < n; ++i)
    bytes += R"(,{"ts":)" + std::to_string(1777991412000 + i) + R"(,"type":"say","say":"text","text":")" +
             std::string(1 << 20, static_cast<char>('a' + i)) + "\"}";
  bytes += "]";
  h.run(bytes, 1048576);
  ASSERT_EQ(h.rows.rows.size(), static_cast<size_t>(n));
  for (size_t i = 0; i < h.rows.rows.size(); ++i) {
    EXPECT_EQ(h.rows.str(i, "kind"), "assistant_message") << i;  // never taken for a prompt, in any part
    EXPECT_EQ(h.rows.str(i, "session_id"), "019df88b-e58a-7b13-8d2c-6e0f4a9b1c72") << i;
    EXPECT_EQ(h.rows.str(i, "attribution"), "neighbour_record") << i;
  }
}

// No neighbour is known: the rows say so and carry no task (never a guess).
TEST(CarvedRecordEmitter, UnattributedRecordsSaySo) {
  EmitHarness h;
  const std::string bytes = "[" + kUi1 + "," + kUi3 + "]";
  h.run(bytes, 1048576);
  ASSERT_EQ(h.rows.rows.size(), 2u);
  EXPECT_EQ(h.rows.str(0, "kind"), "user_message");  // the array opens here: its first say:"text" is the prompt
  EXPECT_EQ(h.rows.str(1, "kind"), "assistant_message");
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(h.rows.rows[i]["session_id"].IsNull());
    EXPECT_TRUE(h.rows.rows[i]["surface"].IsNull());
    EXPECT_EQ(h.rows.str(i, "attribution"), "none");
  }
  EXPECT_EQ(h.rows.src(1)["byte_offset"].GetUint64(), 1048576 + bytes.find(kUi3));
  EXPECT_NE(h.rows.str(0, "row_id"), h.rows.str(1, "row_id"));
  EXPECT_EQ(h.stats.unattributed, 2);
}

// A HistoryItem carries its task id; one identical to the live history_item.json is folded.
TEST(CarvedRecordEmitter, HistoryItemsByTheirId) {
  EmitHarness h;
  h.known.add_file(kHistory, nullptr);
  h.run(filler(100, 16) + kHistory + filler(100, 17) + kHistory2, 1048576);
  ASSERT_GE(h.rows.rows.size(), 1u);
  EXPECT_EQ(h.rows.str(0, "kind"), "task");
  EXPECT_EQ(h.rows.str(0, "session_id"), "019df20b-59d9-7c4e-9a1b-3f6d2e8c0a51");
  EXPECT_EQ(h.rows.str(0, "attribution"), "task_id");
  EXPECT_EQ(h.stats.folded[static_cast<int>(CarvedKind::history_item)], 1);
  EXPECT_EQ(h.stats.kept[static_cast<int>(CarvedKind::history_item)], 1);
}

// A HistoryItem-shaped value whose "id" is repeated: its id is the last one, as JSON.parse reads it. When that one
// is no string the document gives no id, so no row (and no crash), and the record after it is still read.
TEST(CarvedRecordEmitter, HistoryItemWithARepeatedIdHasTheLastOne) {
  EmitHarness h;
  h.run(filler(100, 16) + R"({"id":1,"id":"x","ts":1,"task":"t"})" + filler(100, 17) + kHistory2, 1048576);
  ASSERT_GE(h.rows.rows.size(), 2u);
  EXPECT_EQ(h.rows.str(0, "kind"), "task");
  EXPECT_EQ(h.rows.str(0, "session_id"), "x");
  EXPECT_EQ(h.rows.str(h.rows.rows.size() - 1, "session_id"), "019df20b-59d9-7c4e-9a1b-3f6d2e8c0a51");
  EXPECT_EQ(h.stats.found[static_cast<int>(CarvedKind::history_item)], 2);
  EXPECT_EQ(h.stats.kept[static_cast<int>(CarvedKind::history_item)], 2);
}

TEST(CarvedRecordEmitter, HistoryItemWhoseLastIdIsNoStringGivesNoRow) {
  for (const char* item : {R"({"id":1,"id":2,"ts":1,"task":"t"})", R"({"id":"x","id":1,"ts":1,"task":"t"})"}) {
    EmitHarness h;
    h.run(filler(100, 16) + item + filler(100, 17) + kHistory2, 1048576);
    ASSERT_GE(h.rows.rows.size(), 1u) << item;
    EXPECT_EQ(h.rows.str(0, "kind"), "task");
    for (size_t i = 0; i < h.rows.rows.size(); ++i)
      EXPECT_EQ(h.rows.str(i, "session_id"), "019df20b-59d9-7c4e-9a1b-3f6d2e8c0a51") << item;  // kHistory2's only
    EXPECT_EQ(h.stats.kept[static_cast<int>(CarvedKind::history_item)], 1) << item;
  }
}

// The other kinds go through their own parsers: an index's entries the scan did not read give task rows, a
// cli-history its entries, a retry-queue request its upload row; none of them is a guess at a task.
TEST(CarvedRecordEmitter, IndexCliHistoryAndRetryRequest) {
  EmitHarness h;
  h.known.add_file(kHistory, nullptr);  // the index's first entry is the live history_item.json: folded
  const std::string index = R"({"version":1,"updatedAt":1778260869012,"entries":[)" + kHistory + "," + kHistory2 + "]}";
  const std::string cli = "{\n\t\"version\": 1,\n\t\"entries\": [\n\t\t\"list the TODO comments\"\n\t]\n}";
  const std::string retry =
      R"({"id":"1778000000000-abcdefghi","url":"https://app.roocode.com/api/events","options":{"method":"POST"},"timestamp":1778000000000,"retryCount":2,"type":"telemetry"})";
  h.run(index + filler(40, 18) + cli + filler(40, 19) + retry, 1048576);
  std::vector<std::string> kinds;
  for (size_t i = 0; i < h.rows.rows.size(); ++i) kinds.push_back(h.rows.str(i, "kind"));
  ASSERT_GE(kinds.size(), 3u);
  EXPECT_EQ(kinds[0], "task");
  EXPECT_EQ(h.rows.str(0, "session_id"), "019df20b-59d9-7c4e-9a1b-3f6d2e8c0a51");
  EXPECT_EQ(h.rows.src(0)["record_index"].GetInt64(), 1);  // its place in entries[]
  EXPECT_EQ(h.rows.src(0)["byte_offset"].GetUint64(), 1048576u);  // the index's own offset
  size_t cli_row = 0;
  for (size_t i = 0; i < kinds.size(); ++i)
    if (kinds[i] == "cli_history") cli_row = i;
  ASSERT_NE(cli_row, 0u);
  EXPECT_EQ(h.rows.str(cli_row, "text"), "list the TODO comments");
  EXPECT_EQ(h.rows.str(cli_row, "attribution"), "none");
  EXPECT_EQ(h.rows.str(kinds.size() - 1, "carved_kind"), "retry_request");
  EXPECT_EQ(h.stats.kept[static_cast<int>(CarvedKind::task_index)], 1);
  EXPECT_EQ(h.stats.kept[static_cast<int>(CarvedKind::cli_history)], 1);
  EXPECT_EQ(h.stats.kept[static_cast<int>(CarvedKind::retry_request)], 1);
}

// Calls join their results across the records of one carved array, as in the live parser.
TEST(CarvedRecordEmitter, ApiRecordsOfOneArrayAreReadTogether) {
  EmitHarness h;
  const std::string call =
      R"({"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"execute_command","input":{"command":"make"}}],"ts":2})";
  const std::string result =
      R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"Exit code: 0"}],"ts":3})";
  h.run("[" + kApi1 + "," + call + "," + result + "]", 1048576);
  bool command = false;
  for (size_t i = 0; i < h.rows.rows.size(); ++i)
    if (h.rows.str(i, "kind") == "command") {
      command = true;
      EXPECT_TRUE(h.rows.rows[i]["result_recorded"].GetBool());
    }
  EXPECT_TRUE(command);
}

// also_in for carved folds: a known file's values get the record_index its rows carry: an array's
// top-level records by position while they follow one another, a lone object (history_item.json) the whole file,
// nested values and records after a break in the array none.
TEST(RecordPlaces, RecordIndexOfEachValueOfAKnownFile) {
  auto places = [](const std::string& bytes) {
    std::vector<int64_t> out;
    RecordPlaces p;
    Carver c([&](CarvedValue&& v) { out.push_back(p.next(v)); }, true);
    c.begin_run(0);
    c.feed(bytes.data(), bytes.size());
    c.end_run();
    return out;
  };
  constexpr int64_t kWhole = KnownRecords::kWholeFile, kNone = KnownRecords::kNoPlace;
  const std::string ui0 = R"({"ts":1,"type":"say","say":"text","text":"a"})";
  const std::string ui1 = R"({"ts":2,"type":"say","say":"text","text":"b"})";
  EXPECT_EQ(places("[" + ui0 + "," + ui1 + "]"), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(places(" [\n" + ui0 + " ,\n " + ui1 + "]"), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(places(R"({"id":"t","ts":1,"task":"x"})"), (std::vector<int64_t>{kWhole}));
  // A value nested in a record (here an object opening like a ui record inside a HistoryItem) has no place.
  EXPECT_EQ(places(R"({"id":"t","ts":1,"task":"x","inner":)" + ui0 + "}"), (std::vector<int64_t>{kWhole, kNone}));
  // Something that is not ',' between two records: the count is lost from there on.
  EXPECT_EQ(places("[" + ui0 + ",7," + ui1 + "," + ui0 + "]"), (std::vector<int64_t>{0, kNone, kNone}));
}

}  // namespace
}  // namespace roo
