// Shared body of the libFuzzer targets: run one parser over the fuzzer's bytes and serialise every row it makes,
// so a crash anywhere from framing to JSON output is found.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "core/parsers/parsers.h"
#include "core/row.h"

namespace roo::fuzz {

class SerialisingSink : public RowSink {
 public:
  void emit(const Row& row) override { bytes += row_to_json_line(row).size(); }
  size_t bytes = 0;
};

template <typename Parse>
int run(const uint8_t* data, size_t size, const char* file_name, Parse parse) {
  MemoryBytes src(std::string_view(reinterpret_cast<const char*>(data), size));
  HashingStream in(src, 4096);
  VolumeInfo vol{"fuzz.img", {}, 0, "ext4", 0};
  SourceRef ref{&vol, {}};
  ref.file.path = std::string("/t/") + file_name;
  TaskIdentity id{"vscode", "u", "t", {}, {}, {}};
  SerialisingSink sink;
  ParseContext ctx;
  ctx.identity = &id;
  ctx.source = &ref;
  ctx.file_name = file_name;
  ctx.native = true;
  ctx.sink = &sink;
  parse(in, ctx);
  in.finish();
  return 0;
}

}  // namespace roo::fuzz
