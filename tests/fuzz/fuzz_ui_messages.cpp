#include "fuzz_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return roo::fuzz::run(data, size, "ui_messages.json", [](roo::HashingStream& in, const roo::ParseContext& ctx) {
    roo::ConversationTexts api;
    api.add("prompt");
    roo::parse_ui_messages(in, ctx, &api);
  });
}
