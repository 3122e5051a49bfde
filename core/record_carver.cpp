#include "core/record_carver.h"

#include <rapidjson/reader.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>

#include "core/json_records.h"
#include "core/parsers/store_parsers.h"
#include "core/parsers/parsers.h"
#include "core/sha256.h"
#include "core/text_util.h"

namespace roo {

const char* carved_kind_name(CarvedKind k) {
  switch (k) {
    case CarvedKind::ui_message: return "ui_message";
    case CarvedKind::api_message: return "api_message";
    case CarvedKind::history_item: return "history_item";
    case CarvedKind::task_index: return "task_index";
    case CarvedKind::cli_history: return "cli_history";
    case CarvedKind::retry_request: return "retry_request";
  }
  return "unknown";
}

namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The first keys Roo writes its records with (JSON.stringify keeps insertion order): ClineMessage {ts, type, …},
// ApiMessage {role, content, ts}, HistoryItem {id, number, ts, task, …} and QueuedRequest {id, url, …}, the index
// and cli-history {version, …} (cli-history is TAB-indented, hence the whitespace after '{').
constexpr std::string_view kFirstKeys[] = {"\"ts\":", "\"role\":", "\"id\":", "\"version\":"};
constexpr size_t kMaxOpeningWs = 8;

enum class Check { yes, no, need_more };

// Whether the '{' at p opens a value whose first key is one of kFirstKeys. Called for every '{' in the carved bytes
// (one in 256 of random bytes), so the key is chosen by its first letter rather than tried in turn.
Check opens_record(const char* p, size_t avail) {
  size_t i = 1;
  while (i < avail && i <= kMaxOpeningWs && is_ws(p[i])) ++i;
  if (i + 1 >= avail) return Check::need_more;
  if (p[i] != '"') return Check::no;
  std::string_view key;
  switch (p[i + 1]) {
    case 't': key = kFirstKeys[0]; break;
    case 'r': key = kFirstKeys[1]; break;
    case 'i': key = kFirstKeys[2]; break;
    case 'v': key = kFirstKeys[3]; break;
    default: return Check::no;
  }
  const size_t have = std::min(avail - i, key.size());
  if (std::memcmp(p + i, key.data(), have) != 0) return Check::no;
  return have == key.size() ? Check::yes : Check::need_more;
}

// Bytes JSON allows outside strings (structure, whitespace, numbers, true/false/null).
struct OutsideTable {
  bool ok[256] = {};
  constexpr OutsideTable() {
    for (char c : std::string_view("{}[],: \t\r\n0123456789+-.eEtruefalsn")) ok[static_cast<unsigned char>(c)] = true;
  }
};
constexpr OutsideTable kOutside;

struct Frame {
  enum { complete, need_more, invalid } status;
  size_t length = 0;
};

// Frames the JSON value opening at p[0] ('{'): string-aware bracket matching that gives up at the first byte no JSON
// text can hold there (NUL and other control bytes, binary garbage outside strings) or when it exceeds max.
Frame frame_value(const char* p, size_t avail, size_t max) {
  const char* const end = p + std::min(avail, max);
  int depth = 0;
  for (const char* q = p; q < end;) {
    const char c = *q;
    if (c == '"') {
      for (++q;;) {
        q = json_string_stop(q, end);
        if (q >= end) goto out;
        if (*q == '"') break;
        if (*q == '\\') {
          q += 2;
          continue;
        }
        return {Frame::invalid};  // a raw control byte: not JSON text
      }
      ++q;
      continue;
    }
    if (c == '{' || c == '[') {
      if (++depth > kMaxJsonDepth) return {Frame::invalid};
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return {Frame::complete, static_cast<size_t>(q + 1 - p)};
    } else if (!kOutside.ok[static_cast<unsigned char>(c)]) {
      return {Frame::invalid};
    }
    ++q;
  }
out:
  return {avail >= max ? Frame::invalid : Frame::need_more};
}

const rapidjson::Value* array_member(const rapidjson::Value& o, const char* name) {
  const rapidjson::Value* v = member(o, name);
  return v && v->IsArray() ? v : nullptr;
}

// The top-level keys classify_carved looks at, from the events of scan_json: no DOM is built for the many values a
// carve finds (most are records the scan already read, folded without rows).
struct Shape : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Shape> {
  int depth = 0;
  std::string_view key;  // the current top-level key
  bool is_object = false, ts_integer = false, ask_or_say = false, user_or_assistant = false, content = false;
  bool id_string = false, task = false, number = false, version = false, updated_at = false, entries = false;
  bool entry_not_string = false, url_string = false, timestamp = false, retry_count = false;
  int64_t entry_count = 0;

