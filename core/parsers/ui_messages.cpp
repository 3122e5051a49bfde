// ui_messages.json: ClineMessage[] (docs/roo-format.md §2.3). The UI-only facts (API requests with usage, approval
// asks, checkpoints, errors, condensations …) come from here; its conversation records, command lines and
// questions are the api history's facts again and are folded when the api history holds them.
#include <rapidjson/document.h>

#include "core/parsers/parsers.h"
#include "core/parsers/transcript_text.h"
#include "core/sha256.h"
#include "core/text_util.h"

namespace roo {

namespace {

using Kind = ConversationTexts::Kind;

// ClineApiReqInfo inside say:"api_req_started" text (docs/roo-format.md §2.3). Only recorded values are set.
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

// The ui records that are typed rows of their own, by record type and ask/say name (docs/row-contract.md "Typed ui
// rows"). The names are @roo-code/types 1.115.0 clineAsks/clineSays (packages/types/src/message.ts in
// RooCodeInc/Roo-Code v3.52.1) and the older names of v3.15.0, v3.20.0, v3.30.0 there; the records the dispatch in
// record() reads first (the conversation, api_req_started, approval asks, followup, command_output, checkpoints,
// condensations, truncations, user_feedback_diff) are not here. Any other name stays a ui_event. The tools named
// below are src/core/tools/ at v3.52.1 (BrowserActionTool.ts at v3.47.0, its last release).
struct NamedUiKind {
  const char* type;  // "ask" or "say"
  const char* name;
  const char* kind;
  const char* role;  // nullptr: null
};
const NamedUiKind* named_ui_kind(bool is_ask, const std::string& name) {
  static const NamedUiKind kTable[] = {
      {"say", "error", "ui_error", nullptr},
      {"say", "diff_error", "ui_error", nullptr},
      {"say", "rooignore_error", "ui_error", nullptr},
      {"say", "condense_context_error", "ui_error", nullptr},
      {"ask", "api_req_failed", "ui_error", nullptr},
      {"ask", "mistake_limit_reached", "ui_error", nullptr},
      {"ask", "auto_approval_max_req_reached", "ui_error", nullptr},
      {"say", "too_many_tools_warning", "ui_warning", nullptr},
      {"say", "shell_integration_warning", "ui_warning", nullptr},
      {"say", "api_req_retried", "api_retry", nullptr},
      {"say", "api_req_retry_delayed", "api_retry", nullptr},
      {"say", "api_req_rate_limit_wait", "api_retry", nullptr},
      {"say", "api_req_deleted", "api_retry", nullptr},
      {"say", "api_req_finished", "api_retry", nullptr},
      {"ask", "resume_task", "task_resumed", "system"},
      {"ask", "resume_completed_task", "task_resumed", "system"},
      {"say", "subtask_result", "subtask_result", "system"},
      // attempt_completion's empty ask after its result: Roo waiting for the user's answer (AttemptCompletionTool.ts).
      {"ask", "completion_result", "completion_prompt", "system"},
      // use_mcp_tool / access_mcp_resource: the request went out, then the server's answer (UseMcpToolTool.ts).
      {"say", "mcp_server_request_started", "mcp_request", nullptr},
      {"say", "mcp_server_response", "mcp_response", "tool"},
      {"say", "codebase_search_result", "codebase_search_result", "tool"},  // CodebaseSearchTool.ts
      {"say", "user_edit_todos", "todo_edit", "user"},  // the user's edit of the todo list (UpdateTodoListTool.ts)
      {"say", "image", "ui_image", "tool"},             // generate_image's image (GenerateImageTool.ts)
      {"say", "tool", "ui_tool", nullptr},              // a tool shown without an ask (ReadCommandOutputTool.ts)
      // browser_action, until v3.47 (BrowserActionTool.ts): the launch ask, each action, its result.
      {"ask", "browser_action_launch", "browser_action", nullptr},
      {"say", "browser_action", "browser_action", nullptr},
      {"say", "browser_action_result", "browser_result", "tool"},
      {"say", "browser_session_status", "browser_action", nullptr},
  };
  const char* type = is_ask ? "ask" : "say";
  for (const NamedUiKind& k : kTable)
    if (name == k.name && std::string_view(type) == k.type) return &k;
  return nullptr;
}

// A record's text parsed as the JSON object several kinds carry (ClineSayTool, followup, MCP ask …).
bool text_object(const std::optional<std::string>& text, rapidjson::Document& doc) {
  return text && parse_json(text->data(), text->size(), doc, nullptr) && doc.IsObject();
}

// Where the JSON texts records embed are built, one at a time: a Document of its own takes a 64 KiB first chunk
// from the heap per text whatever the text's size (RapidJSON's default), and gives it back after. Emptied before
// each text (the previous text's DOM is no longer used by then); a text whose DOM outgrows the buffer takes chunks
// from the heap, given back at the next text, as JsonRecord's pool does (core/json_records.h).
class TextPool {
 public:
  TextPool() : allocator_(buffer_, sizeof buffer_) {}
  TextPool(const TextPool&) = delete;
  TextPool& operator=(const TextPool&) = delete;
  rapidjson::MemoryPoolAllocator<>* take() {
    allocator_.Clear();
    return &allocator_;
  }

