// ui_messages.json: ClineMessage[] (roo-format.md §2.3). The UI-only facts (API requests with usage, commands,
// asks, errors, checkpoints …) come from here; its conversation records are the api history's facts again.
#include <rapidjson/document.h>

#include "core/parsers/parsers.h"

namespace roo {

namespace {

// ClineApiReqInfo inside say:"api_req_started" text (roo-format.md §2.3). Only recorded values are set.
void add_usage(Row& r, const rapidjson::Value& info) {
  r.set_opt("tokens_in", get_int(info, "tokensIn"))
      .set_opt("tokens_out", get_int(info, "tokensOut"))
      .set_opt("cache_writes", get_int(info, "cacheWrites"))
      .set_opt("cache_reads", get_int(info, "cacheReads"))
      .set_opt("cost_usd", get_number(info, "cost"))
      .set_opt("api_protocol", get_string(info, "apiProtocol"))
      .set_opt("cancel_reason", get_string(info, "cancelReason"));
}

bool is_conversation_say(const std::string& say) {
  return say == "text" || say == "user_feedback" || say == "reasoning" || say == "completion_result";
}

}  // namespace

ParseStats parse_ui_messages(HashingStream& in, const ParseContext& ctx, const ConversationTexts* api_texts) {
  bool seen_first_text = false;
  int64_t folded = 0, errors = 0;
  ParseStats stats = for_each_object_record(in, ctx, [&](const JsonRecord& rec) {
    const rapidjson::Value& m = rec.doc;
    auto type = get_string(m, "type");
    auto say = get_string(m, "say");
    auto ask = get_string(m, "ask");
    auto text = get_string(m, "text");
    auto stamp = [&](Row& r) {
      if (auto ts = get_int(m, "ts")) {
        r.time_ms = ts;
        r.time_source = "ui.ts";
      }
    };

    if (type == std::optional<std::string>("say") && say == std::optional<std::string>("api_req_started")) {
      Row r = ctx.row("api_request", &rec);
      stamp(r);
      r.text = text;
      if (text) {
        rapidjson::Document info;
        if (!parse_json(text->data(), text->size(), info, nullptr) || !info.IsObject()) {
          ++errors;
          ctx.error("parser: unparseable record " + std::to_string(rec.index + 1) +
                        " (api_req_started text is not a JSON object): " + text->substr(0, kRawEchoLimit),
                    &rec);
        } else {
          add_usage(r, info);
        }
      }
      ctx.sink->emit(std::move(r));
      return;
    }

    if (type == std::optional<std::string>("say") && say && is_conversation_say(*say)) {
      const bool first_text = *say == "text" && !seen_first_text;
      if (*say == "text") seen_first_text = true;
      const auto& said = *say == "reasoning" && get_string(m, "reasoning") ? get_string(m, "reasoning") : text;
      if (api_texts && said && api_texts->contains(*said)) {
        ++folded;  // the same fact as an api row
        return;
      }
      const bool from_user = first_text || *say == "user_feedback";
      Row r = ctx.row(*say == "reasoning" ? "reasoning" : from_user ? "user_message" : "assistant_message", &rec);
      stamp(r);
      r.role = from_user ? "user" : "assistant";
      r.text = said;
      if (get_bool(m, "partial") == std::optional<bool>(true)) r.set("partial", true);
      ctx.sink->emit(std::move(r));
      return;
    }

    // Every other record is kept as a ui_event with its kind; nothing is dropped.
    Row r = ctx.row("ui_event", &rec);
    stamp(r);
    r.text = text;
    r.set_opt("ui_type", type).set_opt("ui_kind", say ? say : ask);
    if (get_bool(m, "partial") == std::optional<bool>(true)) r.set("partial", true);
    ctx.sink->emit(std::move(r));
  });
  stats.folded = folded;
  stats.errors += errors;
  return stats;
}

}  // namespace roo