  // A value starts at depth `depth` (1: a top-level member's value; 2 inside it).
  void value(bool string, std::string_view s = {}, bool integer = false) {
    if (depth == 2 && key == "entries") {
      ++entry_count;
      entry_not_string = entry_not_string || !string;
    }
    if (depth != 1) return;
    if (key == "ts") ts_integer = integer;
    else if (key == "type") ask_or_say = string && (s == "ask" || s == "say");
    else if (key == "role") user_or_assistant = string && (s == "user" || s == "assistant");
    else if (key == "content") content = true;
    else if (key == "id") id_string = string;
    else if (key == "task") task = true;
    else if (key == "number") number = true;
    else if (key == "version") version = true;
    else if (key == "updatedAt") updated_at = true;
    else if (key == "url") url_string = string;
    else if (key == "timestamp") timestamp = true;
    else if (key == "retryCount") retry_count = true;
  }
  bool Null() { return value(false), true; }
  bool Bool(bool) { return value(false), true; }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
    const std::string_view v(s, n);
    value(false, {}, v.find_first_of(".eE") == std::string_view::npos);
    return true;
  }
  bool String(const char* s, rapidjson::SizeType n, bool) { return value(true, std::string_view(s, n)), true; }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    if (depth == 1) key_copy.assign(s, n), key = key_copy;
    return true;
  }
  bool StartObject() {
    if (depth == 0) is_object = true;
    value(false);
    ++depth;
    return true;
  }
  bool EndObject(rapidjson::SizeType) { return --depth, true; }
  bool StartArray() {
    value(false);
    if (depth == 1 && key == "entries") entries = true;
    ++depth;
    return true;
  }
  bool EndArray(rapidjson::SizeType) { return --depth, true; }
  std::string key_copy;
};

// Checks that text is one JSON value (RFC 8259 grammar; strings are checked, not decoded, so a lone surrogate
// escape passes as parse_json reads it) and hands its events to a Shape: what RapidJSON's SAX reader does, without
// unescaping or copying any string. Carving checks every value it finds, most of them records the scan already read.
bool scan_json(std::string_view text, Shape& h) {
  const char* p = text.data();
  const char* const end = p + text.size();
  char stack[kMaxJsonDepth];
  int top = 0;
  auto ws = [&] {
    while (p < end && is_ws(*p)) ++p;
  };
  auto digit = [&] { return p < end && *p >= '0' && *p <= '9'; };
  auto string = [&](std::string_view* out) {  // at '"'
    const char* const from = ++p;
    for (;;) {
      p = json_string_stop(p, end);
      if (p >= end) return false;
      if (*p == '"') break;
      if (*p != '\\' || ++p >= end) return false;  // a raw control byte, or a cut escape
      if (*p == 'u') {
        if (end - p < 5) return false;
        for (int i = 1; i <= 4; ++i)
          if (!std::isxdigit(static_cast<unsigned char>(p[i]))) return false;
        p += 5;
      } else if (std::strchr("\"\\/bfnrt", *p) && *p) {
        ++p;
      } else {
        return false;
      }
    }
    *out = std::string_view(from, static_cast<size_t>(p - from));
    ++p;
    return true;
  };
  auto key = [&] {  // at a member's key; leaves p at its value
    std::string_view k;
    if (p >= end || *p != '"' || !string(&k)) return false;
    h.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()), false);
    ws();
    if (p >= end || *p != ':') return false;
    ++p;
    ws();
    return true;
  };
  ws();
  for (;;) {
    // A value starts at p.
    if (p >= end) return false;
    const char c = *p;
    if (c == '{' || c == '[') {
      if (top == kMaxJsonDepth) return false;
      stack[top++] = c;
      c == '{' ? h.StartObject() : h.StartArray();
      ++p;
      ws();
      if (p < end && *p == (c == '{' ? '}' : ']')) {
        --top;
        c == '{' ? h.EndObject(0) : h.EndArray(0);
        ++p;
      } else {
        if (c == '{' && !key()) return false;
        continue;
      }
    } else if (c == '"') {
      std::string_view v;
      if (!string(&v)) return false;
      h.String(v.data(), static_cast<rapidjson::SizeType>(v.size()), false);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      const char* const from = p;
      if (*p == '-') ++p;
      if (p < end && *p == '0') {
        ++p;
      } else if (digit()) {
        while (digit()) ++p;
      } else {
        return false;
      }
      if (p < end && *p == '.') {
        ++p;
        if (!digit()) return false;
        while (digit()) ++p;
      }
      bool exponent = false;
      if (p < end && (*p == 'e' || *p == 'E')) {
        exponent = true;
        ++p;
        if (p < end && (*p == '+' || *p == '-')) ++p;
        if (!digit()) return false;
        while (digit()) ++p;
      }
      // parse_json refuses a number no double holds (1e999, 1e-999), which takes an exponent or hundreds of digits:
      // so does this check, or a value it passes would give no document.
      double d;
      if ((exponent || p - from > 300) && std::from_chars(from, p, d).ec != std::errc()) return false;
      h.RawNumber(from, static_cast<rapidjson::SizeType>(p - from), false);
    } else {
      bool matched = false;
      for (std::string_view word : {std::string_view("true"), std::string_view("false"), std::string_view("null")})
        if (!matched && static_cast<size_t>(end - p) >= word.size() && std::memcmp(p, word.data(), word.size()) == 0) {
          matched = true;
          p += word.size();
          word[0] == 'n' ? h.Null() : h.Bool(word[0] == 't');
        }
      if (!matched) return false;
    }
    // After a value: close what it ends, then a comma (the next value) or the end of the text.
    for (;;) {
      ws();
      if (top == 0) return p == end;
      if (p >= end) return false;
      const char open = stack[top - 1];
      if (*p == (open == '{' ? '}' : ']')) {
        --top;
        open == '{' ? h.EndObject(0) : h.EndArray(0);
        ++p;
        continue;
      }
      if (*p != ',') return false;
      ++p;
      ws();
      if (open == '{' && !key()) return false;
      break;
    }
  }
}

}  // namespace

