#include "plugin/body_file.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

namespace roo {
namespace {

std::optional<std::string> body_for(const char* json) {
  rapidjson::Document d;
  d.Parse(json);
  return body_line_for_row(d);
}

// reference/tsk.md §3.1: 11 fields MD5|name|inode|mode|UID|GID|size|atime|mtime|ctime|crtime, times in epoch seconds.
TEST(BodyFile, TimedRowBecomesOneLineWithTheTimeInEveryColumn) {
  auto line = body_for(R"({"kind":"tool_call","time_utc":"2025-10-09T08:53:20.999Z","session_id":"t1","text":"a|b%c",)"
                       R"("source":{"path":"/h/ui_messages.json","inode":42}})");
  ASSERT_TRUE(line);
  // 1760000000 = 2025-10-09T08:53:20Z (date -u -d @1760000000)
  EXPECT_EQ(*line, "0|roo-code tool_call [t1]: a%7Cb%25c (/h/ui_messages.json)|42|-/----------|0|0|0|1760000000|1760000000|1760000000|1760000000\n");
}

TEST(BodyFile, RowWithoutTimeHasNoLineBecauseTimesAreNeverInvented) {
  EXPECT_FALSE(body_for(R"({"kind":"parser_error","time_utc":null,"text":"x","source":{"path":"/a"}})"));
}

TEST(BodyFile, ControlCharactersCannotBreakTheLine) {
  auto line = body_for(R"({"kind":"user_message","time_utc":"2025-10-09T08:53:20.000Z","text":"two\nlines\ttab"})");
  ASSERT_TRUE(line);
  EXPECT_EQ(line->find('\n'), line->size() - 1);
  EXPECT_NE(line->find("two lines tab"), std::string::npos);
}

}  // namespace
}  // namespace roo
