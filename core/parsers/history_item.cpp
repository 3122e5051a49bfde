// history_item.json and tasks/_index.json: both hold HistoryItem objects (docs/roo-format.md §2.5, §2.9, §5).
#include <algorithm>

#include "core/parsers/parsers.h"
#include "core/text_util.h"

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
  h.delegated_to_id = get_string(o, "delegatedToId");
  h.awaiting_child_id = get_string(o, "awaitingChildId");
  h.completed_by_child_id = get_string(o, "completedByChildId");
  if (const rapidjson::Value* children = member(o, "childIds"); children && children->IsArray())
    for (const auto& c : children->GetArray())
      if (c.IsString()) h.child_ids.emplace_back(c.GetString(), c.GetStringLength());
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

namespace {

bool is_hex(std::string_view s) {
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  return true;
}

// The subtask links a HistoryItem records (docs/roo-format.md §5): each relation and id, in field order.
std::vector<std::pair<const char*, std::string>> subtask_links(const HistoryItem& h) {
  std::vector<std::pair<const char*, std::string>> links;
  if (h.parent_task_id) links.emplace_back("parent", *h.parent_task_id);
  if (h.root_task_id) links.emplace_back("root", *h.root_task_id);
  for (const std::string& child : h.child_ids) links.emplace_back("child", child);
  if (h.delegated_to_id) links.emplace_back("delegated_to", *h.delegated_to_id);
  if (h.awaiting_child_id) links.emplace_back("awaiting_child", *h.awaiting_child_id);
  if (h.completed_by_child_id) links.emplace_back("completed_by_child", *h.completed_by_child_id);
  return links;
}

}  // namespace

TaskIdTime task_id_time(std::string_view id) {
  // 8-4-4-4-12 hex; the version is the first digit of the third group.
  const bool uuid = id.size() == 36 && id[8] == '-' && id[13] == '-' && id[18] == '-' && id[23] == '-' &&
                    is_hex(id.substr(0, 8)) && is_hex(id.substr(9, 4)) && is_hex(id.substr(14, 4)) &&
                    is_hex(id.substr(19, 4)) && is_hex(id.substr(24));
  if (uuid) {
    if (id[14] == '7') {
      int64_t ms = 0;
      for (char c : std::string(id.substr(0, 8)) + std::string(id.substr(9, 4)))
        ms = ms * 16 + (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
      return {"uuidv7", ms};
    }
    return {id[14] == '4' ? "uuidv4" : "uuid", std::nullopt};
  }
  if (id.size() == 13 && std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return {"epoch_ms", std::stoll(std::string(id))};
  return {"other", std::nullopt};
}

void emit_task_row(const HistoryItem& h, const ParseContext& ctx, const char* known_from, bool task_dir_present,
                   const JsonRecord* rec, const std::set<std::string>& task_dirs,
                   const std::string* document_text) {
  Row r = ctx.row("task", rec);
  if (ctx.native && document_text) r.native = *document_text;
  if (h.ts) {
    r.time_ms = h.ts;
    r.time_source = std::string(known_from) + ".ts";  // history_item.ts, index.ts, global_state.ts
  }
  const std::optional<int64_t> time_ms = r.time_ms;
  const std::string time_source = r.time_source;
  auto at_task_time = [&](Row& row) {
    row.time_ms = time_ms;
    row.time_source = time_source;
    row.role = "system";
  };
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
  // docs/row-contract.md "Scratch directories": a task run in Roo's suggested worktree root,
  // ~/.roo/worktrees/<project>-<suffix>, ran in a scratch checkout; any other workspace is a project.
  if (h.workspace) {
    const std::string& w = *h.workspace;
    const bool scratch = w.find("/.roo/worktrees/") != std::string::npos || w.find("\\.roo\\worktrees\\") != std::string::npos;
    r.set("workspace_class", std::string(scratch ? "scratch" : "project"));
  }
  if (ctx.identity && ctx.identity->session_id) {
    TaskIdTime idt = task_id_time(*ctx.identity->session_id);
    r.set("task_id_format", idt.format);
    if (idt.ms) r.set("task_id_time_utc", iso_from_ms(*idt.ms));
  }
  Row mode = r;  // same source and position; kind, text and fields are replaced below
  ctx.sink->emit(std::move(r));

  mode.fields.clear();
  if (h.mode) {  // docs/row-contract.md "Mode": "permission mode: <mode>" at the task's ts
    Row m = mode;
    m.kind = "permission_mode";
    at_task_time(m);
    m.text = "permission mode: " + *h.mode;
    m.set("mode", *h.mode);
    ctx.sink->emit(std::move(m));
  }
  int64_t part = 0;
  for (auto& [relation, linked] : subtask_links(h)) {
    Row link = mode;  // the task row's source, position and --native record
    link.kind = "subtask_link";
    link.fields.clear();
    at_task_time(link);
    link.position.part_index = part++;
    link.text = "subtask link: " + std::string(relation) + " " + linked;
    // A linked directory there only as a deleted name is not present; the row says it was found deleted.
    const bool linked_deleted = ctx.deleted_task_dirs && ctx.deleted_task_dirs->count(linked) > 0;
    link.set("relation", std::string(relation))
        .set("linked_session_id", linked)
        .set("linked_task_dir_present", task_dirs.count(linked) > 0 && !linked_deleted);
    if (linked_deleted) link.set("linked_task_dir_deleted", true);
    link.set("known_from", std::string(known_from));
    ctx.sink->emit(std::move(link));
  }
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
