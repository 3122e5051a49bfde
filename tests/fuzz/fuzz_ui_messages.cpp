#include "fuzz_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static roo::fuzz::Harness harness("ui_messages.json");
  harness.run(data, size, [](roo::HashingStream& in, const roo::ParseContext& ctx) {
    roo::ConversationTexts api;
    api.add("prompt");
    roo::parse_ui_messages(in, ctx, &api);
  });
  return 0;
}
