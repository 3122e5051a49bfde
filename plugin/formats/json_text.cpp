#include "plugin/formats/json_text.h"

#include <rapidjson/internal/itoa.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "core/text_util.h"
#include "plugin/formats/byte_scan.h"

namespace roo {

void append_json_string(std::string& out, std::string_view s, JsonEscape escape) {
  static const char kHex[] = "0123456789ABCDEF";
  out.reserve(out.size() + s.size() + 2);
  out += '"';
  const char* p = s.data();
  const char* const end = p + s.size();
  for (;;) {
    const char* stop = escape == JsonEscape::ScriptSafe ? find_special_byte<0x20, '"', '\\', '<', '>', '&'>(p, end)
                                                        : json_string_stop(p, end);
    out.append(p, stop);
    if (stop == end) break;
    const auto c = static_cast<unsigned char>(*stop);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      case '<': out += "\\u003c"; break;  // html_script_safe_json's forms, lower case as it writes them
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default: {
        const char u[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
        out.append(u, 6);
      }
    }
    p = stop + 1;
  }
  out += '"';
}

void append_json(std::string& out, const rapidjson::Value& v, JsonEscape escape) {
  char buf[24];
  switch (v.GetType()) {
    case rapidjson::kNullType: out += "null"; return;
    case rapidjson::kFalseType: out += "false"; return;
    case rapidjson::kTrueType: out += "true"; return;
    case rapidjson::kStringType:
      append_json_string(out, std::string_view(v.GetString(), v.GetStringLength()), escape);
      return;
    case rapidjson::kObjectType: {
      out += '{';
      bool first = true;
      for (const auto& m : v.GetObject()) {
        if (!first) out += ',';
        first = false;
        append_json_string(out, std::string_view(m.name.GetString(), m.name.GetStringLength()), escape);
        out += ':';
        append_json(out, m.value, escape);
      }
      out += '}';
      return;
    }
    case rapidjson::kArrayType: {
      out += '[';
      bool first = true;
      for (const auto& item : v.GetArray()) {
        if (!first) out += ',';
        first = false;
        append_json(out, item, escape);
      }
      out += ']';
      return;
    }
    case rapidjson::kNumberType:
      // Value::Accept's order: a double first, then the narrowest integer type that holds the value.
      if (v.IsDouble()) {
        rapidjson::StringBuffer number;  // the Writer's own double form (shortest round trip, its exponent rules)
        rapidjson::Writer<rapidjson::StringBuffer> w(number);
        v.Accept(w);
        out.append(number.GetString(), number.GetSize());
      } else if (v.IsInt64()) {
        out.append(buf, rapidjson::internal::i64toa(v.GetInt64(), buf));
      } else {
        out.append(buf, rapidjson::internal::u64toa(v.GetUint64(), buf));
      }
      return;
  }
}

}  // namespace roo
