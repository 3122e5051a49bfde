#include "core/row.h"

#include <rapidjson/internal/dtoa.h>
#include <rapidjson/internal/itoa.h>

#include <charconv>
#include <cmath>

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
    case Recovery::snapshot: return "snapshot";
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

// Serialises one row as RapidJSON's Writer would, byte for byte (the same escapes, number forms and key order),
// but copies each run of bytes that needs no escape whole instead of looking every byte up in a table: strings are
// most of a row's bytes. (RapidJSON's own SSE2 paths are not an option: in 1.1.0 they let 0x1A–0x1F through
// unescaped, which is invalid JSON.)
class JsonLine {
 public:
  explicit JsonLine(std::string& o, RowDrain* drain = nullptr) : out(o), drain_(drain) {}
  std::string& out;  // appended to: RowWriter serialises straight into its pending rows, without a copy per row
  // Where the next byte goes, from where out started, counting what drains took.
  size_t position() const { return drained_ + out.size(); }

  void StartObject() {
    out += '{';
    first_ = true;
  }
  void EndObject() {
    out += '}';
    first_ = false;
  }
  void Key(std::string_view k) {
    if (!first_) out += ',';
    first_ = false;
    escaped(k);
    out += ':';
  }
  void Null() { out += "null"; }
  void Bool(bool b) { out += b ? "true" : "false"; }
  void Int64(int64_t v) {
    char buf[24];
    out.append(buf, rapidjson::internal::i64toa(v, buf));
  }
  void Double(double d) {
    if (!std::isfinite(d)) return Null();  // no JSON form; parsers never produce one
    char buf[32];
    out.append(buf, rapidjson::internal::dtoa(d, buf));
  }
  void String(std::string_view s) { escaped(s); }
  void Raw(std::string_view json) { out.append(json); }

 private:
  void escaped(std::string_view s) {
    if (drain_ && s.size() >= kRowDrainChunk) {  // a long string: escaped and handed on a chunk at a time
      out += '"';
      for (size_t at = 0; at < s.size(); at += kRowDrainChunk) {
        escape_run(s.substr(at, kRowDrainChunk));  // no escape spans two bytes of the input: chunks cut anywhere
        if (out.size() >= kRowDrainChunk) {
          drained_ += out.size();
          drain_->drain(out);
        }
      }
      out += '"';
      return;
    }
    out.reserve(out.size() + s.size() + 2);
    out += '"';
    escape_run(s);
    out += '"';
  }
  void escape_run(std::string_view s) {
    static const char kHex[] = "0123456789ABCDEF";
    const char* p = s.data();
    const char* const end = p + s.size();
    for (;;) {
      const char* stop = json_string_stop(p, end);
      out.append(p, stop);
      if (stop == end) break;
      const auto c = static_cast<unsigned char>(*stop);
      char esc[6] = {'\\', 0, 0, 0, 0, 0};
      size_t n = 2;
      switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\b': esc[1] = 'b'; break;
        case '\t': esc[1] = 't'; break;
        case '\n': esc[1] = 'n'; break;
        case '\f': esc[1] = 'f'; break;
        case '\r': esc[1] = 'r'; break;
        default:
          esc[1] = 'u', esc[2] = '0', esc[3] = '0', esc[4] = kHex[c >> 4], esc[5] = kHex[c & 0xF];
          n = 6;
      }
      out.append(esc, n);
      p = stop + 1;
    }
  }

  bool first_ = true;
  RowDrain* drain_;
  size_t drained_ = 0;
};
using Writer = JsonLine;

void put_string(Writer& w, std::string_view s) {
  if (utf8_valid(s))
    w.String(s);
  else
    w.String(utf8_sanitize(s));
}

// A pointer, not an optional copy: the identity's strings and the volume's names are written for every row.
void put_opt_string(Writer& w, const char* key, const std::string* v) {
  w.Key(key);
  if (v)
    put_string(w, *v);
  else
    w.Null();
}

const std::string* opt(const std::optional<std::string>& v) { return v ? &*v : nullptr; }

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

