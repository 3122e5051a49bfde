#!/usr/bin/env python3
"""Writes tests/autopsy/autopsy_api_inventory.json: the public signatures of the Sleuth Kit Java classes that the
Autopsy module (plugin/autopsy/) uses, at each Sleuth Kit release that a supported Autopsy release ships.

Run by hand (the tests read only its committed output and need no network):

  make_api_inventory.py [--sleuthkit-git DIR] [--autopsy-src DIR] [--out PATH]

DIR is a bare git directory of github:sleuthkit/sleuthkit (the search tool's `fetch`); the sources are read with
`git show TAG:bindings/java/src/org/sleuthkit/datamodel/NAME.java` at each tag of RELEASES.

The "autopsy" section (Autopsy's own classes, org.sleuthkit.autopsy.*) is made from --autopsy-src DIR, a folder
COMMIT/Core/src/org/sleuthkit/autopsy/PATH of the sleuthkit/autopsy files (or of a fork's, AUTOPSY_REPOS) that the
search tool's file index holds (read_file repo=... path=... commit=COMMIT, declarations saved by hand outside the
repository: the repository is too large to fetch); one "version" per stored commit (AUTOPSY_SOURCES), placed on a
Sleuth Kit line by the same commit's Core/nbproject/project.properties where it is stored (CORE_PROPERTIES). A
section whose option is not given is kept from the existing --out file. What is kept is facts about the API (names,
parameter and return types, static-ness, supertypes, and the tags or commits each is in), never code.

The reader below is a small Java declaration scanner, not a compiler: comments, strings and annotations are dropped,
then each class body is walked by brace depth, and every declaration at member level is classified as a nested type,
method, constructor, field, or enum constant. Only public members are kept (plus protected ones, marked, since a
Python subclass can override them); members of interfaces are public.
"""
import argparse
import json
import os
import re
import subprocess
import sys

# Sleuth Kit release -> the Autopsy releases that ship it (their Core module's sleuthkit jar and unix_setup.sh's
# TSK_VERSION; see tests/autopsy/README.md for where each pairing was read).
RELEASES = [
    ("sleuthkit-4.11.0", ["4.19.0", "4.19.1"]),
    ("sleuthkit-4.11.1", ["4.19.2", "4.19.3"]),
    ("sleuthkit-4.12.0", ["4.20.0"]),
    ("sleuthkit-4.12.1", ["4.21.0"]),
    ("sleuthkit-4.13.0", ["4.22.0"]),
]
PACKAGE = "org.sleuthkit.datamodel"
SOURCE_DIR = "bindings/java/src/org/sleuthkit/datamodel"
# The classes the module names or receives; their supertypes in the package are added.
ROOTS = ["AbstractFile", "Blackboard", "BlackboardArtifact", "BlackboardAttribute", "Content", "DataArtifact",
         "Image", "LocalDirectory", "LocalFile", "LocalFilesDataSource", "SleuthkitCase", "TimelineEventType",
         "TskCoreException", "TskData"]

MODIFIERS = {"public", "protected", "private", "static", "final", "abstract", "synchronized", "native", "transient",
             "volatile", "strictfp", "default", "sealed", "non-sealed"}


def strip_noise(src):
    """The source without comments, string and char literal contents, and annotations."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            i = n if j < 0 else j + 2
            out.append(" ")
        elif c in "\"'":
            if src.startswith('"""', i):
                j = src.find('"""', i + 3)
                i = n if j < 0 else j + 3
            else:
                j = i + 1
                while j < n and src[j] != c:
                    j += 2 if src[j] == "\\" else 1
                i = j + 1
            out.append('""')
        else:
            out.append(c)
            i += 1
    text = "".join(out)
    # annotations, with their (possibly nested) arguments
    result = []
    i, n = 0, len(text)
    while i < n:
        m = re.compile(r"@(?!interface)[A-Za-z_][\w.]*").match(text, i)
        if m:
            i = m.end()
            k = i
            while k < n and text[k].isspace():
                k += 1
            if k < n and text[k] == "(":
                depth = 0
                while k < n:
                    depth += {"(": 1, ")": -1}.get(text[k], 0)
                    k += 1
                    if depth == 0:
                        break
                i = k
            result.append(" ")
        else:
            result.append(text[i])
            i += 1
    return "".join(result)