std::optional<CarvedKind> classify_carved(std::string_view text) {
  Shape s;
  if (!scan_json(text, s) || !s.is_object) return std::nullopt;
  if (s.ts_integer && s.ask_or_say) return CarvedKind::ui_message;
  if (s.user_or_assistant && s.content) return CarvedKind::api_message;
  if (s.entries && s.version) {
    if (s.updated_at || s.entry_not_string || s.entry_count == 0) return CarvedKind::task_index;
    return CarvedKind::cli_history;
  }
  if (s.id_string && s.ts_integer && (s.task || s.number)) return CarvedKind::history_item;
  if (s.id_string && s.url_string && s.timestamp && s.retry_count) return CarvedKind::retry_request;
  return std::nullopt;
}

// ---- Carver -------------------------------------------------------------------------------------------------

Carver::Carver(Found found, bool nested, size_t max_value)
    : found_(std::move(found)), nested_(nested), max_value_(max_value) {}

void Carver::begin_run(uint64_t offset, std::string_view before) {
  pending_.clear();
  pending_off_ = next_off_ = offset;
  history_.assign(before.size() > kCarveLookbehind ? before.substr(before.size() - kCarveLookbehind) : before);
}

void Carver::keep_history(const char* p, size_t n) {
  if (n >= kCarveLookbehind) {
    history_.assign(p + n - kCarveLookbehind, kCarveLookbehind);
    return;
  }
  history_.append(p, n);
  if (history_.size() > kCarveLookbehind) history_.erase(0, history_.size() - kCarveLookbehind);
}

void Carver::feed(const char* data, size_t len) {
  if (pending_.empty()) {
    // The usual case: scan the caller's buffer in place and keep only an open value's bytes.
    const size_t used = scan(data, len, next_off_, false);
    keep_history(data, used);
    pending_.assign(data + used, len - used);
    pending_off_ = next_off_ + used;
  } else {
    pending_.append(data, len);
    const size_t used = scan(pending_.data(), pending_.size(), pending_off_, false);
    keep_history(pending_.data(), used);
    pending_.erase(0, used);
    pending_off_ += used;
  }
  next_off_ += len;
}

void Carver::end_run() {
  if (!pending_.empty()) scan(pending_.data(), pending_.size(), pending_off_, true);
  pending_.clear();
  history_.clear();
}