// A snapshot as source.snapshot and an also_in entry name it: {name, xid, created}.
void put_snapshot(Writer& w, const SnapshotRef& s) {
  w.StartObject();
  put_opt_string(w, "name", &s.name);
  put_opt_int(w, "xid", std::optional<uint64_t>(s.xid));
  put_opt_time(w, "created", s.created);
  w.EndObject();
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
          w.Raw(x.text);
        else  // a raw invalid byte inside a string of the input: every output stays valid UTF-8
          w.Raw(utf8_sanitize(x.text));
      },
      v);
}

void put_source_head(Writer& w, const VolumeInfo* vol, const FileMeta& f) {
  w.StartObject();
  put_opt_string(w, "evidence", vol ? &vol->evidence : nullptr);
  put_opt_int(w, "partition_offset", vol ? vol->partition_offset : std::nullopt);
  put_opt_string(w, "fs_type", vol ? &vol->fs_type : nullptr);
  if (vol && vol->pool_volume) {  // only on rows from a pool volume, so every other row stays as it was
    const PoolVolumeRef& v = *vol->pool_volume;
    w.Key("pool_volume");
    w.StartObject();
    put_opt_string(w, "uuid", &v.uuid);
    put_opt_string(w, "name", &v.name);
    put_opt_string(w, "role", &v.role);
    put_opt_int(w, "block", std::optional<uint64_t>(v.block));
    w.EndObject();
  }
  if (vol && vol->collection) {  // only on rows from a drive of a triage collection
    w.Key("collection");
    w.StartObject();
    put_opt_string(w, "collector", &vol->collection->collector);
    put_opt_string(w, "drive", &vol->collection->drive);
    w.EndObject();
  }
  put_opt_string(w, "path", &f.path);
  put_opt_int(w, "inode", f.inode);
  put_opt_int(w, "meta_seq", f.meta_seq);
  put_opt_string(w, "attr", f.attr.empty() ? nullptr : &f.attr);
  w.Key("name_allocated");
  w.Bool(f.name_allocated);
  w.Key("meta_allocated");
  w.Bool(f.meta_allocated);
  w.Key("reallocated");
  w.Bool(f.reallocated);
  w.Key("recovery");
  w.String(recovery_name(f.recovery));
  if (f.snapshot) {  // only on rows read from a snapshot, so every other row stays as it was
    w.Key("snapshot");
    put_snapshot(w, *f.snapshot);
  }
  put_opt_int(w, "size", f.size);
  put_opt_time(w, "mtime", f.mtime);
  put_opt_time(w, "atime", f.atime);
  put_opt_time(w, "ctime", f.ctime);
  put_opt_time(w, "crtime", f.crtime);
  if (!f.times_from.empty()) put_opt_string(w, "times_from", &f.times_from);  // a collection's files only
  w.Key("sha256");
}

// The serialised source object from its '{' through the "sha256" key: the same bytes for every row of one source
// file, so they are formatted once per source (four ISO times among them) and copied for the rows after.
struct SourceHead {
  bool valid = false;
  bool has_volume = false;
  std::string evidence, fs_type;
  std::optional<uint64_t> partition_offset;
  std::optional<uint64_t> pool_volume_block;
  std::string collection_drive;
  FileMeta file;  // only the fields put_source writes are compared
  std::string bytes;
};

// A pool volume is named by its superblock block within one container (partition_offset).
std::optional<uint64_t> pool_volume_block(const VolumeInfo* vol) {
  return vol && vol->pool_volume ? std::optional<uint64_t>(vol->pool_volume->block) : std::nullopt;
}

std::string collection_drive(const VolumeInfo* vol) {
  return vol && vol->collection ? vol->collection->collector + ":" + vol->collection->drive : std::string();
}

