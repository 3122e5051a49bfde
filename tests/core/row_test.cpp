#include "core/row.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "core/row_writer.h"

#include <algorithm>
#include <cstdio>
#include <unistd.h>
#include "core/text_util.h"

namespace roo {
namespace {

Row sample(const VolumeInfo& vol, SourceRef& src, const TaskIdentity& id) {
  src.volume = &vol;
  src.file.path = "/home/alice/t/ui_messages.json";
  src.file.inode = 12;
  Row r;
  r.kind = "user_message";
  r.identity = &id;
  r.source = &src;
  r.time_ms = 1760000000123;
  r.time_source = "ui.ts";
  r.text = std::string("bad \xff byte");
  r.position.record_index = 3;
  return r;
}

TEST(Row, JsonLineHasContractKeysInOrderAndValidUtf8) {
  VolumeInfo vol{"demo.E01", {}, 1048576, "ext4", 1};
  SourceRef src;
  TaskIdentity id{"vscode", "alice", "t", {}, {}, "/p"};
  std::string line = row_to_json_line(sample(vol, src, id));
  patch_sha256(line, std::string(64, 'a'));
  rapidjson::Document d;
  d.Parse(line.c_str());
  ASSERT_FALSE(d.HasParseError());
  const char* order[] = {"schema", "row_id", "kind", "time_utc", "time_source", "agent", "surface", "user",
                         "session_id", "parent_session_id", "root_session_id", "project_path", "role", "text", "source"};
  size_t i = 0;
  for (auto it = d.MemberBegin(); it != d.MemberEnd(); ++it, ++i) EXPECT_STREQ(it->name.GetString(), order[i]);
  EXPECT_STREQ(d["time_utc"].GetString(), "2025-10-09T08:53:20.123Z");
  EXPECT_STREQ(d["text"].GetString(), "bad \xEF\xBF\xBD byte");  // invalid byte becomes U+FFFD
  EXPECT_EQ(d["source"]["partition_offset"].GetInt(), 1048576);
  EXPECT_EQ(std::string(d["source"]["sha256"].GetString()), std::string(64, 'a'));
  EXPECT_EQ(std::string(d["row_id"].GetString()).size(), 32u);
}

TEST(Row, UnreadableSourceGetsANullDigestNotAnEmptyOne) {
  VolumeInfo vol{"demo.E01", {}, 0, "ext4", 0};
  SourceRef src;
  TaskIdentity id{"vscode", "alice", "t", {}, {}, "/p"};
  std::string line = row_to_json_line(sample(vol, src, id));
  patch_sha256(line, "");
  rapidjson::Document d;
  d.Parse(line.c_str());
  ASSERT_FALSE(d.HasParseError());
  EXPECT_TRUE(d["source"]["sha256"].IsNull());
}

TEST(Row, RowIdIsStableAndDependsOnPositionAndKind) {
  VolumeInfo vol{"demo.E01", {}, 1048576, "ext4", 1};
  SourceRef src;
  TaskIdentity id{"vscode", "alice", "t", {}, {}, "/p"};
  Row a = sample(vol, src, id);
  Row b = sample(vol, src, id);
  EXPECT_EQ(row_id(a), row_id(b));
  b.position.record_index = 4;
  EXPECT_NE(row_id(a), row_id(b));
  b = sample(vol, src, id);
  b.kind = "assistant_message";
  EXPECT_NE(row_id(a), row_id(b));
}

TEST(RowWriter, EverySourceGetsItsOwnDigestPatchedInPlace) {
  VolumeInfo vol{"demo.E01", {}, 0, "ext4", 0};
  SourceRef src;
  TaskIdentity id{"vscode", "alice", "t", {}, {}, "/p"};
  std::FILE* out = std::tmpfile();
  RowWriter w(out);
  for (int source = 0; source < 3; ++source) {
    for (int i = 0; i < 1000; ++i) {
      Row r = sample(vol, src, id);
      r.text = std::string(static_cast<size_t>(i % 97), 'x');
      r.position.record_index = i;
      w.emit(r);
    }
    w.end_source(source == 2 ? "" : std::string(64, static_cast<char>('a' + source)));
  }
  EXPECT_TRUE(w.ok());
  std::fflush(out);
  std::rewind(out);
  std::string all;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, out)) > 0;) all.append(buf, n);
  std::fclose(out);
  EXPECT_EQ(all.find('\x01'), std::string::npos);
  size_t line_no = 0, start = 0;
  for (size_t end; (end = all.find('\n', start)) != std::string::npos; start = end + 1, ++line_no) {
    rapidjson::Document d;
    d.Parse(all.data() + start, end - start);
    ASSERT_FALSE(d.HasParseError()) << line_no;
    const rapidjson::Value& sha = d["source"]["sha256"];
    if (line_no < 1000)
      EXPECT_EQ(std::string(sha.GetString()), std::string(64, 'a'));
    else if (line_no < 2000)
      EXPECT_EQ(std::string(sha.GetString()), std::string(64, 'b'));
    else
      EXPECT_TRUE(sha.IsNull());  // unreadable source: null, never empty
  }
  EXPECT_EQ(line_no, 3000u);
}

TEST(RowWriter, CutUnfinishedRowsKeepsOnlyFinishedSources) {
  VolumeInfo vol{"demo.E01", {}, 0, "ext4", 0};
  SourceRef src;
  TaskIdentity id{"vscode", "alice", "t", {}, {}, "/p"};
  char path[] = "/tmp/roo-rows-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  std::FILE* out = fdopen(fd, "w+b");
  RowWriter w(out);
  w.emit(sample(vol, src, id));
  w.end_source(std::string(64, 'a'));  // finished
  w.emit(sample(vol, src, id));
  w.emit(sample(vol, src, id));
  std::fflush(out);  // a worker dies here: two rows with placeholders on disk
  std::fclose(out);
  cut_unfinished_rows(path);
  std::FILE* in = std::fopen(path, "rb");
  std::string all;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, in)) > 0;) all.append(buf, n);
  std::fclose(in);
  std::remove(path);
  EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 1);
  EXPECT_EQ(all.find('\x01'), std::string::npos);
}

}  // namespace
}  // namespace roo