 private:
  alignas(8) char buffer_[8192];
  rapidjson::MemoryPoolAllocator<> allocator_;
};

// The rows from an api_req_started that has no cost and no cancelReason on: Roo sets one of them when the request's
// stream ends or is cancelled (updateApiReqMsg, src/core/task/Task.ts v3.52.1:2690-2750), and on reopening a task
// deletes the last api_req_started that has neither as a request that never finished (resumeTaskFromHistory,
// Task.ts v3.52.1:2024-2041). Such a request is unfinished when no api_req_started or api_req_finished follows it
// before the file ends (docs/row-contract.md "Unfinished API requests"); its row and the rows after it are held
// until that is known, at most kHeldRows rows and kHeldTextBytes of their texts, then let go unmarked.
class HeldRows : public RowSink {
 public:
  static constexpr size_t kHeldRows = 256;
  static constexpr size_t kHeldTextBytes = size_t{4} << 20;

  explicit HeldRows(RowSink& out) : out_(out) {}
  // The next row (an unpriced api_request) and those after it are held.
  void hold() {
    release(false);
    holding_ = true;
  }
  // Lets the held rows go, the first marked unfinished when asked.
  void release(bool unfinished) {
    if (unfinished && !held_.empty()) held_.front().set("unfinished", true);
    for (Row& r : held_) out_.emit(std::move(r));
    held_.clear();
    held_text_ = 0;
    holding_ = false;
  }
  void emit(const Row& row) override {
    if (!holding_) return out_.emit(row);  // a copy only for a row that is held
    Row copy = row;
    take(std::move(copy));
  }
  void take(Row&& row) override {
    if (!holding_) return out_.emit(std::move(row));
    held_text_ += row.text ? row.text->size() : 0;
    held_.push_back(std::move(row));
    if (held_.size() > kHeldRows || held_text_ > kHeldTextBytes) release(false);
  }
  void end_source(const std::string& sha) override {
    release(false);
    out_.end_source(sha);
  }

 private:
  RowSink& out_;
  std::vector<Row> held_;
  size_t held_text_ = 0;
  bool holding_ = false;
};

class UiMessagesParser {
 public:
  UiMessagesParser(const ParseContext& ctx, const ConversationTexts* api_texts, HeldRows& held)
      : ctx_(ctx), api_(api_texts), held_(held) {}

  void record(const JsonRecord& rec) {
    const rapidjson::Value& m = rec.doc;
    rec_ = &rec;
    ts_ = get_int(m, "ts");
    if (ts_ && is_js_time(*ts_) && !first_ts) first_ts = ts_;  // the first time: a number out of range is none
    auto type = get_string(m, "type");
    auto say = get_string(m, "say");
    auto ask = get_string(m, "ask");
    text_ = get_string(m, "text");
    partial_ = get_bool(m, "partial") == std::optional<bool>(true);
    const bool is_say = type == std::optional<std::string>("say");
    const bool is_ask = type == std::optional<std::string>("ask");
    const std::string kind = is_say && say ? *say : is_ask && ask ? *ask : std::string();

    if (is_say && (kind == "api_req_started" || kind == "api_req_finished")) held_.release(false);
    if (is_say && kind == "api_req_started") return api_request();
    if (is_say && is_conversation_say(kind)) return conversation(kind, m);
    if (is_ask && (kind == "tool" || kind == "command" || kind == "use_mcp_server")) return approval_ask(kind, m);
    if (is_ask && kind == "followup") return followup(m);
    if (kind == "command_output") return command_output(kind, *type);
    if (is_say && kind == "checkpoint_saved") return checkpoint(m);
    if (is_say && kind == "condense_context") return condense(m);
    if (is_say && kind == "sliding_window_truncation") return truncation(m);
    if (is_say && kind == "user_feedback_diff") return user_edit();
    if (const NamedUiKind* named = (is_ask || is_say) ? named_ui_kind(is_ask, kind) : nullptr) return typed(*named);
    // Every other record is kept as a ui_event with its kind; nothing is dropped.
    Row r = row("ui_event");
    r.text = text_;
    r.set_opt("ui_type", type).set_opt("ui_kind", say ? say : ask);
    emit(std::move(r));
  }