// Scans p[0, n) (image offset base) and returns how many leading bytes are done with: everything before the first
// value that is still open at the end (or a '{' too close to the end to check). final: no more bytes will come.
size_t Carver::scan(const char* p, size_t n, uint64_t base, bool final) {
  size_t pos = 0;
  while (pos < n) {
    if (base + pos >= scan_end_) return n;
    const char* hit = static_cast<const char*>(std::memchr(p + pos, '{', n - pos));
    if (!hit) return n;
    const size_t q = static_cast<size_t>(hit - p);
    if (base + q >= scan_end_) return n;
    const Check opens = opens_record(hit, n - q);
    if (opens == Check::need_more) {
      if (!final) return q;
      pos = q + 1;
      continue;
    }
    if (opens == Check::no) {
      pos = q + 1;
      continue;
    }
    const Frame f = frame_value(hit, n - q, max_value_);
    if (f.status == Frame::need_more && !final) return q;
    if (f.status == Frame::complete) {
      std::string_view text(hit, f.length);
      // Listing a known file's records (nested) needs no kind: whatever is framed there is folded against.
      const std::optional<CarvedKind> kind = nested_ ? CarvedKind::ui_message : classify_carved(text);
      if (kind) {
        CarvedValue v;
        v.offset = base + q;
        v.length = f.length;
        v.text.assign(text);
        v.kind = *kind;
        // The bytes before it: from this buffer, topped up from what came before it.
        const size_t own = std::min(q, kCarveLookbehind);
        if (own < kCarveLookbehind && q == own) {
          const size_t from_history = std::min(history_.size(), kCarveLookbehind - own);
          v.before.assign(history_, history_.size() - from_history, from_history);
        }
        v.before.append(hit - own, own);
        found_(std::move(v));
        pos = nested_ ? q + 1 : q + f.length;
        continue;
      }
    }
    pos = q + 1;  // not a Roo record, cut, or garbage: records may still start inside it
  }
  return n;
}

void for_each_record_value(std::string_view bytes, const std::function<void(std::string_view)>& f) {
  Carver c([&](CarvedValue&& v) { f(v.text); }, true);
  c.begin_run(0);
  c.feed(bytes.data(), bytes.size());
  c.end_run();
}

KnownRecords::Digest KnownRecords::digest_of(std::string_view hex) {
  Digest d{};
  auto nibble = [](char c) { return static_cast<unsigned char>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10); };
  for (size_t i = 0; i < d.size() && 2 * i + 1 < hex.size(); ++i)
    d[i] = static_cast<unsigned char>(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
  return d;
}

void KnownRecords::add(const Digest& record, const std::string& task, Place place) {
  auto [it, added] = task_numbers_.emplace(task, static_cast<uint32_t>(tasks_.size()));
  if (added) tasks_.push_back(task);
  entries_.push_back({record, it->second, place});
}

void KnownRecords::add_file(std::string_view bytes, const TaskIdentity* identity) {
  const std::string task = identity && identity->session_id ? *identity->session_id : std::string();
  if (!task.empty()) identities.emplace(task, *identity);
  for_each_record_value(bytes, [&](std::string_view record) { add(sha256_digest(record), task); });
  seal();
}

void KnownRecords::seal() {
  // Stable: of equal digests the first added stays first, and is the one kept.
  std::stable_sort(entries_.begin(), entries_.end(),
                   [](const Entry& a, const Entry& b) { return a.digest < b.digest; });
  entries_.erase(std::unique(entries_.begin(), entries_.end(),
                             [](const Entry& a, const Entry& b) { return a.digest == b.digest; }),
                 entries_.end());
  entries_.shrink_to_fit();
}

const KnownRecords::Entry* KnownRecords::find(const Digest& d) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), d,
                             [](const Entry& e, const Digest& x) { return e.digest < x; });
  return it != entries_.end() && it->digest == d ? &*it : nullptr;
}

const std::string* KnownRecords::task_of(const std::string& sha256_hex) const { return task_of(digest_of(sha256_hex)); }

const std::string* KnownRecords::task_of(const Digest& record) const {
  const Entry* e = find(record);
  return e ? &tasks_[e->task] : nullptr;
}

std::optional<KnownRecords::Place> KnownRecords::place_of(const std::string& sha256_hex) const {
  const Entry* e = find(digest_of(sha256_hex));
  return e ? std::optional<Place>(e->place) : std::nullopt;
}