def split_top(text, sep=","):
    """Splits on sep outside <>, (), [], {}."""
    parts, depth, cur = [], 0, []
    for c in text:
        if c in "<([{":
            depth += 1
        elif c in ">)]}":
            depth -= 1
        if c == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    if "".join(cur).strip():
        parts.append("".join(cur))
    return parts


def norm_type(t):
    t = re.sub(r"\s+", " ", t.strip())
    t = re.sub(r"\s*([<>,\[\]?])\s*", r"\1", t).replace(",", ", ")
    return t


def parse_params(text):
    params = []
    for p in split_top(text):
        words = [w for w in p.replace("final ", " ").split()]
        if not words:
            continue
        decl = " ".join(words)
        m = re.match(r"(.*?)\s*([A-Za-z_]\w*)\s*((?:\[\])*)$", decl)
        ptype = norm_type(m.group(1) + m.group(3))
        params.append(ptype)
    return params


def matching(text, i, open_c, close_c):
    """Index just past the bracket that closes the one at text[i]."""
    depth = 0
    n = len(text)
    while i < n:
        if text[i] == open_c:
            depth += 1
        elif text[i] == close_c:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


TYPE_DECL = re.compile(r"\b(class|interface|enum|@interface|record)\s+([A-Za-z_]\w*)")


def split_modifiers(head):
    words = head.split()
    mods = []
    while words and words[0] in MODIFIERS:
        mods.append(words.pop(0))
    return mods, " ".join(words)


def parse_type_header(head, kind, name):
    rest = head[head.index(name) + len(name):]
    rest = re.sub(r"^\s*<.*?>(?=\s*(extends|implements|\{|$))", "", rest)
    supers = []
    m = re.search(r"\bextends\s+(.*?)(?=\bimplements\b|\bpermits\b|$)", rest, re.S)
    if m:
        supers += [norm_type(s) for s in split_top(m.group(1))]
    m = re.search(r"\bimplements\s+(.*?)(?=\bpermits\b|$)", rest, re.S)
    if m:
        supers += [norm_type(s) for s in split_top(m.group(1))]
    return [re.sub(r"<.*", "", s) for s in supers]


def parse_body(text, start, end, cls, classes, fqn):
    """Walks one class body text[start:end]; fills classes[fqn]."""
    info = classes.setdefault(fqn, {"kind": cls["kind"], "supertypes": cls["supertypes"], "members": []})
    in_interface = cls["kind"] in ("interface", "@interface")
    i = start
    if cls["kind"] == "enum":
        # constants up to the first ';' at depth 0 (or the end of the body)
        j, depth = i, 0
        while j < end:
            c = text[j]
            if c in "({":
                j = matching(text, j, c, ")" if c == "(" else "}")
                continue
            if c == ";":
                break
            j += 1
        for part in split_top(text[i:j]):
            m = re.match(r"\s*([A-Za-z_]\w*)", part)
            if m:
                info["members"].append({"name": m.group(1), "kind": "enum_constant", "static": True,
                                        "type": cls["name"]})
        i = j + 1
    decl_start = i
    while i < end:
        c = text[i]
        if c == ";":
            handle_decl(text[decl_start:i].strip(), None, cls, info, in_interface)
            i += 1
            decl_start = i
        elif c == "{":
            head = text[decl_start:i].strip()
            m = TYPE_DECL.search(head)
            close = matching(text, i, "{", "}")
            if m and "(" not in head[:m.start()] and "=" not in head[:m.start()]:
                mods, _ = split_modifiers(head[:m.start()])
                kind, name = m.group(1), m.group(2)
                visible = in_interface or "public" in mods or "protected" in mods
                nested = {"kind": kind, "name": name, "supertypes": parse_type_header(head, kind, name)}
                if visible:
                    info["members"].append({"name": name, "kind": "nested_" + kind,
                                            "static": "static" in mods or in_interface or kind != "class"})
                    parse_body(text, i + 1, close - 1, nested, classes, fqn + "." + name)
                i = close
                decl_start = i
            elif "=" in head.split("(")[0] or head == "" or head == "static":
                # a field initialiser with braces (array, anonymous class, lambda) runs on to its ';'
                if "=" in head.split("(")[0]:
                    j = close
                    while j < end and text[j] != ";":
                        if text[j] in "({":
                            j = matching(text, j, text[j], ")" if text[j] == "(" else "}")
                        else:
                            j += 1
                    handle_decl(head, None, cls, info, in_interface)
                    i = j + 1
                else:  # an initializer block
                    i = close
                decl_start = i
            else:
                handle_decl(head, True, cls, info, in_interface)
                i = close
                decl_start = i
        elif c == "(":
            i = matching(text, i, "(", ")")
        else:
            i += 1


