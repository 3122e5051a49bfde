// Redaction of credentials inside free text: command lines, arguments, URLs (docs/row-contract.md "Secrets in an MCP
// server's command line and url"). Used wherever a text a row keeps may hold a secret: an MCP server's command line
// and url (mcp_settings.cpp), the CLI's debug log (cli_debug_log.cpp).
#pragma once

#include <rapidjson/document.h>

#include <string>
#include <string_view>
#include <vector>

namespace roo {

// What a redacted value shows instead of the secret: the same text whatever the secret, so nothing of it, not even
// its length, is written.
inline constexpr const char* kRedacted = "<redacted>";

// A flag, query parameter or NAME=VALUE name whose value is a credential.
bool is_secret_param(std::string_view name);

// Redacts one text after another (a server's command, its args, its url), collecting the names of what it took out
// as "<part>.<name>" (args.--api-key, url.token) for the credential_present rows.
class Redactor {
 public:
  std::vector<std::string> names;

  // A command line or one argument: each word, and the word after a secret flag (--token VALUE, also across two
  // args), and an arg "<auth header>: value" (mcp-remote's --header "Authorization: Bearer …").
  std::string words(std::string_view text, const char* part);
  // The JSON array of args with each string redacted; a flag ending one arg takes the next arg as its value.
  std::string args_json(const rapidjson::Value& args);
  // A URL (text holding "://"; any other text is returned as it is): the password of its user info, and the value
  // of each secret query or fragment parameter.
  std::string url(std::string_view u, const char* part);

 private:
  void found(std::string_view name);
  std::string word(std::string_view w);

  const char* part_ = "";
  std::string pending_;  // a secret flag whose value is the next word
};

}  // namespace roo