int64_t RecordPlaces::next(const CarvedValue& v) {
  if (v.offset < open_end_) return KnownRecords::kNoPlace;  // inside a top-level value: no row names it
  open_end_ = v.end();
  // What lies between the previous top-level value (or the file's start) and this one: whitespace, then '[' (the
  // array's first record) or ',' (its next one); the bytes before are in v.before when the gap is short.
  size_t i = v.before.size();
  while (i > 0 && is_ws(v.before[i - 1])) --i;
  const char sep = i > 0 ? v.before[i - 1] : '\0';
  size_t j = i > 0 ? i - 1 : 0;
  while (j > 0 && is_ws(v.before[j - 1])) --j;
  const uint64_t gap = v.before.size() - j;  // bytes from the end of what precedes the separator up to v
  const bool first = count_++ == 0;
  int64_t place = KnownRecords::kNoPlace;
  if (first && i == 0 && v.offset == v.before.size()) {
    place = KnownRecords::kWholeFile;  // the file is this one object (a HistoryItem file)
    numbered_ = false;
  } else if (first) {
    numbered_ = sep == '[' && j == 0 && v.offset == v.before.size();
    if (numbered_) place = 0;
  } else {
    numbered_ = numbered_ && sep == ',' && v.offset - gap == last_top_end_;
    if (numbered_) place = count_ - 1;
  }
  last_top_end_ = v.end();
  return place;
}

std::string carved_copy_json(const CarveRegion& r, uint64_t offset, uint64_t length) {
  rapidjson::Document o(rapidjson::kObjectType);
  auto& a = o.GetAllocator();
  o.AddMember("path", rapidjson::Value(r.file.path.c_str(), a), a);
  o.AddMember("inode", r.file.inode ? rapidjson::Value(static_cast<uint64_t>(*r.file.inode)) : rapidjson::Value(), a);
  o.AddMember("recovery", rapidjson::StringRef(recovery_name(r.file.recovery)), a);
  o.AddMember("record_index", rapidjson::Value(), a);
  o.AddMember("byte_offset", static_cast<uint64_t>(offset), a);
  o.AddMember("byte_length", static_cast<uint64_t>(length), a);
  if (r.block_size && r.fs_offset && offset >= *r.fs_offset) {  // as CarvedRows gives a carved row's blocks
    rapidjson::Value span(rapidjson::kArrayType), blocks(rapidjson::kArrayType);
    span.PushBack(static_cast<uint64_t>((offset - *r.fs_offset) / r.block_size), a);
    span.PushBack(static_cast<uint64_t>((offset + length - 1 - *r.fs_offset) / r.block_size), a);
    blocks.PushBack(span, a);
    o.AddMember("blocks", blocks, a);
  }
  return to_json_text(o);
}

std::string CarveStats::to_json() const {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("bytes_carved", bytes_carved, a);
  d.AddMember("unallocated_bytes", unallocated_bytes, a);
  d.AddMember("slack_bytes", slack_bytes, a);
  d.AddMember("unpartitioned_bytes", unpartitioned_bytes, a);
  d.AddMember("unallocated_of", rapidjson::Value(unallocated_of.c_str(), a), a);
  d.AddMember("unallocated_rows", unallocated_rows, a);
  d.AddMember("slack_rows", slack_rows, a);
  rapidjson::Value areas(rapidjson::kArrayType);
  for (const Area& area : unpartitioned_areas) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("offset", area.offset, a);
    o.AddMember("length", area.length, a);
    o.AddMember("rows", area.rows, a);
    areas.PushBack(o, a);
  }
  d.AddMember("unpartitioned_areas", areas, a);
  rapidjson::Value kinds(rapidjson::kObjectType);
  for (int k = 0; k < kCarvedKinds; ++k) {
    rapidjson::Value c(rapidjson::kObjectType);
    c.AddMember("found", found[k], a);
    c.AddMember("folded", folded[k], a);
    c.AddMember("kept", kept[k], a);
    kinds.AddMember(rapidjson::StringRef(carved_kind_name(static_cast<CarvedKind>(k))), c, a);
  }
  d.AddMember("records", kinds, a);
  d.AddMember("unattributed", unattributed, a);
  d.AddMember("seconds", seconds, a);
  d.AddMember("known_records_seconds", known_records_seconds, a);
  rapidjson::Value errs(rapidjson::kArrayType);
  for (const std::string& e : errors) errs.PushBack(rapidjson::Value(e.c_str(), a), a);
  d.AddMember("errors", errs, a);
  return to_json_text(d);
}

