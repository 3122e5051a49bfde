// What the texts of a transcript are: the user's words, or what the client wrote around them (docs/roo-format.md §3.2,
// §3.4, §4; docs/row-contract.md "XML-era tool calls"). Pure functions on strings.
//
// Every scan moves forward and each search starts where the previous one ended, so the work is linear in the text:
// transcripts hold messages of megabytes and the fuzzers feed 64 KiB of hostile bytes. The XML reader nests at most
// four levels (tool → args → file → diff), by construction rather than by input, so no input can deepen recursion.
#include "core/parsers/transcript_text.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <unordered_map>
#include <utility>

#include "core/text_util.h"

namespace roo::transcript {

namespace {

constexpr size_t npos = std::string_view::npos;

bool is_space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string_view ltrim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return s;
}

// One line end ("\n" or "\r\n") removed at each side: Roo writes its envelopes as "<tag>\n…\n</tag>" and what is
// inside (a file's content, a diff, the user's feedback) keeps all its other whitespace (docs/roo-format.md §4).
std::string_view strip_one_eol(std::string_view s) {
  if (starts_with(s, "\r\n")) {
    s.remove_prefix(2);
  } else if (starts_with(s, "\n")) {
    s.remove_prefix(1);
  }
  if (ends_with(s, "\r\n")) {
    s.remove_suffix(2);
  } else if (ends_with(s, "\n")) {
    s.remove_suffix(1);
  }
  return s;
}

// Exactly what api_history.cpp's strip_one_newline does ("\n" only), so unwrapped words agree byte for byte.
std::string_view strip_one_newline(std::string_view s) {
  if (!s.empty() && s.front() == '\n') s.remove_prefix(1);
  if (!s.empty() && s.back() == '\n') s.remove_suffix(1);
  return s;
}

// The same unwrapping as roo::unwrap_user_text (api_history.cpp), kept here so this module stays free of the row
// machinery: "<task>\n…\n</task>" (first prompt before v3.42.0) or "<user_message>\n…\n</user_message>" when the
// trimmed text opens with the tag and ends with its close; else the text as recorded (docs/roo-format.md §3.2, §4).
std::string unwrap_envelope(std::string_view text) {
  std::string_view t = trim(text);
  for (auto [open, close] :
       {std::pair<std::string_view, std::string_view>{"<task>", "</task>"}, {"<user_message>", "</user_message>"}}) {
    if (starts_with(t, open) && t.size() >= open.size() + close.size() && t.substr(t.size() - close.size()) == close) {
      return std::string(strip_one_newline(t.substr(open.size(), t.size() - open.size() - close.size())));
    }
  }
  return std::string(text);
}

// ---- <environment_details> ----

// "Europe/Berlin, UTC+1:00" (both forms of # Current Time, getEnvironmentDetails.ts:187) → zone and offset. The IANA
// name holds no ", ", so the last one splits; without an offset part the whole text is the zone.
void set_zone(std::string_view s, EnvironmentDetails& env) {
  s = trim(s);
  size_t comma = s.rfind(", ");
  if (comma != npos && starts_with(trim(s.substr(comma + 2)), "UTC")) {
    std::string_view zone = trim(s.substr(0, comma));
    if (!zone.empty()) env.time_zone = std::string(zone);
    env.utc_offset = std::string(trim(s.substr(comma + 2)));
  } else if (!s.empty()) {
    env.time_zone = std::string(s);
  }
}

// Calls f(line, start, next) for each line of s: the line without its "\n" or "\r\n", where it starts, and where
// the next line starts (s.size() after the last).
template <typename F>
void for_each_line(std::string_view s, F f) {
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t nl = s.find('\n', pos);
    size_t end = nl == npos ? s.size() : nl;
    std::string_view line = s.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    f(line, pos, nl == npos ? s.size() : nl + 1);
    if (nl == npos) break;
    pos = nl + 1;
  }
}

void parse_time_section(std::string_view sec, EnvironmentDetails& env) {
  constexpr std::string_view kIso = "Current time in ISO 8601 UTC format:", kZone = "User time zone:";
  std::optional<std::string_view> other;  // the first other non-empty line: the older local form
  for_each_line(sec, [&](std::string_view line, size_t, size_t) {
    std::string_view l = trim(line);
    if (starts_with(l, kIso)) {
      env.current_time = std::string(trim(l.substr(kIso.size())));
    } else if (starts_with(l, kZone)) {
      set_zone(l.substr(kZone.size()), env);
    } else if (!l.empty() && !other) {
      other = l;
    }
  });
  if (!env.current_time && other) {
    // v3.2x: "3/10/2026, 10:15:02 AM (Europe/Berlin, UTC+1:00)": the local time as recorded (without the zone,
    // which goes to its own fields); no epoch ms, since turning local time into UTC needs the zone's rules.
    std::string_view l = *other;
    size_t paren = l.rfind('(');
    if (ends_with(l, ")") && paren != npos && !trim(l.substr(0, paren)).empty()) {
      env.current_time = std::string(trim(l.substr(0, paren)));
      set_zone(l.substr(paren + 1, l.size() - paren - 2), env);
    } else {
      env.current_time = std::string(l);
    }
  }
  if (env.current_time) env.current_time_ms = ms_from_iso_utc(*env.current_time);
}

// The trimmed body of the first <tag>…</tag> in s.
std::optional<std::string> tag_body(std::string_view s, std::string_view open, std::string_view close) {
  size_t a = s.find(open);
  if (a == npos) return std::nullopt;
  size_t b = s.find(close, a + open.size());
  if (b == npos) return std::nullopt;
  return std::string(trim(s.substr(a + open.size(), b - a - open.size())));
}

// ---- XML-era tool calls (docs/roo-format.md §4) ----

// Tool names of the XML protocol and later aliases the model may write as tags (v3.25 src/shared/tools.ts; §3.3).
constexpr std::array<std::string_view, 24> kXmlTools = {
    "execute_command",
    "read_file",
    "write_to_file",
    "apply_diff",
    "insert_content",
    "search_and_replace",
    "list_files",
    "search_files",
    "list_code_definition_names",
    "browser_action",
    "use_mcp_tool",
    "access_mcp_resource",
    "ask_followup_question",
    "attempt_completion",
    "switch_mode",
    "new_task",
    "fetch_instructions",
    "codebase_search",
    "update_todo_list",
    "replace_in_file",
    "write_file",
    "run_slash_command",
    "generate_image",
    "skill",
};

bool known_tool(std::string_view name) {
  for (std::string_view k : kXmlTools)
    if (k == name) return true;
  return false;
}

bool is_ident_start(char c) {
  return is_alpha(c) || c == '_';
}
bool is_ident_char(char c) {
  return is_alpha(c) || is_digit(c) || c == '_' || c == '-';
}

struct OpenTag {
  std::string_view name, attrs;
  size_t end = 0;  // one past '>'
  bool self_closing = false;
};

// Reads an opening tag at t[lt] == '<'. When there is none, *resume is where scanning goes on: past what was
// looked at (never before lt + 1), so nothing is scanned twice.
bool read_open_tag(std::string_view t, size_t lt, OpenTag& tag, size_t* resume) {
  size_t p = lt + 1;
  if (p >= t.size() || !is_ident_start(t[p])) {
    *resume = lt + 1;
    return false;
  }
  while (p < t.size() && is_ident_char(t[p])) ++p;
  tag.name = t.substr(lt + 1, p - lt - 1);
  if (p < t.size() && t[p] == '>') {
    tag.end = p + 1;
    return true;
  }
  if (p >= t.size() || !(is_space(t[p]) || t[p] == '/')) {
    *resume = p;
    return false;
  }
  // Attributes (<suggest mode="code">) run to the next '>'; a '<' first means this was text, not a tag.
  size_t a = p;
  while (p < t.size() && t[p] != '>' && t[p] != '<') ++p;
  if (p >= t.size() || t[p] == '<') {
    *resume = p;
    return false;
  }
  tag.attrs = t.substr(a, p - a);
  tag.end = p + 1;
  if (!tag.attrs.empty() && tag.attrs.back() == '/') {
    tag.self_closing = true;
    tag.attrs.remove_suffix(1);
  }
  return true;
}

