// The workspace state (the CLI's workspace-state.json, or a VS Code state.vscdb row): the Roo Code Cloud retry
// queue (store_parsers.h; docs/roo-format.md §7.2; docs/row-contract.md "Sync, relay and origin rows").
#include "core/parsers/store_parsers.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string_view>

#include "core/parsers/store_parsing.h"
#include "core/text_util.h"

namespace roo {

using namespace store_parsing;

namespace {

// The named members of obj, in this order, as one compact object (absent ones left out).
std::string native_subset(const rapidjson::Value& obj, std::initializer_list<const char*> keys) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  for (const char* k : keys)
    if (const rapidjson::Value* v = member(obj, k)) {
      w.Key(k);
      v->Accept(w);
    }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace

ParseStats parse_workspace_state(const rapidjson::Value& state, const ParseContext& ctx, const std::string& where) {
  ParseStats stats;
  if (!state.IsObject()) {
    ctx.error("parser: " + ctx.file_name + " is not a JSON object");
    stats.errors = 1;
    return stats;
  }
  const rapidjson::Value* queue = member(state, "roo.retryQueue");
  if (!queue) return stats;
  if (!queue->IsArray()) {
    ctx.error("parser: " + ctx.file_name + " roo.retryQueue is not a JSON array");
    stats.errors = 1;
    return stats;
  }
  // One row per QueuedRequest {id, url, options, timestamp, retryCount, type, operation?, lastError?}
  // (docs/roo-format.md §7.2; docs/row-contract.md "Sync, relay and origin rows"). options.body (the event, with a
  // task message) and .headers (the bearer token) are read only for its type, the task id and a token's presence.
  return for_each_object_element(*queue, ctx, [&](const rapidjson::Value& req, int64_t index) {
    std::optional<std::string> event_type, task_id;
    const rapidjson::Value* options = member(req, "options");
    if (auto body = options ? get_string(*options, "body") : std::nullopt) {
      rapidjson::Document event;
      if (parse_json(body->data(), body->size(), event, nullptr) && event.IsObject()) {
        event_type = get_string(event, "type");
        if (const rapidjson::Value* props = member(event, "properties")) task_id = get_string(*props, "taskId");
      }
    }
    const auto operation = get_string(req, "operation");
    const rapidjson::Value* type = member(req, "type");
    const rapidjson::Value* retries = member(req, "retryCount");
    const rapidjson::Value* url = member(req, "url");
    const rapidjson::Value* last_error = member(req, "lastError");
    if (last_error && (last_error->IsNull() || (last_error->IsString() && last_error->GetStringLength() == 0)))
      last_error = nullptr;

    Row r = ctx.row("cloud_upload_queued");
    r.role = "system";
    r.position.record_index = index;
    const std::optional<int64_t> ts = get_int(req, "timestamp");
    if (ts) {
      r.time_ms = ts;
      r.time_source = "retry_queue.timestamp";
    }
    const std::string what = event_type ? *event_type : operation ? *operation : "-";
    std::string text = "cloud upload queued: " + what + " task=" + task_id.value_or("-") +
                       " type=" + (type ? plain(*type) : "-") + " retries=" + (retries ? plain(*retries) : "-") +
                       " url=" + (url ? plain(*url) : "-");
    if (last_error) text += " lastError=" + plain(*last_error);
    text += " (Roo Code Cloud retry queue, from " + where + " roo.retryQueue, request timestamp)";
    r.text = std::move(text);
    r.set_opt("request_id", get_string(req, "id"))
        .set_opt("request_type", get_string(req, "type"))
        .set_opt("event_type", event_type)
        .set_opt("operation", operation)
        .set_opt("task_id", task_id)
        .set_opt("retry_count", get_int(req, "retryCount"))
        .set_opt("url", get_string(req, "url"))
        .set_opt("http_method", options ? get_string(*options, "method") : std::nullopt);
    if (last_error) r.set("last_error", plain(*last_error));
    if (ctx.native)  // the request without its options: never the body or the headers
      r.native = native_subset(req, {"id", "url", "timestamp", "retryCount", "type", "operation", "lastError"});
    ctx.sink->emit(std::move(r));

    const rapidjson::Value* headers = options ? member(*options, "headers") : nullptr;
    if (!headers || !headers->IsObject()) return;
    int64_t part = 0;
    for (const auto& h : headers->GetObject()) {
      const std::string_view name = sv(h.name);
      if (!(iequals(name, "authorization") || iequals(name, "proxy-authorization") || iequals(name, "cookie")) ||
          !holds_secret(h.value))
        continue;
      Row c = ctx.row("credential_present");
      c.role = "system";
      c.position.record_index = index;
      c.position.part_index = part++;
      if (ts) {  // the token was queued with the request
        c.time_ms = ts;
        c.time_source = "retry_queue.timestamp";
      }
      const std::string key = "roo.retryQueue[" + std::to_string(index) + "].options.headers." + str(h.name);
      c.text = "credential present: " + key + " (from " + where + ")";
      c.set("credential_key", key).set("credential_location", where).set_opt("task_id", task_id);
      ctx.sink->emit(std::move(c));
    }
  });
}

ParseStats parse_workspace_state_file(HashingStream& in, const ParseContext& ctx) {
  rapidjson::Document doc;
  ParseStats stats;
  if (!read_object_document(in, ctx, doc, stats)) return stats;
  return parse_workspace_state(doc, ctx, file_where(ctx));
}

}  // namespace roo
