#include "plugin/body_file.h"

#include <gtest/gtest.h>

namespace roo {
namespace {

struct Fixture {
  VolumeInfo vol{"demo.E01", {}, 0, "ext4", 0};
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
  EXPECT_NE(body_line_for_row(b)->find("(/h/ui_messages.json #6.1)"), std::string::npos);
}

// reference/tsk.md §3.1: 11 fields MD5|name|inode|mode|UID|GID|size|atime|mtime|ctime|crtime, times in epoch seconds.
TEST(BodyFile, TimedRowBecomesOneLineWithTheTimeInEveryColumn) {
  Fixture f;
  auto line = body_line_for_row(f.row("tool_call", 1760000000999, "a|b%c"));
  ASSERT_TRUE(line);
  // 1760000000 = 2025-10-09T08:53:20Z (date -u -d @1760000000); milliseconds are dropped, as fls drops nanoseconds.
  EXPECT_EQ(*line,
            "0|roo-code tool_call [t1]: a%7Cb%25c (/h/ui_messages.json)|42|-/----------|0|0|0|1760000000|1760000000|"
            "1760000000|1760000000\n");
}

TEST(BodyFile, RowWithoutTimeHasNoLineBecauseTimesAreNeverInvented) {
  Fixture f;
  EXPECT_FALSE(body_line_for_row(f.row("parser_error", std::nullopt, "x")));
}

TEST(BodyFile, ControlCharactersCannotBreakTheLine) {
  Fixture f;
  auto line = body_line_for_row(f.row("user_message", 1760000000000, "two\nlines\ttab"));
  ASSERT_TRUE(line);
  EXPECT_EQ(line->find('\n'), line->size() - 1);
  EXPECT_NE(line->find("two lines tab"), std::string::npos);
}

}  // namespace
}  // namespace roo
