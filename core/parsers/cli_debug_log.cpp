// ~/.roo/cli-debug.log: the Roo CLI's debug log, one row per entry (store_parsers.h; docs/roo-format.md §6;
// docs/row-contract.md "CLI debug log"). debugLog (packages/core/src/debug-log/index.ts, RooCodeInc/Roo-Code
// v3.52.1:39-60) appends "[<new Date().toISOString()>] <message>\n", or with data
// "[<time>] <message>: <JSON.stringify(data, null, 2)>\n", so an entry with data runs over several lines; a line
// that does not open with a bracketed ISO time continues the entry before it.
#include <rapidjson/document.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string_view>

#include "core/parsers/redaction.h"
#include "core/parsers/store_parsers.h"
#include "core/parsers/store_parsing.h"
#include "core/text_util.h"

namespace roo {

namespace {

// toISOString's "YYYY-MM-DDTHH:MM:SS.sssZ" between brackets, then a space: "[" + 24 + "] ".
constexpr size_t kTimeLength = 24;
constexpr size_t kHeadLength = kTimeLength + 3;

std::optional<int64_t> entry_time(std::string_view line) {
  if (line.size() < kHeadLength || line[0] != '[' || line[kTimeLength + 1] != ']' || line[kTimeLength + 2] != ' ')
    return std::nullopt;
  const std::string_view time = line.substr(1, kTimeLength);
  if (time[4] != '-' || time[10] != 'T' || time[23] != 'Z') return std::nullopt;
  return ms_from_iso_utc(time);
}

// The first string member named `name` anywhere in v (depth-first, members in order).
const rapidjson::Value* find_string(const rapidjson::Value& v, const char* name) {
  if (v.IsObject()) {
    for (const auto& m : v.GetObject()) {
      if (m.value.IsString() && std::string_view(m.name.GetString(), m.name.GetStringLength()) == name)
        return &m.value;
      if (const rapidjson::Value* found = find_string(m.value, name)) return found;
    }
  } else if (v.IsArray()) {
    for (const auto& e : v.GetArray())
      if (const rapidjson::Value* found = find_string(e, name)) return found;
  }
  return nullptr;
}

// The id in a "[Task#<id>.<instance>]" or "Task#<id>" prefix, as Task.ts writes its console lines.
std::optional<std::string> task_in_message(std::string_view message) {
  const size_t at = message.find("Task#");
  if (at == std::string_view::npos) return std::nullopt;
  const size_t start = at + 5;
  size_t end = start;
  while (end < message.size() && (std::isalnum(static_cast<unsigned char>(message[end])) || message[end] == '-'))
    ++end;
  if (end == start) return std::nullopt;
  return std::string(message.substr(start, end - start));
}

// Redacts an entry line by line (docs/row-contract.md "CLI debug log"): a JSON member line `"<key>": "<value>"`
// whose key names a credential (store_parsing::is_secret_name, the stores' rule) has its value replaced, and every
// string value inside such a member's object or array; every other line goes through Redactor::words (secret flags,
// NAME=VALUE, secret URL parameters, an auth header), as an MCP server's command line does.
class EntryRedactor {
 public:
  Redactor words;

  std::string line(std::string_view l) {
    const size_t indent = l.find_first_not_of(' ');
    const std::string_view body = indent == std::string_view::npos ? std::string_view() : l.substr(indent);
    if (secret_depth_ != std::string_view::npos) {
      if (indent != std::string_view::npos && indent <= secret_depth_ && (body[0] == '}' || body[0] == ']')) {
        secret_depth_ = std::string_view::npos;
        return std::string(l);
      }
      return redact_value(l, secret_key_);
    }
    if (auto key = member_key(body); key && store_parsing::is_secret_name(*key)) {
      const std::string_view value = body.substr(key->size() + 4);
      if (!value.empty() && (value[0] == '{' || value[0] == '[')) {
        secret_depth_ = indent;
        secret_key_ = std::string(*key);
        return std::string(l);
      }
      return redact_value(l, std::string(*key));
    } else if (key && body.size() > key->size() + 4 && body[key->size() + 4] == '"') {
      // Any other string member: its value alone, so the quotes and the comma stay.
      const size_t open = indent + key->size() + 4;
      const size_t close = string_end(l, open);
      if (close < l.size())
        return std::string(l.substr(0, open + 1)) + words.words(l.substr(open + 1, close - open - 1), "text") +
               std::string(l.substr(close));
    }
    return words.words(l, "text");
  }

