#include "core/row.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "core/sha256.h"
#include "core/text_util.h"

namespace roo {

const char* recovery_name(Recovery r) {
  switch (r) {
    case Recovery::allocated: return "allocated";
    case Recovery::deleted: return "deleted";
    case Recovery::orphan: return "orphan";
    case Recovery::temp_leftover: return "temp_leftover";
    case Recovery::carved: return "carved";
    case Recovery::slack: return "slack";
  }
  return "unknown";
}

namespace {

// The placeholder is 64 SOH bytes in quotes. The writer escapes every control character inside strings, so a
// raw SOH never occurs anywhere else in a serialised row.
const std::string& sha_placeholder() {
  static const std::string p = "\"" + std::string(64, '\x01') + "\"";
  return p;
}

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void put_string(Writer& w, std::string_view s) {
  if (utf8_valid(s)) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  } else {
    std::string clean = utf8_sanitize(s);
    w.String(clean.data(), static_cast<rapidjson::SizeType>(clean.size()));
  }
}

void put_opt_string(Writer& w, const char* key, const std::optional<std::string>& v) {
  w.Key(key);
  if (v)
    put_string(w, *v);
  else
    w.Null();
}

template <typename T>
void put_opt_int(Writer& w, const char* key, const std::optional<T>& v) {
  w.Key(key);
  if (v)
    w.Int64(static_cast<int64_t>(*v));
  else
    w.Null();
}

void put_opt_time(Writer& w, const char* key, const std::optional<FsTime>& t) {
  w.Key(key);
  if (t)
    put_string(w, iso_from_fs_time(*t));
  else
    w.Null();
}

void put_value(Writer& w, const FieldValue& v) {
  std::visit(
      [&w](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::nullptr_t>)
          w.Null();
        else if constexpr (std::is_same_v<T, bool>)
          w.Bool(x);
        else if constexpr (std::is_same_v<T, int64_t>)
          w.Int64(x);
        else if constexpr (std::is_same_v<T, double>)
          w.Double(x);
        else if constexpr (std::is_same_v<T, std::string>)
          put_string(w, x);
        else if (utf8_valid(x.text))
          w.RawValue(x.text.data(), x.text.size(), rapidjson::kObjectType);
        else {  // a raw invalid byte inside a string of the input: every output stays valid UTF-8
          std::string clean = utf8_sanitize(x.text);
          w.RawValue(clean.data(), clean.size(), rapidjson::kObjectType);
        }
      },
      v);
}

void put_source(Writer& w, const rapidjson::StringBuffer& buf, const Row& row, size_t* sha_offset) {
  w.Key("source");
  if (!row.source) {
    w.Null();
    return;
  }
  const VolumeInfo* vol = row.source->volume;
  const FileMeta& f = row.source->file;
  w.StartObject();
  put_opt_string(w, "evidence", vol ? std::optional<std::string>(vol->evidence) : std::nullopt);
  put_opt_int(w, "partition_offset", vol ? vol->partition_offset : std::nullopt);
  put_opt_string(w, "fs_type", vol ? std::optional<std::string>(vol->fs_type) : std::nullopt);
  put_opt_string(w, "path", f.path);
  put_opt_int(w, "inode", f.inode);
  put_opt_int(w, "meta_seq", f.meta_seq);
  put_opt_string(w, "attr", f.attr.empty() ? std::nullopt : std::optional<std::string>(f.attr));
  w.Key("name_allocated");
  w.Bool(f.name_allocated);
  w.Key("meta_allocated");
  w.Bool(f.meta_allocated);
  w.Key("reallocated");
  w.Bool(f.reallocated);
  w.Key("recovery");
  w.String(recovery_name(f.recovery));
  put_opt_int(w, "size", f.size);
  put_opt_time(w, "mtime", f.mtime);
  put_opt_time(w, "atime", f.atime);
  put_opt_time(w, "ctime", f.ctime);
  put_opt_time(w, "crtime", f.crtime);
  w.Key("sha256");
  if (sha_offset) *sha_offset = buf.GetSize() + 1;  // after the ':' the writer puts before a value
  w.RawValue(sha_placeholder().data(), sha_placeholder().size(), rapidjson::kStringType);
  put_opt_int(w, "record_index", row.position.record_index);
  put_opt_int(w, "sub_index", row.position.sub_index);
  put_opt_int(w, "part_index", row.position.part_index);
  put_opt_int(w, "byte_offset", row.position.byte_offset);
  put_opt_int(w, "byte_length", row.position.byte_length);
  w.EndObject();
}

}  // namespace

