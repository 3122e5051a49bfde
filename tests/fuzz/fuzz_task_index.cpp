#include "fuzz_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static roo::fuzz::Harness harness("_index.json");
  harness.run(data, size, [](roo::HashingStream& in, const roo::ParseContext& ctx) {
    for (const roo::IndexEntry& e : roo::parse_task_index(in, ctx)) {
      roo::JsonRecord pos;
      pos.index = e.record_index;
      roo::emit_task_row(e.item, ctx, "index", false, &pos, {});
    }
  });
  return 0;
}
