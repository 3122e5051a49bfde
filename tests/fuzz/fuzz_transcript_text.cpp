// libFuzzer target for transcript_text: the fuzzer's bytes, as one text, go to every function, and what comes back is
// checked for the promises the header makes (spans inside the text, input_json a JSON object, epoch ms only with a
// recorded UTC time). A broken promise traps, so the fuzzer reports it like a crash.
#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/parsers/transcript_text.h"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace roo::transcript;
  std::string_view text(reinterpret_cast<const char*>(data), size);

  if (auto env = parse_environment_details(text)) {
    // Epoch ms only for a time written as UTC: "Z", "z" or "+00:00" (text_util.h ms_from_iso_utc).
    auto utc = [](std::string_view t) {
      return t.size() >= 20 && (t.back() == 'Z' || t.back() == 'z' || t.substr(t.size() - 6) == "+00:00");
    };
    check(!env->current_time_ms || (env->current_time && utc(*env->current_time)));
  }

  UserText ut = classify_user_text(text);
  check(ut.kind != UserTextKind::xml_tool_result || ut.tool_description.has_value());
  check(ut.kind != UserTextKind::subtask_completed || (ut.subtask_id && !ut.subtask_id->empty()));
  check(ut.text.size() <= size);

  if (auto call = first_xml_tool_call(text)) {
    check(call->begin < call->end && call->end <= size);
    check(!call->closed ||
          text.substr(call->end - call->name.size() - 3, call->name.size() + 3) == "</" + call->name + ">");
    check(text[call->begin] == '<');
    rapidjson::Document doc;
    doc.Parse(call->input_json.c_str(), call->input_json.size());
    check(!doc.HasParseError() && doc.IsObject());
  }

  size_t thought = 0;
  for (const std::string& t : thinking_blocks(text)) thought += t.size();
  check(thought <= size);

  if (auto d = parse_xml_decision(text)) {
    check(d->status == "denied" || d->status == "approved" || d->status == "error");
  }

  // Mentions: the typed words are never longer than the text (each sentence gives back a shorter @mention), and each
  // block's body and target are bytes of the text.
  if (auto split = split_mentions(text)) {
    check(!split->mentions.empty() && split->typed.size() <= size);
    for (const Mention& m : split->mentions) {
      check(text.find(m.content) != std::string_view::npos);
      check(!m.target || text.find(*m.target) != std::string_view::npos);
    }
  }
  // v3.46.0+ mention blocks: the block is the whole text and names a path inside its header; turning its quoted path
  // back into @/path keeps the length, so the typed words are never longer than the text.
  if (auto m = read_file_mention(text)) {
    check(m->content == text && m->target && text.find(*m->target) != std::string_view::npos);
    check(m->kind == "file" || m->kind == "folder");
    check(typed_words(text, {*m}).size() <= size);
  }
  // A reply's blocks start inside the text and are bytes of it.
  if (auto reply = split_reply_mentions(text)) {
    check(!reply->mentions.empty() && reply->words_end < size);
    for (const Mention& m : reply->mentions) check(text.find(m.content, reply->words_end) != std::string_view::npos);
  }
  // URL mentions as Roo sends them: each '@' of one gives way to two quotes and nothing else changes, so the text
  // grows, and without quotes and '@'s the two are the same.
  if (auto sent = url_mentions_as_sent(text)) {
    const auto bare = [](std::string_view t) {
      std::string out;
      for (char c : t)
        if (c != '\'' && c != '@') out += c;
      return out;
    };
    check(sent->size() > size && bare(*sent) == bare(text));
  }
  // A text of Roo's names its table entry, and has user words only where that entry reads some.
  if (ut.kind == UserTextKind::roo_text)
    check(ut.roo_text && ut.roo_text->in == RooText::In::user_turn &&
          (!ut.feedback || ut.roo_text->carries == RooText::Carries::feedback_tag ||
           ut.roo_text->carries == RooText::Carries::feedback_json));
  // A result's Roo text opens it; the text it wraps is found only inside a toolError.
  const RooResult rr = find_roo_result(text);
  check(!rr.wrapped || (rr.text && (rr.text->carries == RooText::Carries::error_tag ||
                                    rr.text->carries == RooText::Carries::error_json)));
  check(!rr.text || (rr.text->in == RooText::In::result && text.find(rr.text->opening) != std::string_view::npos));
  return 0;
}
