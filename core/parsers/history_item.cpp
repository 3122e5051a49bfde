// history_item.json and tasks/_index.json: both hold HistoryItem objects (roo-format.md §2.5, §2.9, §5).
#include "core/parsers/parsers.h"

namespace roo {

HistoryItem history_item_from_json(const rapidjson::Value& o) {
  HistoryItem h;
  h.id = get_string(o, "id");
  h.root_task_id = get_string(o, "rootTaskId");
  h.parent_task_id = get_string(o, "parentTaskId");
  h.task = get_string(o, "task");
  h.workspace = get_string(o, "workspace");
  h.mode = get_string(o, "mode");
  h.api_config_name = get_string(o, "apiConfigName");
  h.status = get_string(o, "status");
  h.number = get_int(o, "number");
  h.ts = get_int(o, "ts");
  h.tokens_in = get_int(o, "tokensIn");
  h.tokens_out = get_int(o, "tokensOut");
  h.cache_writes = get_int(o, "cacheWrites");
  h.cache_reads = get_int(o, "cacheReads");
  h.size = get_int(o, "size");
  h.total_cost = get_number(o, "totalCost");
  return h;
}

std::optional<HistoryItem> parse_history_item_file(HashingStream& in, const ParseContext& ctx, std::string* text) {
  rapidjson::Document doc;
  if (!read_object_document(in, ctx, doc, text)) return std::nullopt;
  return history_item_from_json(doc);
}

void emit_task_row(const HistoryItem& h, const ParseContext& ctx, const char* known_from, bool task_dir_present,
                   const JsonRecord* rec, const std::string* document_text) {
  Row r = ctx.row("task", rec);
  if (ctx.native && document_text) r.native = *document_text;
  if (h.ts) {
    r.time_ms = h.ts;
    r.time_source = std::string(known_from) == "index" ? "index.ts" : "history_item.ts";
  }
  r.text = h.task;
  r.set_opt("task_number", h.number)
      .set_opt("mode", h.mode)
      .set_opt("status", h.status)
      .set_opt("tokens_in", h.tokens_in)
      .set_opt("tokens_out", h.tokens_out)
      .set_opt("cache_writes", h.cache_writes)
      .set_opt("cache_reads", h.cache_reads)
      .set_opt("cost_usd", h.total_cost)
      .set_opt("api_config_name", h.api_config_name)
      .set_opt("size_bytes", h.size)
      .set("known_from", std::string(known_from))
      .set("task_dir_present", task_dir_present);
  ctx.sink->emit(std::move(r));
}

std::vector<IndexEntry> parse_task_index(HashingStream& in, const ParseContext& ctx) {
  std::vector<IndexEntry> entries;
  // The index is small (one HistoryItem per task), so it is read whole.
  rapidjson::Document doc;
  if (!read_object_document(in, ctx, doc)) return entries;
  const rapidjson::Value* list = member(doc, "entries");
  if (!list || !list->IsArray()) {
    ctx.error("parser: " + ctx.file_name + " has no entries array");
    return entries;
  }
  for_each_object_element(*list, ctx, [&](const rapidjson::Value& e, int64_t index) {
    IndexEntry entry;
    entry.item = history_item_from_json(e);
    entry.record_index = index;
    if (ctx.native) entry.text = to_json_text(e);
    entries.push_back(std::move(entry));
  });
  return entries;
}

}  // namespace roo