std::string row_id(const Row& row) {
  std::string key;
  if (row.source) {
    const VolumeInfo* vol = row.source->volume;
    if (vol) {
      key += vol->evidence;
      key += '\x1f';
      key += vol->partition_offset ? std::to_string(*vol->partition_offset) : "-";
    }
    key += '\x1f';
    key += row.source->file.path;
    key += '\x1f';
    key += row.source->file.inode ? std::to_string(*row.source->file.inode) : "-";
  }
  key += '\x1f';
  key += row.position.record_index ? std::to_string(*row.position.record_index) : "-";
  key += '\x1f';
  key += row.position.sub_index ? std::to_string(*row.position.sub_index) : "-";
  key += '\x1f';
  key += row.position.byte_offset ? std::to_string(*row.position.byte_offset) : "-";
  key += '\x1f';
  key += row.kind;
  // Added with part rows; appended only when set so the ids of every other row stay what they were.
  if (row.position.part_index) {
    key += '\x1f';
    key += std::to_string(*row.position.part_index);
  }
  return sha256_hex(key).substr(0, 32);
}

std::string row_to_json_line(const Row& row, size_t* sha_offset) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key("schema");
  w.String(kRowSchema);
  w.Key("row_id");
  w.String(row_id(row).c_str());
  w.Key("kind");
  put_string(w, row.kind);
  put_opt_string(w, "time_utc", row.time_ms ? std::optional<std::string>(iso_from_ms(*row.time_ms)) : std::nullopt);
  w.Key("time_source");
  put_string(w, row.time_source);
  w.Key("agent");
  w.String("roo-code");
  const TaskIdentity* id = row.identity;
  put_opt_string(w, "surface", id ? std::optional<std::string>(id->surface) : std::nullopt);
  put_opt_string(w, "user", id ? id->user : std::nullopt);
  put_opt_string(w, "session_id", id ? id->session_id : std::nullopt);
  put_opt_string(w, "parent_session_id", id ? id->parent_session_id : std::nullopt);
  put_opt_string(w, "root_session_id", id ? id->root_session_id : std::nullopt);
  put_opt_string(w, "project_path", id ? id->project_path : std::nullopt);
  put_opt_string(w, "role", row.role);
  put_opt_string(w, "text", row.text);
  for (const auto& [key, value] : row.fields) {
    w.Key(key.c_str(), static_cast<rapidjson::SizeType>(key.size()));
    put_value(w, value);
  }
  put_source(w, buf, row, sha_offset);
  if (row.native) {
    w.Key("native");
    put_string(w, *row.native);
  }
  w.EndObject();
  std::string line(buf.GetString(), buf.GetSize());
  line += '\n';
  return line;
}

std::string sha256_json_value(const std::string& sha256_hex) {
  std::string value = sha256_hex.empty() ? "null" : "\"" + sha256_hex + "\"";
  value.resize(kShaPlaceholderLength, ' ');
  return value;
}

void patch_sha256(std::string& lines, const std::string& sha256_hex) {
  const std::string& p = sha_placeholder();
  const std::string value = sha256_json_value(sha256_hex);
  for (size_t pos = lines.find(p); pos != std::string::npos; pos = lines.find(p, pos + value.size()))
    lines.replace(pos, p.size(), value);
}

}  // namespace roo
