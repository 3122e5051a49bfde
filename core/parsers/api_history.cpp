// api_conversation_history.json (and legacy claude_messages.json): Anthropic MessageParam[] plus Roo's extras
// (roo-format.md §3.1–§3.2). One row per content block that carries a fact; block order is kept as sub_index.
#include "core/parsers/parsers.h"
#include "core/sha256.h"
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

// Words that ride inside other texts and that the ui shows on their own: the feedback of an approval or denial
// JSON opening a tool result (roo-format.md §3.4, seed 000 Permission records), and the XML era's <feedback>,
// <answer>, <thinking> and attempt_completion <result> blocks (§4).
void remember_embedded(std::string_view text, ConversationTexts& texts) {
  std::string_view t = trim(text);
  if (starts_with(t, "{\"status\"")) {
    rapidjson::Document status;
    if (parse_json(t.data(), t.size(), status, nullptr, /*first_value_only=*/true))
      if (auto feedback = get_string(status, "feedback")) texts.add(*feedback);
  }
  for (auto [open, close] : {std::pair<std::string_view, std::string_view>{"<feedback>", "</feedback>"},
                             {"<answer>", "</answer>"},
                             {"<thinking>", "</thinking>"},
                             {"<result>", "</result>"}}) {
    // Each block is taken once and the search goes on after its close: linear in the text.
    for (size_t at = t.find(open); at != std::string_view::npos; at = t.find(open, at)) {
      size_t end = t.find(close, at + open.size());
      if (end == std::string_view::npos) break;
      texts.add(t.substr(at + open.size(), end - at - open.size()));
      at = end + close.size();
    }
  }
}

class ApiMessageRows {
 public:
  ApiMessageRows(const ParseContext& ctx, const JsonRecord& rec, ConversationTexts* texts)
      : ctx_(ctx), rec_(rec), texts_(texts) {
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
      remember(*r.text);
      if (texts_) remember_embedded(text, *texts_);
      ctx_.sink->emit(std::move(r));
    } else {
      Row r = base("assistant_message", sub);
      r.role = "assistant";
      r.text = std::string(text);
      remember(*r.text);
      if (texts_) remember_embedded(text, *texts_);
      ctx_.sink->emit(std::move(r));
    }
  }

  void tool_use(const rapidjson::Value& block, int64_t sub) {
    Row r = base("tool_call", sub);
    r.role = "assistant";
    r.set_opt("tool_name", get_string(block, "name")).set_opt("tool_use_id", get_string(block, "id"));
    if (const rapidjson::Value* input = member(block, "input")) {
      if (auto result = get_string(*input, "result")) remember(*result);  // attempt_completion
      std::string json = to_json_text(*input);
      r.text = json;  // what a timeline's message column shows for a call
      r.set("tool_input", RawJson{std::move(json)});
    }
    ctx_.sink->emit(std::move(r));
  }

  void tool_result(const rapidjson::Value& block, int64_t sub) {
    Row r = base("tool_result", sub);
    r.role = "tool";
    r.text = result_text(member(block, "content"));
    if (r.text && texts_) {
      texts_->add(unwrap_user_text(*r.text));  // feedback typed after a completion (§11 item 5)
      remember_embedded(*r.text, *texts_);
    }
    r.set_opt("tool_use_id", get_string(block, "tool_use_id")).set_opt("is_error", get_bool(block, "is_error"));
    ctx_.sink->emit(std::move(r));
  }

  void reasoning(const rapidjson::Value& block, std::optional<int64_t> sub) {
    Row r = base("reasoning", sub);
    r.role = "assistant";
    r.text = reasoning_text(block);
    if (r.text) remember(*r.text);
    if (member(block, "encrypted_content") && !r.text) r.set("encrypted", true);
    ctx_.sink->emit(std::move(r));
  }

  void remember(std::string_view text) {
    if (texts_) texts_->add(text);
  }

  const ParseContext& ctx_;
  const JsonRecord& rec_;
  ConversationTexts* texts_;
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

ParseStats parse_api_history(HashingStream& in, const ParseContext& ctx, ConversationTexts* texts) {
  return for_each_object_record(in, ctx, [&](const JsonRecord& rec) { ApiMessageRows(ctx, rec, texts).emit(); });
}

// Texts are compared trimmed: the ui's prose may start with "\n" where the api's does not (§11 item 4). Digests
// keep memory small for long texts; sha256 makes a false fold (a lost row) practically impossible.
void ConversationTexts::add(std::string_view text) { digests_.insert(sha256_hex(trim(text))); }
bool ConversationTexts::contains(std::string_view text) const { return digests_.count(sha256_hex(trim(text))) > 0; }

}  // namespace roo