def handle_decl(head, has_body, cls, info, in_interface):
    if not head:
        return
    head = re.sub(r"\s+", " ", head)
    if head.startswith("import ") or head.startswith("package "):
        return
    mods, rest = split_modifiers(head)
    visible = "public" in mods or "protected" in mods or (in_interface and "private" not in mods)
    if not visible:
        return
    entry_mods = {"static": "static" in mods or (in_interface and "(" not in rest)}
    if "protected" in mods:
        entry_mods["protected"] = True
    if "(" in rest and "=" not in rest.split("(")[0]:
        before, _, after = rest.partition("(")
        params_text = after[:matching("(" + after, 0, "(", ")") - 2]
        before = re.sub(r"^<.*?>\s*", "", before.strip())  # generic method type parameters
        words = before.rsplit(" ", 1)
        if len(words) == 1:  # a constructor
            if words[0] != cls["name"]:
                return
            info["members"].append(dict({"name": "<init>", "kind": "constructor",
                                         "params": parse_params(params_text)}, **entry_mods))
        else:
            info["members"].append(dict({"name": words[1], "kind": "method", "returns": norm_type(words[0]),
                                         "params": parse_params(params_text)}, **entry_mods))
        if in_interface and "static" not in mods:
            info["members"][-1]["static"] = False
    else:
        decl = rest.split("=", 1)[0].strip()
        parts = split_top(decl)
        first = parts[0].strip()
        m = re.match(r"(.*?)\s*([A-Za-z_]\w*)\s*((?:\[\])*)$", first)
        if not m or not m.group(1):
            return
        ftype = norm_type(m.group(1) + m.group(3))
        names = [m.group(2)] + [p.strip() for p in parts[1:]]
        for name in names:
            name = name.split("=")[0].strip()
            if re.match(r"^[A-Za-z_]\w*$", name):
                info["members"].append(dict({"name": name, "kind": "field", "type": ftype}, **entry_mods))
                if in_interface:
                    info["members"][-1]["static"] = True


def parse_file(src, top_name, package=PACKAGE):
    text = strip_noise(src)
    classes = {}
    for m in TYPE_DECL.finditer(text):
        if m.group(2) != top_name:
            continue
        brace = text.index("{", m.end())
        head = text[text.rfind(";", 0, m.start()) + 1:brace]
        cls = {"kind": m.group(1), "name": top_name, "supertypes": parse_type_header(head, m.group(1), top_name)}
        parse_body(text, brace + 1, matching(text, brace, "{", "}") - 1, cls, classes, package + "." + top_name)
        break
    return classes


def git_show(git_dir, tag, path):
    proc = subprocess.run(["git", "-C", git_dir, "show", "%s:%s" % (tag, path)], capture_output=True)
    if proc.returncode != 0:
        return None
    return proc.stdout.decode("utf-8", "replace")


def extract_tag(git_dir, tag):
    classes = {}
    todo, seen = list(ROOTS), set()
    while todo:
        name = todo.pop(0)
        if name in seen:
            continue
        seen.add(name)
        src = git_show(git_dir, tag, "%s/%s.java" % (SOURCE_DIR, name))
        if src is None:
            continue
        found = parse_file(src, name)
        classes.update(found)
        for info in found.values():
            for s in info["supertypes"]:
                top = s.split(".")[0]
                if top not in seen:
                    todo.append(top)
    return classes


def member_key(m):
    return json.dumps({k: v for k, v in m.items() if k != "versions"}, sort_keys=True)


