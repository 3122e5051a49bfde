// Feeds the bytes as text to every tool_semantics function, and as JSON to file_edits/file_reads under every tool
// name they know. The seed corpus is whole transcripts (run-fuzzers.sh), so a JSON array is also walked as one:
// each tool_use input goes through file_edits/file_reads and each tool_result text through the text functions.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/json_records.h"
#include "core/parsers/tool_semantics.h"

namespace {

size_t sink = 0;  // what the answers add up to, so nothing is optimised away

void texts(std::string_view text) {
  using namespace roo::tools;
  if (auto c = parse_command_result(text)) sink += c->status.size() + (c->output ? c->output->size() : 0);
  if (auto s = parse_result_status(text)) {
    sink += s->status.size() + s->rest.size();
    if (auto e = parse_edit_result(s->rest)) sink += e->path ? e->path->size() : 0;
    if (auto c = parse_command_result(s->rest)) sink += c->status.size();
  }
  if (auto e = parse_edit_result(text)) sink += (e->user_edits ? e->user_edits->size() : 0) + (e->problems ? 1 : 0);
  if (auto s = parse_skipped_tool(text)) sink += s->description.size();
  for (bool native : {false, true})
    if (auto f = failure_form(text, native)) sink += f->size();
  if (auto m = split_mcp_tool_name(text)) sink += m->server.size() + m->tool.size();
}

void inputs(const rapidjson::Value& input) {
  using namespace roo::tools;
  // The tool names file_edits and file_reads understand.
  for (std::string_view name : {"apply_diff", "replace_in_file", "search_and_replace", "edit", "search_replace",
                                "edit_file", "write_to_file", "write_file", "insert_content", "apply_patch"})
    for (const FileEdit& e : file_edits(name, input)) {
      sink += e.path.size() + e.hunks.size() + static_cast<size_t>(e.unterminated_blocks);
      for (const EditHunk& h : e.hunks)
        sink += (h.old_text ? h.old_text->size() : 0) + (h.new_text ? h.new_text->size() : 0);
    }
  for (std::string_view name : {"read_file"})
    for (const FileRead& r : file_reads(name, input))
      sink += r.path.size() + (r.line_ranges ? r.line_ranges->size() : 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  texts(text);
  rapidjson::Document doc;
  if (!roo::parse_json(text.data(), text.size(), doc, nullptr)) return 0;
  if (doc.IsObject()) inputs(doc);
  if (!doc.IsArray()) return 0;
  for (const auto& message : doc.GetArray()) {
    const rapidjson::Value* content = roo::member(message, "content");
    if (!content || !content->IsArray()) continue;
    for (const auto& block : content->GetArray()) {
      if (const rapidjson::Value* input = roo::member(block, "input")) inputs(*input);
      if (auto name = roo::get_string(block, "name")) texts(*name);
      if (auto result = roo::get_string(block, "content")) texts(*result);
      if (auto t = roo::get_string(block, "text")) texts(*t);
    }
  }
  return 0;
}
