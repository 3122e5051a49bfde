#include "plugin/formats/row_fields.h"

#include <algorithm>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace roo {

const rapidjson::Value* member(const rapidjson::Value& object, std::string_view key) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(rapidjson::Value(rapidjson::StringRef(key.data(), key.size())));
  return it == object.MemberEnd() ? nullptr : &it->value;
}

std::optional<std::string_view> string_member(const rapidjson::Value& object, std::string_view key) {
  const rapidjson::Value* v = member(object, key);
  if (!v || !v->IsString()) return std::nullopt;
  return std::string_view(v->GetString(), v->GetStringLength());
}

std::string json_text(const rapidjson::Value& value) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  value.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

std::optional<std::string> value_text(const rapidjson::Value& value) {
  if (value.IsNull()) return std::nullopt;
  if (value.IsString()) return std::string(value.GetString(), value.GetStringLength());
  return json_text(value);  // numbers come out as the writer of rows.jsonl wrote them (both are RapidJSON)
}

namespace {

// The longest prefix of at most max_bytes that does not split a UTF-8 character.
std::string_view utf8_prefix(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut);
}

}  // namespace

std::string shorten(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return std::string(s);
  return std::string(utf8_prefix(s, max_bytes)) + "…";
}

namespace {

// Appends one_line(s) to out, stopping at the first byte that is no space once out holds more than stop_after bytes
// beyond base (see one_line_shortened); the trailing space is trimmed. Writes into room made beforehand rather than
// appending a byte at a time: every l2t.csv line and Timesketch event makes its messages with it.
void append_one_line(std::string& out, size_t base, std::string_view s, size_t stop_after) {
  const size_t start = out.size();
  // Room for what the loop can write: no more bytes than s has, and no more than stop_after + 2 past base (at most
  // a space and then the byte that ends it past the limit; base is at or before start). A long string costs only
  // that much, not its size.
  out.resize(start + std::min(s.size(), stop_after + 2));
  char* const first = out.data() + base;
  char* d = out.data() + start;
  for (const unsigned char c : s) {
    if (c <= 0x20 || c == 0x7F) {
      if (d != first && d[-1] != ' ') *d++ = ' ';
    } else {
      *d++ = static_cast<char>(c);
      if (static_cast<size_t>(d - first) > stop_after) break;
    }
  }
  if (d != first && d[-1] == ' ') --d;
  out.resize(static_cast<size_t>(d - out.data()));
}

}  // namespace

std::string one_line(std::string_view s) {
  std::string out;
  append_one_line(out, 0, s, s.size());
  return out;
}

std::string one_line_shortened(std::string_view s, size_t max_bytes) {
  std::string out;
  append_one_line_shortened(out, s, max_bytes);
  return out;
}

void append_one_line_shortened(std::string& out, std::string_view s, size_t max_bytes) {
  // As one_line, but it stops at the first byte past max_bytes that is no space: the line is longer than max_bytes
  // then, and shorten looks at no byte after that one.
  const size_t base = out.size();
  append_one_line(out, base, s, max_bytes);
  if (out.size() - base <= max_bytes) return;
  size_t cut = base + max_bytes;  // as shorten: not inside a UTF-8 character
  while (cut > base && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
  out.resize(cut);
  out += "…";
}

std::string row_message(const rapidjson::Value& row, size_t max_bytes) {
  std::string message(string_member(row, "kind").value_or("row"));
  auto text = string_member(row, "text");
  if (!text || text->empty()) text = string_member(row, "tool_name");
  if (!text || text->empty()) return message;
  // Only a head of the text is made one line: a row's text can be megabytes of command output. The head is longer
  // than what is shown, since runs of white space shrink.
  const std::string_view head = utf8_prefix(*text, max_bytes * 2 + 8);
  const std::string line = one_line(head);
  std::string shown = shorten(line, max_bytes);
  if (head.size() < text->size() && shown.size() == line.size()) shown += "…";
  return message + ": " + shown;
}

}  // namespace roo