def merge(per_tag):
    out = {}
    for tag, classes in per_tag:
        for fqn, info in classes.items():
            entry = out.setdefault(fqn, {"kind": info["kind"], "supertypes": {}, "versions": [], "members": {}})
            entry["versions"].append(tag)
            entry["supertypes"].setdefault(json.dumps(info["supertypes"]), []).append(tag)
            for m in info["members"]:
                bucket = entry["members"].setdefault(m["name"], {})
                key = member_key(m)
                if key not in bucket:
                    bucket[key] = dict(m, versions=[])
                if tag not in bucket[key]["versions"]:
                    bucket[key]["versions"].append(tag)
    result = {}
    for fqn in sorted(out):
        e = out[fqn]
        supertypes = [{"types": json.loads(k), "versions": v} for k, v in e["supertypes"].items()]
        members = {}
        for name in sorted(e["members"]):
            members[name] = sorted(e["members"][name].values(), key=member_key)
        result[fqn] = {"kind": e["kind"], "versions": e["versions"], "supertypes": supertypes, "members": members}
    return result


# The Autopsy files read from the file index: path under Core/src/org/sleuthkit/autopsy -> {commit: what the file
# itself tells of its Autopsy release}. The index keeps no tag, so a release is named only where the text shows it.
# Files are of github:sleuthkit/autopsy unless AUTOPSY_REPOS names a fork for the commit.
AUTOPSY_ROOT = "Core/src"
AUTOPSY_SOURCES = {
    "casemodule/Case.java": {
        "a15987a855e2c01f2415bb0e762a2819a285da7d":
            "Copyright 2011-2018; has getOpenCase() and no getCurrentCaseThrows(), and its Events enum lacks the "
            "HOSTS_*, PERSONS_* and OS_ACCOUNTS_* events that came with hosts and OS accounts (NEWS.txt, VERSION "
            "4.19.0): older than every supported release. Only characters 0-80000 of 115661 were read",
        "681d208ee19340d428743a5db24147645f03bb38":
            "Copyright 2012-2021; has getCurrentCaseThrows and the HOSTS_*/PERSONS_*/OS_ACCOUNTS_* events. Only "
            "characters 0-80000 of 175299 were read (the module's Case calls are all in them)",
        "fde03562949a41b1a45e0b457102b2bcf0108d3e":
            "github:wisdark/autopsy, a fork. Copyright 2012-2021; public declarations in characters 0-80000 of 180810 "
            "(all that was read) the same as at 681d208e",
    },
    "coreutils/Logger.java": {
        "c736d8e393cfbac10d19b31a7fa8cccec7959113": "Copyright 2012-2018; release not told"},
    "ingest/DataSourceIngestModule.java": {
        "e6fdebff6eb5bdfc835c85ed64ad47257c3b4e11": "Copyright 2014-2021; release not told (4.19 or later by year)"},
    "ingest/DataSourceIngestModuleProgress.java": {
        "681d208ee19340d428743a5db24147645f03bb38":
            "Copyright 2011-2014 but works through IngestJobExecutor, which also runs data-artifact ingest (which came "
            "with data artifacts, Autopsy 4.19)"},
    "ingest/GenericIngestModuleJobSettings.java": {
        "058473bd9df937ba44fd4b77c88c9e78078ff04b": "Copyright 2014-2018; getSettings/setSettings; release not told",
        "46ce69ff8fff55e91d290c603bab98b965a69593":
            "Copyright 2018, says it is for Python modules; getSetting/setSetting; release not told, nor which of "
            "the two is newer"},
    "ingest/IngestJobContext.java": {
        "8ba67bd5cacc63aaac213ad41a0c1d6a5a8bddb8":
            "Copyright 2014-2021; has dataArtifactIngestIsCancelled (data-artifact ingest came with data "
            "artifacts, Autopsy 4.19): likely 4.19 or later; release not told"},
    "ingest/IngestMessage.java": {
        "0b02fdcf60e5d464222fad644095cb433c48eb72": "Copyright 2011-2016; release not told"},
    "ingest/IngestModule.java": {
        "c51004727ef45e1ef1eeddaff7737c724e2db34f": "Copyright 2014-2021"},
    "ingest/IngestModuleFactoryAdapter.java": {
        "b3039c84209682370957e4cc716d865890e62f44": "Copyright 2014-2021; release not told (4.19 or later by year)"},
    "ingest/IngestModuleIngestJobSettingsPanel.java": {
        "2abdeaee8c09ae616b1ecb13b6194d033a4ce937": "Copyright 2014; release not told"},
    "ingest/IngestServices.java": {
        "c51004727ef45e1ef1eeddaff7737c724e2db34f":
            "Copyright 2012-2021; getCase/getCaseDatabase through Case.getCurrentCaseThrows",
        "cd6b24075d3fa6cd26f236bded15323c7d3a109d":
            "Copyright 2011-2014; has getOpenCase (NoCurrentCaseException): an Autopsy 4.7-era file, release not told"},
}
# Commits of a fork (the file index holds other commits of sleuthkit/autopsy's files in forks).
AUTOPSY_REPOS = {"fde03562949a41b1a45e0b457102b2bcf0108d3e": "wisdark/autopsy"}
# What the same commit's Core/nbproject/project.properties says (read_file repo=... path=Core/nbproject/project.
# properties commit=COMMIT): the Sleuth Kit jar the Core module of that commit ships, and the lines that date it. A
# commit without an entry has no Core/nbproject/project.properties stored at it (read_file: "stored, but not at that
# commit"). This places a file on a Sleuth Kit line (the Autopsy releases of RELEASES that ship that jar), not at a
# release tag: the index keeps no tags, and these commits may lie between releases.
CORE_PROPERTIES = {
    "c51004727ef45e1ef1eeddaff7737c724e2db34f": (
        "sleuthkit-4.11.1", "file.reference.sleuthkit-4.11.1.jar, javac.source=1.8, spec.version.base=10.24, "
        "postgresql-42.3.5.jar; Core/manifest.mf at the same commit: OpenIDE-Module-Implementation-Version: 37"),
    "681d208ee19340d428743a5db24147645f03bb38": (
        "sleuthkit-4.11.1", "file.reference.sleuthkit-4.11.1.jar, javac.source=11, spec.version.base=10.24, "
        "postgresql-42.3.5.jar"),
    "fde03562949a41b1a45e0b457102b2bcf0108d3e": (
        "sleuthkit-4.12.1", "file.reference.sleuthkit-4.12.1.jar, javac.source=17 (NEWS.txt, VERSION 4.21.0: "
        "'Update Java to version 17'), spec.version.base=10.25, sqlite-jdbc-3.46.0.0.jar, postgresql-42.7.3.jar"),
}