// ---- CarvedRecordEmitter ------------------------------------------------------------------------------------

namespace {

}  // namespace

bool continues_array(const CarvedValue& a, const CarvedValue& b) {
  if (a.kind != b.kind || a.region != b.region) return false;
  if (b.kind != CarvedKind::ui_message && b.kind != CarvedKind::api_message) return false;
  size_t i = b.before.size();
  while (i > 0 && is_ws(b.before[i - 1])) --i;
  if (i == 0 || b.before[i - 1] != ',') return false;
  --i;
  while (i > 0 && is_ws(b.before[i - 1])) --i;
  return b.offset - (b.before.size() - i) == a.end();
}

namespace {

bool opens_array(const CarvedValue& v) {
  size_t i = v.before.size();
  while (i > 0 && is_ws(v.before[i - 1])) --i;
  return i > 0 && v.before[i - 1] == '[';
}

// Where each row of a carved group came from: rewrites its source and position to the carved bytes, adds how it
// was attributed, and drops the rows of folded records and of the stand-in first record.
class CarvedRows : public RowSink {
 public:
  CarvedRows(RowSink& out, const CarveRegion& region, const std::vector<const CarvedValue*>& records,
             int64_t first_record, const std::set<int64_t>& folded)
      : out_(out), region_(region), records_(records), first_record_(first_record), folded_(folded) {
    source_.volume = &region.volume;
    source_.file = region.file;
  }
  const TaskIdentity* identity = nullptr;
  std::string attribution;
  bool keep_record_index = false;  // _index.json entries keep their position in entries[]
  int64_t rows = 0;

  void emit(const Row& row) override {
    Row copy = row;
    take(std::move(copy));
  }
  void take(Row&& row) override {
    const CarvedValue* v = records_.front();
    if (!keep_record_index && row.position.record_index) {
      const int64_t i = *row.position.record_index - first_record_;
      if (i < 0 || folded_.count(*row.position.record_index)) return;  // the stand-in, or a folded record
      if (i < static_cast<int64_t>(records_.size())) v = records_[static_cast<size_t>(i)];
      row.position.record_index.reset();  // its position in the original array is not known
    }
    row.source = &source_;
    row.identity = identity;
    row.position.byte_offset = v->offset;
    row.position.byte_length = v->length;
    row.position.blocks.clear();
    if (region_.block_size && region_.fs_offset && v->offset >= *region_.fs_offset) {
      const uint64_t first = (v->offset - *region_.fs_offset) / region_.block_size;
      const uint64_t last = (v->end() - 1 - *region_.fs_offset) / region_.block_size;
      row.position.blocks.push_back({first, last});
    }
    row.set("carved_kind", std::string(carved_kind_name(v->kind)));
    row.set("attribution", attribution);
    ++rows;
    out_.emit(std::move(row));
  }

 private:
  RowSink& out_;
  const CarveRegion& region_;
  SourceRef source_;
  const std::vector<const CarvedValue*>& records_;
  int64_t first_record_;
  const std::set<int64_t>& folded_;
};

// A task's identity as its carved rows carry it: the live task's when the scan met it, else only the id.
TaskIdentity identity_for(const KnownRecords& known, const std::string& task) {
  if (auto it = known.identities.find(task); it != known.identities.end()) return it->second;
  TaskIdentity id;
  id.session_id = task;
  return id;
}

}  // namespace

CarvedRecordEmitter::CarvedRecordEmitter(const KnownRecords& known, const std::vector<CarveRegion>& regions,
                                         RowSink& sink, CarveStats& stats, bool native)
    : known_(known), regions_(regions), sink_(sink), stats_(stats), native_(native) {}

CarvedRecordEmitter::~CarvedRecordEmitter() = default;

void CarvedRecordEmitter::add(CarvedValue&& v) {
  if (v.offset < taken_end_) return;  // inside a value already taken (found again by the next work unit)
  taken_end_ = v.end();
  ++stats_.found[static_cast<int>(v.kind)];
  if (!group_.empty()) {
    const bool same_array = continues_array(group_.back(), v);
    if (!same_array || group_bytes_ + v.length > kMaxGroupBytes) flush();  // memory stays bounded
    if (!same_array) array_task_.reset();
  }
  group_bytes_ += v.length;
  group_.push_back(std::move(v));
}