// Whether head was made from a source with the same written content. Compared by content, never by address: a
// SourceRef freed after one file can be allocated again at the same address for the next file, and one SourceRef
// object can be reused with its fields changed. The fields cost far less to compare than to format.
bool same_source(const SourceHead& head, const SourceRef& src) {
  const VolumeInfo* vol = src.volume;
  const FileMeta& f = src.file;
  const FileMeta& h = head.file;
  if (!head.valid || head.has_volume != (vol != nullptr)) return false;
  if (vol && (head.partition_offset != vol->partition_offset || head.evidence != vol->evidence ||
              head.fs_type != vol->fs_type || head.pool_volume_block != pool_volume_block(vol) ||
              head.collection_drive != collection_drive(vol)))
    return false;
  return f.inode == h.inode && f.meta_seq == h.meta_seq && f.size == h.size && f.recovery == h.recovery &&
         f.name_allocated == h.name_allocated && f.meta_allocated == h.meta_allocated &&
         f.reallocated == h.reallocated && f.mtime == h.mtime && f.atime == h.atime && f.ctime == h.ctime &&
         f.crtime == h.crtime && f.path == h.path && f.attr == h.attr && f.snapshot == h.snapshot &&
         f.times_from == h.times_from;
}

void put_source(Writer& w, const Row& row, size_t* sha_offset) {
  w.Key("source");
  if (!row.source) {
    w.Null();
    return;
  }
  const VolumeInfo* vol = row.source->volume;
  const FileMeta& f = row.source->file;
  thread_local SourceHead head;  // the last source serialised on this thread (rows come from several workers)
  if (same_source(head, *row.source)) {
    w.Raw(head.bytes);
  } else {
    const size_t start = w.out.size();
    put_source_head(w, vol, f);
    head.valid = false;  // until every field is stored (a copy can throw)
    head.has_volume = vol != nullptr;
    head.evidence = vol ? vol->evidence : std::string();
    head.fs_type = vol ? vol->fs_type : std::string();
    head.partition_offset = vol ? vol->partition_offset : std::nullopt;
    head.pool_volume_block = pool_volume_block(vol);
    head.collection_drive = collection_drive(vol);
    head.file = f;
    head.bytes.assign(w.out, start, std::string::npos);
    head.valid = true;
  }
  if (sha_offset) *sha_offset = w.position();
  w.Raw(sha_placeholder());
  put_opt_int(w, "record_index", row.position.record_index);
  put_opt_int(w, "sub_index", row.position.sub_index);
  put_opt_int(w, "part_index", row.position.part_index);
  put_opt_int(w, "byte_offset", row.position.byte_offset);
  put_opt_int(w, "byte_length", row.position.byte_length);
  if (!row.position.blocks.empty()) {  // carved records only, so every other row stays as it was
    w.Key("blocks");
    w.Raw("[");
    for (size_t i = 0; i < row.position.blocks.size(); ++i) {
      w.Raw(i ? ",[" : "[");
      w.Int64(static_cast<int64_t>(row.position.blocks[i].first));
      w.Raw(",");
      w.Int64(static_cast<int64_t>(row.position.blocks[i].second));
      w.Raw("]");
    }
    w.Raw("]");
  }
  w.EndObject();
}

template <typename T>
void append_or_dash(std::string& key, const std::optional<T>& v) {
  if (!v) {
    key += '-';
    return;
  }
  char buf[24];
  key.append(buf, std::to_chars(buf, buf + sizeof buf, *v).ptr);  // the digits std::to_string writes
}

