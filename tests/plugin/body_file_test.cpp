#include "plugin/formats/body_file.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace roo {
namespace {

// What BodyFileWriter, the writer the workers use, writes for one row: its line, or none when it writes nothing.
std::optional<std::string> body_line_for_row(const Row& row) {
  char* data = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&data, &size);
  if (!out) return std::nullopt;
  BodyFileWriter writer(out);
  writer.emit(row);
  writer.end_source("");
  const bool ok = writer.ok();
  std::fclose(out);
  std::string line(data, size);
  std::free(data);
  EXPECT_TRUE(ok);
  if (line.empty()) return std::nullopt;
  return line;
}

struct Fixture {
  VolumeInfo vol{"demo.E01", {}, 0, "ext4", 0, {}, {}};
  SourceRef src{&vol, {}};
  TaskIdentity id{"vscode", "alice", "t1", {}, {}, {}};
  Row row(const char* kind, std::optional<int64_t> ms, std::string text) {
    src.file.path = "/h/ui_messages.json";
    src.file.inode = 42;
    Row r;
    r.kind = kind;
    r.time_ms = ms;
    r.text = std::move(text);
    r.identity = &id;
    r.source = &src;
    return r;
  }
};

// Two rows of one kind in the same second differ by their record position, so mactime keeps both lines.
TEST(BodyFile, RecordPositionKeepsLinesOfTheSameSecondApart) {
  Fixture f;
  Row a = f.row("permission_decision", 1760000000100, "permission decision: approved isAnswered=true");
  Row b = f.row("permission_decision", 1760000000900, "permission decision: approved isAnswered=true");
  a.position.record_index = 5;
  b.position.record_index = 6;
  b.position.sub_index = 1;
  EXPECT_NE(*body_line_for_row(a), *body_line_for_row(b));
  EXPECT_NE(body_line_for_row(b)->find("(/p0/h/ui_messages.json #6.1)"), std::string::npos);
}

// TSK 3.x body format: 11 fields MD5|name|inode|mode|UID|GID|size|atime|mtime|ctime|crtime, times in epoch seconds.
TEST(BodyFile, TimedRowBecomesOneLineWithTheTimeInEveryColumn) {
  Fixture f;
  auto line = body_line_for_row(f.row("tool_call", 1760000000999, "a|b%c"));
  ASSERT_TRUE(line);
  // 1760000000 = 2025-10-09T08:53:20Z (date -u -d @1760000000); milliseconds are dropped, as fls drops nanoseconds.
  EXPECT_EQ(*line,
            "0|roo-code tool_call [t1]: a%7Cb%25c (/p0/h/ui_messages.json)|42|-/----------|0|0|0|1760000000|1760000000|"
            "1760000000|1760000000\n");
}

TEST(BodyFile, RowWithoutTimeHasNoLineBecauseTimesAreNeverInvented) {
  Fixture f;
  EXPECT_FALSE(body_line_for_row(f.row("parser_error", std::nullopt, "x")));
}

// docs/row-contract.md, "A time outside JavaScript's Date range is no time": 8.64e15 ms (275760-09-13) is the last
// JavaScript Date, 8640000000000 s; a number beyond ±8.64e15 is none, so it gets no line, as rows.jsonl gives it no
// time_utc. -8.64e15 is a time, but before the epoch: mactime gets no line for it either.
TEST(BodyFile, TimeOutsideJavaScriptDatesHasNoLine) {
  Fixture f;
  auto last = body_line_for_row(f.row("user_message", 8640000000000000, "x"));
  ASSERT_TRUE(last);
  EXPECT_NE(last->find("|8640000000000|8640000000000|8640000000000|8640000000000\n"), std::string::npos) << *last;
  for (int64_t ms : {int64_t{8640000000000001}, int64_t{9300000000000000}, int64_t{100000000000000000},
                     int64_t{-8640000000000000}, int64_t{-9300000000000000}, INT64_MAX, INT64_MIN})
    EXPECT_FALSE(body_line_for_row(f.row("user_message", ms, "x"))) << ms;
}

TEST(BodyFile, ControlCharactersCannotBreakTheLine) {
  Fixture f;
  auto line = body_line_for_row(f.row("user_message", 1760000000000, "two\nlines\ttab"));
  ASSERT_TRUE(line);
  EXPECT_EQ(line->find('\n'), line->size() - 1);
  EXPECT_NE(line->find("two lines tab"), std::string::npos);
}