void CarvedRecordEmitter::finish() { flush(); }

bool CarvedRecordEmitter::read_by_scan_holds(const CarvedValue& v) const {
  auto after = std::upper_bound(read_by_scan.begin(), read_by_scan.end(), std::pair<uint64_t, uint64_t>(v.offset, UINT64_MAX));
  return after != read_by_scan.begin() && v.end() <= std::prev(after)->second;
}

void CarvedRecordEmitter::flush() {
  if (group_.empty()) return;
  emit_group();
  group_.clear();
  group_bytes_ = 0;
}

void CarvedRecordEmitter::emit_group() {
  const CarvedKind kind = group_.front().kind;
  const int k = static_cast<int>(kind);
  const CarveRegion& region = regions_[static_cast<size_t>(group_.front().region)];
  std::optional<std::string> task;  // the task a folded neighbour belongs to (what its neighbours are attributed to)
  bool all_folded = true;
  for (CarvedValue& v : group_) {
    if (!v.looked_up) {
      if (v.sha256.empty()) v.sha256 = sha256_hex(v.text);
      v.known_task = known_.task_of(v.sha256);
      v.looked_up = true;
    }
    if (!v.known_task) {
      all_folded = false;
    } else if (!task && !v.known_task->empty()) {
      task = *v.known_task;
    }
    // A folded record (never an index: its entries fold one by one below): its known copy's rows name it.
    if (v.known_task && folds && kind != CarvedKind::task_index && !read_by_scan_holds(v))
      if (auto place = known_.place_of(v.sha256); place && place->record_index != KnownRecords::kNoPlace)
        folds->push_back({*place, v.offset, v.length, v.region});
  }
  if (task)
    array_task_ = task;  // the array's later parts, if it is read in parts
  else
    task = array_task_;
  if (all_folded && kind != CarvedKind::task_index) {
    stats_.folded[k] += static_cast<int64_t>(group_.size());
    return;
  }
  std::vector<const CarvedValue*> records;
  for (const CarvedValue& v : group_) records.push_back(&v);
  std::string joined;
  for (const CarvedValue& v : group_) {
    if (!joined.empty()) joined += ',';
    joined += v.text;
  }
  const std::string group_sha = sha256_hex(joined);

  TaskIdentity unattributed;  // the parsers may look at the identity; rows carry none
  ParseContext ctx;
  ctx.identity = &unattributed;
  ctx.native = native_;
  std::set<std::string> no_dirs;
  ctx.task_dirs = &no_dirs;

  if (kind == CarvedKind::ui_message || kind == CarvedKind::api_message) {
    // The group is one array's consecutive records: read them as one array, so calls join their results and the
    // first say:"text" of a task is its prompt. A group that does not open its array gets a stand-in first
    // record (dropped), so its first say:"text" is not taken for the prompt.
    const bool stand_in = kind == CarvedKind::ui_message && !opens_array(group_.front());
    std::string array = "[";
    if (stand_in) array += R"({"ts":0,"type":"say","say":"text","text":""},)";
    array += joined;
    array += "]";
    RecordFolds folds;
    for (const CarvedValue& v : group_)
      if (v.known_task) folds.live.insert(v.sha256);
    std::set<int64_t> folded;
    const int64_t first = stand_in ? 1 : 0;
    CarvedRows rows(sink_, region, records, first, folded);
    TaskIdentity id;
    if (task) {
      id = identity_for(known_, *task);
      rows.identity = &id;
      rows.attribution = "neighbour_record";
      ctx.identity = &id;
    } else {
      rows.attribution = "none";
    }
    ctx.sink = &rows;
    ctx.folds = &folds;
    ctx.folded_records = &folded;
    SourceRef src{&region.volume, region.file};
    ctx.source = &src;
    ctx.file_name = kind == CarvedKind::ui_message ? "ui_messages.json" : "api_conversation_history.json";
    MemoryBytes bytes(array);
    HashingStream in(bytes);
    const ParseStats st = kind == CarvedKind::ui_message ? parse_ui_messages(in, ctx, nullptr)
                                                         : parse_api_history(in, ctx, nullptr);
    const int64_t folded_n = st.version_folded;  // the stand-in is no record of the group: never in folds.live
    stats_.folded[k] += folded_n;
    stats_.kept[k] += static_cast<int64_t>(group_.size()) - folded_n;
    if (!task) stats_.unattributed += static_cast<int64_t>(group_.size()) - folded_n;
    if (rows.rows) sink_.end_source(group_sha);
    return;
  }

  // One value: a HistoryItem, an index, a cli-history or a retry-queue request.
  const CarvedValue& v = group_.front();
  std::set<int64_t> none;
  CarvedRows rows(sink_, region, records, 0, none);
  SourceRef src{&region.volume, region.file};
  ctx.source = &src;
  ctx.sink = &rows;
  LocalDocument local;  // no 64 KiB first chunk per carved value (json_records.h)
  rapidjson::Document& doc = local.doc;
  std::string why;
  parse_json(v.text.data(), v.text.size(), doc, &why);
  if (kind == CarvedKind::history_item) {
    ctx.file_name = "history_item.json";
    HistoryItem item = history_item_from_json(doc);
    // The shape check saw a string "id", yet the document can hold another: with the key repeated, member() reads
    // the first. Like an index entry without an id, there is no task to give the row.
    if (!item.id) return;
    TaskIdentity id = identity_for(known_, *item.id);
    ctx.identity = &id;
    rows.identity = &id;
    rows.attribution = "task_id";
    emit_task_row(item, ctx, "history_item", known_.identities.count(*item.id) > 0, nullptr, no_dirs, &v.text);
    ++stats_.kept[k];
  } else if (kind == CarvedKind::task_index) {
    // Each entry is a HistoryItem: folded when the scan read the very same entry, else a task row of its own id.
    ctx.file_name = "_index.json";
    rows.keep_record_index = true;
    rows.attribution = "task_id";
    MemoryBytes bytes(v.text);
    HashingStream in(bytes);
    int64_t kept = 0;
    // The entries' exact bytes (folding compares bytes): the values opening like a HistoryItem inside the index,
    // in order; when some entry does not (a damaged one), its DOM's text is compared instead.
    std::vector<std::string> entry_texts;
    Carver entries_carver([&](CarvedValue&& e) { entry_texts.push_back(std::move(e.text)); });
    entries_carver.begin_run(1);
    entries_carver.feed(v.text.data() + 1, v.text.size() - 1);
    entries_carver.end_run();
    const rapidjson::Value* entries = array_member(doc, "entries");
    if (entries && entries->Size() != entry_texts.size()) {
      entry_texts.clear();
      for (const auto& e : entries->GetArray()) entry_texts.push_back(to_json_text(e));
    }
    for (IndexEntry& entry : parse_task_index(in, ctx)) {
      const size_t i = static_cast<size_t>(entry.record_index);
      if (i < entry_texts.size() && known_.known(sha256_hex(entry_texts[i]))) continue;
      if (!entry.item.id) continue;
      TaskIdentity id = identity_for(known_, *entry.item.id);
      ctx.identity = &id;
      rows.identity = &id;
      JsonRecord rec;
      rec.index = entry.record_index;
      rec.offset = 0;
      rec.length = 0;
      if (native_) rec.text = entry.text;
      emit_task_row(entry.item, ctx, "index", known_.identities.count(*entry.item.id) > 0, &rec, no_dirs);
      ++kept;
    }
    if (kept == 0) {  // every entry is one the scan read (or has no id): nothing new
      ++stats_.folded[k];
      return;
    }
    ++stats_.kept[k];
  } else if (kind == CarvedKind::cli_history) {
    ctx.file_name = "cli-history.json";
    rows.attribution = "none";
    rows.keep_record_index = true;
    MemoryBytes bytes(v.text);
    HashingStream in(bytes);
    for (const CliHistoryEntry& e : parse_cli_history(in, ctx).entries) emit_cli_history_row(e, ctx);
    ++stats_.kept[k];
    ++stats_.unattributed;
  } else {  // retry_request: one QueuedRequest, read as the retry queue it came from
    ctx.file_name = "workspace state";
    rows.attribution = "none";
    rows.keep_record_index = true;
    const std::string state = "{\"roo.retryQueue\":[" + v.text + "]}";
    LocalDocument local_state;
    rapidjson::Document& sd = local_state.doc;
    if (parse_json(state.data(), state.size(), sd, &why)) parse_workspace_state(sd, ctx, "carved bytes");
    ++stats_.kept[k];
    ++stats_.unattributed;
  }
  if (rows.rows) sink_.end_source(group_sha);
}

}  // namespace roo
