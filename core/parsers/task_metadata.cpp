// task_metadata.json: {files_in_context: FileMetadataEntry[]} (docs/roo-format.md §2.6). Append-only, so it is a
// file-access timeline: one file_context row per entry, timed by the date that belongs to its record_source.
#include "core/parsers/parsers.h"

namespace roo {

namespace {
const char* date_field_for(const std::optional<std::string>& source) {
  if (source == std::optional<std::string>("roo_edited")) return "roo_edit_date";
  if (source == std::optional<std::string>("user_edited")) return "user_edit_date";
  return "roo_read_date";  // read_tool, file_mentioned
}
}  // namespace

ParseStats parse_task_metadata(HashingStream& in, const ParseContext& ctx) {
  ParseStats stats;
  rapidjson::Document doc;
  if (!read_object_document(in, ctx, doc, stats)) return stats;
  const rapidjson::Value* files = member(doc, "files_in_context");
  if (!files || !files->IsArray()) {
    ctx.error("parser: " + ctx.file_name + " has no files_in_context array");
    stats.errors = 1;
    return stats;
  }
  return for_each_object_element(*files, ctx, [&](const rapidjson::Value& e, int64_t index) {
    Row r = ctx.row("file_context");
    r.position.record_index = index;
    auto source = get_string(e, "record_source");
    const char* date_field = date_field_for(source);
    if (auto t = get_int(e, date_field)) {
      r.time_ms = t;
      r.time_source = std::string("task_metadata.") + date_field;
    }
    r.text = get_string(e, "path");
    r.set_opt("file_path", get_string(e, "path"));
    if (r.text) r.set_opt("file_path_resolved", resolve_task_path(*r.text, ctx.identity->project_path));
    r
        .set_opt("record_state", get_string(e, "record_state"))
        .set_opt("record_source", source)
        .set_opt("roo_read_date", get_int(e, "roo_read_date"))
        .set_opt("roo_edit_date", get_int(e, "roo_edit_date"))
        .set_opt("user_edit_date", get_int(e, "user_edit_date"));
    if (ctx.native) r.native = to_json_text(e);
    ctx.sink->emit(std::move(r));
  });
}

}  // namespace roo
