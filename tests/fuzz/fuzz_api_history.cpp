#include "fuzz_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return roo::fuzz::run(data, size, "api_conversation_history.json",
                        [](roo::HashingStream& in, const roo::ParseContext& ctx) {
                          roo::ConversationTexts texts;
                          roo::parse_api_history(in, ctx, &texts);
                        });
}