  std::optional<int64_t> first_ts;
  int64_t folded = 0, errors = 0;

 private:
  Row row(const char* kind) {
    Row r = ctx_.row(kind, rec_);
    if (ts_) {
      r.time_ms = ts_;
      r.time_source = "ui.ts";
    }
    return r;
  }
  void emit(Row&& r) {
    if (partial_) r.set("partial", true);
    ctx_.sink->emit(std::move(r));
  }
  bool api_holds(const std::optional<std::string>& text, Kind kind) const {
    return api_ && text && api_->contains(*text, kind);
  }
  void set_path(Row& r, const std::optional<std::string>& path) {
    if (!path) return;
    r.set("file_path", *path)
        .set_opt("file_path_resolved",
                 resolve_task_path(*path, ctx_.identity ? ctx_.identity->project_path : std::nullopt));
  }

  void api_request() {
    Row r = row("api_request");
    r.text = text_;
    if (text_) {
      rapidjson::Document info(texts_.take());
      if (!text_object(text_, info)) {
        ++errors;
        ctx_.error("parser: unparseable record " + std::to_string(rec_->index + 1) +
                       " (api_req_started text is not a JSON object): " + text_->substr(0, kRawEchoLimit),
                   rec_);
      } else {
        add_usage(r, info);
        if (!member(info, "cost") && !member(info, "cancelReason")) held_.hold();
      }
    }
    emit(std::move(r));
  }

  void conversation(const std::string& say, const rapidjson::Value& m) {
    const bool first_text = say == "text" && !seen_first_text_;
    if (say == "text") seen_first_text_ = true;
    std::optional<std::string> said = say == "reasoning" ? get_string(m, "reasoning") : std::nullopt;
    if (!said) said = std::move(text_);  // this record's, read no more: a long text is not copied again
    if (api_holds(said, Kind::text)) {
      ++folded;  // the same fact as an api row
      return;
    }
    const bool from_user = first_text || say == "user_feedback";
    Row r = row(say == "reasoning" ? "reasoning" : from_user ? "user_message" : "assistant_message");
    r.role = from_user ? "user" : "assistant";
    r.text = std::move(said);
    emit(std::move(r));
  }

  // docs/row-contract.md "Permission rows": an ask records a request; only isAnswered:true says it was approved.
  void approval_ask(const std::string& ask, const rapidjson::Value& m) {
    Row r = row("approval_request");
    r.text = text_;
    r.set("ui_kind", ask);
    std::string tool_name;
    rapidjson::Document info(texts_.take());
    if (ask == "command") {
      tool_name = "execute_command";
      r.set("tool_name", tool_name).set_opt("command", text_);
    } else if (text_object(text_, info)) {
      if (ask == "tool") {
        tool_name = get_string(info, "tool").value_or("");
        r.set_opt("tool_name", get_string(info, "tool"));
        set_path(r, get_string(info, "path"));
      } else {  // use_mcp_server: {serverName, type, toolName?, arguments?, uri?}
        tool_name = get_string(info, "type").value_or("");
        r.set_opt("tool_name", get_string(info, "type"))
            .set_opt("mcp_server", get_string(info, "serverName"))
            .set_opt("mcp_tool", get_string(info, "toolName"))
            .set_opt("mcp_uri", get_string(info, "uri"));
      }
    }
    auto answered = get_bool(m, "isAnswered");
    r.set_opt("is_answered", answered);
    if (get_bool(m, "isProtected") == std::optional<bool>(true)) r.set("is_protected", true);
    emit(std::move(r));

    if (answered == std::optional<bool>(true)) {
      Row d = row("permission_decision");
      d.role = "system";
      d.text = "permission decision: approved isAnswered=true";
      d.set("decision", std::string("approved"))
          .set("decided_by", std::string("user_or_auto"))
          .set_opt("tool_use_id", ts_ ? std::optional<std::string>(std::to_string(*ts_)) : std::nullopt);
      if (!tool_name.empty()) d.set("tool_name", tool_name);
      d.set("evidence", std::string("ui.isAnswered"));
      emit(std::move(d));
    }
    if (ask != "command") return;
    // The execution itself is the api history's command row; only a command the api lacks gets one from here.
    last_command_ts_ = ts_;
    last_command_in_api_ = api_holds(text_, Kind::command);
    if (last_command_in_api_) return;
    Row c = row("command");
    c.role = "assistant";
    c.text = text_;
    c.set("tool_name", std::string("execute_command"))
        .set("call_format", std::string("ui"))
        .set_opt("command", text_)
        .set("result_recorded", false);
    emit(std::move(c));
  }

