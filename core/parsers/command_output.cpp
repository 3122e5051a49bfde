// command-output/cmd-<executionId>.txt: the raw output of a command that exceeded the preview size, written by
// OutputInterceptor (docs/roo-format.md §2.7). The executionId is the ts of the command's ask:"command" ui record, so
// the name both times the row and joins it to its command (whose result names the same artifact).
#include "core/parsers/parsers.h"
#include "core/text_util.h"

namespace roo {

namespace {
// A 13-digit-or-so decimal between "cmd-" and ".txt"; anything else is not an execution id (Date.now() fallback
// ids are decimal too).
std::optional<int64_t> execution_id(std::string_view name) {
  if (name.size() <= 8) return std::nullopt;
  std::string_view digits = name.substr(4, name.size() - 8);
  if (digits.empty() || digits.size() > 16) return std::nullopt;
  int64_t v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}
}  // namespace

ParseStats parse_command_output(HashingStream& in, const ParseContext& ctx) {
  ParseStats stats;
  // The output is kept whole, up to the record cap every parser shares; beyond it the rest is hashed only.
  bool over = false;
  std::string text = read_up_to(in, kMaxRecordBytes, &over);
  stats.records = 1;
  stats.good_records = 1;
  Row r = ctx.row("command_output");
  r.role = "tool";
  r.position.byte_offset = 0;
  r.position.byte_length = text.size();
  const std::string& name = ctx.file_name;
  if (auto id = execution_id(name)) {
    r.time_ms = id;
    r.time_source = "command_output.execution_id";
    r.set("execution_id", std::to_string(*id));
  }
  r.set("output_artifact", name);
  if (over) r.set("truncated_at_bytes", static_cast<int64_t>(text.size()));
  r.text = utf8_valid(text) ? std::move(text) : utf8_sanitize(text);
  if (ctx.native) r.native = r.text;  // the file is the record
  ctx.sink->emit(std::move(r));
  return stats;
}

}  // namespace roo
