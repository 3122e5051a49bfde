// Helpers for core tests: bytes in memory as a ByteSource, and rows captured as JSON lines.
#pragma once

#include <rapidjson/document.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/evidence.h"
#include "core/parsers/parsers.h"
#include "core/row.h"

namespace roo::test {

class MemoryBytes : public ByteSource {
 public:
  explicit MemoryBytes(std::string data) : data_(std::move(data)) {}
  uint64_t size() const override { return data_.size(); }
  int64_t read_at(uint64_t off, char* buf, size_t len) override {
    if (off >= data_.size()) return 0;
    size_t n = std::min(len, data_.size() - static_cast<size_t>(off));
    std::memcpy(buf, data_.data() + off, n);
    return static_cast<int64_t>(n);
  }

 private:
  std::string data_;
};

// Collects rows as parsed JSON objects, as rows.jsonl would hold them.
class CapturedRows : public RowSink {
 public:
  void emit(const Row& row) override {
    std::string line = row_to_json_line(row);
    patch_sha256(line, std::string(64, '0'));
    rapidjson::Document d;
    d.Parse(line.data(), line.size() - 1);
    rows.push_back(std::move(d));
    lines.push_back(line);
  }
  std::vector<rapidjson::Document> rows;
  std::vector<std::string> lines;
  std::string str(size_t i, const char* key) const {
    auto it = rows.at(i).FindMember(key);
    if (it == rows.at(i).MemberEnd() || !it->value.IsString()) return "<absent>";
    return it->value.GetString();
  }
  const rapidjson::Value& src(size_t i) const { return rows.at(i)["source"]; }
};

// Runs one parser on bytes with a fixed identity and source.
struct ParserHarness {
  VolumeInfo volume{"test.img", {}, 0, "ext4", 0, {}, {}};
  SourceRef source{&volume, {}};
  TaskIdentity identity{"vscode", "alice", "task-1", {}, {}, "/home/alice/proj"};
  CapturedRows rows;
  ParseContext ctx(const std::string& name) {
    source.file.path = "/x/" + name;
    source.file.name = name;
    ParseContext c;
    c.identity = &identity;
    c.source = &source;
    c.file_name = name;
    c.sink = &rows;
    return c;
  }
};

// Runs the api / ui parser of a harness on literal bytes.
inline ParseStats run_api(ParserHarness& h, const std::string& bytes, ConversationTexts* texts = nullptr) {
  MemoryBytes src(bytes);
  HashingStream in(src);
  return parse_api_history(in, h.ctx("api_conversation_history.json"), texts);
}
inline ParseStats run_ui(ParserHarness& h, const std::string& bytes, const ConversationTexts* api = nullptr) {
  MemoryBytes src(bytes);
  HashingStream in(src);
  return parse_ui_messages(in, h.ctx("ui_messages.json"), api);
}

}  // namespace roo::test
