#include "fuzz_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static roo::fuzz::Harness harness("ui_messages.json");
  // The api history's texts the parser folds against: read-only to it, so made once (tests/fuzz/README.md).
  static const roo::ConversationTexts api = [] {
    roo::ConversationTexts t;
    t.add("prompt");
    return t;
  }();
  harness.run(data, size, [](roo::HashingStream& in, const roo::ParseContext& ctx) {
    roo::parse_ui_messages(in, ctx, &api);
  });
  return 0;
}
