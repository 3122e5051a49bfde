#include "core/json_records.h"

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <cstring>

namespace roo {

HashingStream::HashingStream(ByteSource& src, size_t chunk) : src_(src), buf_(chunk) {}

bool HashingStream::refill() {
  if (eof_) return false;
  base_ += len_;
  pos_ = len_ = 0;
  int64_t n = src_.read_at(base_, buf_.data(), buf_.size());
  if (n < 0) {
    error_ = src_.error().empty() ? "read error" : src_.error();
    eof_ = true;
    return false;
  }
  if (n == 0) {
    eof_ = true;
    return false;
  }
  len_ = static_cast<size_t>(n);
  sha_.update(buf_.data(), len_);
  return true;
}

std::string HashingStream::finish() {
  pos_ = len_;
  while (refill()) pos_ = len_;
  return sha_.hex();
}

namespace {

bool is_ws(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

void skip_ws(HashingStream& in) {
  while (is_ws(in.peek())) in.take();
}

// Parses one record text. Iterative parsing: no recursion, so a hostile nesting depth cannot blow the stack.
void parse_record(JsonRecord& rec) {
  rapidjson::Document fresh;  // a fresh allocator per record keeps memory at one record
  rec.doc.Swap(fresh);
  rec.doc.Parse<kRecordParseFlags>(rec.text.data(), rec.text.size());
  if (rec.doc.HasParseError()) {
    rec.parse_error = std::string(rapidjson::GetParseError_En(rec.doc.GetParseError())) + " at byte " +
                      std::to_string(rec.doc.GetErrorOffset());
  } else {
    rec.parse_error.clear();
  }
}

}  // namespace

bool JsonArrayReader::scan_value(std::string& text) {
  int c = in_.peek();
  if (c == '{' || c == '[' || c == '"') {
    int depth = 0;
    bool in_string = false, escape = false;
    for (;;) {
      size_t n;
      const char* w = in_.window(&n);
      if (!w) return false;
      size_t i = 0;
      bool done = false;
      for (; i < n; ++i) {
        const char ch = w[i];
        if (in_string) {
          if (escape)
            escape = false;
          else if (ch == '\\')
            escape = true;
          else if (ch == '"') {
            in_string = false;
            if (depth == 0) {  // a top-level string record ends here
              done = true;
              break;
            }
          }
        } else if (ch == '"') {
          in_string = true;
        } else if (ch == '{' || ch == '[') {
          if (++depth > max_depth_) too_deep_ = true;
        } else if (ch == '}' || ch == ']') {
          if (--depth == 0) {
            done = true;
            break;
          }
        }
      }
      if (done) {
        text.append(w, i + 1);
        in_.advance(i + 1);
        return true;
      }
      text.append(w, n);
      in_.advance(n);
    }
  }
  // A scalar (or stray byte): up to the next separator, at least one byte.
  text.push_back(static_cast<char>(in_.take()));
  for (;;) {
    int p = in_.peek();
    if (p < 0) return false;
    if (p == ',' || p == ']' || p == '}' || is_ws(p)) return true;
    text.push_back(static_cast<char>(in_.take()));
  }
}

JsonArrayReader::Status JsonArrayReader::next(JsonRecord& out) {
  if (!started_) {
    // A UTF-8 byte-order mark is not something Roo writes, but hand-edited or copied files may have one.
    if (in_.peek() == 0xEF) {
      in_.take();
      if (in_.peek() == 0xBB) in_.take();
      if (in_.peek() == 0xBF) in_.take();
    }
    skip_ws(in_);
    int c = in_.peek();
    if (c < 0) return Status::empty;
    if (c != '[') return Status::not_an_array;
    in_.take();
    started_ = true;
  }
  for (;;) {
    skip_ws(in_);
    int c = in_.peek();
    if (c < 0) {
      out.offset = in_.offset();  // the data ended between records: nothing of the next one was written
      out.text.clear();
      out.length = 0;
      return Status::cut_off;
    }
    if (c == ']') {
      in_.take();
      return Status::end;
    }
    if (c == ',') {
      in_.take();
      continue;
    }
    break;
  }
  out.index = next_index_;
  out.offset = in_.offset();
  out.text.clear();
  too_deep_ = false;
  if (!scan_value(out.text)) {
    out.length = out.text.size();  // the cut record's bytes, kept as evidence
    return Status::cut_off;
  }
  out.length = out.text.size();
  ++next_index_;
  if (too_deep_)  // the writers and the DOM walk recurse, so a hostile depth is refused before parsing
    out.parse_error = "nesting deeper than " + std::to_string(max_depth_) + " levels";
  else
    parse_record(out);
  if (out.parse_error.empty()) ++good_;
  return Status::record;
}

bool read_json_document(HashingStream& in, rapidjson::Document& doc, std::string* why, std::string* text,
                        uint64_t max_bytes) {
  std::string bytes;
  for (;;) {
    size_t n;
    const char* w = in.window(&n);
    if (!w) break;
    if (bytes.size() + n > max_bytes) {
      *why = "document larger than " + std::to_string(max_bytes) + " bytes";
      return false;
    }
    bytes.append(w, n);
    in.advance(n);
  }
  if (!in.read_error().empty()) {
    *why = "read error: " + in.read_error();
    return false;
  }
  size_t first = 0;
  while (first < bytes.size() && is_ws(static_cast<unsigned char>(bytes[first]))) ++first;
  if (first == bytes.size()) {
    *why = "empty";
    if (text) *text = bytes;
    return false;
  }
  doc.Parse<kRecordParseFlags>(bytes.data(), bytes.size());
  if (text) *text = std::move(bytes);
  if (doc.HasParseError()) {
    *why = std::string(rapidjson::GetParseError_En(doc.GetParseError())) + " at byte " +
           std::to_string(doc.GetErrorOffset());
    return false;
  }
  return true;
}

const rapidjson::Value* member(const rapidjson::Value& obj, const char* name) {
  if (!obj.IsObject()) return nullptr;
  auto it = obj.FindMember(name);
  return it == obj.MemberEnd() ? nullptr : &it->value;
}

std::optional<std::string> get_string(const rapidjson::Value& obj, const char* name) {
  const rapidjson::Value* v = member(obj, name);
  if (!v || !v->IsString()) return std::nullopt;
  return std::string(v->GetString(), v->GetStringLength());
}

std::optional<int64_t> get_int(const rapidjson::Value& obj, const char* name) {
  const rapidjson::Value* v = member(obj, name);
  if (!v) return std::nullopt;
  if (v->IsInt64()) return v->GetInt64();
  if (v->IsDouble()) {
    double d = v->GetDouble();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

std::optional<double> get_number(const rapidjson::Value& obj, const char* name) {
  const rapidjson::Value* v = member(obj, name);
  if (!v || !v->IsNumber()) return std::nullopt;
  return v->GetDouble();
}

std::optional<bool> get_bool(const rapidjson::Value& obj, const char* name) {
  const rapidjson::Value* v = member(obj, name);
  if (!v || !v->IsBool()) return std::nullopt;
  return v->GetBool();
}

std::string to_json_text(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace roo