// The value of attribute `name` in an opening tag's attribute text: mode="code" or mode='code'.
std::optional<std::string_view> attribute(std::string_view attrs, std::string_view name) {
  size_t p = 0;
  while (p < attrs.size()) {
    while (p < attrs.size() && is_space(attrs[p])) ++p;
    size_t ns = p;
    while (p < attrs.size() && !is_space(attrs[p]) && attrs[p] != '=') ++p;
    std::string_view key = attrs.substr(ns, p - ns);
    while (p < attrs.size() && is_space(attrs[p])) ++p;
    if (p >= attrs.size() || attrs[p] != '=') {
      if (p == ns) ++p;  // a stray character: step over it
      continue;
    }
    ++p;
    while (p < attrs.size() && is_space(attrs[p])) ++p;
    std::string_view value;
    if (p < attrs.size() && (attrs[p] == '"' || attrs[p] == '\'')) {
      char q = attrs[p++];
      size_t vs = p;
      while (p < attrs.size() && attrs[p] != q) ++p;
      value = attrs.substr(vs, p - vs);
      if (p < attrs.size()) ++p;
    } else {
      size_t vs = p;
      while (p < attrs.size() && !is_space(attrs[p])) ++p;
      value = attrs.substr(vs, p - vs);
    }
    if (key == name) return value;
  }
  return std::nullopt;
}

// What the children of an element are. The shapes with structure (read_file and apply_diff <args>, <follow_up>)
// are fixed, which bounds the nesting: tool → args → file → diff.
enum class Kind { value, tool, read_args, read_file, diff_args, diff_file, diff_block, follow_up };

struct Node {
  std::string_view name, attrs;
  size_t vbegin = 0, vend = 0;  // the value's span in the text
  bool raw = false;             // content/diff text: only one line end trimmed each side
  Kind kind = Kind::value;
  std::vector<Node> children;  // for a structured kind
};

// Reads an XML-era call the way Roo's parseAssistantMessage does, in one forward pass: a parameter ends at the first
// close of its own tag, except <content> and <diff>, which may hold any text and end at the LAST close before the
// parent's closing tag (the write_to_file special case of v3.25 parseAssistantMessage.ts). A value whose close never
// comes runs to the end of the text (a cut message: the call is partial).
class XmlCallReader {
 public:
  XmlCallReader(std::string_view text, std::string_view tool) : t_(text), tool_(tool) {}

  // Reads the children of an element of `kind` named `parent`, from pos to its closing tag at child level. Returns
  // the position after that tag, or the end of the text with *closed = false.
  size_t children(Kind kind, std::string_view parent, size_t pos, std::vector<Node>& out, bool* closed) {
    const std::string close_tag = "</" + std::string(parent) + ">";
    *closed = false;
    while (true) {
      size_t lt = t_.find('<', pos);
      if (lt == npos) return t_.size();
      if (t_.compare(lt, close_tag.size(), close_tag) == 0) {
        *closed = true;
        return lt + close_tag.size();
      }
      OpenTag tag;
      size_t resume = lt + 1;
      if (!read_open_tag(t_, lt, tag, &resume)) {
        pos = resume;  // text between parameters, or a stray closing tag: not a parameter
        continue;
      }
      Node node;
      node.name = tag.name;
      node.attrs = tag.attrs;
      node.vbegin = node.vend = tag.end;
      if (tag.self_closing) {
        out.push_back(std::move(node));
        pos = tag.end;
        continue;
      }
      node.kind = child_kind(kind, tag.name);
      node.raw = is_raw(kind, tag.name);
      const std::string child_close = "</" + std::string(tag.name) + ">";
      if (node.kind != Kind::value) {
        bool child_closed = false;
        size_t after = children(node.kind, tag.name, tag.end, node.children, &child_closed);
        node.vend = child_closed ? after - child_close.size() : t_.size();
        out.push_back(std::move(node));
        if (!child_closed) return t_.size();
        pos = after;
        continue;
      }
      size_t end = npos;
      if (node.raw) {
        size_t parent_close = first_at_or_after(close_tag, tag.end);
        end = last_in(child_close, tag.end, parent_close == npos ? t_.size() : parent_close);
      }
      if (end == npos) end = t_.find(child_close, tag.end);
      if (end == npos) {
        node.vend = t_.size();
        out.push_back(std::move(node));
        return t_.size();
      }
      node.vend = end;
      out.push_back(std::move(node));
      pos = end + child_close.size();
    }
  }

 private:
  Kind child_kind(Kind parent, std::string_view child) const {
    switch (parent) {
      case Kind::tool:
        if (child == "args" && tool_ == "read_file") return Kind::read_args;
        if (child == "args" && tool_ == "apply_diff") return Kind::diff_args;
        if (child == "follow_up") return Kind::follow_up;
        return Kind::value;
      case Kind::read_args:
        return child == "file" ? Kind::read_file : Kind::value;
      case Kind::diff_args:
        return child == "file" ? Kind::diff_file : Kind::value;
      case Kind::diff_file:
        return child == "diff" ? Kind::diff_block : Kind::value;
      default:
        return Kind::value;
    }
  }
  static bool is_raw(Kind parent, std::string_view child) {
    return (parent == Kind::tool && (child == "content" || child == "diff")) ||
           (parent == Kind::diff_block && child == "content");
  }

  // The first `tag` at or after `from`. Cached per tag: sibling raw values ask for the same parent close again and
  // again, and a fresh search each time would make many unclosed siblings quadratic.
  size_t first_at_or_after(const std::string& tag, size_t from) {
    for (auto& c : first_cache_) {
      if (c.tag != tag) continue;
      if (c.from <= from && (c.found == npos || c.found >= from)) return c.found;
      c.from = from;
      c.found = t_.find(tag, from);
      return c.found;
    }
    first_cache_.push_back({tag, from, t_.find(tag, from)});
    return first_cache_.back().found;
  }

  // The last `tag` wholly inside [lo, hi). Cached per (tag, hi): the last one in [lo0, hi) answers for every
  // lo >= lo0, so siblings under one parent search that parent's span once.
  size_t last_in(const std::string& tag, size_t lo, size_t hi) {
    if (hi < lo) return npos;
    for (auto& c : last_cache_) {
      if (c.tag != tag) continue;
      if (c.hi == hi && c.lo <= lo) return c.found != npos && c.found >= lo ? c.found : npos;
      c = {tag, lo, hi, search_last(tag, lo, hi)};
      return c.found;
    }
    last_cache_.push_back({tag, lo, hi, search_last(tag, lo, hi)});
    return last_cache_.back().found;
  }
  size_t search_last(const std::string& tag, size_t lo, size_t hi) const {
    size_t at = t_.substr(lo, hi - lo).rfind(tag);
    return at == npos ? npos : lo + at;
  }