 private:
  // `"<key>": ` opening a member line of JSON.stringify's indented output (a key without escapes).
  static std::optional<std::string_view> member_key(std::string_view body) {
    if (body.size() < 4 || body[0] != '"') return std::nullopt;
    const size_t close = body.find('"', 1);
    if (close == std::string_view::npos || body.substr(close, 3) != "\": ") return std::nullopt;
    const std::string_view key = body.substr(1, close - 1);
    if (key.find('\\') != std::string_view::npos) return std::nullopt;
    return key;
  }
  // The closing quote of the JSON string opening at l[open], or l.size() when there is none.
  static size_t string_end(std::string_view l, size_t open) {
    size_t close = open + 1;
    while (close < l.size() && l[close] != '"') close += l[close] == '\\' ? 2 : 1;
    return std::min(close, l.size());
  }
  // The line with the string value after its key (or the whole line's string, inside a secret object) replaced.
  std::string redact_value(std::string_view l, const std::string& key) {
    size_t open = l.find("\": \"");
    open = open == std::string_view::npos ? l.find('"') : open + 3;
    if (open == std::string_view::npos) return std::string(l);
    const size_t close = string_end(l, open);
    if (close >= l.size()) return std::string(l);  // no closing quote: not a JSON string
    if (close == open + 1) return std::string(l);  // "" holds nothing
    words.names.push_back("data." + key);
    return std::string(l.substr(0, open + 1)) + kRedacted + std::string(l.substr(close));
  }

  size_t secret_depth_ = std::string_view::npos;  // the indent of an open secret object's key line
  std::string secret_key_;
};

class DebugLogReader {
 public:
  explicit DebugLogReader(const ParseContext& ctx) : ctx_(ctx), where_(store_parsing::file_where(ctx)) {}

  ParseStats read(HashingStream& in) {
    std::string line;
    for (;;) {
      const uint64_t line_at = in.offset();
      line.clear();
      bool cut = false;
      int c = -1;  // the byte that ended the line: '\n', or -1 at the end of the data
      // The line a window at a time (a byte at a time was a tenth of fuzz_cli_debug_log's time).
      size_t n;
      while (const char* w = in.window(&n)) {
        const char* nl = static_cast<const char*>(std::memchr(w, '\n', n));
        const size_t len = nl ? static_cast<size_t>(nl - w) : n;
        const size_t keep = std::min(len, kMaxEntryBytes - line.size());
        line.append(w, keep);
        cut = cut || keep < len;
        in.advance(nl ? len + 1 : len);
        if (nl) {
          c = '\n';
          break;
        }
      }
      if (line.empty() && c < 0) break;
      if (auto t = entry_time(line)) {
        finish();
        open_ = true;
        time_ = t;
        start_ = line_at;
        entry_.assign(line, kHeadLength);
      } else {
        if (!open_) {  // bytes before the first entry: no entry of Roo's
          open_ = true;
          time_.reset();
          start_ = line_at;
          entry_.clear();
        } else {
          entry_ += '\n';
        }
        if (entry_.size() < kMaxEntryBytes) entry_.append(line, 0, kMaxEntryBytes - entry_.size());
      }
      truncated_ = truncated_ || cut || entry_.size() >= kMaxEntryBytes;
      end_ = in.offset();
      if (c < 0) break;
    }
    finish();
    return stats_;
  }

 private:
  // An entry is kept up to this many bytes (one debugLog call: a state summary, rarely more than a few KiB).
  static constexpr size_t kMaxEntryBytes = size_t{1} << 20;

