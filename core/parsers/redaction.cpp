// Redaction of credentials inside free text (redaction.h).
#include "core/parsers/redaction.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <utility>

#include "core/parsers/store_parsing.h"
#include "core/text_util.h"

namespace roo {

using store_parsing::is_auth_header;
using store_parsing::sv;

namespace {
bool iends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && iequals(s.substr(s.size() - suffix.size()), suffix);
}
}  // namespace

// A flag, query parameter or NAME=VALUE name whose value is a credential: it ends, in any case, in key, token,
// secret, password, passwd, auth, bearer, credential(s), sig or signature (--api-key, --token, --github-token,
// --client-secret, --auth, ?key=, access_token=, apikey=, sig= of a signed URL, GITHUB_TOKEN=). A one-letter flag
// (-k, -p) never is: what it means differs per program (curl's -k is --insecure).
bool is_secret_param(std::string_view name) {
  while (!name.empty() && name.front() == '-') name.remove_prefix(1);
  for (std::string_view s : {"key", "token", "secret", "password", "passwd", "auth", "bearer", "credential",
                             "credentials", "sig", "signature"})
    if (iends_with(name, s)) return true;
  return false;
}

std::string Redactor::words(std::string_view text, const char* part) {
  part_ = part;
  if (const size_t colon = text.find(':'); colon != std::string_view::npos && colon > 0) {
    const std::string_view name = text.substr(0, colon);
    if (name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") ==
            std::string_view::npos &&
        is_auth_header(name) && !trim(text.substr(colon + 1)).empty()) {
      found(name);
      return std::string(name) + ": " + kRedacted;
    }
  }
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const size_t end = std::min(text.find_first_of(" \t", i), text.size());
    if (end == i) {
      out += text[i++];
      continue;
    }
    out += word(text.substr(i, end - i));
    i = end;
  }
  return out;
}

std::string Redactor::args_json(const rapidjson::Value& args) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartArray();
  for (const auto& a : args.GetArray()) {
    if (!a.IsString()) {
      a.Accept(w);
      continue;
    }
    const std::string shown = words(sv(a), "args");
    w.String(shown.c_str(), static_cast<rapidjson::SizeType>(shown.size()));
  }
  w.EndArray();
  pending_.clear();
  return std::string(buf.GetString(), buf.GetSize());
}

std::string Redactor::url(std::string_view u, const char* part) {
  part_ = part;
  const size_t scheme = u.find("://");
  if (scheme == std::string_view::npos) return std::string(u);
  std::string out;
  size_t i = 0;
  const size_t host = scheme + 3;
  const std::string_view authority = u.substr(host, std::min(u.find_first_of("/?#", host), u.size()) - host);
  const size_t at = authority.rfind('@');
  if (const size_t colon = authority.substr(0, at).find(':'); at != std::string_view::npos &&
                                                              colon != std::string_view::npos) {
    out.append(u.substr(0, host + colon + 1)).append(kRedacted);
    found("userinfo");
    i = host + at;
  }
  const size_t query = u.find_first_of("?#", i);
  if (query == std::string_view::npos) return out.append(u.substr(i));
  out.append(u.substr(i, query + 1 - i));
  for (size_t p = query + 1; p <= u.size();) {
    const size_t end = std::min(u.find_first_of("&;#", p), u.size());
    const std::string_view pair = u.substr(p, end - p);
    const size_t eq = pair.find('=');
    if (eq != std::string_view::npos && eq + 1 < pair.size() && is_secret_param(pair.substr(0, eq))) {
      found(pair.substr(0, eq));
      out.append(pair.substr(0, eq + 1)).append(kRedacted);
    } else {
      out.append(pair);
    }
    if (end == u.size()) break;
    out += u[end];
    p = end + 1;
  }
  return out;
}

void Redactor::found(std::string_view name) { names.push_back(std::string(part_) + "." + std::string(name)); }

std::string Redactor::word(std::string_view w) {
  if (!pending_.empty()) {  // the value of the secret flag before it, unless it is another flag
    const std::string flag = std::exchange(pending_, {});
    if (w.front() != '-') {
      found(flag);
      return kRedacted;
    }
  }
  const size_t eq = w.find('=');
  if (eq != std::string_view::npos && w.substr(0, eq).find("://") == std::string_view::npos) {
    const std::string_view name = w.substr(0, eq);  // --token=VALUE, API_KEY=VALUE, --url=URL
    if (is_secret_param(name) && eq + 1 < w.size()) {
      found(name);
      return std::string(name) + "=" + kRedacted;
    }
    return std::string(name) + "=" + url(w.substr(eq + 1), part_);
  }
  if (w.front() == '-' && is_secret_param(w)) pending_ = std::string(w);
  return url(w, part_);
}

}  // namespace roo
