#include "core/row.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "core/row_writer.h"
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

TEST(RowWriter, SpilledRowsArePatchedAcrossChunkEdges) {
  VolumeInfo vol{"demo.E01", {}, 0, "ext4", 0};
  SourceRef src;
  TaskIdentity id{"vscode", "alice", "t", {}, {}, "/p"};
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* out = open_memstream(&buf, &len);
  {
    RowWriter w(out, "/tmp", 1000);  // tiny limit: forces several spills
    for (int i = 0; i < 5000; ++i) {
      Row r = sample(vol, src, id);
      r.text = std::string(static_cast<size_t>(i % 97), 'x');
      r.position.record_index = i;
      w.emit(std::move(r));
    }
    w.end_source(std::string(64, 'b'));
    EXPECT_TRUE(w.ok());
  }
  std::fclose(out);
  std::string all(buf, len);
  free(buf);
  size_t lines = 0, pos = 0;
  while ((pos = all.find('\n', pos)) != std::string::npos) ++lines, ++pos;
  EXPECT_EQ(lines, 5000u);
  EXPECT_EQ(all.find('\x01'), std::string::npos);
  size_t shas = 0;
  for (pos = 0; (pos = all.find("\"sha256\":\"" + std::string(64, 'b') + "\"", pos)) != std::string::npos; ++pos) ++shas;
  EXPECT_EQ(shas, 5000u);
}

TEST(TextUtil, Uuidv7TimeAndEpochIds) {
  // 1760000000000 ms = 0x0199c82cc000 (python3 -c "print(hex(1760000000000))")
  EXPECT_EQ(uuidv7_ms("0199c82c-c000-7abc-8def-0123456789ab"), 1760000000000);
  EXPECT_FALSE(uuidv7_ms("3b9f2c1e-7a4d-4e8b-9c61-5d2f0a8e4b17"));
  EXPECT_TRUE(is_epoch_ms_id("1736940000000"));
  EXPECT_FALSE(is_epoch_ms_id("17369400000x0"));
}

}  // namespace
}  // namespace roo
