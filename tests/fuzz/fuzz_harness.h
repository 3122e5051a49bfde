// Shared body of the libFuzzer targets: run one parser over the fuzzer's bytes and serialise every row it makes,
// so a crash anywhere from framing to JSON output is found. What does not depend on the input (the source, the
// identity, the context, the sink and its line buffer) is made once per target, so an execution is the parser's
// work alone (tests/fuzz/README.md).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "core/parsers/parsers.h"
#include "core/row.h"

namespace roo::fuzz {

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

// One file kind's fixed context; a target holds it as a function-local static.
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
  SerialisingSink sink_;
  ParseContext ctx_;
};

}  // namespace roo::fuzz