// The row id's 32 hex digits into id. Built for every row: the key buffer is kept per thread and only the 16 bytes
// of the digest that are used are turned into hex.
void row_id_digits(const Row& row, char* id) {
  thread_local std::string key;
  key.clear();
  if (row.source) {
    const VolumeInfo* vol = row.source->volume;
    if (vol) {
      key += vol->evidence;
      key += '\x1f';
      append_or_dash(key, vol->partition_offset);
      // Two volumes of one container share its offset and can hold the same path and inode: the volume is part of
      // the id. Appended only for pool volumes, so the ids of every other row stay what they were.
      if (vol->pool_volume) {
        key += '\x1f';
        key += vol->pool_volume->uuid;
      }
      // The drives of a collection are folders of one evidence, each with its own root: the drive is part of the id.
      if (vol->collection) {
        key += '\x1f';
        key += vol->collection->drive;
      }
    }
    key += '\x1f';
    key += row.source->file.path;
    key += '\x1f';
    append_or_dash(key, row.source->file.inode);
    // A snapshot's copy can have the live file's path and inode (changed in place): the snapshot is part of the id.
    // Appended only for snapshot copies, so the ids of every other row stay what they were.
    if (row.source->file.snapshot) {
      key += "\x1fsnapshot ";
      key += std::to_string(row.source->file.snapshot->xid);
    }
  }
  key += '\x1f';
  append_or_dash(key, row.position.record_index);
  key += '\x1f';
  append_or_dash(key, row.position.sub_index);
  key += '\x1f';
  append_or_dash(key, row.position.byte_offset);
  key += '\x1f';
  key += row.kind;
  // Added with part rows; appended only when set so the ids of every other row stay what they were.
  if (row.position.part_index) {
    key += '\x1f';
    append_or_dash(key, row.position.part_index);
  }
  static const char kHex[] = "0123456789abcdef";
  const Sha256Digest d = sha256_digest(key);
  for (size_t i = 0; i < 16; ++i) {
    id[2 * i] = kHex[d[i] >> 4];
    id[2 * i + 1] = kHex[d[i] & 0xF];
  }
}

}  // namespace

std::string row_id(const Row& row) {
  char id[32];
  row_id_digits(row, id);
  return std::string(id, sizeof id);
}

void append_row_json_line(const Row& row, std::string& out, size_t* sha_offset, RowDrain* drain) {
  Writer w(out, drain);
  w.StartObject();
  w.Key("schema");
  w.String(kRowSchema);
  w.Key("row_id");
  char digits[32];
  row_id_digits(row, digits);
  w.String(std::string_view(digits, sizeof digits));
  w.Key("kind");
  put_string(w, row.kind);
  // A number outside JavaScript's Date range is no time: time_utc null, time_source out_of_range, and the number
  // with where it was read kept in raw_time_ms / raw_time_source (docs/row-contract.md).
  const bool out_of_range = row.time_ms && !is_js_time(*row.time_ms);
  w.Key("time_utc");
  if (row.time_ms && !out_of_range)
    w.String(iso_from_ms(*row.time_ms));  // digits and ASCII only: valid UTF-8
  else
    w.Null();
  w.Key("time_source");
  put_string(w, out_of_range ? std::string_view("out_of_range") : std::string_view(row.time_source));
  w.Key("agent");
  w.String("roo-code");
  const TaskIdentity* id = row.identity;
  // An empty surface is an unknown one (an orphan file: the path that said it is gone): null, as the contract wants.
  put_opt_string(w, "surface", id && !id->surface.empty() ? &id->surface : nullptr);
  put_opt_string(w, "user", id ? opt(id->user) : nullptr);
  put_opt_string(w, "session_id", id ? opt(id->session_id) : nullptr);
  put_opt_string(w, "parent_session_id", id ? opt(id->parent_session_id) : nullptr);
  put_opt_string(w, "root_session_id", id ? opt(id->root_session_id) : nullptr);
  put_opt_string(w, "project_path", id ? opt(id->project_path) : nullptr);
  put_opt_string(w, "role", opt(row.role));
  put_opt_string(w, "text", opt(row.text));
  for (const auto& [key, value] : row.fields) {
    w.Key(key);
    put_value(w, value);
  }
  if (out_of_range) {
    w.Key("raw_time_ms");
    w.Int64(*row.time_ms);
    w.Key("raw_time_source");
    put_string(w, row.time_source);
  }
  put_source(w, row, sha_offset);
  if (row.native) {
    w.Key("native");
    put_string(w, *row.native);
  }
  w.EndObject();
  w.out += '\n';
}

std::string row_to_json_line(const Row& row, size_t* sha_offset) {
  std::string line;
  line.reserve(1024);
  append_row_json_line(row, line, sha_offset);
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
