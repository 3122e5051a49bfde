#include "fuzz_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static roo::fuzz::Harness harness("api_conversation_history.json");
  harness.run(data, size, [](roo::HashingStream& in, const roo::ParseContext& ctx) {
    roo::ConversationTexts texts;
    roo::parse_api_history(in, ctx, &texts);
  });
  return 0;
}
