// api_conversation_history.json (and legacy claude_messages.json): Anthropic MessageParam[] plus Roo's extras
// (roo-format.md §3.1–§3.2). One row per content block that carries a fact; block order is kept as sub_index.
#include "core/parsers/parsers.h"
#include "core/text_util.h"

namespace roo {

namespace {

std::string strip_one_newline(std::string_view s) {
  if (!s.empty() && s.front() == '\n') s.remove_prefix(1);
  if (!s.empty() && s.back() == '\n') s.remove_suffix(1);
  return std::string(s);
}

// The text of a tool_result's content: a string, or the text blocks of a block list joined by '\n'
// (roo-format.md §11 item 5).
std::optional<std::string> result_text(const rapidjson::Value* content) {
  if (!content) return std::nullopt;
  if (content->IsString()) return std::string(content->GetString(), content->GetStringLength());
  if (!content->IsArray()) return std::nullopt;
  std::string out;
  bool any = false;
  for (const auto& b : content->GetArray()) {
    auto t = get_string(b, "text");
    if (!t) continue;
    if (any) out += '\n';
    out += *t;
    any = true;
  }
  if (!any) return std::nullopt;
  return out;
}

// A reasoning block's readable text: `text`, else the summary parts (OpenAI Responses), else nothing.
std::optional<std::string> reasoning_text(const rapidjson::Value& block) {
  if (auto t = get_string(block, "text")) return t;
  if (auto t = get_string(block, "thinking")) return t;
  const rapidjson::Value* summary = member(block, "summary");
  if (summary && summary->IsArray()) {
    std::string out;
    for (const auto& part : summary->GetArray()) {
      auto t = part.IsString() ? std::optional<std::string>(part.GetString()) : get_string(part, "text");
      if (!t) continue;
      if (!out.empty()) out += '\n';
      out += *t;
    }
    if (!out.empty()) return out;
  }
  return std::nullopt;
}

class ApiMessageRows {
 public:
  ApiMessageRows(const ParseContext& ctx, const JsonRecord& rec) : ctx_(ctx), rec_(rec) {
    ts_ = get_int(rec.doc, "ts");
  }

  void emit() {
    const rapidjson::Value& msg = rec_.doc;
    auto role = get_string(msg, "role");
    if (!role) {
      // Standalone legacy reasoning items carry no role (roo-format.md §3.1).
      if (get_string(msg, "type") == std::optional<std::string>("reasoning")) reasoning(msg, std::nullopt);
      return;
    }
    const rapidjson::Value* content = member(msg, "content");
    if (!content) return;
    if (content->IsString()) {
      text_block(*role, std::string_view(content->GetString(), content->GetStringLength()), std::nullopt);
      return;
    }
    if (!content->IsArray()) return;
    int64_t i = 0;
    for (const auto& block : content->GetArray()) {
      auto type = get_string(block, "type");
      if (type == std::optional<std::string>("text")) {
        if (auto t = get_string(block, "text")) text_block(*role, *t, i);
      } else if (type == std::optional<std::string>("tool_use")) {
        tool_use(block, i);
      } else if (type == std::optional<std::string>("tool_result")) {
        tool_result(block, i);
      } else if (type == std::optional<std::string>("thinking") || type == std::optional<std::string>("reasoning")) {
        reasoning(block, i);
      }
      ++i;
    }
  }

 private:
  Row base(const char* kind, std::optional<int64_t> sub) {
    Row r = ctx_.row(kind, &rec_, sub);
    if (ts_) {
      r.time_ms = ts_;
      r.time_source = "api.ts";
    }
    return r;
  }

  void text_block(const std::string& role, std::string_view text, std::optional<int64_t> sub) {
    if (role == "user") {
      // <environment_details> is what the client appended, never the user's words (roo-format.md §3.2).
      if (is_environment_details(text)) return;
      Row r = base("user_message", sub);
      r.role = "user";
      r.text = unwrap_user_text(text);
      ctx_.sink->emit(std::move(r));
    } else {
      Row r = base("assistant_message", sub);
      r.role = "assistant";
      r.text = std::string(text);
      ctx_.sink->emit(std::move(r));
    }
  }

  void tool_use(const rapidjson::Value& block, int64_t sub) {
    Row r = base("tool_call", sub);
    r.role = "assistant";
    r.set_opt("tool_name", get_string(block, "name")).set_opt("tool_use_id", get_string(block, "id"));
    if (const rapidjson::Value* input = member(block, "input")) r.set("tool_input", RawJson{to_json_text(*input)});
    ctx_.sink->emit(std::move(r));
  }

  void tool_result(const rapidjson::Value& block, int64_t sub) {
    Row r = base("tool_result", sub);
    r.role = "tool";
    r.text = result_text(member(block, "content"));
    r.set_opt("tool_use_id", get_string(block, "tool_use_id")).set_opt("is_error", get_bool(block, "is_error"));
    ctx_.sink->emit(std::move(r));
  }

  void reasoning(const rapidjson::Value& block, std::optional<int64_t> sub) {
    Row r = base("reasoning", sub);
    r.role = "assistant";
    r.text = reasoning_text(block);
    if (member(block, "encrypted_content") && !r.text) r.set("encrypted", true);
    ctx_.sink->emit(std::move(r));
  }

  const ParseContext& ctx_;
  const JsonRecord& rec_;
  std::optional<int64_t> ts_;
};

}  // namespace

bool is_environment_details(std::string_view text) { return starts_with(trim(text), "<environment_details>"); }

std::string unwrap_user_text(std::string_view text) {
  std::string_view t = trim(text);
  for (auto [open, close] : {std::pair<std::string_view, std::string_view>{"<task>", "</task>"},
                             {"<user_message>", "</user_message>"}}) {
    if (starts_with(t, open) && t.size() >= open.size() + close.size() &&
        t.substr(t.size() - close.size()) == close) {
      return strip_one_newline(t.substr(open.size(), t.size() - open.size() - close.size()));
    }
  }
  return std::string(text);
}

ParseStats parse_api_history(HashingStream& in, const ParseContext& ctx) {
  return for_each_object_record(in, ctx, [&](const JsonRecord& rec) { ApiMessageRows(ctx, rec).emit(); });
}

}  // namespace roo