  // ask:"followup" text = {"question", "suggest":[{"answer","mode"?}]} (AskFollowupQuestionTool.ts:42-49).
  void followup(const rapidjson::Value& m) {
    rapidjson::Document info(texts_.take());
    const bool parsed = text_object(text_, info);
    auto question = parsed ? get_string(info, "question") : text_;
    if (api_holds(question, Kind::question)) {
      ++folded;
      return;
    }
    Row r = row("followup_question");
    r.role = "assistant";
    r.text = question;
    r.set_opt("question", question);
    if (const rapidjson::Value* suggest = parsed ? member(info, "suggest") : nullptr; suggest && suggest->IsArray()) {
      // Built beside the text's DOM, in its pool (the text is parsed, or there is no suggest array).
      rapidjson::Value list(rapidjson::kArrayType);
      auto& allocator = info.GetAllocator();
      for (const auto& s : suggest->GetArray()) {
        auto t = s.IsString() ? std::optional<std::string>(s.GetString()) : get_string(s, "answer");
        if (t) list.PushBack(rapidjson::Value(t->data(), t->size(), allocator), allocator);
      }
      r.set("suggestions", RawJson{to_json_text(list)});
    }
    r.set_opt("is_answered", get_bool(m, "isAnswered"));
    emit(std::move(r));
  }

  // The output the ui shows under a command: the api history's result holds it when the command is there.
  void command_output(const std::string& kind, const std::string& type) {
    if (last_command_in_api_) {
      ++folded;
      return;
    }
    Row r = row("command_output");
    r.role = "tool";
    r.text = text_;
    r.set("ui_type", type).set("ui_kind", kind);
    if (last_command_ts_) r.set("execution_id", std::to_string(*last_command_ts_));
    emit(std::move(r));
  }

  void checkpoint(const rapidjson::Value& m) {
    Row r = row("checkpoint");
    r.text = text_;
    r.set_opt("commit_hash", text_);
    if (const rapidjson::Value* cp = member(m, "checkpoint"); cp && cp->IsObject())
      r.set_opt("checkpoint_from", get_string(*cp, "from")).set_opt("checkpoint_to", get_string(*cp, "to"));
    emit(std::move(r));
  }

  // contextCondense {cost, prevContextTokens, newContextTokens, summary, condenseId} (message.ts:203-209).
  void condense(const rapidjson::Value& m) {
    Row r = row("condense");
    r.role = "system";
    r.text = text_;
    if (const rapidjson::Value* c = member(m, "contextCondense"); c && c->IsObject()) {
      if (auto summary = get_string(*c, "summary")) r.text = summary;
      r.set_opt("prev_context_tokens", get_int(*c, "prevContextTokens"))
          .set_opt("new_context_tokens", get_int(*c, "newContextTokens"))
          .set_opt("cost_usd", get_number(*c, "cost"))
          .set_opt("condense_id", get_string(*c, "condenseId"));
    }
    emit(std::move(r));
  }

  // contextTruncation {truncationId, messagesRemoved, prevContextTokens, newContextTokens} (message.ts:228-233).
  void truncation(const rapidjson::Value& m) {
    Row r = row("context_truncation");
    r.role = "system";
    r.text = text_;
    if (const rapidjson::Value* c = member(m, "contextTruncation"); c && c->IsObject())
      r.set_opt("truncation_id", get_string(*c, "truncationId"))
          .set_opt("messages_removed", get_int(*c, "messagesRemoved"))
          .set_opt("prev_context_tokens", get_int(*c, "prevContextTokens"))
          .set_opt("new_context_tokens", get_int(*c, "newContextTokens"));
    emit(std::move(r));
  }

  // say:"user_feedback_diff": the user's own edit of a proposed change, as a ClineSayTool JSON with its diff.
  void user_edit() {
    Row r = row("user_edit");
    r.role = "user";
    r.text = text_;
    rapidjson::Document info(texts_.take());
    if (text_object(text_, info)) {
      set_path(r, get_string(info, "path"));
      r.set_opt("diff", get_string(info, "diff"));
    }
    emit(std::move(r));
  }

