// What a triage collector must gather so that roo-ingest --dir finds on the collection what it reads on an image:
// one list, derived from the catalog (core/catalog.h), that the KAPE, Velociraptor and ForensicArtifacts
// definitions in packaging/collectors/ are written from (docs/collectors.md).
#pragma once

#include <string>
#include <vector>

namespace roo::collectors {

// The operating systems a collection item applies to (a bit set).
enum Os : unsigned { kWindows = 1, kDarwin = 2, kLinux = 4, kAnyOs = kWindows | kDarwin | kLinux };

// Where an item's path starts.
enum class Anchor {
  home,  // a user's home directory (Windows C:\Users\<u>, macOS /Users/<u>, Linux /home/<u> and /root)
  root,  // the file system's root (the system drive on Windows)
};

// One thing to gather: the files below dir (every depth when recursive) whose names match file_mask. A segment of dir
// may hold "*" (any name); file_mask is "*" or a name with "*" in it.
struct CollectionItem {
  unsigned os = kAnyOs;
  Anchor anchor = Anchor::home;
  std::vector<std::string> dir;
  std::string file_mask = "*";
  bool recursive = false;
  std::string what;   // for the definition's comment: which Roo store this is
  const char* group;  // the ForensicArtifacts definition it belongs to (forensic_artifacts())
};

// Every item, in catalog order, without an item that another recursive item already gathers.
std::vector<CollectionItem> collection_plan();

// The three definitions, as the files in packaging/collectors/ hold them.
std::string kape_target();             // RooCode.tkape
std::string velociraptor_artifact();   // Generic.Forensic.RooCode.yaml
std::string forensic_artifacts();      // roo_code.yaml

}  // namespace roo::collectors
