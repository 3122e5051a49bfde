#include "fuzz_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static roo::fuzz::Harness<roo::fuzz::SerialisingSink> harness("task_metadata.json");
  harness.run(data, size, [](roo::HashingStream& in, const roo::ParseContext& ctx) { roo::parse_task_metadata(in, ctx); });
  return 0;
}
