#include "plugin/formats/row_fields.h"

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

std::string one_line(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    const bool space = c <= 0x20 || c == 0x7F;
    if (space) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += static_cast<char>(c);
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string one_line_shortened(std::string_view s, size_t max_bytes) {
  // As one_line, but it stops at the first byte past max_bytes that is no space: the line is longer than max_bytes
  // then, and shorten looks at no byte after that one.
  std::string out;
  for (unsigned char c : s) {
    if (c <= 0x20 || c == 0x7F) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += static_cast<char>(c);
      if (out.size() > max_bytes) break;
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return shorten(out, max_bytes);
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
