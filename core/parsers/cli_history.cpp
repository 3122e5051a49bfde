// ~/.roo/cli-history.json: its entries, framed one by one so a cut file keeps the ones before the cut (store_parsers.h;
// docs/roo-format.md §6; docs/row-contract.md "Past-use rows and secondary sources", "Bad-line rows").
#include "core/parsers/store_parsers.h"

#include <string_view>

#include "core/parsers/store_parsing.h"
#include "core/text_util.h"

namespace roo {

using namespace store_parsing;

namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Offset of the '[' that opens the top-level object's "entries" array, found by a byte scan that needs no complete
// document (so a file cut mid-write still yields it); npos when there is none. Linear in the text.
size_t find_entries_array(std::string_view t) {
  size_t i = 0;
  if (t.size() >= 3 && t.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
  while (i < t.size() && is_ws(t[i])) ++i;
  if (i >= t.size() || t[i] != '{') return std::string_view::npos;
  int64_t depth = 0;
  while (i < t.size()) {
    const char c = t[i];
    if (c == '"') {
      const size_t start = i + 1;
      size_t j = start;
      while (j < t.size() && t[j] != '"') j += t[j] == '\\' ? 2 : 1;
      if (j >= t.size()) return std::string_view::npos;
      i = j + 1;
      if (depth == 1 && t.substr(start, j - start) == "entries") {
        size_t k = i;
        while (k < t.size() && is_ws(t[k])) ++k;
        if (k < t.size() && t[k] == ':') {
          ++k;
          while (k < t.size() && is_ws(t[k])) ++k;
          if (k < t.size() && t[k] == '[') return k;
        }
      }
      continue;
    }
    if (c == '{' || c == '[')
      ++depth;
    else if ((c == '}' || c == ']') && --depth <= 0)
      return std::string_view::npos;
    ++i;
  }
  return std::string_view::npos;
}

}  // namespace

CliHistory parse_cli_history(HashingStream& in, const ParseContext& ctx) {
  CliHistory out;
  rapidjson::Document doc;
  std::string why, text;
  const bool parsed = read_json_document(in, doc, &why, &text);
  if (!parsed && why == "empty") {
    ctx.error("parser: " + ctx.file_name + " is empty");
    out.stats.errors = 1;
    return out;
  }
  if (parsed && !doc.IsObject()) {
    ctx.error("parser: " + ctx.file_name + " is not a JSON object");
    out.stats.errors = 1;
    return out;
  }
  const size_t start = find_entries_array(text);
  if (start == std::string_view::npos) {
    if (parsed)
      ctx.error("parser: " + ctx.file_name + " has no entries array");
    else
      ctx.error("parser: " + ctx.file_name + " is not a JSON object (" + why + ")");
    out.stats.errors = 1;
    return out;
  }
  // The entries are framed record by record (JsonArrayReader), whether or not the whole document parsed, so the
  // entries before a cut are kept and the cut gets its docs/row-contract.md "Bad-line rows" row (history.ts writes in
  // place, so a killed write leaves a prefix).
  MemoryBytes view(std::string_view(text).substr(start));
  HashingStream sub(view, 64 * 1024);
  JsonArrayReader reader(sub);
  JsonRecord rec;
  bool closed = false;
  for (;;) {
    const JsonArrayReader::Status st = reader.next(rec);
    rec.offset += start;  // positions in the file, not in the array
    if (st == JsonArrayReader::Status::record) {
      ++out.stats.records;
      if (!rec.parse_error.empty()) {
        ++out.stats.errors;
        ctx.error("parser: unparseable record " + std::to_string(rec.index + 1) + " (" + rec.parse_error +
                      "): " + raw_echo(rec.text),
                  &rec);
      } else if (!rec.doc.IsString()) {
        ++out.stats.errors;
        ctx.error("parser: unparseable record " + std::to_string(rec.index + 1) + " (not a string): " +
                      raw_echo(rec.text),
                  &rec);
      } else {
        ++out.stats.good_records;
        CliHistoryEntry e;
        e.record_index = rec.index;
        e.text = str(rec.doc);
        e.byte_offset = rec.offset;
        e.byte_length = rec.length;
        if (ctx.native) e.raw = rec.text;
        out.entries.push_back(std::move(e));
      }
      continue;
    }
    if (st == JsonArrayReader::Status::junk) {
      out.stats.errors += emit_between_records(ctx, rec, st);
      continue;
    }
    if (st == JsonArrayReader::Status::cut_off) {
      ++out.stats.errors;
      Row r = ctx.row("parser_error", &rec);
      r.role = "system";
      r.text = "parser: array cut off after record " + std::to_string(reader.records_seen());
      r.position.record_index = reader.records_seen();  // the record being read when the data ended
      ctx.sink->emit(std::move(r));
      break;
    }
    closed = true;  // end, or trailing: the bytes after the array belong to the enclosing object
    break;
  }
  // The array closed and every entry read, yet the document does not parse (e.g. cut after the array): say so.
  if (!parsed && closed && out.stats.errors == 0) {
    ctx.error("parser: " + ctx.file_name + " is not a JSON object (" + why + ")");
    ++out.stats.errors;
  }
  return out;
}

void emit_cli_history_row(const CliHistoryEntry& entry, const ParseContext& ctx) {
  // docs/row-contract.md "Past-use rows and secondary sources": one user row per entry, with no time, session or
  // project (the file records none).
  Row r = ctx.row("cli_history");
  r.role = "user";
  r.text = entry.text;
  r.position.record_index = entry.record_index;
  r.position.byte_offset = entry.byte_offset;
  r.position.byte_length = entry.byte_length;
  if (ctx.native) r.native = entry.raw;
  ctx.sink->emit(std::move(r));
}

}  // namespace roo
