#include "core/parsers/parse_context.h"

#include "core/sha256.h"
#include "core/text_util.h"

namespace roo {

namespace {
std::string record_copies_json(const std::vector<RecordCopy>& copies) {
  rapidjson::Document list(rapidjson::kArrayType);
  auto& a = list.GetAllocator();
  for (const RecordCopy& c : copies) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("path", rapidjson::Value(c.path.data(), static_cast<rapidjson::SizeType>(c.path.size()), a), a);
    o.AddMember("inode", c.inode ? rapidjson::Value(static_cast<uint64_t>(*c.inode)) : rapidjson::Value(), a);
    o.AddMember("recovery", rapidjson::Value(c.recovery.data(), static_cast<rapidjson::SizeType>(c.recovery.size()), a),
                a);
    o.AddMember("record_index",
                c.record_index ? rapidjson::Value(static_cast<int64_t>(*c.record_index)) : rapidjson::Value(), a);
    if (c.snapshot) {  // only on copies in a snapshot, so every other entry stays as it was
      rapidjson::Value snap(rapidjson::kObjectType);
      snap.AddMember("name", rapidjson::Value(c.snapshot->name.data(),
                                              static_cast<rapidjson::SizeType>(c.snapshot->name.size()), a), a);
      snap.AddMember("xid", rapidjson::Value(static_cast<uint64_t>(c.snapshot->xid)), a);
      if (c.snapshot->created) {
        const std::string created = iso_from_fs_time(*c.snapshot->created);
        snap.AddMember("created", rapidjson::Value(created.data(), static_cast<rapidjson::SizeType>(created.size()), a),
                       a);
      } else {
        snap.AddMember("created", rapidjson::Value(), a);
      }
      o.AddMember("snapshot", snap, a);
    }
    list.PushBack(o, a);
  }
  return to_json_text(list);
}
}  // namespace

Row ParseContext::row(const char* kind, const JsonRecord* rec, std::optional<int64_t> sub_index) const {
  Row r;
  r.kind = kind;
  r.identity = identity;
  r.source = source;
  std::vector<RecordCopy> copies;
  if (rec) {
    r.position.record_index = rec->index;
    r.position.byte_offset = rec->offset;
    r.position.byte_length = rec->length;
    if (native) r.native = rec->text;
    if (folds && folds_are_live && !rec->text_sha256.empty())
      if (auto it = folds->in_versions.find(rec->text_sha256); it != folds->in_versions.end()) copies = it->second;
  }
  // The file's copies in snapshots are byte for byte this file (same extents): each row is in them too, at the same
  // record (docs/row-contract.md "APFS snapshots").
  if (source)
    for (const SnapshotRef& snap : source->file.same_in_snapshots)
      copies.push_back({source->file.path, source->file.inode, recovery_name(Recovery::snapshot),
                        rec ? std::optional<int64_t>(rec->index) : std::nullopt, snap});
  if (!copies.empty()) r.set("also_in", RawJson{record_copies_json(copies)});
  r.position.sub_index = sub_index;
  return r;
}

void ParseContext::stamp_file_time(Row& r, const std::optional<FsTime>& t, const char* source_name) {
  if (!t) return;
  if (auto ms = ms_from_fs_time(*t)) {
    r.time_ms = ms;
    r.time_source = source_name;
  }
}

void ParseContext::error(std::string text, const JsonRecord* rec) const {
  Row r = row("parser_error", rec);
  r.role = "system";
  r.text = std::move(text);
  sink->emit(std::move(r));
}

std::string raw_echo(const std::string& text) { return concat({raw_echo_head(text), raw_echo_tail(text)}); }

int emit_between_records(const ParseContext& ctx, const JsonRecord& rec, JsonArrayReader::Status status) {
  Row r = ctx.row("parser_error", &rec);
  r.role = "system";
  r.text = status == JsonArrayReader::Status::trailing
               ? concat({"parser: ", ctx.file_name, " has data after the end of its array at byte ",
                         std::to_string(rec.offset), "; reading on"})
               : concat({"parser: ", std::to_string(rec.length), " byte(s) at byte ", std::to_string(rec.offset),
                         " cannot begin a record (not JSON); skipped to the next record"});
  r.position.record_index.reset();  // between records: no array position
  ctx.sink->emit(std::move(r));
  return 1;
}

