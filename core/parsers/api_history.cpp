// api_conversation_history.json (and legacy claude_messages.json): Anthropic MessageParam[] plus Roo's extras
// (docs/roo-format.md §3.1–§3.2). One row per content block that carries a fact; block order is kept as sub_index.
// A tool call becomes a call row (command, file_edit, file_read or tool_call) that is held until its result, which
// is in the next user message, so the outcome can be joined onto it (docs/row-contract.md "Calls").
#include <rapidjson/document.h>

#include <set>

#include "core/parsers/parsers.h"
#include "core/parsers/tool_semantics.h"
#include "core/parsers/transcript_text.h"
#include "core/sha256.h"
#include "core/text_util.h"

namespace roo {

namespace {

using transcript::UserTextKind;

std::string_view strip_one_newline(std::string_view s) {
  if (!s.empty() && s.front() == '\n') s.remove_prefix(1);
  if (!s.empty() && s.back() == '\n') s.remove_suffix(1);
  return s;
}

// The text of a tool_result's content: a string, or the text blocks of a block list joined by '\n'
// (docs/roo-format.md §11 item 5).
// `skip` parts from part `skip_from` on are left out (unsigned: an index before skip_from wraps past skip).
std::optional<std::string> result_text(const rapidjson::Value* content, size_t skip_from = 0, size_t skip = 0) {
  if (!content) return std::nullopt;
  if (content->IsString()) return std::string(content->GetString(), content->GetStringLength());
  if (!content->IsArray()) return std::nullopt;
  std::string out;
  bool any = false;
  size_t index = 0;
  for (const auto& b : content->GetArray()) {
    if (index++ - skip_from < skip) continue;
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

// The bodies of every <open>…</close> block of a text, in order; linear in the text.
std::vector<std::string_view> tagged_blocks(std::string_view t, std::string_view open, std::string_view close) {
  std::vector<std::string_view> out;
  for (size_t at = t.find(open); at != std::string_view::npos; at = t.find(open, at)) {
    size_t end = t.find(close, at + open.size());
    if (end == std::string_view::npos) break;
    out.push_back(t.substr(at + open.size(), end - at - open.size()));
    at = end + close.size();
  }
  return out;
}

// Words that ride inside other texts and that the ui shows on their own: the feedback of an approval or denial
// JSON opening a tool result (docs/roo-format.md §3.4; docs/row-contract.md "Permission rows"), and the XML era's
// <feedback>, <answer>, <thinking> and attempt_completion <result> blocks (§4).
void remember_tagged(std::string_view text, ConversationTexts& texts) {
  for (auto [open, close] : {std::pair<std::string_view, std::string_view>{"<feedback>", "</feedback>"},
                             {"<answer>", "</answer>"},
                             {"<thinking>", "</thinking>"},
                             {"<result>", "</result>"}})
    for (std::string_view body : tagged_blocks(text, open, close)) texts.add(body);
}
void remember_embedded(std::string_view text, ConversationTexts& texts) {
  if (auto status = tools::parse_result_status(text))
    if (status->feedback) texts.add(*status->feedback);
  remember_tagged(text, texts);
}

// What a result text opens with, read once: a status JSON, else an XML-era decision text; Roo's own text (roo_texts(),
// docs/row-contract.md "Roo's texts in user turns") and the one a toolError wraps; a rejection notice.
struct ResultReading {
  std::optional<tools::ResultStatus> status;
  transcript::RooResult roo;
  std::optional<transcript::XmlDecision> xml;
  std::optional<tools::SkippedTool> skipped;
  std::optional<std::string_view> failure;  // a tool's failure sentence (tools::failure_form)
  ResultReading(std::string_view text, bool native)
      : status(tools::parse_result_status(text)),
        roo(transcript::find_roo_result(text)),
        xml(status ? std::nullopt : transcript::parse_xml_decision(text, roo.text)),
        skipped(tools::parse_skipped_tool(text)),
        failure(status || xml ? std::nullopt : tools::failure_form(text, native)) {}
};

// What a result says happened to its call (docs/row-contract.md "outcome"): what Roo's own text says, the most
// specific one first (toolError(rooIgnoreError(…)) is access_denied), else what its status, an error flag or a
// tool's failure sentence says. An approval with feedback says nothing of the tool's own output after it.
std::string call_outcome(const ResultReading& read, std::optional<bool> is_error) {
  const transcript::RooText* roo = read.roo.most_specific();
  if (roo && std::string_view(roo->kind) != "completed") return roo->kind;
  if (const auto& status = read.status) {
    if (status->type == std::optional<std::string>("access_denied")) return "access_denied";
    if (status->status == "denied" || status->status == "error" || status->status == "guidance")
      return status->status;
  }
  if (read.skipped) return read.skipped->reason;
  if (is_error == std::optional<bool>(true)) return "error";
  if (read.failure) return "error";  // a failure in the tool's own words ("Error reading file …: …")
  return "completed";
}

// "Tool [read_file] was not executed because a tool has already been used in this message." (XML era, §4): the
// result of a second call in one message, which the client never ran.
std::optional<std::string> one_tool_per_message_name(std::string_view t) {
  t = trim(t);
  if (!starts_with(t, "Tool [")) return std::nullopt;
  size_t close = t.find(']');
  if (close == std::string_view::npos ||
      t.find("was not executed because a tool has already been used in this message") == std::string_view::npos)
    return std::nullopt;
  return std::string(t.substr(6, close - 6));
}

// The Roo text a row is: the opening it was known by and the releases that write that wording.
void set_roo_text(Row& r, const transcript::RooText* roo) {
  if (roo) r.set("roo_text", std::string(roo->opening)).set("roo_text_releases", std::string(roo->versions));
}

std::string summarise_environment(const transcript::EnvironmentDetails& env) {
  std::string out = "environment:";
  auto part = [&](const char* label, const std::optional<std::string>& v) {
    if (v) out += std::string(out.back() == ':' ? " " : ", ") + label + " " + *v;
  };
  part("time", env.current_time);
  part("time zone", env.time_zone);
  part("utc offset", env.utc_offset);
  part("mode", env.mode_slug);
  part("model", env.model);
  part("cost", env.cost);
  part("workspace", env.workspace_dir);
  return out;
}

// A call waiting for its result: its rows are complete but for the join.
struct PendingCall {
  std::vector<Row> rows;
  std::string tool_name;
  std::optional<std::string> tool_use_id;  // none for XML calls
};

class ApiHistoryParser {
 public:
  ApiHistoryParser(HashingStream& in, const ParseContext& ctx, ConversationTexts* texts)
      : in_(in), ctx_(ctx), texts_(texts) {}

  void record(const JsonRecord& rec) {
    rec_ = &rec;
    const rapidjson::Value& msg = rec.doc;
    ts_ = get_int(msg, "ts");
    turn_time(rec.index, get_string(msg, "role"));
    if (ts_ && is_js_time(*ts_) && !first_ts) first_ts = ts_;  // the first time: a number out of range is none
    xml_call_taken_ = false;  // one XML call per message (docs/row-contract.md "XML-era tool calls")
    condense_parent_ = get_string(msg, "condenseParent");
    truncation_parent_ = get_string(msg, "truncationParent");
    auto role = get_string(msg, "role");
    if (!role) {
      // Standalone legacy reasoning items carry no role (docs/roo-format.md §3.1).
      if (get_string(msg, "type") == std::optional<std::string>("reasoning")) reasoning(msg, std::nullopt);
      return;
    }
    if (*role == "assistant") {
      flush_unanswered();
    } else {
      flush_unanswered_by(msg);
    }
    const rapidjson::Value* content = member(msg, "content");
    if (get_bool(msg, "isSummary") == std::optional<bool>(true)) {
      condense_summary(content);
    } else if (get_bool(msg, "isTruncationMarker") == std::optional<bool>(true)) {
      Row r = base("context_truncation", std::nullopt, "system", content ? result_text(content) : std::nullopt);
      r.set_opt("truncation_id", get_string(msg, "truncationId"));
      emit(std::move(r));
    } else if (content && content->IsString()) {
      text_block(*role, std::string_view(content->GetString(), content->GetStringLength()), std::nullopt);
    } else if (content && content->IsArray()) {
      const auto blocks = content->GetArray();
      for (rapidjson::SizeType i = 0; i < blocks.Size(); ++i) {
        const rapidjson::Value& block = blocks[i];
        auto type = get_string(block, "type");
        if (type == std::optional<std::string>("text")) {
          if (const rapidjson::Value* t = member(block, "text"); t && t->IsString()) {  // the document's bytes
            const std::string_view text(t->GetString(), t->GetStringLength());
            if (*role == "user" && text.find("<user_message>") != std::string_view::npos) {
              // v3.46.0+: the file and folder mentions of the user's words follow them as blocks of their own.
              std::vector<transcript::Mention> file_blocks = file_mention_blocks(blocks, i + 1);
              user_text(text, i, file_blocks);
              for (transcript::Mention& m : file_blocks) {
                std::vector<transcript::Mention> one{std::move(m)};
                mention_rows(one, ++i);
              }
            } else {
              text_block(*role, text, i);
            }
          }
        } else if (type == std::optional<std::string>("tool_use")) {
          tool_use(block, i);
        } else if (type == std::optional<std::string>("tool_result")) {
          tool_result(block, i);
        } else if (type == std::optional<std::string>("thinking") ||
                   type == std::optional<std::string>("reasoning")) {
          reasoning(block, i);
        }
      }
    }
    finish_xml_result();
    if (*role == "user") flush_unanswered();
  }

  // After the last record: calls no result answered.
  void end() { flush_unanswered(); }

  std::optional<int64_t> first_ts;

 private:
  std::optional<UiTurnTimes::Mark> turn_;  // the ui record that times the current record when it has no ts
  bool turn_by_index_ = false;
  int64_t users_seen_ = 0;  // user records before the current one
  // ---- rows ----
  Row base(const char* kind, std::optional<int64_t> sub) {
    Row r = ctx_.row(kind, rec_, sub);
    if (ts_) {
      r.time_ms = ts_;
      r.time_source = "api.ts";
    } else if (turn_) {
      // No ts of its own: the ui record of the same turn times it (UiTurnTimes), and the row names that record.
      r.time_ms = turn_->ts;
      r.time_source = turn_by_index_ ? "ui.ts.conversation_history_index" : "ui.ts.turn_order";
      r.set("time_from_ui_record", turn_->ui_index);
    }
    // Kept, but marked: the model no longer saw these messages (docs/roo-format.md §3.1).
    if (condense_parent_) r.set("hidden_by_condense", *condense_parent_);
    if (truncation_parent_) r.set("hidden_by_truncation", *truncation_parent_);
    return r;
  }
  Row base(const char* kind, std::optional<int64_t> sub, const char* role, std::optional<std::string> text) {
    Row r = base(kind, sub);
    r.role = role;
    r.text = std::move(text);
    return r;
  }
  // An assistant-side row: the model the last <environment_details> named served it.
  Row assistant_row(const char* kind, std::optional<int64_t> sub) {
    Row r = base(kind, sub);
    r.role = "assistant";
    if (model_) r.set("model", *model_).set("model_source", std::string("environment_details"));
    return r;
  }
  // A user_message row of the user's words. It is timed by the ui record that shows the same words when there is
  // one (docs/row-contract.md "Which record times a row"): Roo writes that record when the user submits them and
  // the api copy only after say("api_req_started") and loadContext (recursivelyMakeClineRequests, src/core/Cline.ts
  // at v3.3.26; Task.ts at v3.52.1), so the api ts would put the prompt after the request it caused. Repeated
  // words take the ui records of those words in order; the row keeps the api record as its source and names the
  // ui record in time_from_ui_record.
  Row user_row(std::optional<int64_t> sub, std::string text) {
    Row r = base("user_message", sub, "user", std::move(text));
    remember(*r.text);
    if (!ctx_.ui_words) return r;
    const auto& words = ctx_.ui_words->user_words;
    auto it = words.find(sha256_hex(trim(*r.text)));
    if (it == words.end()) return r;
    size_t& used = ui_words_used_[it->first];
    if (used >= it->second.size()) return r;
    const UiTurnTimes::Mark& mark = it->second[used++];
    if (!mark.typed.empty()) {  // the words as typed, where Roo quoted the URL mentions it sent
      r.text = mark.typed;
      remember(mark.typed);
    }
    r.time_ms = mark.ts;
    r.time_source = "ui.ts";
    for (auto f = r.fields.begin(); f != r.fields.end(); ++f)
      if (f->first == "time_from_ui_record") {  // an untimed record's turn mark gives way to the words' record
        r.fields.erase(f);
        break;
      }
    r.set("time_from_ui_record", mark.ui_index);
    return r;
  }
  void emit(Row&& r) { ctx_.sink->emit(std::move(r)); }
  void remember(std::string_view text, ConversationTexts::Kind kind = ConversationTexts::Kind::text) {
    if (texts_) texts_->add(text, kind);
  }

  // The ui record that shows the turn of api record `index` (UiTurnTimes), counted whether or not it is needed.
  void turn_time(int64_t index, const std::optional<std::string>& role) {
    turn_.reset();
    turn_by_index_ = false;
    const bool user = role == std::optional<std::string>("user");
    const int64_t users_before = users_seen_;
    if (user) ++users_seen_;
    const UiTurnTimes* t = ctx_.ui_turns;
    if (!t || !role) return;
    if (auto it = t->by_history_index.find(index); it != t->by_history_index.end()) {
      turn_ = it->second;
      turn_by_index_ = true;
    } else if (!t->by_history_index.empty()) {
      return;  // the ui records are indexed and none names this record: order would guess
    } else if (user && users_before < static_cast<int64_t>(t->request_starts.size())) {
      turn_ = t->request_starts[static_cast<size_t>(users_before)];
    } else if (!user && users_before > 0 && users_before <= static_cast<int64_t>(t->replies.size())) {
      turn_ = t->replies[static_cast<size_t>(users_before - 1)];
      if (!turn_) turn_ = t->request_starts[static_cast<size_t>(users_before - 1)];
    }
  }

  // ---- text blocks ----
  void text_block(const std::string& role, std::string_view text, std::optional<int64_t> sub) {
    if (role == "user")
      user_text(text, sub);
    else
      assistant_text(text, sub);
  }

  // The text blocks from `from` on that are v3.46.0+ mention blocks (transcript::read_file_mention), up to the first
  // that is not.
  static std::vector<transcript::Mention> file_mention_blocks(const rapidjson::Value::ConstArray& blocks,
                                                              rapidjson::SizeType from) {
    std::vector<transcript::Mention> out;
    for (rapidjson::SizeType j = from; j < blocks.Size(); ++j) {
      if (get_string(blocks[j], "type") != std::optional<std::string>("text")) break;
      const rapidjson::Value* t = member(blocks[j], "text");
      if (!t || !t->IsString()) break;
      auto m = transcript::read_file_mention(std::string_view(t->GetString(), t->GetStringLength()));
      if (!m) break;
      out.push_back(std::move(*m));
    }
    return out;
  }

  void user_text(std::string_view text, std::optional<int64_t> sub,
                 const std::vector<transcript::Mention>& file_blocks = {}) {
    // Not the user's words either: the XML era's one-tool-per-message and rejection notices are results.
    if (auto name = one_tool_per_message_name(text)) {
      finish_xml_result();
      Row r = base("tool_result", sub, "tool", std::string(text));
      r.set("tool_name", *name).set("result_format", std::string("xml")).set("skipped", std::string("not_executed"));
      set_roo_text(r, transcript::find_roo_text(text, transcript::RooText::In::result));
      emit(std::move(r));
      return;
    }
    if (auto skipped = tools::parse_skipped_tool(text)) {
      finish_xml_result();
      Row r = base("tool_result", sub, "tool", std::string(text));
      r.set("result_format", std::string("xml")).set("skipped", skipped->reason);
      set_roo_text(r, transcript::find_roo_text(text, transcript::RooText::In::result));
      emit(std::move(r));
      return;
    }
    transcript::UserText ut = transcript::classify_user_text(text);
    if (ut.kind == UserTextKind::words && xml_result_) {
      // A block after an XML-era "[tool] Result:" header is more of that result (§4).
      if (!xml_result_->text->empty()) *xml_result_->text += "\n\n";
      *xml_result_->text += text;
      return;
    }
    finish_xml_result();
    switch (ut.kind) {
      case UserTextKind::words: {
        // Mentions Roo expanded after the words are Roo's, not the user's (docs/row-contract.md "Mentions"): the user
        // row keeps what the user typed, each block is a row of its own.
        std::optional<transcript::MentionSplit> split;
        if (!file_blocks.empty() || text.find("\n\n<") != std::string_view::npos)
          split = transcript::split_mentions(text, file_blocks);
        Row r = user_row(sub, split ? std::move(split->typed) : std::move(ut.text));  // a long text is not copied
        if (texts_) remember_embedded(text, *texts_);
        emit(std::move(r));
        if (split) mention_rows(split->mentions, sub);
        return;
      }
      case UserTextKind::environment_details:
        environment(text, sub);
        return;
      case UserTextKind::roo_text: {
        // Roo's own text (docs/row-contract.md "Roo's texts in user turns"); words the user typed inside it (the
        // <feedback> of a mistake-limit prompt) stay the user's, right after it.
        // Its <feedback> is expanded like any reply (docs/row-contract.md "Mentions"): the blocks after it are rows.
        std::optional<transcript::MentionSplit> expansion =
            ut.feedback ? transcript::split_reply_mentions(text) : std::nullopt;
        Row r = base(ut.roo_text->kind, sub, "system",
                     std::string(expansion ? text.substr(0, expansion->words_end) : text));
        set_roo_text(r, ut.roo_text);
        emit(std::move(r));
        if (ut.feedback && !trim(*ut.feedback).empty()) {
          Row words = user_row(sub, expansion ? transcript::typed_words(*ut.feedback, {}) : std::move(*ut.feedback));
          words.set("inside_roo_text", std::string(ut.roo_text->kind));
          emit(std::move(words));
        }
        if (expansion) mention_rows(expansion->mentions, sub);
        return;
      }
      case UserTextKind::task_resumption: {
        Row r = base("task_resumption", sub, "system", std::string(text));
        const bool has_instructions = ut.text != text;
        r.set("has_user_instructions", has_instructions);
        emit(std::move(r));
        if (has_instructions) {
          emit(user_row(sub, ut.text));
        }
        return;
      }
      case UserTextKind::xml_tool_result: {
        Row r = base("tool_result", sub, "tool", ut.text);
        r.set_opt("tool_name", ut.tool_name)
            .set_opt("tool_description", ut.tool_description)
            .set("result_format", std::string("xml"));
        xml_result_ = std::move(r);
        return;
      }
      case UserTextKind::subtask_completed: {
        Row r = base("tool_result", sub, "tool", std::string(text));
        r.set("result_format", std::string("text")).set_opt("subtask_id", ut.subtask_id);
        emit(std::move(r));
        if (ut.subtask_id) subtask_completed(*ut.subtask_id, sub);
        return;
      }
      case UserTextKind::tool_result_text: {
        Row r = base("tool_result", sub, "tool", ut.text);
        r.set("result_format", std::string("text"));
        emit(std::move(r));
        return;
      }
    }
  }

  // One mentioned_content row per expanded mention, in order: what it names and what Roo put into the prompt.
  void mention_rows(std::vector<transcript::Mention>& mentions, std::optional<int64_t> sub) {
    const auto& workspace = ctx_.identity ? ctx_.identity->project_path : std::nullopt;
    for (size_t i = 0; i < mentions.size(); ++i) {
      transcript::Mention& m = mentions[i];
      Row r = base("mentioned_content", sub);
      r.role = "system";
      if (mentions.size() > 1) r.position.part_index = static_cast<int64_t>(i);
      r.set("mention_kind", m.kind);
      if (m.target) {
        if (m.kind == "file" || m.kind == "folder")
          r.set("mentioned_path", *m.target).set_opt("mentioned_path_resolved", resolve_task_path(*m.target, workspace));
        else
          r.set("mentioned_target", *m.target);
      }
      r.set("content_size", static_cast<int64_t>(m.content.size())).set("content_sha256", sha256_hex(m.content));
      r.text = std::move(m.content);
      emit(std::move(r));
    }
  }

  void environment(std::string_view text, std::optional<int64_t> sub) {
    auto env = transcript::parse_environment_details(text);
    Row r = base("environment", sub);
    r.role = "system";
    // Each block names the model of the request it went out with; one without <model> says nothing.
    model_.reset();
    if (env) {
      model_ = env->model;
      r.text = summarise_environment(*env);
      r.set_opt("recorded_time", env->current_time);
      if (env->current_time_ms) r.set("recorded_time_utc", iso_from_ms(*env->current_time_ms));
      r.set_opt("time_zone", env->time_zone)
          .set_opt("utc_offset", env->utc_offset)
          .set_opt("workspace_dir", env->workspace_dir)
          .set_opt("current_cost", env->cost)
          .set_opt("mode", env->mode_slug)
          .set_opt("mode_name", env->mode_name)
          .set_opt("model", env->model);
      if (env->model) r.set("model_source", std::string("environment_details"));
    } else {
      r.text = "environment:";
    }
    r.set("environment_text", std::string(text));
    emit(std::move(r));
  }

  void assistant_text(std::string_view text, std::optional<int64_t> sub) {
    if (!xml_call_taken_ && might_be_xml_era(text) && is_xml_era()) {
      xml_assistant_text(text, sub);
      return;
    }
    Row r = assistant_row("assistant_message", sub);
    r.text = std::string(text);
    remember(*r.text);
    if (texts_) remember_embedded(text, *texts_);
    emit(std::move(r));
  }

  static bool might_be_xml_era(std::string_view text) {
    return text.find('<') != std::string_view::npos &&
           (text.find("<thinking>") != std::string_view::npos || transcript::first_xml_tool_call(text));
  }

  // XML in the text is a call only in a task with no tool_use block at all (docs/row-contract.md "XML-era tool
  // calls"). Blocks seen so far say so when there was one; else the rest of the file is searched once, unparsed.
  bool is_xml_era() {
    if (seen_tool_use_) return false;
    if (!rest_has_tool_use_) rest_has_tool_use_ = contains_json_token(in_.source(), rec_->offset, "tool_use");
    return !*rest_has_tool_use_;
  }

  void xml_assistant_text(std::string_view text, std::optional<int64_t> sub) {
    if (texts_) remember_embedded(text, *texts_);
    int64_t part = 0;
    for (const std::string& thought : transcript::thinking_blocks(text)) {
      Row r = assistant_row("reasoning", sub);
      r.position.part_index = part++;
      r.text = std::string(strip_one_newline(thought));
      remember(*r.text);
      emit(std::move(r));
    }
    auto call = transcript::first_xml_tool_call(text);
    // The prose is what is left without the thinking blocks and the call.
    std::string prose;
    {
      std::string_view rest = text;
      if (call) rest = text.substr(0, call->begin);
      for (size_t at = 0; at < rest.size();) {
        size_t open = rest.find("<thinking>", at);
        if (open == std::string_view::npos) {
          prose += rest.substr(at);
          break;
        }
        prose += rest.substr(at, open - at);
        size_t close = rest.find("</thinking>", open);
        at = close == std::string_view::npos ? rest.size() : close + 11;
      }
      if (call && call->end < text.size()) prose += text.substr(call->end);
    }
    if (!trim(prose).empty()) {
      Row r = assistant_row("assistant_message", sub);
      r.text = std::string(trim(prose));
      remember(*r.text);
      emit(std::move(r));
    }
    if (!call) return;
    xml_call_taken_ = true;  // only the first call of a message counts (docs/row-contract.md "XML-era tool calls")
    LocalDocument local;  // no 64 KiB first chunk per call (json_records.h)
    rapidjson::Document& input = local.doc;
    if (!parse_json(call->input_json.data(), call->input_json.size(), input, nullptr) || !input.IsObject())
      input.SetObject();
    PendingCall pc;
    pc.tool_name = call->name;
    pc.rows = call_rows(call->name, input, call->input_json, sub, "xml");
    if (!call->closed)
      for (Row& r : pc.rows) r.set("call_closed", false);
    pending_.push_back(std::move(pc));
  }

  // ---- tool calls ----
  void tool_use(const rapidjson::Value& block, int64_t sub) {
    seen_tool_use_ = true;
    PendingCall pc;
    pc.tool_name = get_string(block, "name").value_or("");
    pc.tool_use_id = get_string(block, "id");
    static const rapidjson::Value kEmpty(rapidjson::kObjectType);
    const rapidjson::Value* input = member(block, "input");
    const rapidjson::Value& in = input && input->IsObject() ? *input : kEmpty;
    pc.rows = call_rows(pc.tool_name, in, input ? to_json_text(*input) : std::string("null"), sub, "native",
                        pc.tool_use_id);
    pending_.push_back(std::move(pc));
  }

  // The rows of one call: one command, one file_edit per file, one file_read per path, or one tool_call.
  std::vector<Row> call_rows(const std::string& name, const rapidjson::Value& input, const std::string& input_json,
                             std::optional<int64_t> sub, const char* format,
                             const std::optional<std::string>& tool_use_id = std::nullopt) {
    std::vector<Row> rows;
    auto make = [&](const char* kind) -> Row& {
      Row r = assistant_row(kind, sub);
      r.set("tool_name", name).set_opt("tool_use_id", tool_use_id).set("call_format", std::string(format));
      rows.push_back(std::move(r));
      return rows.back();
    };
    const auto& workspace = ctx_.identity ? ctx_.identity->project_path : std::nullopt;
    auto set_path = [&](Row& r, const std::optional<std::string>& path) {
      if (!path) return;
      r.set("file_path", *path).set_opt("file_path_resolved", resolve_task_path(*path, workspace));
    };
    if (name == "execute_command") {
      Row& r = make("command");
      auto command = get_string(input, "command");
      r.text = command;
      r.set_opt("command", command).set_opt("cwd", get_string(input, "cwd"));
      if (auto t = get_int(input, "timeout")) r.set("timeout_seconds", *t);
      if (command) remember(*command, ConversationTexts::Kind::command);
    } else if (auto edits = tools::file_edits(name, input); !edits.empty()) {
      for (size_t i = 0; i < edits.size(); ++i) {
        Row& r = make("file_edit");
        if (edits.size() > 1) r.position.part_index = static_cast<int64_t>(i);
        edit_fields(r, edits[i]);
        set_path(r, edits[i].path);
        r.text = edits[i].path;
      }
    } else if (auto reads = tools::file_reads(name, input); !reads.empty()) {
      for (size_t i = 0; i < reads.size(); ++i) {
        Row& r = make("file_read");
        if (reads.size() > 1) r.position.part_index = static_cast<int64_t>(i);
        r.text = reads[i].path;
        set_path(r, reads[i].path);
        r.set_opt("line_ranges", reads[i].line_ranges)
            .set_opt("read_mode", reads[i].mode)
            .set_opt("read_offset", reads[i].offset)
            .set_opt("read_limit", reads[i].limit);
      }
    } else {
      Row& r = make("tool_call");
      r.text = input_json;
      tool_fields(r, name, input, set_path);
    }
    for (Row& r : rows) r.set("tool_input", RawJson{input_json});
    return rows;
  }

  static void edit_fields(Row& r, const tools::FileEdit& e) {
    r.set("edit_form", e.form);
    std::string hunks = "[";
    for (const tools::EditHunk& h : e.hunks) {
      rapidjson::Document o(rapidjson::kObjectType);
      auto& a = o.GetAllocator();
      auto side = [&](const char* text_key, const char* sha_key, const std::optional<std::string>& v) {
        if (!v) return;
        o.AddMember(rapidjson::StringRef(text_key), rapidjson::Value(v->data(), v->size(), a), a);
        std::string sha = sha256_hex(*v);
        o.AddMember(rapidjson::StringRef(sha_key), rapidjson::Value(sha.data(), sha.size(), a), a);
      };
      side("old_text", "old_sha256", h.old_text);
      side("new_text", "new_sha256", h.new_text);
      if (h.start_line) o.AddMember("start_line", rapidjson::Value(*h.start_line), a);
      if (hunks.size() > 1) hunks += ',';
      hunks += to_json_text(o);
    }
    hunks += ']';
    // The sides are written once, in hunks: the input (tool_input) already holds them a second time.
    r.set("hunks", RawJson{std::move(hunks)}).set("hunk_count", static_cast<int64_t>(e.hunks.size()));
    r.set_opt("replace_all", e.replace_all)
        .set_opt("expected_replacements", e.expected_replacements)
        .set_opt("move_to", e.move_to);
    if (e.unterminated_blocks > 0) r.set("unterminated_blocks", e.unterminated_blocks);
  }

  template <typename SetPath>
  void tool_fields(Row& r, const std::string& name, const rapidjson::Value& in, SetPath& set_path) {
    auto str = [&](const char* key) { return get_string(in, key); };
    if (auto mcp = tools::split_mcp_tool_name(name)) {
      r.set("mcp_server", mcp->server).set("mcp_tool", mcp->tool);
    } else if (name == "use_mcp_tool") {
      r.set_opt("mcp_server", str("server_name")).set_opt("mcp_tool", str("tool_name"));
    } else if (name == "access_mcp_resource") {
      r.set_opt("mcp_server", str("server_name")).set_opt("mcp_uri", str("uri"));
    } else if (name == "ask_followup_question") {
      r.set_opt("question", str("question"));
      if (auto q = str("question")) remember(*q, ConversationTexts::Kind::question);
      if (const rapidjson::Value* fu = member(in, "follow_up"); fu && fu->IsArray()) {
        rapidjson::Document list(rapidjson::kArrayType);
        for (const auto& s : fu->GetArray()) {
          auto t = s.IsString() ? std::optional<std::string>(s.GetString()) : get_string(s, "text");
          if (t) list.PushBack(rapidjson::Value(t->data(), t->size(), list.GetAllocator()), list.GetAllocator());
        }
        r.set("suggestions", RawJson{to_json_text(list)});
      }
    } else if (name == "attempt_completion") {
      if (auto result = str("result")) {
        remember(*result);
        r.set("completion_result", *result);
      }
    } else if (name == "new_task") {
      r.set_opt("mode", str("mode")).set_opt("task_message", str("message")).set_opt("todos", str("todos"));
    } else if (name == "switch_mode") {
      r.set_opt("mode", str("mode_slug")).set_opt("reason", str("reason"));
    } else if (name == "update_todo_list") {
      r.set_opt("todos", str("todos"));
    } else if (name == "list_files" || name == "search_files" || name == "codebase_search" ||
               name == "list_code_definition_names") {
      set_path(r, str("path"));
      if (auto rec = get_bool(in, "recursive")) r.set("recursive", *rec);
      if (auto rec = str("recursive")) r.set("recursive", *rec == "true");  // XML parameters are strings
      r.set_opt("regex", str("regex")).set_opt("file_pattern", str("file_pattern")).set_opt("query", str("query"));
    } else if (name == "skill") {
      r.set_opt("skill", str("skill"));
    } else if (name == "run_slash_command") {
      r.set_opt("slash_command", str("command"));
    } else if (name == "generate_image") {
      r.set_opt("prompt", str("prompt"));
      set_path(r, str("path"));
    } else if (name == "browser_action") {
      r.set_opt("browser_action", str("action")).set_opt("url", str("url"));
    }
  }

  // ---- results ----
  void tool_result(const rapidjson::Value& block, int64_t sub) {
    finish_xml_result();
    auto id = get_string(block, "tool_use_id");
    auto is_error = get_bool(block, "is_error");
    // A string content is read where the document holds it: a long result is then in memory twice (the document
    // and the row), not four times. A block list is joined into a string of its own.
    const rapidjson::Value* content = member(block, "content");
    const bool in_document = content && content->IsString();
    // v3.46.0+: a reply typed into the result (<user_message>) is followed by its file and folder mentions as parts
    // of their own (processUserContentMentions, src/core/mentions/processUserContentMentions.ts v3.52.1).
    std::vector<transcript::Mention> file_blocks;
    if (content && content->IsArray() && !content->GetArray().Empty()) {
      auto first = get_string(content->GetArray()[0], "text");
      if (first && first->find("<user_message>") != std::string::npos)
        file_blocks = file_mention_blocks(content->GetArray(), 1);
    }
    // The result's text without them; they become rows of their own (answer).
    const std::optional<std::string> joined =
        in_document ? std::nullopt : result_text(content, file_blocks.empty() ? 0 : 1, file_blocks.size());
    std::optional<std::string_view> text;
    if (in_document)
      text.emplace(content->GetString(), content->GetStringLength());
    else if (joined)
      text.emplace(*joined);
    Row r = base("tool_result", sub, "tool", text ? std::optional<std::string>(*text) : std::nullopt);
    r.set_opt("tool_use_id", id);
    std::optional<PendingCall> call = take_pending(id);
    if (call) r.set("tool_name", call->tool_name);
    r.set_opt("is_error", is_error).set("result_format", std::string("native"));
    answer(std::move(call), std::move(r), text.value_or(std::string_view()), is_error, sub, file_blocks);
  }

  // The XML-era result started by a "[tool] Result:" block ends at the next header, <environment_details>, or
  // the end of its message.
  void finish_xml_result() {
    if (!xml_result_) return;
    Row r = std::move(*xml_result_);
    xml_result_.reset();
    std::string text = r.text.value_or("");
    const std::optional<int64_t> sub = r.position.sub_index;
    std::optional<PendingCall> call;
    if (!pending_.empty() && !pending_.front().tool_use_id) {  // the message's one XML call
      call = std::move(pending_.front());
      pending_.erase(pending_.begin());
    }
    answer(std::move(call), std::move(r), text, std::nullopt, sub);
  }

  std::optional<PendingCall> take_pending(const std::optional<std::string>& id) {
    if (!id) return std::nullopt;
    for (auto it = pending_.begin(); it != pending_.end(); ++it) {
      if (it->tool_use_id == id) {
        PendingCall pc = std::move(*it);
        pending_.erase(it);
        return pc;
      }
    }
    return std::nullopt;
  }

  // Writes a call joined to its result, then the result, then what the result says the user decided or typed.
  void answer(std::optional<PendingCall> call, Row result, std::string_view text, std::optional<bool> is_error,
              std::optional<int64_t> sub, const std::vector<transcript::Mention>& file_blocks = {}) {
    // A reply typed into the result with Roo's expansion of its @mentions after it (docs/row-contract.md
    // "Mentions"): the result and the reply are read without the expansion, which becomes rows of its own at the end.
    std::optional<transcript::MentionSplit> expansion = transcript::split_reply_mentions(text, file_blocks);
    if (expansion) {
      text = text.substr(0, expansion->words_end);
      result.text = std::string(text);
      expansion->mentions.insert(expansion->mentions.end(), file_blocks.begin(), file_blocks.end());
    }
    auto typed = [&](std::string words) {
      return expansion ? transcript::typed_words(words, file_blocks) : words;
    };
    const std::string* format_named = result.string_field("result_format");
    ResultReading read(text, format_named && *format_named == "native");
    if (expansion && read.xml && read.xml->feedback) read.xml->feedback = typed(*read.xml->feedback);
    const auto& status = read.status;
    const auto& xml_decision = read.xml;
    if (status) {
      result.set("result_status", status->status)
          .set_opt("error_type", status->type)
          .set_opt("feedback", status->feedback)
          .set_opt("message", status->message)
          .set_opt("error", status->error)
          .set_opt("blocked_path", status->path);
    } else if (xml_decision) {
      result.set("result_status", xml_decision->status)
          .set_opt("feedback", xml_decision->feedback)
          .set_opt("error", xml_decision->error);
    }
    if (read.skipped) result.set("skipped", read.skipped->reason);
    if (read.failure) result.set("failure_form", std::string(*read.failure));
    set_roo_text(result, read.roo.most_specific());
    if (texts_) {
      texts_->add(unwrapped_user_text(text));  // feedback typed after a completion (§11 item 5)
      if (status && status->feedback) texts_->add(*status->feedback);
      remember_tagged(text, *texts_);
    }
    std::optional<std::string> subtask_id;
    if ((subtask_id = transcript::completed_subtask_id(text))) result.set_opt("subtask_id", subtask_id);

    std::string tool_name = call ? call->tool_name : std::string();
    if (const std::string* named = result.string_field("tool_name"); named && tool_name.empty())
      tool_name = *named;  // an XML-era result names its tool in its header
    const std::string* format = result.string_field("result_format");
    const bool xml_result = format && *format == "xml";
    if (call) {
      const std::string outcome = call_outcome(read, is_error);
      // An approval with feedback puts the tool's own output after the JSON (§3.4).
      const std::string_view own_output = status && status->status == "approved" ? std::string_view(status->rest) : text;
      for (Row& r : call->rows) {
        r.set("result_recorded", true).set("outcome", outcome);
        if (result.time_ms && is_js_time(*result.time_ms)) r.set("result_time_utc", iso_from_ms(*result.time_ms));
        if (r.kind == "command") command_join(r, own_output);
        if (r.kind == "file_edit") edit_join(r, own_output);
        emit(std::move(r));
      }
    }
    std::optional<int64_t> decision_time = result.time_ms;
    std::optional<std::string> result_id;
    if (const std::string* id = result.string_field("tool_use_id")) result_id = *id;
    emit(std::move(result));
    if (subtask_id) subtask_completed(*subtask_id, sub);

    // docs/row-contract.md "Permission rows": "permission decision: <status>" plus " feedback=<feedback>".
    std::optional<std::string> decision, feedback;
    if (status && (status->status == "denied" || status->status == "approved")) {
      decision = status->status;
      feedback = status->feedback;
    } else if (xml_decision && (xml_decision->status == "denied" || xml_decision->status == "approved")) {
      decision = xml_decision->status;
      feedback = xml_decision->feedback;
    }
    if (decision) {
      Row d = base("permission_decision", sub);
      d.role = "system";
      d.time_ms = decision_time;
      d.text = "permission decision: " + *decision + (feedback ? " feedback=" + *feedback : "");
      d.set("decision", *decision).set_opt("feedback", feedback).set_opt("tool_use_id", result_id);
      if (!tool_name.empty()) d.set("tool_name", tool_name);
      d.set("evidence", std::string(status ? "api.tool_result_status" : "api.xml_decision_text"));
      emit(std::move(d));
      // Words typed on an approval or a denial stay the person's (docs/row-contract.md "Permission rows"): a
      // user_message row right after the decision, linked to it by the decision and the call's id and tool. Roo
      // says them as say("user_feedback") before it writes the result (askApproval in src/core/Cline.ts v3.3.26 and
      // src/core/assistant-message/presentAssistantMessage.ts v3.52.1), so that ui record folds into this row and
      // times it.
      if (feedback) {
        Row words = user_row(sub, *feedback);
        words.set("feedback_on_decision", *decision).set_opt("tool_use_id", result_id);
        if (!tool_name.empty()) words.set("tool_name", tool_name);
        emit(std::move(words));
      }
    } else if (!xml_result) {
      if (starts_with(trim(text), "<user_message>"))
        user_words(std::vector<std::string>{typed(unwrap_user_text(text))}, sub);
    } else if (tool_name == "ask_followup_question" || tool_name == "attempt_completion") {
      // XML era: the answer and the completion feedback come as <answer>/<feedback> blocks (§4). Only these two
      // tools' results are searched: any other result may quote such tags from a file or a command's output.
      std::vector<std::string> words;
      for (auto [open, close] : {std::pair<std::string_view, std::string_view>{"<answer>", "</answer>"},
                                 {"<feedback>", "</feedback>"}})
        for (std::string_view body : tagged_blocks(text, open, close))
          words.emplace_back(typed(std::string(strip_one_newline(body))));
      user_words(std::move(words), sub);
    }
    if (expansion) mention_rows(expansion->mentions, sub);
  }

  // Follow-up answers and attempt_completion feedback stay the user's (docs/row-contract.md "XML-era tool calls").
  void user_words(std::vector<std::string> words, std::optional<int64_t> sub) {
    int64_t part = 0;
    const bool parts = words.size() > 1;
    for (std::string& w : words) {
      Row r = user_row(sub, std::move(w));
      if (parts) r.position.part_index = part++;
      emit(std::move(r));
    }
  }

  static void command_join(Row& r, std::string_view text) {
    auto out = tools::parse_command_result(text);
    if (!out) return;
    if (!r.field("cwd")) r.set_opt("cwd", out->cwd);
    r.set("command_status", out->status)
        .set_opt("exit_code", out->exit_code)
        .set_opt("signal", out->signal)
        .set_opt("output_artifact", out->artifact_id)
        .set_opt("output_persisted_size", out->persisted_size)
        .set_opt("command_timeout_seconds", out->timeout_seconds)
        .set_opt("user_message", out->user_message);
    if (out->core_dump_possible) r.set("core_dump_possible", true);
  }

  static void edit_join(Row& r, std::string_view text) {
    auto res = tools::parse_edit_result(text);
    if (!res) return;
    // The result names the file it speaks of; a patch's other files are not described by it.
    if (const std::string* path = r.string_field("file_path"); path && res->path && *path != *res->path) return;
    r.set_opt("edit_operation", res->operation).set_opt("user_edits", res->user_edits).set_opt("problems", res->problems);
  }

  // Calls this user message does not answer are written before its rows (docs/row-contract.md "Order"): a
  // native call is answered by a tool_result with its id, the XML era's one call by a "[tool] Result:" block.
  void flush_unanswered_by(const rapidjson::Value& msg) {
    if (pending_.empty()) return;
    std::set<std::string> answered_ids;
    bool xml_answered = false;
    if (const rapidjson::Value* content = member(msg, "content"); content && content->IsArray()) {
      for (const auto& block : content->GetArray()) {
        if (auto id = get_string(block, "tool_use_id")) answered_ids.insert(*id);
        if (auto t = get_string(block, "text"))
          xml_answered = xml_answered || transcript::classify_user_text(*t).kind == UserTextKind::xml_tool_result;
      }
    }
    std::vector<PendingCall> still;
    for (PendingCall& pc : pending_) {
      const bool answered = pc.tool_use_id ? answered_ids.count(*pc.tool_use_id) > 0 : xml_answered;
      if (answered) {
        still.push_back(std::move(pc));
        continue;
      }
      for (Row& r : pc.rows) {
        r.set("result_recorded", false);
        emit(std::move(r));
      }
    }
    pending_ = std::move(still);
  }

  void flush_unanswered() {
    finish_xml_result();
    for (PendingCall& pc : pending_)
      for (Row& r : pc.rows) {
        r.set("result_recorded", false);
        emit(std::move(r));
      }
    pending_.clear();
  }

  // ---- other blocks ----
  void subtask_completed(const std::string& child, std::optional<int64_t> sub) {
    Row link = base("subtask_link", sub, "system", "subtask link: completed_by_child " + child);
    link.set("relation", std::string("completed_by_child")).set("linked_session_id", child);
    const bool child_deleted = ctx_.deleted_task_dirs && ctx_.deleted_task_dirs->count(child) > 0;
    if (ctx_.task_dirs) link.set("linked_task_dir_present", ctx_.task_dirs->count(child) > 0 && !child_deleted);
    if (child_deleted) link.set("linked_task_dir_deleted", true);
    link.set("known_from", std::string("new_task_result"));
    emit(std::move(link));
  }

  void condense_summary(const rapidjson::Value* content) {
    Row r = base("condense_summary", std::nullopt, "system", content ? result_text(content) : std::nullopt);
    r.set_opt("condense_id", get_string(rec_->doc, "condenseId"));
    if (r.text) remember(*r.text);
    emit(std::move(r));
  }

  void reasoning(const rapidjson::Value& block, std::optional<int64_t> sub) {
    Row r = assistant_row("reasoning", sub);
    r.text = reasoning_text(block);
    if (r.text) remember(*r.text);
    if (member(block, "encrypted_content") && !r.text) r.set("encrypted", true);
    emit(std::move(r));
  }

  HashingStream& in_;
  const ParseContext& ctx_;
  ConversationTexts* texts_;
  const JsonRecord* rec_ = nullptr;
  std::optional<int64_t> ts_;
  std::optional<std::string> condense_parent_, truncation_parent_;
  std::optional<std::string> model_;
  std::vector<PendingCall> pending_;
  std::optional<Row> xml_result_;
  bool xml_call_taken_ = false;
  bool seen_tool_use_ = false;
  std::optional<bool> rest_has_tool_use_;
  std::map<std::string, size_t> ui_words_used_;  // per text digest: how many of its ui records user rows took
};

}  // namespace

std::string unwrap_user_text(std::string_view text) { return std::string(unwrapped_user_text(text)); }

std::string_view unwrapped_user_text(std::string_view text) {
  std::string_view t = trim(text);
  for (auto [open, close] : {std::pair<std::string_view, std::string_view>{"<task>", "</task>"},
                             {"<user_message>", "</user_message>"}}) {
    if (starts_with(t, open) && t.size() >= open.size() + close.size() &&
        t.substr(t.size() - close.size()) == close) {
      return strip_one_newline(t.substr(open.size(), t.size() - open.size() - close.size()));
    }
  }
  return text;
}

ParseStats parse_api_history(HashingStream& in, const ParseContext& ctx, ConversationTexts* texts) {
  ApiHistoryParser parser(in, ctx, texts);
  ParseStats stats = for_each_object_record(
      in, ctx, [&](const JsonRecord& rec) { parser.record(rec); }, [&] { parser.end(); });
  stats.first_ts = parser.first_ts;
  return stats;
}

bool api_history_first_record_timed(HashingStream& in) {
  JsonArrayReader reader(in);
  JsonRecord rec;
  for (;;) {
    const JsonArrayReader::Status st = reader.next(rec);
    if (st == JsonArrayReader::Status::trailing || st == JsonArrayReader::Status::junk) continue;
    if (st != JsonArrayReader::Status::record) return false;
    if (!rec.parse_error.empty() || !rec.doc.IsObject()) continue;  // the first record that can say
    const std::optional<int64_t> ts = get_int(rec.doc, "ts");
    return ts && is_js_time(*ts);
  }
}

std::optional<std::string> api_history_first_workspace_dir(HashingStream& in) {
  JsonArrayReader reader(in);
  JsonRecord rec;
  auto from_text = [](std::string_view text) -> std::optional<std::string> {
    auto env = transcript::parse_environment_details(text);
    return env ? env->workspace_dir : std::nullopt;
  };
  for (;;) {
    const JsonArrayReader::Status st = reader.next(rec);
    if (st == JsonArrayReader::Status::trailing || st == JsonArrayReader::Status::junk) continue;
    if (st != JsonArrayReader::Status::record) return std::nullopt;
    if (!rec.parse_error.empty() || !rec.doc.IsObject()) continue;
    if (get_string(rec.doc, "role") != std::optional<std::string>("user")) continue;
    const rapidjson::Value* content = member(rec.doc, "content");
    if (!content) continue;
    if (content->IsString()) {
      if (auto dir = from_text(std::string_view(content->GetString(), content->GetStringLength()))) return dir;
    } else if (content->IsArray()) {
      for (const auto& block : content->GetArray())
        if (const rapidjson::Value* t = member(block, "text"); t && t->IsString())
          if (auto dir = from_text(std::string_view(t->GetString(), t->GetStringLength()))) return dir;
    }
  }
}

// Texts are compared trimmed: the ui's prose may start with "\n" where the api's does not (§11 item 4). Digests
// keep memory small for long texts; sha256 makes a false fold (a lost row) practically impossible.
void ConversationTexts::add(std::string_view text, Kind kind) {
  digests_.insert(static_cast<char>(kind) + sha256_hex(trim(text)));
}
bool ConversationTexts::contains(std::string_view text, Kind kind) const {
  return digests_.count(static_cast<char>(kind) + sha256_hex(trim(text))) > 0;
}

}  // namespace roo
