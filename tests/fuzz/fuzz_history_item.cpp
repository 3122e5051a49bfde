#include "fuzz_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return roo::fuzz::run(data, size, "history_item.json", [](roo::HashingStream& in, const roo::ParseContext& ctx) {
    if (auto item = roo::parse_history_item_file(in, ctx)) roo::emit_task_row(*item, ctx, "history_item", true, nullptr, {});
  });
}
