#include "fuzz_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static roo::fuzz::Harness<roo::fuzz::SerialisingSink> harness("history_item.json");
  harness.run(data, size, [](roo::HashingStream& in, const roo::ParseContext& ctx) {
    if (auto item = roo::parse_history_item_file(in, ctx)) roo::emit_task_row(*item, ctx, "history_item", true, nullptr, {});
  });
  return 0;
}