  void finish() {
    if (!open_) return;
    open_ = false;
    const int64_t index = stats_.records++;
    if (!time_) {
      ++stats_.errors;
      Row e = ctx_.row("parser_error");
      e.role = "system";
      e.text = "parser: unparseable record " + std::to_string(index + 1) + " (no [ISO time] at its start): " +
               raw_echo(entry_);
      place(e, index);
      ctx_.sink->emit(std::move(e));
      return;
    }
    ++stats_.good_records;
    EntryRedactor red;
    std::string text;
    size_t from = 0;
    while (from <= entry_.size()) {
      const size_t nl = std::min(entry_.find('\n', from), entry_.size());
      if (from > 0) text += '\n';
      text += red.line(std::string_view(entry_).substr(from, nl - from));
      from = nl + 1;
    }
    Row r = ctx_.row("cli_debug_log");
    r.role = "system";
    r.time_ms = time_;
    r.time_source = "cli_debug_log.time";
    place(r, index);
    // The message's leading "[Component]" and a "WARN: " / "ERROR: " after it (DebugLogger, index.ts:66-99).
    std::string_view message(entry_);
    if (!message.empty() && message[0] == '[') {
      if (const size_t close = message.find(']'); close != std::string_view::npos) {
        r.set("component", std::string(message.substr(1, close - 1)));
        message.remove_prefix(std::min(message.size(), close + 2));
      }
    }
    if (starts_with(message, "WARN: ")) r.set("level", std::string("warn"));
    if (starts_with(message, "ERROR: ")) r.set("level", std::string("error"));
    const std::string_view first_line = std::string_view(entry_).substr(0, entry_.find('\n'));
    std::optional<std::string> task = task_in_message(first_line);
    // The data: JSON.stringify(data, null, 2) of an object or array opens with "{" or "[" at the end of the first
    // line, after ": "; parsed once, to the end of the entry.
    LocalDocument local;  // no 64 KiB first chunk per entry (json_records.h)
    rapidjson::Document& data = local.doc;
    for (std::string_view opening : {": {", ": ["}) {
      const size_t at = first_line.rfind(opening);
      if (at == std::string_view::npos || first_line.size() - at > 4) continue;  // "{", "{}", "[", "[]" end the line
      if (!parse_json(entry_.data() + at + 2, entry_.size() - at - 2, data, nullptr)) data.SetNull();
      break;
    }
    if (const rapidjson::Value* id = find_string(data, "taskId"); id && !task)
      task = std::string(id->GetString(), id->GetStringLength());
    r.set_opt("task_id", task);
    if (const rapidjson::Value* preview = find_string(data, "textPreview"))
      r.set("text_preview", Redactor().words(std::string_view(preview->GetString(), preview->GetStringLength()),
                                             "text_preview"));  // its secrets are the text's, named once
    if (truncated_) r.set("truncated_at_bytes", static_cast<int64_t>(entry_.size()));
    r.text = utf8_valid(text) ? std::move(text) : utf8_sanitize(text);
    if (ctx_.native) r.native = r.text;  // the entry as kept: redacted, never the secret
    ctx_.sink->emit(std::move(r));
    // As in the other stores: each credential taken out is named by a credential_present row (no value, no native).
    int64_t part = 0;
    for (const std::string& name : red.words.names) {
      Row c = ctx_.row("credential_present");
      c.role = "system";
      c.time_ms = time_;
      c.time_source = "cli_debug_log.time";
      place(c, index);
      c.position.part_index = part++;
      const std::string location = where_ + " entry " + std::to_string(index + 1);
      c.text = "credential present: " + name + " (from " + location + ")";
      c.set("credential_key", name).set("credential_location", location);
      ctx_.sink->emit(std::move(c));
    }
    truncated_ = false;
  }

  void place(Row& r, int64_t index) const {
    r.position.record_index = index;
    r.position.byte_offset = start_;
    r.position.byte_length = end_ - start_;
  }

  const ParseContext& ctx_;
  const std::string where_;
  ParseStats stats_;
  bool open_ = false, truncated_ = false;
  std::optional<int64_t> time_;
  uint64_t start_ = 0, end_ = 0;
  std::string entry_;  // the entry after its "[time] ", lines joined by \n
};

}  // namespace

ParseStats parse_cli_debug_log(HashingStream& in, const ParseContext& ctx) { return DebugLogReader(ctx).read(in); }

}  // namespace roo
