// Shared body of the libFuzzer targets: run one parser over the fuzzer's bytes and take every row it makes. What does
// not depend on the input (the source, the identity, the context, the sink) is made once per target, so an execution
// is the parser's work alone (tests/fuzz/README.md). The parser targets touch each row's fields (TouchingSink):
// serialising every row was a third of their time. Serialisation stays fuzzed in the targets whose rows are cheap
// (history_item, task_metadata: SerialisingSink).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <variant>

#include "core/parsers/parsers.h"
#include "core/row.h"

namespace roo::fuzz {

// Reads every part of a row, as a writer would, without writing it: the sizes add up in `bytes`, so the optimiser
// cannot drop the parser's work on them.
class TouchingSink : public RowSink {
 public:
  void emit(const Row& row) override {
    bytes += row.kind.size() + row.time_source.size() + row.time_ms.value_or(0) % 7;
    bytes += opt_size(row.role) + opt_size(row.text) + opt_size(row.native);
    for (const auto& [key, value] : row.fields) {
      bytes += key.size() + value.index();
      if (const auto* s = std::get_if<std::string>(&value)) bytes += s->size();
      if (const auto* raw = std::get_if<RawJson>(&value)) bytes += raw->text.size();
    }
    const RecordPosition& p = row.position;
    bytes += p.record_index.value_or(0) + p.sub_index.value_or(0) + p.part_index.value_or(0);
    bytes += p.byte_offset.value_or(0) + p.byte_length.value_or(0) + p.blocks.size();
  }
  size_t bytes = 0;

 private:
  static size_t opt_size(const std::optional<std::string>& s) { return s ? s->size() : 0; }
};

// Every row as the JSONL line rows.jsonl gets.
class SerialisingSink : public RowSink {
 public:
  void emit(const Row& row) override {
    line.clear();
    append_row_json_line(row, line);
    bytes += line.size();
  }
  std::string line;  // reused: its capacity stays from row to row
  size_t bytes = 0;
};

// One file kind's fixed context; a target holds it as a function-local static. Sink: TouchingSink or SerialisingSink.
template <typename Sink = TouchingSink>
class Harness {
 public:
  explicit Harness(const char* file_name) {
    ref_.file.path = std::string("/t/") + file_name;
    ctx_.identity = &id_;
    ctx_.source = &ref_;
    ctx_.file_name = file_name;
    ctx_.native = true;
    ctx_.sink = &sink_;
  }
  Harness(const Harness&) = delete;
  Harness& operator=(const Harness&) = delete;

  template <typename Parse>
  void run(const uint8_t* data, size_t size, Parse parse) {
    MemoryBytes src(std::string_view(reinterpret_cast<const char*>(data), size));
    HashingStream in(src, 256);  // small reads: records of a small input straddle them too
    parse(in, ctx_);
    in.finish();
  }

 private:
  VolumeInfo vol_{"fuzz.img", {}, 0, "ext4", 0};
  SourceRef ref_{&vol_, {}};
  TaskIdentity id_{"vscode", "u", "t", {}, {}, {}};
  Sink sink_;
  ParseContext ctx_;
};

}  // namespace roo::fuzz