ParseStats for_each_object_record(HashingStream& in, const ParseContext& ctx,
                                  const std::function<void(const JsonRecord&)>& on_object,
                                  const std::function<void()>& before_end) {
  ParseStats stats;
  JsonArrayReader reader(in);
  JsonRecord rec;
  for (;;) {
    JsonArrayReader::Status st = reader.next(rec);
    if (st == JsonArrayReader::Status::record) {
      ++stats.records;
      if (ctx.folds) {
        rec.text_sha256 = sha256_hex(rec.text);
        if (!ctx.folds_are_live && ctx.folded_records && ctx.folds->live.count(rec.text_sha256)) {
          ++stats.version_folded;  // the task's own file has this very record: its rows name this copy (also_in)
          ctx.folded_records->insert(rec.index);
        }
      }
      if (!rec.parse_error.empty()) {
        ++stats.errors;
        ctx.error(concat({"parser: unparseable record ", std::to_string(rec.index + 1), " (", rec.parse_error,
                          "): ", raw_echo_head(rec.text), raw_echo_tail(rec.text)}),
                  &rec);
      } else if (!rec.doc.IsObject()) {
        ++stats.errors;
        ctx.error(concat({"parser: unparseable record ", std::to_string(rec.index + 1), " (not a JSON object): ",
                          raw_echo_head(rec.text), raw_echo_tail(rec.text)}),
                  &rec);
      } else {
        ++stats.good_records;
        // Past here the record's text is needed only for --native: a long record is then in memory once (its
        // document) while its rows are made, not twice.
        if (!ctx.native && rec.text.size() >= kRowDrainChunk) std::string().swap(rec.text);
        on_object(rec);
      }
      continue;
    }
    if (st == JsonArrayReader::Status::trailing || st == JsonArrayReader::Status::junk) {
      stats.errors += emit_between_records(ctx, rec, st);
      continue;
    }
    if (before_end) before_end();
    std::string suffix = in.read_error().empty() ? "" : " (read error: " + in.read_error() + ")";
    switch (st) {
      case JsonArrayReader::Status::end:
        break;
      case JsonArrayReader::Status::empty:
        ++stats.errors;
        ctx.error("parser: " + ctx.file_name + " is empty" + suffix);
        break;
      case JsonArrayReader::Status::not_an_array:
        ++stats.errors;
        ctx.error("parser: " + ctx.file_name + " is not a JSON array");
        break;
      case JsonArrayReader::Status::cut_off: {
        ++stats.errors;
        Row r = ctx.row("parser_error", &rec);  // offset, length and (--native) bytes of the cut record
        r.role = "system";
        r.text = "parser: array cut off after record " + std::to_string(reader.records_seen()) + suffix;
        r.position.record_index = reader.records_seen();  // the record that was being read when the data ended
        ctx.sink->emit(std::move(r));
        break;
      }
      case JsonArrayReader::Status::record:
      case JsonArrayReader::Status::trailing:
      case JsonArrayReader::Status::junk:
        break;
    }
    return stats;
  }
}

ParseStats for_each_object_element(const rapidjson::Value& array, const ParseContext& ctx,
                                   const std::function<void(const rapidjson::Value&, int64_t index)>& on_object) {
  ParseStats stats;
  int64_t index = 0;
  for (const auto& e : array.GetArray()) {
    ++stats.records;
    if (e.IsObject()) {
      ++stats.good_records;
      on_object(e, index);
    } else {
      ++stats.errors;
      Row r = ctx.row("parser_error");
      r.role = "system";
      r.position.record_index = index;
      r.text = "parser: unparseable record " + std::to_string(index + 1) + " (not a JSON object): " +
               raw_echo(to_json_text(e));
      ctx.sink->emit(std::move(r));
    }
    ++index;
  }
  return stats;
}

bool read_object_document(HashingStream& in, const ParseContext& ctx, rapidjson::Document& doc,
                          std::string* document_text) {
  std::string why, text;
  const bool ok = read_json_document(in, doc, &why, &text);
  if (document_text) *document_text = text;
  if (!ok) {
    if (why == "empty")
      ctx.error("parser: " + ctx.file_name + " is empty");
    else
      ctx.error("parser: " + ctx.file_name + " is not a JSON object (" + why + ")");
    return false;
  }
  if (!doc.IsObject()) {
    ctx.error("parser: " + ctx.file_name + " is not a JSON object");
    return false;
  }
  return true;
}

namespace {
bool is_absolute_path(std::string_view p) {
  if (p.empty()) return false;
  if (p[0] == '/' || p[0] == '\\' || p[0] == '~') return true;
  return p.size() >= 2 && p[1] == ':' && ((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z'));
}
}  // namespace

std::optional<std::string> resolve_task_path(std::string_view recorded, const std::optional<std::string>& workspace) {
  if (!workspace || workspace->empty() || recorded.empty() || is_absolute_path(recorded)) return std::nullopt;
  // A Windows workspace (c:\Users\bob\src\app) gets backslashes; the model often wrote src/a.ts.
  const bool windows = workspace->find('\\') != std::string::npos && workspace->find('/') == std::string::npos;
  const char sep = windows ? '\\' : '/';
  std::string out = *workspace;
  if (out.back() != sep) out += sep;
  std::string_view rel = recorded;
  while (starts_with(rel, "./") || starts_with(rel, ".\\")) rel.remove_prefix(2);
  for (char c : rel) out += (windows && c == '/') ? '\\' : c;
  return out;
}

}  // namespace roo