  void typed(const NamedUiKind& named) {
    Row r = row(named.kind);
    if (named.role) r.role = named.role;
    r.text = text_;
    r.set("ui_kind", std::string(named.name));
    rapidjson::Document info(texts_.take());
    const std::string_view kind = named.kind;
    if (!text_object(text_, info)) {
      if (kind == "browser_action" && std::string_view(named.type) == "ask") r.set_opt("url", text_);
    } else if (kind == "ui_warning") {  // too_many_tools_warning {toolCount, serverCount, threshold}
      r.set_opt("tool_count", get_int(info, "toolCount"))
          .set_opt("server_count", get_int(info, "serverCount"))
          .set_opt("threshold", get_int(info, "threshold"));
    } else if (kind == "ui_tool") {  // a ClineSayTool
      r.set_opt("tool_name", get_string(info, "tool"));
      set_path(r, get_string(info, "path"));
    } else if (kind == "ui_image") {  // {imageUri, imagePath}
      set_path(r, get_string(info, "imagePath"));
    } else if (kind == "codebase_search_result") {  // {tool, content: {query, results[]}}
      if (const rapidjson::Value* c = member(info, "content"); c && c->IsObject()) {
        r.set_opt("query", get_string(*c, "query"));
        if (const rapidjson::Value* res = member(*c, "results"); res && res->IsArray())
          r.set("result_count", static_cast<int64_t>(res->Size()));
      }
    } else if (kind == "browser_action") {  // ClineSayBrowserAction {action, coordinate?, text?}
      r.set_opt("browser_action", get_string(info, "action"));
    }
    emit(std::move(r));
  }

  const ParseContext& ctx_;
  const ConversationTexts* api_;
  HeldRows& held_;
  TextPool texts_;  // the embedded texts' DOMs
  const JsonRecord* rec_ = nullptr;
  std::optional<int64_t> ts_;
  std::optional<std::string> text_;
  bool partial_ = false;
  bool seen_first_text_ = false;
  std::optional<int64_t> last_command_ts_;
  bool last_command_in_api_ = false;
};

}  // namespace

ParseStats parse_ui_messages(HashingStream& in, const ParseContext& ctx, const ConversationTexts* api_texts) {
  // Every row of the file, the framing's parser_error rows too, goes through the hold, so the rows stay in order.
  HeldRows held(*ctx.sink);
  ParseContext held_ctx = ctx;
  held_ctx.sink = &held;
  UiMessagesParser parser(held_ctx, api_texts, held);
  ParseStats stats = for_each_object_record(in, held_ctx, [&](const JsonRecord& rec) { parser.record(rec); });
  held.release(true);
  stats.folded += parser.folded;
  stats.errors += parser.errors;
  stats.first_ts = parser.first_ts;
  return stats;
}

UiTurnTimes read_ui_turn_times(HashingStream& in) {
  UiTurnTimes out;
  JsonArrayReader reader(in);
  JsonRecord rec;
  bool seen_first_text = false;
  for (;;) {
    const JsonArrayReader::Status st = reader.next(rec);
    if (st == JsonArrayReader::Status::trailing || st == JsonArrayReader::Status::junk) continue;
    if (st != JsonArrayReader::Status::record) break;
    if (!rec.parse_error.empty() || !rec.doc.IsObject()) continue;
    const std::optional<int64_t> ts = get_int(rec.doc, "ts");
    // The user's words: the first say:"text" and every say:"user_feedback", as the ui parser reads them.
    const std::optional<std::string> say =
        get_string(rec.doc, "type") == std::optional<std::string>("say") ? get_string(rec.doc, "say") : std::nullopt;
    const bool first_text = say == std::optional<std::string>("text") && !seen_first_text;
    if (say == std::optional<std::string>("text")) seen_first_text = true;
    if (!ts || !is_js_time(*ts)) continue;
    const UiTurnTimes::Mark mark{*ts, rec.index, {}};
    if (first_text || say == std::optional<std::string>("user_feedback"))
      if (auto text = get_string(rec.doc, "text")) {
        out.user_words[sha256_hex(trim(*text))].push_back(mark);
        if (auto sent = transcript::url_mentions_as_sent(*text)) {
          UiTurnTimes::Mark as_sent = mark;
          as_sent.typed = std::move(*text);
          out.user_words[sha256_hex(trim(*sent))].push_back(std::move(as_sent));
        }
      }
    if (auto h = get_int(rec.doc, "conversationHistoryIndex")) out.by_history_index.emplace(*h, mark);
    if (get_string(rec.doc, "say") == std::optional<std::string>("api_req_started")) {
      out.request_starts.push_back(mark);
      out.replies.emplace_back();
    } else if (!out.replies.empty() && !out.replies.back()) {
      out.replies.back() = mark;
    }
  }
  return out;
}

}  // namespace roo