def autopsy_line(commit):
    """(Sleuth Kit tag, [Autopsy releases that ship it]) of a stored commit, or (None, [])."""
    tag = CORE_PROPERTIES.get(commit, (None, None))[0]
    return tag, dict(RELEASES).get(tag, [])


def autopsy_files():
    """The inventory's record of each stored file version: where it was read and what dates it."""
    files = []
    for rel, commits in sorted(AUTOPSY_SOURCES.items()):
        for commit, note in sorted(commits.items()):
            tag, releases = autopsy_line(commit)
            entry = {"path": "%s/org/sleuthkit/autopsy/%s" % (AUTOPSY_ROOT, rel), "commit": commit,
                     "repo": AUTOPSY_REPOS.get(commit, "sleuthkit/autopsy"), "release": note,
                     "core_sleuthkit": tag, "same_sleuthkit_as": releases}
            if tag:
                entry["core_properties"] = CORE_PROPERTIES[commit][1]
            files.append(entry)
    return files


def autopsy_releases(files):
    """Per supported Autopsy release: the stored versions of each class whose commit ships that release's Sleuth Kit
    (an empty list: none does)."""
    out = []
    for tag, releases in RELEASES:
        for release in releases:
            classes = {}
            for f in files:
                if release in f["same_sleuthkit_as"]:
                    fqn = "org.sleuthkit.autopsy." + f["path"].split("org/sleuthkit/autopsy/")[1][:-5].replace("/", ".")
                    classes.setdefault(fqn, []).append(f["commit"])
            out.append({"autopsy": release, "sleuthkit": tag, "same_sleuthkit": classes})
    return out


def extract_autopsy(src_dir):
    """{fqn: class info} per stored commit, from src_dir/COMMIT/Core/src/org/sleuthkit/autopsy/PATH."""
    per_commit = {}
    for rel, commits in sorted(AUTOPSY_SOURCES.items()):
        package = "org.sleuthkit.autopsy." + ".".join(rel.split("/")[:-1])
        name = os.path.basename(rel)[:-len(".java")]
        for commit in sorted(commits):
            path = os.path.join(src_dir, commit, AUTOPSY_ROOT, "org/sleuthkit/autopsy", rel)
            with open(path, encoding="utf-8") as f:
                found = parse_file(f.read(), name, package)
            if not found:
                sys.exit("%s: no class %s" % (path, name))
            per_commit.setdefault(commit, {}).update(found)
    return merge(sorted(per_commit.items()))


