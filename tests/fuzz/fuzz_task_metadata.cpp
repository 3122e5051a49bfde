#include "fuzz_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return roo::fuzz::run(data, size, "task_metadata.json", [](roo::HashingStream& in, const roo::ParseContext& ctx) {
    roo::parse_task_metadata(in, ctx);
  });
}
