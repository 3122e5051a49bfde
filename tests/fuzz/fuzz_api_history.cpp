#include "fuzz_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static roo::fuzz::Harness harness("api_conversation_history.json");
  // The ui records of the user's words that time user rows (docs/row-contract.md "Which record times a row"), read
  // once from real ui bytes: a prompt and one later message, so user rows with those words take their times.
  static const roo::UiTurnTimes ui = [] {
    const std::string_view records =
        R"([{"ts":1,"type":"say","say":"text","text":"prompt"},{"ts":2,"type":"say","say":"api_req_started",)"
        R"("text":"{}"},{"ts":3,"type":"say","say":"user_feedback","text":"yes"}])";
    roo::MemoryBytes src(records);
    roo::HashingStream in(src);
    return roo::read_ui_turn_times(in);
  }();
  harness.run(data, size, [](roo::HashingStream& in, const roo::ParseContext& ctx) {
    roo::ParseContext with_ui = ctx;
    with_ui.ui_words = &ui;
    roo::ConversationTexts texts;
    roo::parse_api_history(in, with_ui, &texts);
  });
  return 0;
}