def dump_classes(lines, classes, indent):
    def j(v):
        return json.dumps(v, sort_keys=True)
    names = sorted(classes)
    for i, fqn in enumerate(names):
        cls = classes[fqn]
        lines.append(indent + "%s: {" % j(fqn))
        for key in ("kind", "supertypes", "versions"):
            lines.append(indent + " %s: %s," % (j(key), j(cls[key])))
        lines.append(indent + ' "members": {')
        members = sorted(cls["members"])
        for k, name in enumerate(members):
            entries = cls["members"][name]
            lines.append(indent + "  %s: [" % j(name))
            lines.extend(indent + "   %s%s" % (j(e), "," if n < len(entries) - 1 else "")
                         for n, e in enumerate(entries))
            lines.append(indent + "  ]%s" % ("," if k < len(members) - 1 else ""))
        lines.append(indent + " }")
        lines.append(indent + "}%s" % ("," if i < len(names) - 1 else ""))


def dump(inventory):
    """JSON with one line per class header and per member signature (short diffs when a release is added)."""
    def j(v):
        return json.dumps(v, sort_keys=True)
    lines = ["{"]
    for key in ("made_by", "source", "releases"):
        lines.append(" %s: %s," % (j(key), j(inventory[key])))
    lines.append(' "autopsy": {')
    lines.append('  "source": %s,' % j(inventory["autopsy"]["source"]))
    for key in ("files", "releases"):
        lines.append('  %s: [' % j(key))
        entries = inventory["autopsy"][key]
        lines.extend("   %s%s" % (j(e), "," if n < len(entries) - 1 else "") for n, e in enumerate(entries))
        lines.append("  ],")
    lines.append('  "classes": {')
    dump_classes(lines, inventory["autopsy"]["classes"], "   ")
    lines.append("  }")
    lines.append(" },")
    lines.append(' "classes": {')
    dump_classes(lines, inventory["classes"], "  ")
    lines.append(" }")
    lines.append("}")
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == json.loads(j(inventory))
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sleuthkit-git")
    parser.add_argument("--autopsy-src")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     "autopsy_api_inventory.json"))
    args = parser.parse_args()
    old = {}
    if os.path.exists(args.out):
        with open(args.out, encoding="utf-8") as f:
            old = json.load(f)
    if args.autopsy_src:
        files = autopsy_files()
        autopsy = {
            "source": "github:sleuthkit/autopsy %s/org/sleuthkit/autopsy (or the fork each file names), the "
                      "versions the search tool's file index holds (read_file at the commit named per file); made by "
                      "make_api_inventory.py --autopsy-src" % AUTOPSY_ROOT,
            "files": files,
            "releases": autopsy_releases(files),
            "classes": extract_autopsy(args.autopsy_src),
        }
    else:
        autopsy = old["autopsy"]
    if not args.sleuthkit_git:
        old["autopsy"] = autopsy
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(dump(old))
        print("%s: %d Autopsy classes" % (args.out, len(autopsy["classes"])), file=sys.stderr)
        return
    per_tag = []
    commits = {}
    for tag, _ in RELEASES:
        commit = subprocess.run(["git", "-C", args.sleuthkit_git, "rev-list", "-n1", tag], capture_output=True,
                                text=True, check=True).stdout.strip()
        commits[tag] = commit
        per_tag.append((tag, extract_tag(args.sleuthkit_git, tag)))
    inventory = {
        "made_by": "tests/autopsy/make_api_inventory.py --sleuthkit-git <bare git dir of github:sleuthkit/sleuthkit>",
        "source": "github:sleuthkit/sleuthkit " + SOURCE_DIR,
        "releases": [{"sleuthkit": tag, "commit": commits[tag], "autopsy": paired} for tag, paired in RELEASES],
        "autopsy": autopsy,
        "classes": merge(per_tag),
    }
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(dump(inventory))
    print("%s: %d classes" % (args.out, len(inventory["classes"])), file=sys.stderr)


if __name__ == "__main__":
    main()