  struct FirstCache {
    std::string tag;
    size_t from, found;
  };
  struct LastCache {
    std::string tag;
    size_t lo, hi, found;
  };
  std::string_view t_, tool_;
  std::vector<FirstCache> first_cache_;
  std::vector<LastCache> last_cache_;
};

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// Writes bytes as a JSON string. The Writer escapes quotes, backslashes and control bytes and copies other bytes
// as they are (no encoding validation), so invalid UTF-8 is kept, not refused; the row writer sanitises it.
void put_string(JsonWriter& w, std::string_view s) {
  constexpr size_t kMax = std::numeric_limits<rapidjson::SizeType>::max();
  if (s.size() > kMax) s = s.substr(0, kMax);
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

std::string_view value_of(std::string_view t, const Node& n) {
  std::string_view v = t.substr(n.vbegin, n.vend - n.vbegin);
  return n.raw ? strip_one_eol(v) : trim(v);
}

// The last child named `name`: Roo keeps the last value of a repeated parameter (params[name] = value).
const Node* last_child(const Node& n, std::string_view name) {
  const Node* found = nullptr;
  for (const Node& c : n.children)
    if (c.name == name) found = &c;
  return found;
}

// read_file / apply_diff <args> as {"files":[…]}; false (nothing written) when it holds no <file>.
bool write_files(JsonWriter& w, std::string_view t, const Node& args) {
  bool any = false;
  for (const Node& f : args.children) any = any || (f.name == "file" && f.kind != Kind::value);
  if (!any) return false;
  w.StartArray();
  for (const Node& f : args.children) {
    if (f.name != "file" || f.kind == Kind::value) continue;
    w.StartObject();
    if (const Node* path = last_child(f, "path")) {
      w.Key("path");
      put_string(w, value_of(t, *path));
    }
    if (f.kind == Kind::read_file) {
      // <line_range>1-50</line_range>, zero or more; left out when none (the whole file was read).
      bool ranges = false;
      for (const Node& c : f.children) {
        if (c.name != "line_range") continue;
        if (!ranges) {
          w.Key("line_ranges");
          w.StartArray();
          ranges = true;
        }
        put_string(w, value_of(t, c));
      }
      if (ranges) w.EndArray();
    } else {
      // v3.2x multi-file apply_diff: <diff><content>…</content><start_line>N</start_line></diff>, one or more.
      bool diffs = false;
      for (const Node& d : f.children) {
        if (d.name != "diff") continue;
        if (!diffs) {
          w.Key("diffs");
          w.StartArray();
          diffs = true;
        }
        w.StartObject();
        const Node* content = last_child(d, "content");
        w.Key("content");
        // A <diff> without <content> holds the diff text itself.
        put_string(w, content ? value_of(t, *content) : strip_one_eol(t.substr(d.vbegin, d.vend - d.vbegin)));
        if (const Node* start = last_child(d, "start_line")) {
          w.Key("start_line");
          put_string(w, value_of(t, *start));
        }
        w.EndObject();
      }
      if (diffs) w.EndArray();
    }
    w.EndObject();
  }
  w.EndArray();
  return true;
}

// <follow_up><suggest>a</suggest><suggest mode="code">b</suggest></follow_up> as [{"text":"a"},{"text":"b",
// "mode":"code"}] (v3.25 ask_followup_question); false when it holds no <suggest>.
bool write_follow_up(JsonWriter& w, std::string_view t, const Node& fu) {
  bool any = false;
  for (const Node& s : fu.children) any = any || s.name == "suggest";
  if (!any) return false;
  w.StartArray();
  for (const Node& s : fu.children) {
    if (s.name != "suggest") continue;
    w.StartObject();
    w.Key("text");
    put_string(w, value_of(t, s));
    if (auto mode = attribute(s.attrs, "mode")) {
      w.Key("mode");
      put_string(w, *mode);
    }
    w.EndObject();
  }
  w.EndArray();
  return true;
}

// The parameters as one compact JSON object. Each value is written on its own first, so a repeated parameter keeps
// its first place and its last value, as Roo's params map does.
std::string params_json(std::string_view t, const std::vector<Node>& params) {
  std::vector<std::pair<std::string, std::string>> fields;
  std::unordered_map<std::string, size_t> index;
  for (const Node& p : params) {
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    std::string key(p.name);
    bool done = false;
    if (p.kind == Kind::read_args || p.kind == Kind::diff_args) {
      done = write_files(w, t, p);
      if (done) key = "files";
    } else if (p.kind == Kind::follow_up) {
      done = write_follow_up(w, t, p);
    }
    if (!done) put_string(w, value_of(t, p));
    std::string value(buf.GetString(), buf.GetSize());
    auto [it, inserted] = index.emplace(key, fields.size());
    if (inserted) {
      fields.emplace_back(std::move(key), std::move(value));
    } else {
      fields[it->second].second = std::move(value);
    }
  }
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  for (const auto& [key, value] : fields) {
    put_string(w, key);
    w.RawValue(value.data(), value.size(), rapidjson::kStringType);
  }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

// ---- User text kinds ----

bool is_snake_identifier(std::string_view s) {
  if (s.empty() || !((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_')) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || is_digit(c) || c == '_')) return false;
  return true;
}

// "[<description>] Result:" at the start of t (v3.25 presentAssistantMessage.ts:236-256), ending the text or its
// line. The description may span lines (a multi-line command), so the first such "] Result:" ends it.
bool xml_result_header(std::string_view t, UserText& out) {
  if (!starts_with(t, "[")) return false;
  constexpr std::string_view kEnd = "] Result:";
  for (size_t at = t.find(kEnd, 1); at != npos; at = t.find(kEnd, at + 1)) {
    std::string_view rest = t.substr(at + kEnd.size());
    if (!(rest.empty() || starts_with(rest, "\n") || starts_with(rest, "\r\n"))) continue;
    std::string_view desc = t.substr(1, at - 1);
    out.kind = UserTextKind::xml_tool_result;
    out.tool_description = std::string(desc);
    size_t word_end = 0;
    while (word_end < desc.size() && !is_space(desc[word_end])) ++word_end;
    if (is_snake_identifier(desc.substr(0, word_end))) out.tool_name = std::string(desc.substr(0, word_end));
    out.text = std::string(starts_with(rest, "\r\n") ? rest.substr(2)
                           : starts_with(rest, "\n") ? rest.substr(1)
                                                     : rest);
    return true;
  }
  return false;
}

// "Subtask <id> completed.\n\nResult:\n<summary>" (ClineProvider.ts:3414-3480).
bool subtask_completed(std::string_view t, UserText& out) {
  constexpr std::string_view kOpen = "Subtask ", kDone = " completed.", kResult = "Result:";
  if (!starts_with(t, kOpen)) return false;
  size_t id_end = kOpen.size();
  while (id_end < t.size() && !is_space(t[id_end])) ++id_end;
  std::string_view id = t.substr(kOpen.size(), id_end - kOpen.size());
  if (id.empty() || t.compare(id_end, kDone.size(), kDone) != 0) return false;
  std::string_view rest = ltrim(t.substr(id_end + kDone.size()));
  if (!starts_with(rest, kResult)) return false;
  rest.remove_prefix(kResult.size());
  if (starts_with(rest, "\r\n")) {
    rest.remove_prefix(2);
  } else if (starts_with(rest, "\n")) {
    rest.remove_prefix(1);
  }
  out.kind = UserTextKind::subtask_completed;
  out.subtask_id = std::string(id);
  out.text = std::string(rest);
  return true;
}

// "[TASK RESUMPTION] …" with, when the user typed something, "New instructions for task continuation:\n
// <user_message>\n…\n</user_message>" (v3.25 Task.ts:1178-1184): the instructions are the user's words.
std::string resumption_text(std::string_view text) {
  constexpr std::string_view kOpen = "<user_message>", kClose = "</user_message>";
  size_t a = text.find(kOpen);
  if (a == npos) return std::string(text);
  std::string_view inner = text.substr(a + kOpen.size());
  size_t b = inner.rfind(kClose);  // the last close: the user's own text may hold the tag
  if (b != npos) inner = inner.substr(0, b);
  return std::string(strip_one_eol(inner));
}

// <tag>\n…\n</tag> right after a decision sentence (whitespace between allowed). `last` takes the last close, for
// texts where the body is all that follows; otherwise the first, since a result may follow the body.
std::optional<std::string> decision_body(std::string_view rest, std::string_view open, std::string_view close,
                                         bool last) {
  rest = ltrim(rest);
  if (!starts_with(rest, open)) return std::nullopt;
  rest.remove_prefix(open.size());
  size_t end = last ? rest.rfind(close) : rest.find(close);
  if (end != npos) rest = rest.substr(0, end);
  return std::string(strip_one_eol(rest));
}

// The blocks parseMentions appends (src/core/mentions/index.ts v3.3.26), and the sentence each mention is replaced by.
struct MentionBlock {
  std::string_view open;   // up to the attribute's value, or the whole opening line
  bool has_attribute;      // open ends with `…="`, the value runs to `">\n`
  std::string_view close;  // "\n</tag>"
  const char* kind;
};
constexpr MentionBlock kMentionBlocks[] = {
    {"<file_content path=\"", true, "\n</file_content>", "file"},
    {"<folder_content path=\"", true, "\n</folder_content>", "folder"},
    {"<url_content url=\"", true, "\n</url_content>", "url"},
    {"<workspace_diagnostics>\n", false, "\n</workspace_diagnostics>", "problems"},
    {"<git_working_state>\n", false, "\n</git_working_state>", "git_changes"},
    {"<git_commit hash=\"", true, "\n</git_commit>", "git_commit"},
    {"<terminal_output>\n", false, "\n</terminal_output>", "terminal"},
};

// "\n\n" and a block opening at t[at], or nothing.
const MentionBlock* mention_block_at(std::string_view t, size_t at) {
  if (t.compare(at, 3, "\n\n<") != 0) return nullptr;
  for (const MentionBlock& b : kMentionBlocks)
    if (t.compare(at + 2, b.open.size(), b.open) == 0) return &b;
  return nullptr;
}

// The blocks from t[at] to the end of t, each "\n\n"-separated; false when the tail is anything else. A block's body
// ends at the first close that is followed by the end or by the next block (a file may hold the closing tag).
bool read_mention_blocks(std::string_view t, size_t at, std::vector<Mention>& out) {
  while (at < t.size()) {
    const MentionBlock* b = mention_block_at(t, at);
    if (!b) return false;
    size_t body = at + 2 + b->open.size();
    Mention m;
    m.kind = b->kind;
    if (b->has_attribute) {
      const size_t end = t.find("\">\n", body);
      if (end == npos) return false;
      m.target = std::string(t.substr(body, end - body));
      body = end + 3;
    }
    size_t close = t.find(b->close, body);
    for (; close != npos; close = t.find(b->close, close + 1)) {
      const size_t after = close + b->close.size();
      if (after == t.size() || mention_block_at(t, after)) break;
    }
    if (close == npos) return false;
    m.content = std::string(t.substr(body, close - body));
    out.push_back(std::move(m));
    at = close + b->close.size();
  }
  return true;
}

// The user's typed text back from parseMentions' sentences (v3.3.26): "'p' (see below for file content)" and
// "… folder content)" → "@/p", "'u' (see below for site content)" → "@u", "Git commit 'h' (see below for commit
// info)" → "@h", and the fixed sentences of @problems, @git-changes and @terminal. A mention holds no whitespace.
std::string typed_mentions(std::string_view t) {
  struct Sentence {
    std::string_view text;  // what follows the quoted target, or the whole sentence
    std::string_view typed_prefix;
    bool quoted;
    std::string_view before_quote;  // words Roo puts before the quote ("Git commit ")
  };
  static constexpr Sentence kSentences[] = {
      {"' (see below for file content)", "@/", true, ""},
      {"' (see below for folder content)", "@/", true, ""},
      {"' (see below for site content)", "@", true, ""},
      {"' (see below for commit info)", "@", true, "Git commit "},
      {"Workspace Problems (see below for diagnostics)", "@problems", false, ""},
      {"Working directory changes (see below for details)", "@git-changes", false, ""},
      {"Terminal Output (see below for output)", "@terminal", false, ""},
  };
  std::string out;
  size_t copied = 0;
  for (size_t at = t.find(" (see below for "); at != npos; at = t.find(" (see below for ", at + 1)) {
    for (const Sentence& s : kSentences) {
      if (s.quoted) {
        if (at == 0 || t[at - 1] != '\'' || t.compare(at - 1, s.text.size(), s.text) != 0) continue;
        // Back to the opening quote over the target, which holds no whitespace: the scan stops at the previous
        // sentence's spaces at the latest, so the whole text is scanned about once.
        size_t open = at - 1;
        while (open > copied && t[open - 1] != '\'' && !is_space(t[open - 1])) --open;
        if (open <= copied || t[open - 1] != '\'' || open == at - 1) continue;
        --open;
        const std::string_view target = t.substr(open + 1, at - 2 - open);
        const size_t start = open - s.before_quote.size();
        if (open < s.before_quote.size() || start < copied || t.compare(start, s.before_quote.size(), s.before_quote) != 0)
          continue;
        out.append(t.substr(copied, start - copied)).append(s.typed_prefix).append(target);
        copied = at - 1 + s.text.size();
      } else {
        const size_t head = s.text.find(" (see below for ");
        if (at < head || at - head < copied || t.compare(at - head, s.text.size(), s.text) != 0) continue;
        out.append(t.substr(copied, at - head - copied)).append(s.typed_prefix);
        copied = at - head + s.text.size();
      }
      break;
    }
  }
  out.append(t.substr(copied));
  return out;
}

// The "feedback" string of a JSON object text ({"status":"guidance","feedback":"…"}), when it parses as one.
std::optional<std::string> json_feedback(std::string_view t) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseStopWhenDoneFlag>(t.data(), t.size());
  if (doc.HasParseError() || !doc.IsObject()) return std::nullopt;
  auto it = doc.FindMember("feedback");
  if (it == doc.MemberEnd() || !it->value.IsString()) return std::nullopt;
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

}  // namespace

namespace {

// The first "\n\n<block" whose tail reads as blocks starts them. Only a few candidates are tried: each try reads to
// the end.
std::optional<MentionSplit> split_tail(std::string_view text) {
  int tries = 0;
  for (size_t at = text.find("\n\n<"); at != npos && tries < 8; at = text.find("\n\n<", at + 1)) {
    if (!mention_block_at(text, at)) continue;
    ++tries;
    MentionSplit split;
    if (!read_mention_blocks(text, at, split.mentions)) continue;
    split.words_end = at;
    return split;
  }
  return std::nullopt;
}

// v3.46.0+ replaces @/P by 'P' (parseMentions, src/core/mentions/index.ts v3.52.1) and names P in the block that
// follows: each 'P' of such a block is the mention the user typed. A literal 'P' the user typed beside an @/P is
// indistinguishable from it and comes back as @/P too.
void unquote_file_blocks(std::string& t, const std::vector<Mention>& file_blocks) {
  for (const Mention& m : file_blocks) {
    if (!m.target) continue;
    const std::string quoted = "'" + *m.target + "'", typed = "@/" + *m.target;
    for (size_t at = t.find(quoted); at != npos; at = t.find(quoted, at + typed.size())) t.replace(at, quoted.size(), typed);
  }
}

}  // namespace

std::string typed_words(std::string_view recorded, const std::vector<Mention>& file_blocks) {
  std::string out = typed_mentions(recorded);
  unquote_file_blocks(out, file_blocks);
  return out;
}

std::optional<std::string> url_mentions_as_sent(std::string_view t) {
  std::optional<std::string> out;
  size_t copied = 0;
  for (size_t at = t.find('@'); at != npos; at = t.find('@', at + 1)) {
    if (at > 0 && !is_space(t[at - 1])) continue;  // (?:^|(?<=\s))(?<!\\)@
    size_t i = at + 1;                                // \w+://
    while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '_')) ++i;
    if (i == at + 1 || t.compare(i, 3, "://") != 0) continue;
    i += 3;
    // (?:[^\s\\]|\\ )+? then (?=[.,;:!?]?(?=\s|$)): the shortest body after which the lookahead holds.
    const auto ends_here = [&](size_t j) {
      if (j == t.size() || is_space(t[j])) return true;
      return std::string_view(".,;:!?").find(t[j]) != npos && (j + 1 == t.size() || is_space(t[j + 1]));
    };
    size_t end = npos;
    for (size_t j = i; j < t.size();) {
      if (t[j] == '\\') {
        if (j + 1 < t.size() && t[j + 1] == ' ') {
          j += 2;
        } else {
          break;  // a backslash not escaping a space: no mention here
        }
      } else if (is_space(t[j])) {
        break;
      } else {
        ++j;
      }
      if (ends_here(j)) {
        end = j;
        break;
      }
    }
    if (end == npos) continue;
    if (!out) out.emplace();
    out->append(t.substr(copied, at - copied)).append("'").append(t.substr(at + 1, end - at - 1)).append("'");
    copied = end;
    at = end - 1;
  }
  if (out) out->append(t.substr(copied));
  return out;
}

std::optional<MentionSplit> split_mentions(std::string_view text, const std::vector<Mention>& file_blocks) {
  std::optional<MentionSplit> split = split_tail(text);
  if (!split) {
    if (file_blocks.empty()) return std::nullopt;
    split.emplace();  // v3.46.0+: file blocks only, no inline block
    split->words_end = text.size();
  }
  split->typed = typed_words(unwrap_envelope(text.substr(0, split->words_end)), file_blocks);
  return split;
}

std::optional<MentionSplit> split_reply_mentions(std::string_view text, const std::vector<Mention>& file_blocks) {
  constexpr std::string_view kCloses[] = {"</feedback>", "</answer>", "</user_message>"};
  // Roo appends the blocks right after the reply's close; only such places are tried, so a long result that merely
  // holds tags (a file's text) is searched once and never read as blocks.
  int tries = 0;
  for (size_t at = text.find(">\n\n<"); at != npos && tries < 8; at = text.find(">\n\n<", at + 1)) {
    const size_t blocks = at + 1;
    bool after_close = false;
    for (std::string_view close : kCloses)
      after_close = after_close || (blocks >= close.size() && text.compare(blocks - close.size(), close.size(), close) == 0);
    if (!after_close || !mention_block_at(text, blocks)) continue;
    ++tries;
    MentionSplit split;
    if (!read_mention_blocks(text, blocks, split.mentions)) continue;
    split.words_end = blocks;
    return split;
  }
  if (file_blocks.empty()) return std::nullopt;
  MentionSplit split;  // v3.46.0+: file blocks only, no inline block; the caller found them after a <user_message>
  split.words_end = text.size();
  return split;
}

std::optional<Mention> read_file_mention(std::string_view block) {
  constexpr std::string_view kFile = "[read_file for '", kFolder = "[read_file for folder '";
  const bool folder = starts_with(block, kFolder);
  if (!folder && !starts_with(block, kFile)) return std::nullopt;
  const size_t start = folder ? kFolder.size() : kFile.size();
  // The header is one line: "']" and the line's end (a path with "']" inside it ends at the last one).
  const size_t eol = block.find('\n', start);
  if (eol == npos || eol < start + 2 || block.compare(eol - 2, 2, "']") != 0) return std::nullopt;
  Mention m;
  m.kind = folder ? "folder" : "file";
  m.target = std::string(block.substr(start, eol - 2 - start));
  m.content = std::string(block);
  return m;
}

const std::vector<RooText>& roo_texts() {
  using In = RooText::In;
  using C = RooText::Carries;
  // Read at the tags named (git show <tag>:<path> of RooCodeInc/Roo-Code; the repository's tags v3.0.0–v3.2.x,
  // v3.3.0, v3.4.0, v3.5.x are Cline's, not Roo's: fixtures/README.md "trees/roo-eras"). Where two wordings share an
  // opening, the one with a marker comes first; an entry without one takes any other tail (a cut or unknown one).
  // The tool-use reminders appended to noToolsUsed and missingToolParameterError tell three eras apart
  // (toolUseInstructionsReminder, toolUseInstructionsReminderNative in responses.ts).
  constexpr std::string_view kXmlReminder1 = "The tool name is enclosed in opening and closing tags";
  constexpr std::string_view kXmlReminder2 = "The tool name itself becomes the XML tag name";
  constexpr std::string_view kNativeReminder = "Tools are invoked using the platform's native tool calling mechanism";
  static const std::vector<RooText> table = {
      // ---- text blocks of a user turn: system rows ----
      {In::user_turn, "[ERROR] You did not use a tool in your previous response!", kXmlReminder1, "retry_prompt",
       "noToolsUsed", "v2.1.2 … v3.16.1",
       "src/core/prompts/responses.ts noToolsUsed (v2.1.2, v3.3.26, v3.16.1), pushed by recursivelyMakeClineRequests "
       "(src/core/Cline.ts v3.3.26)"},
      {In::user_turn, "[ERROR] You did not use a tool in your previous response!", kXmlReminder2, "retry_prompt",
       "noToolsUsed", "v3.16.2 … v3.41.3 (XML protocol only from v3.31.1)",
       "src/core/prompts/responses.ts noToolsUsed (v3.16.2, v3.41.3), pushed by src/core/task/Task.ts"},
      {In::user_turn, "[ERROR] You did not use a tool in your previous response!", kNativeReminder, "retry_prompt",
       "noToolsUsed", "v3.31.1 … v3.52.1 (native protocol; the only form from v3.42.0)",
       "src/core/prompts/responses.ts noToolsUsed (v3.31.1, v3.52.1), pushed by initiateTaskLoop and "
       "recursivelyMakeClineRequests (src/core/task/Task.ts v3.52.1)"},
      {In::user_turn, "[ERROR] You did not use a tool in your previous response!", "", "retry_prompt", "noToolsUsed",
       "v2.1.2 … v3.52.1 (reminder cut or not recorded)", "src/core/prompts/responses.ts noToolsUsed"},
      {In::user_turn, "You seem to be having trouble proceeding.", "", "mistake_guidance", "tooManyMistakes",
       "v2.1.2 … v3.41.3 (XML protocol only from v3.33.1)",
       "src/core/prompts/responses.ts tooManyMistakes (v2.1.2, v3.41.3), after ask mistake_limit_reached in "
       "recursivelyMakeClineRequests (src/core/Cline.ts v3.3.26)",
       C::feedback_tag},
      {In::user_turn, R"({"status":"guidance","message":"You seem to be having trouble proceeding")", "",
       "mistake_guidance", "tooManyMistakes", "v3.33.1 … v3.41.3 (native protocol)",
       "src/core/prompts/responses.ts tooManyMistakes (v3.33.1, v3.41.3), src/core/task/Task.ts", C::feedback_json},
      {In::user_turn, R"({"status":"guidance")", "", "mistake_guidance", "tooManyMistakes",
       R"(v3.42.0 … v3.52.1 ({"status":"guidance","feedback":…}))",
       "src/core/prompts/responses.ts tooManyMistakes (v3.42.0, v3.52.1), recursivelyMakeClineRequests "
       "(src/core/task/Task.ts v3.52.1)",
       C::feedback_json},
      {In::user_turn, "[Sliding window truncation:", "", "context_truncation", "truncateConversation",
       "v3.36.0 … v3.52.1", "src/core/context-management/index.ts truncateConversation (v3.36.0, v3.52.1)"},

      // ---- results: the XML-era sentences (every tag up to v3.32.x; from v3.33.1 only with the XML protocol) ----
      {In::result, "The user denied this operation and provided the following feedback:", "", "denied",
       "toolDeniedWithFeedback", "v2.1.2 … v3.41.3",
       "src/core/prompts/responses.ts toolDeniedWithFeedback (v2.1.2, v3.3.26, v3.41.3); askApproval",
       C::feedback_tag, "denied"},
      {In::result, "The user approved this operation and provided the following context:", "", "completed",
       "toolApprovedWithFeedback", "v3.3.7 … v3.41.3",
       "src/core/prompts/responses.ts toolApprovedWithFeedback (v3.3.7, v3.41.3); askApproval", C::feedback_tag,
       "approved"},
      {In::result, "The user denied this operation.", "", "denied", "toolDenied", "v2.1.2 … v3.41.3",
       "src/core/prompts/responses.ts toolDenied (v2.1.2, v3.41.3); askApproval", C::none, "denied"},
      {In::result, "The tool execution failed with the following error:", "", "error", "toolError",
       "v2.1.2 … v3.41.3", "src/core/prompts/responses.ts toolError (v2.1.2, v3.41.3)", C::error_tag, "error"},
      // ---- results: status JSON (v3.33.1 … v3.41.3 with the native protocol, the only form from v3.42.0) ----
      {In::result, R"({"status":"denied","message":"The user denied this operation and provided the following feedback")",
       "", "denied", "toolDeniedWithFeedback", "v3.33.1 … v3.41.3",
       "src/core/prompts/responses.ts toolDeniedWithFeedback (v3.33.1, v3.41.3)", C::feedback_json},
      {In::result, R"({"status":"denied","message":"The user denied this operation.")", "", "denied", "toolDenied",
       "v3.33.1 … v3.52.1", "src/core/prompts/responses.ts toolDenied (v3.33.1, v3.52.1)"},
      {In::result, R"({"status":"denied","feedback")", "", "denied", "toolDeniedWithFeedback", "v3.42.0 … v3.52.1",
       "src/core/prompts/responses.ts toolDeniedWithFeedback (v3.42.0, v3.52.1)", C::feedback_json},
      {In::result,
       R"({"status":"approved","message":"The user approved this operation and provided the following context")", "",
       "completed", "toolApprovedWithFeedback", "v3.33.1 … v3.41.3",
       "src/core/prompts/responses.ts toolApprovedWithFeedback (v3.33.1, v3.41.3)", C::feedback_json},
      {In::result, R"({"status":"approved","feedback")", "", "completed", "toolApprovedWithFeedback",
       "v3.42.0 … v3.52.1", "src/core/prompts/responses.ts toolApprovedWithFeedback (v3.42.0, v3.52.1)",
       C::feedback_json},
      {In::result, R"({"status":"error","message":"The tool execution failed")", "", "error", "toolError",
       "v3.33.1 … v3.52.1", "src/core/prompts/responses.ts toolError (v3.33.1, v3.52.1)", C::error_json},
      {In::result, R"({"status":"error","type":"access_denied")", "", "access_denied", "rooIgnoreError",
       "v3.33.1 … v3.52.1", "src/core/prompts/responses.ts rooIgnoreError (v3.33.1, v3.52.1)"},
      {In::result, R"({"status":"error","type":"invalid_argument")", "", "error", "invalidMcpToolArgumentError",
       "v3.33.1 … v3.52.1", "src/core/prompts/responses.ts invalidMcpToolArgumentError (v3.33.1, v3.52.1)"},
      {In::result, R"({"status":"error","type":"unknown_tool")", "", "error", "unknownMcpToolError",
       "v3.33.1 … v3.52.1", "src/core/prompts/responses.ts unknownMcpToolError (v3.33.1, v3.52.1)"},
      {In::result, R"({"status":"error","type":"unknown_server")", "", "error", "unknownMcpServerError",
       "v3.33.1 … v3.52.1", "src/core/prompts/responses.ts unknownMcpServerError (v3.33.1, v3.52.1)"},
      // ---- results: the other formatResponse sentences (mostly inside toolError) ----
      {In::result, "Access to ", " is blocked by the .rooignore file settings.", "access_denied", "rooIgnoreError",
       "v3.8.0 … v3.41.3",
       "src/core/prompts/responses.ts rooIgnoreError (v3.8.0, v3.41.3), inside toolError (src/core/Cline.ts "
       "v3.10.0; src/core/tools/*Tool.ts v3.30.0)"},
      {In::result, "Missing value for required parameter '", kXmlReminder1, "error", "missingToolParameterError",
       "v2.1.2 … v3.16.1",
       "src/core/prompts/responses.ts missingToolParameterError (v2.1.2, v3.16.1), inside toolError "
       "(sayAndCreateMissingParamError, src/core/Cline.ts v3.3.26)"},
      {In::result, "Missing value for required parameter '", kXmlReminder2, "error", "missingToolParameterError",
       "v3.16.2 … v3.41.3 (XML protocol only from v3.31.1)",
       "src/core/prompts/responses.ts missingToolParameterError (v3.16.2, v3.41.3), inside toolError"},
      {In::result, "Missing value for required parameter '", kNativeReminder, "error", "missingToolParameterError",
       "v3.31.1 … v3.52.1 (native protocol; the only form from v3.42.0)",
       "src/core/prompts/responses.ts missingToolParameterError (v3.31.1, v3.52.1), inside toolError "
       "(sayAndCreateMissingParamError, src/core/task/Task.ts v3.52.1)"},
      {In::result, "Missing value for required parameter '", "", "error", "missingToolParameterError",
       "v2.1.2 … v3.52.1 (reminder cut or not recorded)", "src/core/prompts/responses.ts missingToolParameterError"},
      {In::result, "Invalid JSON argument used with ", "", "error", "invalidMcpToolArgumentError",
       "v2.2.1 … v3.41.3",
       "src/core/prompts/responses.ts invalidMcpToolArgumentError (v2.2.1, v3.41.3), inside toolError (use_mcp_tool, "
       "src/core/Cline.ts v3.3.26)"},
      {In::result, "Tool '", "' does not exist on server '", "error", "unknownMcpToolError", "v3.26.7 … v3.41.3",
       "src/core/prompts/responses.ts unknownMcpToolError (v3.26.7, v3.41.3), src/core/tools/useMcpToolTool.ts "
       "v3.30.0"},
      {In::result, "Server '", "' is not configured. Available servers: ", "error", "unknownMcpServerError",
       "v3.26.7 … v3.41.3",
       "src/core/prompts/responses.ts unknownMcpServerError (v3.26.7, v3.41.3), src/core/tools/useMcpToolTool.ts "
       "v3.30.0"},
      {In::result, "This appears to be a new file.\nNote: Your response may have been truncated", "", "error",
       "lineCountTruncationError", "v3.14.0 … v3.35.3",
       "src/core/prompts/responses.ts lineCountTruncationError (v3.14.0, v3.35.3), inside toolError "
       "(src/core/tools/writeToFileTool.ts v3.20.3)"},
      {In::result, "This appears to be content for an existing file.\nNote: Your response may have been truncated",
       "Or use search_and_replace for specific text replacements", "error", "lineCountTruncationError",
       "v3.14.0 … v3.29.3", "src/core/prompts/responses.ts lineCountTruncationError (v3.14.0, v3.29.3), inside toolError"},
      {In::result, "This appears to be content for an existing file.\nNote: Your response may have been truncated", "",
       "error", "lineCountTruncationError", "v3.29.4 … v3.35.3",
       "src/core/prompts/responses.ts lineCountTruncationError (v3.29.4, v3.35.3), inside toolError"},
      // ---- results: sentences Roo's task and tool code writes ----
      {In::result,
       "The user has provided feedback on the results. Consider their input to continue the task, and then attempt "
       "completion again.",
       "", "completed", "attempt_completion", "v2.1.2 … v3.41.3",
       "src/core/Cline.ts attempt_completion (v2.1.2, v3.3.26); src/core/tools/attemptCompletionTool.ts v3.41.3",
       C::feedback_tag},
      {In::result, "Changes were rejected by the user.", "", "denied", "edit tools", "v3.3.5 … v3.52.1",
       "src/core/Cline.ts apply_diff, write_to_file (v3.3.26); src/core/tools/EditTool.ts, ApplyPatchTool.ts v3.52.1 "
       "(there only when askApproval recorded no toolDenied first)"},
      {In::result, "No changes needed for '", "", "completed", "edit tools", "v3.3.5 … v3.52.1",
       "src/core/Cline.ts apply_diff (v3.3.26); src/core/tools/EditTool.ts, SearchReplaceTool.ts v3.52.1"},
      {In::result, "(tool did not return anything)", "", "completed", "pushToolResult", "v2.1.2 … v3.52.1",
       "src/core/Cline.ts pushToolResult (v3.3.26); src/core/assistant-message/presentAssistantMessage.ts v3.52.1"},
      {In::result, "Task was interrupted before this tool call could be completed", "", "interrupted",
       "resumeTaskFromHistory", "v2.1.2 … v3.52.1",
       "resumeTaskFromHistory (src/core/Cline.ts v3.3.26; src/core/task/Task.ts v3.52.1)"},
      {In::result, "This tool was not executed because new_task was called", "", "not_executed",
       "recursivelyMakeClineRequests", "v3.44.2 … v3.52.1", "src/core/task/Task.ts v3.52.1"},
      {In::result, "Tool [", "] was not executed because a tool has already been used in this message", "not_executed",
       "presentAssistantMessage", "v2.1.2 … v3.45.0",
       "src/core/Cline.ts presentAssistantMessage (v3.3.26); src/core/assistant-message/presentAssistantMessage.ts "
       "v3.45.0"},
      {In::result, "Tool [", "] was interrupted and not executed due to user rejecting a previous tool.",
       "interrupted_after_rejection", "presentAssistantMessage", "v2.1.2 … v3.52.1",
       "src/core/Cline.ts presentAssistantMessage (v3.3.26); src/core/assistant-message/presentAssistantMessage.ts "
       "v3.52.1"},
      {In::result, "Skipping tool [", "", "skipped_after_rejection", "presentAssistantMessage", "v2.1.2 … v3.52.1",
       "src/core/Cline.ts presentAssistantMessage (v3.3.26); src/core/assistant-message/presentAssistantMessage.ts "
       "v3.52.1"},
      {In::result, "Skipping MCP tool ", "", "skipped_after_rejection", "presentAssistantMessage", "v3.34.4 … v3.52.1",
       "src/core/assistant-message/presentAssistantMessage.ts (v3.34.4, v3.52.1)"},
      {In::result, "MCP tool ", " was interrupted and not executed due to user rejecting a previous tool.",
       "interrupted_after_rejection", "presentAssistantMessage", "v3.34.4 … v3.52.1",
       "src/core/assistant-message/presentAssistantMessage.ts (v3.34.4, v3.52.1)"},
      // A tool's own failure sentence, its whole result beside its say("error"): the row's failure_form.
      {In::result, "Unable to apply diff to file:", "", "error", "apply_diff", "v2.1.19 … v3.52.1",
       "src/core/Cline.ts apply_diff (v3.3.26); src/core/tools/ApplyDiffTool.ts v3.52.1", C::none, nullptr, true},
      {In::result, "File does not exist at path:", "", "error", "apply_diff, insert_content, edit_file",
       "v2.1.12 … v3.52.1",
       "src/core/Cline.ts apply_diff, insert_content (v3.3.26); src/core/tools/ApplyDiffTool.ts, EditFileTool.ts "
       "v3.52.1",
       C::none, nullptr, true},
      {In::result, "No match found in file:", "", "error", "edit_file", "v3.39.2 … v3.52.1",
       "src/core/tools/EditFileTool.ts (v3.39.2, v3.52.1)", C::none, nullptr, true},
      {In::result, "Occurrence count mismatch in file:", "", "error", "edit_file", "v3.39.2 … v3.52.1",
       "src/core/tools/EditFileTool.ts (v3.39.2, v3.52.1)", C::none, nullptr, true},
  };
  return table;
}

namespace {

// The entries of one kind by the first byte of their opening, in table order: a text is compared with the few
// entries that open with its own first byte.
using RooTextIndex = std::array<std::vector<const RooText*>, 256>;
const RooTextIndex& roo_text_index(RooText::In in) {
  static const std::array<RooTextIndex, 2> index = [] {
    std::array<RooTextIndex, 2> out;
    for (const RooText& r : roo_texts())
      out[static_cast<size_t>(r.in)][static_cast<unsigned char>(r.opening.front())].push_back(&r);
    return out;
  }();
  return index[static_cast<size_t>(in)];
}

// Where a wrapped text starts: after toolError's "<error>" and one line end, or at the first byte of the JSON
// "error" string, searched for within the marker window. The JSON string is not unescaped: an opening or marker
// with a line end (lineCountTruncationError's) is then not found in it, the rest are.
std::optional<std::string_view> wrapped_text(std::string_view t, const RooText& r) {
  const std::string_view window = t.substr(0, std::min(t.size(), kMarkerWindow));
  if (r.carries == RooText::Carries::error_tag) {
    size_t at = window.find("<error>", r.opening.size());
    if (at == npos) return std::nullopt;
    std::string_view rest = t.substr(at + 7);
    if (starts_with(rest, "\r\n")) return rest.substr(2);
    if (starts_with(rest, "\n")) return rest.substr(1);
    return rest;
  }
  if (r.carries == RooText::Carries::error_json) {
    constexpr std::string_view kKey = R"(,"error":")";
    size_t at = window.find(kKey, r.opening.size());
    if (at == npos) return std::nullopt;
    return t.substr(at + kKey.size());
  }
  return std::nullopt;
}

}  // namespace

const RooText* find_roo_text(std::string_view text, RooText::In in) {
  const std::string_view t = ltrim(text);
  if (t.empty()) return nullptr;
  for (const RooText* r : roo_text_index(in)[static_cast<unsigned char>(t.front())]) {
    if (!starts_with(t, r->opening)) continue;
    if (r->marker.empty() ||
        t.substr(0, std::min(t.size(), kMarkerWindow)).find(r->marker, r->opening.size()) != npos)
      return r;
  }
  return nullptr;
}

RooResult find_roo_result(std::string_view result_text) {
  RooResult out;
  out.text = find_roo_text(result_text, RooText::In::result);
  if (out.text) {
    if (auto inner = wrapped_text(ltrim(result_text), *out.text))
      out.wrapped = find_roo_text(*inner, RooText::In::result);
  }
  return out;
}

std::optional<EnvironmentDetails> parse_environment_details(std::string_view text) {
  constexpr std::string_view kOpen = "<environment_details>", kClose = "</environment_details>";
  std::string_view t = ltrim(text);
  if (!starts_with(t, kOpen)) return std::nullopt;
  std::string_view body = t.substr(kOpen.size());
  // The last close: terminal output inside the block could hold the tag. A cut block (no close) is read as is.
  size_t close = body.rfind(kClose);
  if (close != npos) body = body.substr(0, close);

  // Sections run from a "# " heading to the next (getEnvironmentDetails.ts, docs/roo-format.md §3.4). The last of each
  // wins: only terminal output, which comes before them, can hold a stray heading; unknown sections are skipped.
  enum Section { kNone, kTime, kCost, kMode, kOther };
  std::string_view sections[kOther];
  bool seen[kOther] = {};
  Section current = kNone;
  size_t begin = 0;
  auto finish = [&](size_t end) {
    if (current != kNone && current != kOther) {
      sections[current] = body.substr(begin, end - begin);
      seen[current] = true;
    }
  };
  EnvironmentDetails env;
  for_each_line(body, [&](std::string_view line, size_t line_start, size_t next) {
    if (!starts_with(line, "# ")) return;
    finish(line_start);
    begin = next;
    std::string_view h = trim(line);
    current = h == "# Current Time" ? kTime : h == "# Current Cost" ? kCost : h == "# Current Mode" ? kMode : kOther;
    // "# Current Workspace Directory (<cwd>) Files" (getEnvironmentDetails.ts:230); Cline and early Roo wrote
    // "Working" for "Workspace".
    for (std::string_view open : {"# Current Workspace Directory (", "# Current Working Directory ("}) {
      if (starts_with(h, open) && ends_with(h, ") Files") && h.size() >= open.size() + 7)
        env.workspace_dir = std::string(h.substr(open.size(), h.size() - open.size() - 7));
    }
  });
  finish(body.size());

  if (seen[kTime]) parse_time_section(sections[kTime], env);
  if (seen[kCost]) {
    for_each_line(sections[kCost], [&](std::string_view line, size_t, size_t) {
      if (!env.cost && !trim(line).empty()) env.cost = std::string(trim(line));
    });
  }
  if (seen[kMode]) {
    // <slug>code</slug>\n<name>💻 Code</name>\n<model>…</model> (getEnvironmentDetails.ts:224-227); <model> is
    // missing in older versions.
    env.mode_slug = tag_body(sections[kMode], "<slug>", "</slug>");
    env.mode_name = tag_body(sections[kMode], "<name>", "</name>");
    env.model = tag_body(sections[kMode], "<model>", "</model>");
  }
  return env;
}

std::optional<std::string> completed_subtask_id(std::string_view text) {
  std::string_view t = ltrim(text);
  if (!starts_with(t, "Subtask ")) return std::nullopt;  // no other kind classify_user_text tells opens so
  UserText out;
  if (!subtask_completed(t, out)) return std::nullopt;
  return std::move(out.subtask_id);
}

UserText classify_user_text(std::string_view text) {
  UserText out;
  std::string_view t = ltrim(text);
  // Client-written texts first, by their fixed openings; whatever is left is the user's words.
  if (starts_with(t, "<environment_details>")) {
    out.kind = UserTextKind::environment_details;  // docs/roo-format.md §3.2: its own, last block of each user turn
    out.text = std::string(text);
    return out;
  }
  if (starts_with(t, "[TASK RESUMPTION]")) {
    out.kind = UserTextKind::task_resumption;  // §4; current form "[TASK RESUMPTION] Resuming task..." (§3.2)
    out.text = resumption_text(text);
    return out;
  }
  if (const RooText* r = find_roo_text(t, RooText::In::user_turn)) {
    out.kind = UserTextKind::roo_text;
    out.roo_text = r;
    out.text = std::string(text);
    if (r->carries == RooText::Carries::feedback_tag) {
      if (size_t at = t.find("<feedback>"); at != npos)
        out.feedback = decision_body(t.substr(at), "<feedback>", "</feedback>", /*last=*/true);
    } else if (r->carries == RooText::Carries::feedback_json) {
      out.feedback = json_feedback(t);
    }
    return out;
  }
  if (xml_result_header(t, out)) return out;
  if (subtask_completed(t, out)) return out;
  if (starts_with(t, "Tool result:") &&
      (t.size() == 12 || starts_with(t.substr(12), "\n") || starts_with(t.substr(12), "\r\n"))) {
    out.kind = UserTextKind::tool_result_text;  // Task.ts:1003-1016 (§3.1)
    std::string_view rest = t.substr(12);
    out.text = std::string(starts_with(rest, "\r\n") ? rest.substr(2)
                           : starts_with(rest, "\n") ? rest.substr(1)
                                                     : rest);
    return out;
  }
  out.kind = UserTextKind::words;
  out.text = unwrap_envelope(text);
  return out;
}

std::optional<XmlToolCall> first_xml_tool_call(std::string_view text) {
  constexpr std::string_view kThink = "<thinking>", kThinkEnd = "</thinking>";
  size_t pos = 0;
  for (size_t lt = text.find('<'); lt != npos; lt = text.find('<', pos)) {
    if (text.compare(lt, kThink.size(), kThink) == 0) {
      // What the model thought is not a call; an unclosed thinking block runs to the end.
      size_t end = text.find(kThinkEnd, lt + kThink.size());
      if (end == npos) return std::nullopt;
      pos = end + kThinkEnd.size();
      continue;
    }
    size_t p = lt + 1;
    while (p < text.size() && is_ident_char(text[p])) ++p;
    std::string_view name = text.substr(lt + 1, p - lt - 1);
    if (p < text.size() && text[p] == '>' && known_tool(name)) {
      // Only the first call counts: the client ran no other (presentAssistantMessage.ts:236-256).
      XmlToolCall call;
      call.name = std::string(name);
      call.begin = lt;
      XmlCallReader reader(text, name);
      std::vector<Node> params;
      bool closed = false;
      call.end = reader.children(Kind::tool, name, p + 1, params, &closed);
      call.closed = closed;
      call.input_json = params_json(text, params);
      return call;
    }
    pos = p > lt + 1 ? p : lt + 1;  // unknown tags are text
  }
  return std::nullopt;
}

std::vector<std::string> thinking_blocks(std::string_view text) {
  constexpr std::string_view kOpen = "<thinking>", kClose = "</thinking>";
  std::vector<std::string> out;
  for (size_t at = text.find(kOpen); at != npos; at = text.find(kOpen, at)) {
    size_t body = at + kOpen.size();
    size_t end = text.find(kClose, body);
    if (end == npos) {
      out.emplace_back(strip_one_eol(text.substr(body)));  // cut message: the rest is still thinking
      break;
    }
    out.emplace_back(strip_one_eol(text.substr(body, end - body)));
    at = end + kClose.size();
  }
  return out;
}

std::optional<XmlDecision> parse_xml_decision(std::string_view result_text) {
  return parse_xml_decision(result_text, find_roo_text(result_text, RooText::In::result));
}

std::optional<XmlDecision> parse_xml_decision(std::string_view result_text, const RooText* found) {
  if (!found || !found->decision) return std::nullopt;
  const std::string_view rest = ltrim(result_text).substr(found->opening.size());
  XmlDecision d;
  d.status = found->decision;
  if (found->carries == RooText::Carries::feedback_tag) {
    // An approval's feedback may be followed by the tool's own result: its body ends at the first close.
    d.feedback = decision_body(rest, "<feedback>", "</feedback>", /*last=*/d.status != "approved");
  } else if (found->carries == RooText::Carries::error_tag) {
    d.error = decision_body(rest, "<error>", "</error>", /*last=*/true);
  }
  return d;
}

}  // namespace roo::transcript