// The summary is cut to 160 bytes at a character boundary: 'a' then 80 two-byte "é" is 161 bytes, and byte 160 is
// the second byte of the 80th, so 79 of them are kept, then "…".
TEST(BodyFile, LongTextIsCutAtACharacterBoundary) {
  Fixture f;
  std::string text = "a";
  for (int i = 0; i < 80; ++i) text += "\xC3\xA9";
  std::string kept = "a";
  for (int i = 0; i < 79; ++i) kept += "\xC3\xA9";
  EXPECT_EQ(*body_line_for_row(f.row("user_message", 1760000000000, text)),
            "0|roo-code user_message [t1]: " + kept + "\xE2\x80\xA6 (/p0/h/ui_messages.json)|42|-/----------|0|0|0|" +
                "1760000000|1760000000|1760000000|1760000000\n");
  // Exactly 160 bytes are kept whole, with no "…".
  const std::string whole(160, 'b');
  EXPECT_EQ(*body_line_for_row(f.row("user_message", 1760000000000, whole)),
            "0|roo-code user_message [t1]: " + whole + " (/p0/h/ui_messages.json)|42|-/----------|0|0|0|" +
                "1760000000|1760000000|1760000000|1760000000\n");
}

// Every byte mactime would misread is changed wherever it sits (kind, text, path), and an invalid UTF-8 byte becomes
// U+FFFD; bytes from 0x80 up are not control bytes.
TEST(BodyFile, BarsPercentsControlBytesAndInvalidUtf8InTheName) {
  Fixture f;
  Row r = f.row("k|%", 1760000000000, "x|y%z\x01\x1f\x7f\xff end");
  f.src.file.path = "/h/a|b%c\td.json";
  f.src.file.inode.reset();
  r.position.record_index = 7;
  r.position.part_index = 2;
  EXPECT_EQ(*body_line_for_row(r),
            "0|roo-code k%7C%25 [t1]: x%7Cy%25z   \xEF\xBF\xBD end (/p0/h/a%7Cb%25c d.json #7.2)|0|-/----------|0|0|0|"
            "1760000000|1760000000|1760000000|1760000000\n");
}

// body_escape on its own, with the bytes to change before, on and after 16-byte boundaries.
TEST(BodyFile, EscapeChangesOnlyBarPercentControlAndDel) {
  EXPECT_EQ(body_escape(""), "");
  EXPECT_EQ(body_escape("|"), "%7C");
  EXPECT_EQ(body_escape("0123456789abcde|0123456789abcde%|"), "0123456789abcde%7C0123456789abcde%25%7C");
  EXPECT_EQ(body_escape(std::string("\x00\x1f\x20\x7e\x7f\x80\x9f\xff", 8)), "  \x20\x7e \x80\x9f\xff");
  EXPECT_EQ(body_escape("all plain text, longer than sixteen bytes: é"), "all plain text, longer than sixteen bytes: é");
  EXPECT_EQ(body_escape("ends with a newline after sixteen bytes\n"), "ends with a newline after sixteen bytes ");
}

// With no text, the tool's name is the summary; a row without a source has inode 0 and no path.
TEST(BodyFile, ToolNameStandsInForAnEmptyTextAndNoSourceMeansInodeZero) {
  Fixture f;
  Row r = f.row("tool_call", 1760000000000, "");
  r.set("tool_name", std::string("execute_command"));
  r.source = nullptr;
  r.identity = nullptr;
  EXPECT_EQ(*body_line_for_row(r),
            "0|roo-code tool_call: execute_command|0|-/----------|0|0|0|1760000000|1760000000|1760000000|1760000000\n");
}

// The name and inode columns line up with fls -m's for the same file: the summary's fls line gives partition 2 the
// prefix /p2/ and APFS volume 1 of it /p2v1/; fls writes an NTFS file's inode as <entry>-<type>-<id>. A folder
// (--dir) has no fls line and no prefix.
TEST(BodyFile, NamesAndInodesAsTheSummarysFlsLinesWriteThem) {
  Fixture f;
  f.vol.volume_index = 2;
  f.vol.fs_type = "ntfs";
  Row r = f.row("user_message", 1760000000000, "hi");
  f.src.file.attr = "128-4";
  EXPECT_EQ(*body_line_for_row(r), "0|roo-code user_message [t1]: hi (/p2/h/ui_messages.json)|42-128-4|-/----------|0|0|0|"
                                   "1760000000|1760000000|1760000000|1760000000\n");
  f.src.file.attr.clear();
  f.vol.pool_volume = PoolVolumeRef{"u", "Data", "data", 1076, 1};
  EXPECT_EQ(*body_line_for_row(r), "0|roo-code user_message [t1]: hi (/p2v1/h/ui_messages.json, APFS volume Data)|42|"
                                   "-/----------|0|0|0|1760000000|1760000000|1760000000|1760000000\n");
  f.vol.pool_volume.reset();
  f.vol.partition_offset.reset();  // a folder
  EXPECT_EQ(*body_line_for_row(r), "0|roo-code user_message [t1]: hi (/h/ui_messages.json)|42|-/----------|0|0|0|"
                                   "1760000000|1760000000|1760000000|1760000000\n");
  f.vol.partition_offset = 0;
  f.src.file.path = "$Unallocated";  // carved: fls lists no such name, so it keeps its own
  f.src.file.inode.reset();
  EXPECT_NE(body_line_for_row(r)->find(" ($Unallocated)|0|"), std::string::npos) << *body_line_for_row(r);
}

}  // namespace
}  // namespace roo
