// What a tool call and its result say (docs/roo-format.md §3.3–§3.4, docs/row-contract.md "Edits and reads"). Each
// function is one forward pass over its text or one walk over a parsed input: hostile 64 KiB inputs stay linear.
#include "core/parsers/tool_semantics.h"

#include <array>
#include <charconv>
#include <cmath>

#include "core/json_records.h"
#include "core/parsers/transcript_text.h"
#include "core/text_util.h"

namespace roo::tools {

namespace {

using std::string_view;
constexpr size_t npos = string_view::npos;

bool ends_with(string_view s, string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

string_view ltrim(string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  return s;
}

string_view rtrim(string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// A whole decimal integer ("-1", "42"); nullopt unless every byte is part of it.
std::optional<int64_t> whole_int(string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// An integral JSON number, or a decimal string: the XML-era converter hands every parameter over as text.
std::optional<int64_t> int_value(const rapidjson::Value& v) {
  if (v.IsString()) return whole_int(trim(string_view(v.GetString(), v.GetStringLength())));
  if (v.IsInt64()) return v.GetInt64();
  if (v.IsDouble()) {
    double d = v.GetDouble();  // range first: casting an out-of-range double is undefined
    if (d > -9.0e15 && d < 9.0e15 && d == std::floor(d)) return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

std::optional<int64_t> int_of(const rapidjson::Value& obj, const char* name) {
  const rapidjson::Value* v = member(obj, name);
  return v ? int_value(*v) : std::nullopt;
}

std::optional<bool> bool_of(const rapidjson::Value& obj, const char* name) {
  if (auto b = get_bool(obj, name)) return b;
  auto s = get_string(obj, name);  // XML-era params are text
  if (s == std::optional<std::string>("true")) return true;
  if (s == std::optional<std::string>("false")) return false;
  return std::nullopt;
}

// The first of the named keys that holds a string.
std::optional<std::string> first_string(const rapidjson::Value& obj, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (auto s = get_string(obj, n)) return s;
  return std::nullopt;
}

// One past the end of the JSON object or array opening s, respecting strings and escapes; npos when it never closes.
// parse_json(first_value_only) reads the value but does not say where it ended, and `rest` needs that.
size_t json_container_end(string_view s) {
  int64_t depth = 0;
  bool in_string = false, escape = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (in_string) {
      if (escape)
        escape = false;
      else if (c == '\\')
        escape = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return i + 1;
    }
  }
  return npos;
}

// Parses the JSON object that opens text (after whitespace); *rest gets what follows it.
bool leading_object(string_view text, rapidjson::Document& doc, string_view* rest) {
  string_view t = ltrim(text);
  if (t.empty() || t.front() != '{') return false;
  if (!parse_json(t.data(), t.size(), doc, nullptr, /*first_value_only=*/true) || !doc.IsObject()) return false;
  size_t end = json_container_end(t);
  *rest = end == npos ? string_view() : t.substr(end);
  return true;
}

// ---- execute_command results ----

// Texts of ExecuteCommandTool.ts (docs/roo-format.md §3.4); the line numbers cite cb83656.
constexpr string_view kUnsuccessful = "Command execution was not successful, inspect the cause and adjust as needed.\n";
constexpr string_view kExitCode = "Exit code: ";
constexpr string_view kUndefinedCode = "<undefined, notify user>";
constexpr string_view kSignal = "Process terminated by signal ";
constexpr string_view kCoreDump = " - core dump possible";
constexpr string_view kDirMarker = " within working directory '";
constexpr string_view kDirChanged = "'; command changed working directory for this terminal to '";  // v3.1x
constexpr string_view kOutput = "\nOutput:";
constexpr string_view kHereSoFar = "Here's the output so far:\n";
constexpr string_view kBackground = "You will be updated on the terminal status and new output in the future.";
constexpr string_view kFeedback = "The user provided the following feedback:\n<feedback>\n";  // v3.1x, Cline heritage
constexpr string_view kTimeout = "The command was terminated after exceeding a user-configured ";
constexpr string_view kTimeoutTail = " Do not try to re-run the command.";

// Reads the <exitStatus> (:489-503) that opens s into out. Returns the bytes it took, or npos when s opens with
// none. Reads a bounded number of bytes, so trying it at many candidate places stays linear.
size_t read_exit_status(string_view s, CommandOutcome& out) {
  size_t at = 0;
  bool unsuccessful = false;
  if (starts_with(s, kUnsuccessful)) {
    unsuccessful = true;
    at = kUnsuccessful.size();
  }
  string_view r = s.substr(at);
  if (starts_with(r, kExitCode)) {
    r.remove_prefix(kExitCode.size());
    if (starts_with(r, kUndefinedCode)) {
      out.status = "exit_code_undefined";
      at += kExitCode.size() + kUndefinedCode.size();
    } else {
      int64_t code = 0;
      auto [end, ec] = std::from_chars(r.data(), r.data() + r.size(), code);
      size_t n = static_cast<size_t>(end - r.data());
      if (ec != std::errc() || n == 0 || (n < r.size() && r[n] != '\n')) return npos;
      out.status = "exited";
      out.exit_code = code;
      at += kExitCode.size() + n;
    }
  } else if (starts_with(r, kSignal)) {
    r.remove_prefix(kSignal.size());
    size_t eol = r.substr(0, 128).find('\n');  // a signal name is short; bounded, see above
    if (eol == npos) {
      if (r.size() > 128) return npos;
      eol = r.size();
    }
    at += kSignal.size() + eol;
    string_view sig = r.substr(0, eol);
    if (ends_with(sig, kCoreDump)) {
      out.core_dump_possible = true;
      sig.remove_suffix(kCoreDump.size());
    }
    // v3.1x wrote "Process terminated by signal 9 (SIGKILL)"; the name is what the current text gives.
    size_t open = sig.find(" (");
    if (open != npos && ends_with(sig, ")") && whole_int(sig.substr(0, open)))
      sig = sig.substr(open + 2, sig.size() - open - 3);
    if (sig.empty()) return npos;
    out.status = "signal";
    out.signal = std::string(sig);
  } else {
    return npos;
  }
  out.reported_unsuccessful = unsuccessful;
  return at;
}

// "Command executed in terminal[ <id>][ ] within working directory '<cwd>'. <exitStatus>\nOutput:\n<output>"
// (:510-513; the id and the doubled space are v3.1x forms) and the persisted-output form
// "Command executed in '<cwd>'. <exitStatus>\n\nOutput (<size>) persisted. Artifact ID: <id>\n\nPreview:\n<preview>
// \n\nUse read_command_output tool to view full output if needed." (:557-589).
CommandOutcome executed(string_view t) {
  CommandOutcome out;
  const bool persisted_form = starts_with(t, "Command executed in '");
  // The status follows the first ". " that is followed by one; a cwd holding such a sentence is not worth more.
  size_t status_at = npos, taken = npos;
  for (size_t p = t.find(". "); p != npos; p = t.find(". ", p + 1)) {
    CommandOutcome probe;
    if ((taken = read_exit_status(t.substr(p + 2), probe)) != npos) {
      out = std::move(probe);
      status_at = p;
      break;
    }
  }
  if (status_at == npos) {
    out.status = "unrecognised";
    if (size_t o = t.find(std::string(kOutput) + "\n"); o != npos)
      out.output = std::string(t.substr(o + kOutput.size() + 1));
    return out;
  }
  string_view header = t.substr(0, status_at);
  if (persisted_form) {
    header.remove_prefix(string_view("Command executed in '").size());
    if (ends_with(header, "'")) out.cwd = std::string(header.substr(0, header.size() - 1));
  } else if (size_t m = header.find(kDirMarker); m != npos && header.size() > m + kDirMarker.size() &&
                                                   ends_with(header, "'")) {
    // (the closing quote must be one after the marker's own: "directory '" alone names no directory)
    string_view cwd = header.substr(m + kDirMarker.size());
    cwd.remove_suffix(1);
    if (size_t changed = cwd.find(kDirChanged); changed != npos) cwd = cwd.substr(0, changed);
    out.cwd = std::string(cwd);
  }
  string_view rest = t.substr(status_at + 2 + taken);
  if (starts_with(rest, kOutput) && (rest.size() == kOutput.size() || rest[kOutput.size()] == '\n')) {
    out.output = std::string(rest.substr(std::min(rest.size(), kOutput.size() + 1)));
  } else if (starts_with(rest, "\n\nOutput (")) {
    rest.remove_prefix(string_view("\n\nOutput (").size());
    constexpr string_view kPersisted = ") persisted. Artifact ID: ";
    size_t size_end = rest.find(kPersisted);
    if (size_end != npos) {
      out.persisted_size = std::string(rest.substr(0, size_end));
      rest.remove_prefix(size_end + kPersisted.size());
      size_t eol = rest.find('\n');
      string_view id = rest.substr(0, eol);
      if (!id.empty()) out.artifact_id = std::string(id);  // empty when the artifact path was missing (:582)
      rest = eol == npos ? string_view() : rest.substr(eol);
      constexpr string_view kPreview = "\n\nPreview:\n";
      constexpr string_view kUseTool = "\n\nUse read_command_output tool to view full output if needed.";
      if (starts_with(rest, kPreview)) {
        string_view preview = rest.substr(kPreview.size());
        if (ends_with(preview, kUseTool)) preview.remove_suffix(kUseTool.size());
        out.output = std::string(preview);
      }
    }
  }
  return out;
}

// Strips the blank line that separates the output so far from what follows it (":462-476", ":514-522": the output
// and a "\n" are joined to the next part with another "\n"; Cline put "\n\n" between).
string_view output_before(string_view pre) {
  if (!starts_with(pre, kHereSoFar)) return string_view();
  pre.remove_prefix(kHereSoFar.size());
  if (ends_with(pre, "\n\n"))
    pre.remove_suffix(2);
  else if (ends_with(pre, "\n"))
    pre.remove_suffix(1);
  return pre;
}

// "Command is still running in terminal[ ] from '<cwd>'." (:462-476, :514-522; the backgrounded text has the double
// space), v3.1x "…in terminal[ <id>] within working directory '<cwd>'." and Cline's "…in the user's terminal.".
// What ends the text says which: the background sentence, or the user's words in <user_message> (or v3.1x <feedback>).
CommandOutcome still_running(string_view t) {
  CommandOutcome out;
  out.status = "still_running";
  size_t eol = t.find('\n');
  string_view header = t.substr(0, eol);
  string_view body = eol == npos ? string_view() : t.substr(eol + 1);
  for (string_view marker : {string_view(" from '"), kDirMarker}) {
    size_t m = header.find(marker);
    if (m == npos || !ends_with(header, "'.")) continue;
    out.cwd = std::string(header.substr(m + marker.size(), header.size() - m - marker.size() - 2));
    break;
  }
  string_view b = rtrim(body);
  string_view pre = body;
  bool known_end = false;
  if (ends_with(b, kBackground)) {
    out.status = "backgrounded";
    pre = b.substr(0, b.size() - kBackground.size());
    known_end = true;
  } else if (ends_with(b, "\n</user_message>")) {
    // The user's words close the text; the output before them may itself hold the tag, so the last opening counts.
    size_t open = b.rfind("<user_message>\n");
    if (open != npos && open + 15 <= b.size() - 16) {
      out.user_message = std::string(b.substr(open + 15, b.size() - 16 - open - 15));
      pre = b.substr(0, open);
      known_end = true;
    } else if (open != npos && open + 15 == b.size() - 15) {  // an empty message: "<user_message>\n</user_message>"
      out.user_message = std::string();
      pre = b.substr(0, open);
      known_end = true;
    }
  } else if (ends_with(b, "\n</feedback>")) {
    size_t open = b.rfind(kFeedback);
    if (open != npos && open + kFeedback.size() <= b.size() - 12) {
      out.user_message = std::string(b.substr(open + kFeedback.size(), b.size() - 12 - open - kFeedback.size()));
      pre = b.substr(0, open);
      known_end = true;
    }
  }
  string_view output = output_before(pre);
  if (starts_with(pre, kHereSoFar)) out.output = std::string(known_end ? output : pre.substr(kHereSoFar.size()));
  return out;
}

// "The command was terminated after exceeding a user-configured <s>s timeout. Do not try to re-run the command."
// (:431-434), possibly with output text around it.
CommandOutcome timed_out(string_view t, size_t at) {
  CommandOutcome out;
  out.status = "timeout";
  string_view r = t.substr(at + kTimeout.size());
  size_t sentence_end = at + kTimeout.size();
  int64_t seconds = 0;
  auto [end, ec] = std::from_chars(r.data(), r.data() + r.size(), seconds);
  size_t n = static_cast<size_t>(end - r.data());
  // A fractional setting ("2.5s") is not an integer count of seconds: recorded as unknown, never rounded.
  if (ec == std::errc() && n > 0 && starts_with(r.substr(n), "s timeout.")) {
    out.timeout_seconds = seconds;
    sentence_end += n + string_view("s timeout.").size();
    if (starts_with(t.substr(sentence_end), kTimeoutTail)) sentence_end += kTimeoutTail.size();
  }
  std::string around = std::string(trim(t.substr(0, at)));
  string_view after = trim(t.substr(sentence_end));
  if (!around.empty() && !after.empty()) around += '\n';
  around += after;
  if (!around.empty()) out.output = std::move(around);
  return out;
}

// ---- SEARCH/REPLACE blocks (apply_diff, replace_in_file) ----

// multi-search-replace.ts: a block is "<<<<<<< SEARCH" [":start_line:N"] [":end_line:N"] ["-------"] search
// "=======" replace ">>>>>>> REPLACE", markers on lines of their own (trailing blanks tolerated). Content lines that
// start with "\" + a marker are escaped markers and are unescaped as Roo does. Cline's replace_in_file also wrote
// "------- SEARCH" … "+++++++ REPLACE".
void parse_blocks(string_view diff, bool cline_markers, std::optional<int64_t> default_start, FileEdit& edit) {
  enum class State { idle, header, search, replace } state = State::idle;
  std::string sides[2];
  bool any[2] = {false, false};
  std::optional<int64_t> start;
  auto append = [&](int side, string_view line) {
    if (line.size() > 1 && line[0] == '\\') {
      string_view esc = line.substr(1);
      for (string_view m : {"<<<<<<<", "=======", ">>>>>>>", "-------", ":start_line:", ":end_line:"})
        if (starts_with(esc, m)) {
          line = esc;
          break;
        }
    }
    if (any[side]) sides[side] += '\n';
    sides[side].append(line);
    any[side] = true;
  };
  auto open_block = [&] {
    state = State::header;
    sides[0].clear();
    sides[1].clear();
    any[0] = any[1] = false;
    start.reset();
  };
  for (size_t pos = 0; pos <= diff.size();) {
    size_t nl = diff.find('\n', pos);
    string_view line = diff.substr(pos, nl == npos ? npos : nl - pos);
    pos = nl == npos ? diff.size() + 1 : nl + 1;
    string_view m = rtrim(line);
    const bool opens = m == "<<<<<<< SEARCH" || m == "<<<<<<< SEARCH>" || (cline_markers && m == "------- SEARCH");
    const bool closes = m == ">>>>>>> REPLACE" || (cline_markers && m == "+++++++ REPLACE");
    if (opens) {
      // A block opened before this one never closed: it records nothing rather than a guess at its end.
      if (state != State::idle) ++edit.unterminated_blocks;
      open_block();
      continue;
    }
    switch (state) {
      case State::idle:
        break;
      case State::header:
        if (starts_with(m, ":start_line:")) {
          start = whole_int(trim(m.substr(12)));
          break;
        }
        if (starts_with(m, ":end_line:")) break;
        state = State::search;
        if (m == "-------") break;
        [[fallthrough]];
      case State::search:
        if (m == "=======")
          state = State::replace;
        else if (closes) {
          ++edit.unterminated_blocks;  // no "=======": the block is malformed and records nothing
          state = State::idle;
        } else
          append(0, line);
        break;
      case State::replace:
        if (closes) {
          EditHunk h;
          h.old_text = std::move(sides[0]);
          h.new_text = std::move(sides[1]);
          h.start_line = start ? start : default_start;
          edit.hunks.push_back(std::move(h));
          state = State::idle;
        } else
          append(1, line);
        break;
    }
  }
  if (state != State::idle) ++edit.unterminated_blocks;
}

// ---- apply_patch ----

// The apply_patch body (apply_patch.ts:49-55, the Codex format): "*** Add File: p" then "+" lines; "*** Delete File:
// p"; "*** Update File: p" [ "*** Move to: q" ] then hunks opened by "@@", lines " " context, "-" old, "+" new.
// Context goes to both sides so each side is a contiguous span of its file; each @@ hunk is one EditHunk. Added-file
// text is the + lines joined by "\n". As the Codex parser does, the body is trimmed and split on \r?\n.
void parse_patch(string_view patch, std::vector<FileEdit>& out) {
  patch = trim(patch);
  FileEdit* cur = nullptr;  // the section lines belong to; null before one or after a nameless one
  bool open_hunk = false;   // an update's last hunk takes lines
  bool any[2] = {false, false};
  auto add_line = [&](int side, string_view text) {
    EditHunk& h = cur->hunks.back();
    std::string& s = side == 0 ? *h.old_text : *h.new_text;
    if (any[side]) s += '\n';
    s.append(text);
    any[side] = true;
  };
  auto close_hunk = [&] {
    // "@@" headers may stack (@@ class Foo, then @@ def bar) before one hunk's lines: a hunk with none is dropped.
    if (cur && open_hunk && !any[0] && !any[1]) cur->hunks.pop_back();
    open_hunk = false;
  };
  auto open_new_hunk = [&](std::optional<std::string> old_side) {
    cur->hunks.push_back(EditHunk{std::move(old_side), std::string(), std::nullopt});
    any[0] = any[1] = false;
  };
  auto section = [&](string_view path, const char* form) {
    close_hunk();
    path = trim(path);
    if (path.empty()) {
      cur = nullptr;  // no path: no FileEdit, and the section's lines are skipped
      return;
    }
    out.push_back(FileEdit{});
    cur = &out.back();
    cur->path = std::string(path);
    cur->form = form;
  };
  for (size_t pos = 0; pos <= patch.size();) {
    size_t nl = patch.find('\n', pos);
    string_view line = patch.substr(pos, nl == npos ? npos : nl - pos);
    pos = nl == npos ? patch.size() + 1 : nl + 1;
    if (ends_with(line, "\r")) line.remove_suffix(1);
    if (starts_with(line, "*** ")) {
      if (starts_with(line, "*** Add File: ")) {
        section(line.substr(14), "patch_add");
        if (cur) open_new_hunk(std::nullopt);  // an added file replaced nothing; its text may be empty
      } else if (starts_with(line, "*** Update File: ")) {
        section(line.substr(17), "patch_update");
      } else if (starts_with(line, "*** Delete File: ")) {
        section(line.substr(17), "patch_delete");
      } else if (starts_with(line, "*** Move to: ")) {
        string_view to = trim(line.substr(13));
        if (cur && cur->form == "patch_update" && !to.empty()) cur->move_to = std::string(to);
      } else if (trim(line) == "*** End Patch") {
        break;
      }
      continue;  // "*** Begin Patch", "*** End of File" and other starred lines carry no text
    }
    if (!cur) continue;
    if (cur->form == "patch_add") {
      if (starts_with(line, "+")) add_line(1, line.substr(1));
      continue;
    }
    if (cur->form != "patch_update") continue;
    if (starts_with(line, "@@")) {
      if (!open_hunk || any[0] || any[1]) {
        close_hunk();
        open_new_hunk(std::string());
        open_hunk = true;
      }
      continue;
    }
    // An empty line inside a hunk is an empty context line, as the Codex parser reads it.
    const char c = line.empty() ? ' ' : line[0];
    if (c != ' ' && c != '-' && c != '+') continue;
    if (!open_hunk) {
      if (line.empty()) continue;
      open_new_hunk(std::string());  // the first hunk may come without its "@@"
      open_hunk = true;
    }
    string_view text = line.empty() ? line : line.substr(1);
    if (c != '+') add_line(0, text);
    if (c != '-') add_line(1, text);
  }
  close_hunk();
}

// A JSON value that may be the array itself or a JSON string holding it (NativeToolCallParser.ts:331-365).
const rapidjson::Value* array_or_json_string(const rapidjson::Value* v, rapidjson::Document& holder) {
  if (!v) return nullptr;
  if (v->IsString()) {
    if (!parse_json(v->GetString(), v->GetStringLength(), holder, nullptr)) return nullptr;
    v = &holder;
  }
  return v->IsArray() ? v : nullptr;
}

FileEdit named(std::string path, const char* form) {
  FileEdit e;
  e.path = std::move(path);
  e.form = form;
  return e;
}

// old_string/new_string of edit, search_replace, edit_file and the search_and_replace alias (edit.ts:21-42,
// search_replace.ts:30-45, edit_file.ts:44-66). An edit_file with old_string "" creates the file; the "" is kept
// because it is what the call recorded.
void old_new_string(const rapidjson::Value& input, std::vector<FileEdit>& out) {
  auto path = first_string(input, {"file_path", "path"});
  if (!path) return;
  FileEdit e = named(std::move(*path), "old_new_string");
  e.hunks.push_back(EditHunk{get_string(input, "old_string"), get_string(input, "new_string"), std::nullopt});
  e.replace_all = bool_of(input, "replace_all");
  e.expected_replacements = int_of(input, "expected_replacements");
  out.push_back(std::move(e));
}

// search_and_replace before it became edit's alias (v3.35 native-tools/search_and_replace.ts): {path, search, replace,
// use_regex?, ignore_case?, start_line?, end_line?} or {path, operations:[{search, replace, use_regex?, start_line?}]};
// also the later {path, edits:[{old_string|search, new_string|replace}]} (NativeToolCallParser.ts). A regex is not
// text the file held, so a use_regex operation records neither side (docs/row-contract.md "Edits and reads").
void search_and_replace(const rapidjson::Value& input, std::vector<FileEdit>& out) {
  if (member(input, "file_path") || member(input, "old_string") || member(input, "new_string"))
    return old_new_string(input, out);  // current Roo stores edit's arguments under the alias
  auto path = first_string(input, {"path", "file_path"});
  if (!path) return;
  FileEdit e = named(std::move(*path), "search_replace");
  const rapidjson::Value* ops = member(input, "operations");
  if (!ops || !ops->IsArray()) ops = member(input, "edits");
  if (ops && ops->IsArray()) {
    bool all_regex = !ops->Empty(), any_old_new = false;
    for (const auto& op : ops->GetArray()) {
      if (bool_of(op, "use_regex").value_or(false)) {
        e.hunks.push_back(EditHunk{});  // one hunk per operation; a regex one records neither side
        continue;
      }
      all_regex = false;
      EditHunk h;
      if (member(op, "old_string") || member(op, "new_string")) {
        any_old_new = true;
        h.old_text = get_string(op, "old_string");
        h.new_text = get_string(op, "new_string");
      } else {
        h.old_text = get_string(op, "search");
        h.new_text = get_string(op, "replace");
      }
      h.start_line = int_of(op, "start_line");
      e.hunks.push_back(std::move(h));
    }
    if (all_regex) {
      e.form = "regex_replace";
      e.hunks.clear();
    } else if (any_old_new) {
      e.form = "old_new_string";
    }
  } else if (bool_of(input, "use_regex").value_or(false)) {
    e.form = "regex_replace";
  } else {
    e.hunks.push_back(EditHunk{get_string(input, "search"), get_string(input, "replace"), int_of(input, "start_line")});
  }
  out.push_back(std::move(e));
}

// apply_diff {path, diff} (apply_diff.ts:22-31), and v3.2x multi-file {files:[{path, diffs:[{content, start_line}]}]}.
void search_replace_blocks(const rapidjson::Value& input, bool cline_markers, std::vector<FileEdit>& out) {
  if (auto path = first_string(input, {"path", "file_path"})) {
    FileEdit e = named(std::move(*path), "search_replace_blocks");
    if (auto diff = get_string(input, "diff")) parse_blocks(*diff, cline_markers, std::nullopt, e);
    out.push_back(std::move(e));
    return;
  }
  rapidjson::Document holder;
  const rapidjson::Value* files = array_or_json_string(member(input, "files"), holder);
  if (!files) return;
  for (const auto& file : files->GetArray()) {
    auto path = get_string(file, "path");
    if (!path) continue;
    FileEdit e = named(std::move(*path), "search_replace_blocks");
    const rapidjson::Value* diffs = member(file, "diffs");
    if (!diffs) diffs = member(file, "diff");
    if (diffs && diffs->IsString()) {
      parse_blocks(string_view(diffs->GetString(), diffs->GetStringLength()), cline_markers, std::nullopt, e);
    } else if (diffs && diffs->IsArray()) {
      for (const auto& d : diffs->GetArray())
        if (auto content = get_string(d, "content")) parse_blocks(*content, cline_markers, int_of(d, "start_line"), e);
    }
    out.push_back(std::move(e));
  }
}

// ---- reads ----

// One line range of the legacy form: [1,50], {start:1,end:50} or "1-50" (NativeToolCallParser.ts convertFileEntries).
std::string one_range(const rapidjson::Value& r) {
  std::optional<int64_t> a, b;
  if (r.IsArray() && r.Size() >= 2) {
    a = int_value(r[0]);
    b = int_value(r[1]);
  } else if (r.IsObject()) {
    a = int_of(r, "start");
    b = int_of(r, "end");
  } else if (r.IsString()) {
    return std::string(trim(string_view(r.GetString(), r.GetStringLength())));
  }
  if (!a || !b) return std::string();
  return std::to_string(*a) + "-" + std::to_string(*b);
}

std::optional<std::string> line_ranges(const rapidjson::Value& entry) {
  const rapidjson::Value* v = member(entry, "line_ranges");
  if (!v) v = member(entry, "lineRanges");  // the nativeArgs Roo stored (_legacyFormat)
  if (!v) v = member(entry, "line_range");  // XML era: <line_range>1-50</line_range>
  if (!v) return std::nullopt;
  if (v->IsString() && v->GetStringLength() > 0) return std::string(v->GetString(), v->GetStringLength());
  if (!v->IsArray()) return std::nullopt;
  std::string out;
  for (const auto& r : v->GetArray()) {
    std::string one = one_range(r);
    if (one.empty()) continue;
    if (!out.empty()) out += ',';
    out += one;
  }
  if (out.empty()) return std::nullopt;
  return out;
}

}  // namespace

std::optional<CommandOutcome> parse_command_result(std::string_view text) {
  string_view t = ltrim(text);
  if (t.empty() || t.front() == '{') return std::nullopt;  // a status JSON: parse_result_status's, not ours
  if (starts_with(t, "Command executed in terminal") || starts_with(t, "Command executed in '")) return executed(t);
  if (starts_with(t, "Command is still running in ")) return still_running(t);
  // Cline heritage: "Command executed." plus "\nOutput:\n<output>" when there was any; no exit code is given.
  if (starts_with(t, "Command executed.")) {
    CommandOutcome out;
    string_view rest = t.substr(string_view("Command executed.").size());
    if (rtrim(rest).empty()) {
      out.status = "exited_code_not_reported";
    } else if (starts_with(rest, kOutput) && (rest.size() == kOutput.size() || rest[kOutput.size()] == '\n')) {
      out.status = "exited_code_not_reported";
      out.output = std::string(rest.substr(std::min(rest.size(), kOutput.size() + 1)));
    } else {
      out.status = "unrecognised";
    }
    return out;
  }
  string_view whole = rtrim(t);
  constexpr string_view kNoDir = "' does not exist.";
  if (starts_with(whole, "Working directory '") && ends_with(whole, kNoDir) &&
      whole.size() >= string_view("Working directory '").size() + kNoDir.size()) {  // :190
    CommandOutcome out;
    out.status = "bad_cwd";
    out.cwd = std::string(whole.substr(19, whole.size() - 19 - kNoDir.size()));
    return out;
  }
  if (whole == "Command failed to execute in terminal due to a shell integration error.") {  // :138
    CommandOutcome out;
    out.status = "shell_integration_error";
    return out;
  }
  if (whole == "The command was cancelled by the user.") {
    CommandOutcome out;
    out.status = "cancelled";
    return out;
  }
  if (size_t at = t.find(kTimeout); at != npos) return timed_out(t, at);
  if (starts_with(t, "Command ")) {
    CommandOutcome out;
    out.status = "unrecognised";
    return out;
  }
  return std::nullopt;
}

std::optional<ResultStatus> parse_result_status(std::string_view text) {
  rapidjson::Document doc;
  string_view rest;
  if (!leading_object(text, doc, &rest)) return std::nullopt;
  auto status = get_string(doc, "status");
  if (!status) return std::nullopt;
  ResultStatus out;
  out.status = std::move(*status);
  out.message = get_string(doc, "message");
  out.feedback = get_string(doc, "feedback");
  out.error = get_string(doc, "error");
  out.type = get_string(doc, "type");
  out.path = get_string(doc, "path");
  out.suggestion = get_string(doc, "suggestion");
  // An approval with feedback is "<json>\n\n<result>" (presentAssistantMessage.ts:472-479).
  if (starts_with(rest, "\n\n"))
    rest.remove_prefix(2);
  else if (starts_with(rest, "\r\n\r\n"))
    rest.remove_prefix(4);
  else if (starts_with(rest, "\n"))
    rest.remove_prefix(1);
  out.rest = std::string(rest);
  return out;
}

std::optional<EditResult> parse_edit_result(std::string_view text) {
  rapidjson::Document doc;
  string_view rest;
  if (!leading_object(text, doc, &rest)) return std::nullopt;
  if (!member(doc, "path") && !member(doc, "operation")) return std::nullopt;
  EditResult out;
  out.path = get_string(doc, "path");
  out.operation = get_string(doc, "operation");
  // DiffViewProvider.ts:313-362 writes these as text; any other JSON value is kept as compact JSON.
  auto as_text = [&](const char* name) -> std::optional<std::string> {
    const rapidjson::Value* v = member(doc, name);
    if (!v || v->IsNull()) return std::nullopt;
    if (v->IsString()) return std::string(v->GetString(), v->GetStringLength());
    return to_json_text(*v);
  };
  out.user_edits = as_text("user_edits");
  out.problems = as_text("problems");
  return out;
}

std::optional<SkippedTool> parse_skipped_tool(std::string_view text) {
  string_view t = trim(text);
  // presentAssistantMessage.ts:393-403 for tools, :114-116 for MCP tools.
  struct Form {
    string_view prefix, suffix;
    const char* reason;
  };
  static constexpr Form forms[] = {
      {"Skipping tool [", "] due to user rejecting a previous tool.", "skipped_after_rejection"},
      {"Tool [", "] was interrupted and not executed due to user rejecting a previous tool.",
       "interrupted_after_rejection"},
      {"Skipping MCP tool ", " due to user rejecting a previous tool.", "skipped_after_rejection"},
      {"MCP tool ", " was interrupted and not executed due to user rejecting a previous tool.",
       "interrupted_after_rejection"}};
  for (const Form& f : forms) {
    if (t.size() < f.prefix.size() + f.suffix.size() || !starts_with(t, f.prefix) || !ends_with(t, f.suffix)) continue;
    string_view desc = t.substr(f.prefix.size(), t.size() - f.prefix.size() - f.suffix.size());
    if (desc.empty()) continue;
    return SkippedTool{f.reason, std::string(desc)};
  }
  return std::nullopt;
}

std::optional<std::string_view> failure_form(std::string_view text, bool native) {
  string_view t = ltrim(text);
  // Sentences a tool writes as its whole result when it fails (its own say("error") beside it): the roo_texts()
  // entries marked tool_failure ("Unable to apply diff to file:", …), each named without its colon.
  if (const transcript::RooText* r = transcript::find_roo_text(t, transcript::RooText::In::result);
      r && r->tool_failure)
    return r->opening.substr(0, r->opening.size() - 1);
  // `Error: ${errorMsg}`, `Error reading file …: …`, `Error reading command output: …` (ReadFileTool.ts,
  // ReadCommandOutputTool.ts v3.52.1): "Error" and a colon on the first line.
  if (!native) return std::nullopt;
  if (starts_with(t, "Error") && t.size() > 5 && (t[5] == ':' || t[5] == ' ')) {
    const string_view first_line = t.substr(0, t.find('\n'));
    if (first_line.find(':') != npos) return string_view("Error");
  }
  // read_file of one file that failed: `File: ${relPath}\nError: ${errorMsg}` (ReadFileTool.ts v3.52.1). Results of
  // several files are joined by "\n\n---\n\n" and may hold good reads beside a failed one: not a failure here.
  if (starts_with(t, "File: ") && t.find("\n\n---\n\n") == npos) {
    const size_t eol = t.find('\n');
    if (eol != npos && starts_with(t.substr(eol + 1), "Error: ")) return string_view("File: … Error");
  }
  return std::nullopt;
}

std::vector<FileEdit> file_edits(std::string_view tool_name, const rapidjson::Value& input) {
  std::vector<FileEdit> out;
  if (!input.IsObject()) return out;
  if (tool_name == "apply_diff") {
    search_replace_blocks(input, /*cline_markers=*/false, out);
  } else if (tool_name == "replace_in_file") {
    search_replace_blocks(input, /*cline_markers=*/true, out);
  } else if (tool_name == "search_and_replace") {
    search_and_replace(input, out);
  } else if (tool_name == "edit" || tool_name == "search_replace" || tool_name == "edit_file") {
    old_new_string(input, out);
  } else if (tool_name == "write_to_file" || tool_name == "write_file") {
    // write_to_file.ts:27-36; write_file is its alias (src/shared/tools.ts:338). Only the written side exists.
    if (auto path = first_string(input, {"path", "file_path"})) {
      FileEdit e = named(std::move(*path), "whole_file");
      if (auto content = get_string(input, "content")) e.hunks.push_back(EditHunk{std::nullopt, content, std::nullopt});
      out.push_back(std::move(e));
    }
  } else if (tool_name == "insert_content") {
    // v3.35 native-tools/insert_content.ts: {path, line, content}; line 0 appends at the end.
    if (auto path = first_string(input, {"path", "file_path"})) {
      FileEdit e = named(std::move(*path), "insert");
      if (auto content = get_string(input, "content"))
        e.hunks.push_back(EditHunk{std::nullopt, content, int_of(input, "line")});
      out.push_back(std::move(e));
    }
  } else if (tool_name == "apply_patch") {
    if (auto patch = get_string(input, "patch")) parse_patch(*patch, out);
  }
  return out;
}

std::vector<FileRead> file_reads(std::string_view tool_name, const rapidjson::Value& input) {
  std::vector<FileRead> out;
  if (tool_name != "read_file" || !input.IsObject()) return out;
  // Legacy files:[{path, line_ranges}] (v3.32–v3.45), the array possibly sent as a JSON string.
  rapidjson::Document holder;
  const rapidjson::Value* files = member(input, "files");
  if (files && files->IsString()) files = array_or_json_string(files, holder);
  if (files && files->IsObject()) {
    // A single entry where a list was expected.
    if (auto path = get_string(*files, "path"))
      out.push_back(FileRead{std::move(*path), line_ranges(*files), {}, {}, {}});
  } else if (files && files->IsArray()) {
    for (const auto& f : files->GetArray()) {
      if (f.IsString()) {
        out.push_back(FileRead{std::string(f.GetString(), f.GetStringLength()), {}, {}, {}, {}});
      } else if (auto path = get_string(f, "path")) {
        out.push_back(FileRead{std::move(*path), line_ranges(f), {}, {}, {}});
      }
    }
  }
  if (!out.empty()) return out;
  // The current form (read_file.ts:85-149): {path, mode?, offset?, limit?, indentation?}.
  if (auto path = get_string(input, "path")) {
    FileRead r{std::move(*path), line_ranges(input), get_string(input, "mode"), int_of(input, "offset"),
               int_of(input, "limit")};
    out.push_back(std::move(r));
  }
  return out;
}

std::optional<McpName> split_mcp_tool_name(std::string_view name) {
  // mcp-name.ts parseMcpToolName: "mcp" (any case) and a separator, "--" or the "__" models substitute; the server
  // ends at the first separator after it (sanitizeMcpName collapses "--" in names, so a server holds none). The
  // tool part is kept as recorded.
  if (name.size() < 5 || !iequals(name.substr(0, 3), "mcp")) return std::nullopt;
  string_view sep = name.substr(3, 2);
  if (sep != "--" && sep != "__") return std::nullopt;
  string_view rest = name.substr(5);
  size_t cut = npos;
  for (size_t i = 0; i + 1 < rest.size(); ++i)
    if ((rest[i] == '-' && rest[i + 1] == '-') || (rest[i] == '_' && rest[i + 1] == '_')) {
      cut = i;
      break;
    }
  if (cut == npos || cut == 0 || cut + 2 >= rest.size()) return std::nullopt;
  return McpName{std::string(rest.substr(0, cut)), std::string(rest.substr(cut + 2))};
}

}  // namespace roo::tools
