#!/usr/bin/env python3
"""The collector definitions of packaging/collectors/, checked by what they would gather from the fixture trees.

Each definition is parsed with a YAML parser, as KAPE, Velociraptor and the ForensicArtifacts tools read them, and
its paths are evaluated over each tree of fixtures/trees/ with that tool's own glob rules, written here from the
tools' documentation and source, not from roo-collectors:

- KAPE (EricZimmerman/KapeFiles, Targets/*.tkape): Path is a folder (trailing backslash) whose segments may hold "*"
  and %user% (each profile under C:\\Users); FileMask (default every name) picks the files in it, Recursive: true
  also every folder below. Windows names compare without case.
- Velociraptor glob(): a segment "*" matches one name, "**" every depth below (zero or more folders); Windows and
  macOS compare without case, Linux with.
- ForensicArtifacts (docs/sources/Format-specification.md; plaso's PathHelper applies it): %%users.appdata%% is
  %%users.userprofile%%\\AppData\\Roaming or \\Application Data, %%users.temp%% %%users.localappdata%%\\Temp,
  %%users.userprofile%% Users\\* or Documents and Settings\\*, %%users.homedir%% /Users/* (macOS) or /home/* and
  /root (Linux); "**" stands for one to ten "*" segments.

What roo-ingest reads of a tree is what its report.json lists under files_parsed after `roo-ingest --dir TREE`, plus
workspace.json beside each workspace state database (read to name the workspace, docs/row-contract.md). Every such
file must be gathered by each definition for the OSes it covers (KAPE: Windows only), except the tasks a
customStoragePath moves out of the editor's folder, which no static definition can know (docs/collectors.md says to
collect that folder by hand). Nothing outside Roo's storage may be gathered: every gathered file is one roo-ingest
reads, or lies in a Roo root it found or a folder it reads by name (an installed version, a rules folder), and files planted beside Roo's (another extension's storage, the editor's own
files, a worktree's checkout, another temp dir) are gathered by none.

usage: collectors_test.py Collectors.test_NAME --binary ROO_INGEST --collectors ROO_COLLECTORS --repo PATH
"""
import fnmatch
import json
import os
import shutil
import subprocess
import tempfile
import unittest

import yaml

import e2e_main

BINARY = None
COLLECTORS = None
REPO = None

FILES = {"kape": "RooCode.tkape", "velociraptor": "Generic.Forensic.RooCode.yaml", "artifacts": "roo_code.yaml"}


def definition(name):
    with open(os.path.join(REPO, "packaging", "collectors", FILES[name]), encoding="utf-8") as f:
        return f.read()


def all_files(root):
    for dirpath, _, names in os.walk(root):
        for name in names:
            yield "/" + os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")


def glob_tree(root, segments, nocase, star_star_min=0, star_star_max=30):
    """Every path (files and folders, "/a/b") of the tree under root that the segment patterns match."""
    def same(pattern, name):
        return fnmatch.fnmatchcase(name.lower(), pattern.lower()) if nocase else fnmatch.fnmatchcase(name, pattern)

    found = set()

    def walk(rel, index):
        here = os.path.join(root, rel.lstrip("/"))
        if index == len(segments):
            found.add(rel or "/")
            return
        if not os.path.isdir(here):
            return
        seg = segments[index]
        if seg == "**":
            # zero or more folders, then the rest of the pattern; "**" last also matches every path below
            def down(r, depth):
                if depth >= star_star_min:
                    walk(r, index + 1)
                if depth >= star_star_max:
                    return
                h = os.path.join(root, r.lstrip("/"))
                if os.path.isdir(h):
                    for name in sorted(os.listdir(h)):
                        down(r + "/" + name, depth + 1)
            down(rel, 0)
            return
        for name in sorted(os.listdir(here)):
            if same(seg, name):
                walk(rel + "/" + name, index + 1)

    walk("", 0)
    return {p for p in found if os.path.isfile(os.path.join(root, p.lstrip("/")))}


def kape_gathers(root, tkape):
    gathered = set()
    for target in yaml.safe_load(tkape)["Targets"]:
        path = target["Path"]
        assert path.startswith("C:\\") and path.endswith("\\"), path
        segments = [s for s in path[3:].split("\\") if s]
        segments = ["*" if s.lower() == "%user%" else s for s in segments]
        mask = target.get("FileMask", "*")
        below = ["**", mask] if target.get("Recursive") else [mask]
        gathered |= glob_tree(root, segments + below, nocase=True)
    return gathered


def velociraptor_gathers(root, artifact, os_name):
    params = {p["name"]: p for p in yaml.safe_load(artifact)["parameters"]}
    lines = params[os_name + "Globs"]["default"].splitlines()
    assert lines[0] == "Glob"
    gathered = set()
    for glob in lines[1:]:
        if os_name == "Windows":
            assert glob.startswith("C:\\"), glob
            segments = glob[3:].split("\\")
        else:
            assert glob.startswith("/"), glob
            segments = glob[1:].split("/")
        gathered |= glob_tree(root, segments, nocase=os_name != "Linux")
    return gathered


ARTIFACT_EXPANSIONS = {
    "%%users.appdata%%": [["%%users.userprofile%%", "AppData", "Roaming"],
                          ["%%users.userprofile%%", "Application Data"]],
    "%%users.localappdata%%": [["%%users.userprofile%%", "AppData", "Local"],
                               ["%%users.userprofile%%", "Local Settings", "Application Data"]],
    "%%users.temp%%": [["%%users.localappdata%%", "Temp"]],
    "%%users.userprofile%%": [["Users", "*"], ["Documents and Settings", "*"]],
    "%%environ_systemroot%%": [["Windows"]],
    "%%environ_systemdrive%%": [[]],
}
HOMEDIR = {"Darwin": [["Users", "*"]], "Linux": [["home", "*"], ["root"]]}


def expand_artifact_path(segments, os_name):
    if not segments:
        return [[]]
    first = segments[0].lower()
    if first == "%%users.homedir%%":
        heads = HOMEDIR[os_name]
    elif first in ARTIFACT_EXPANSIONS:
        heads = [h2 for h in ARTIFACT_EXPANSIONS[first] for h2 in expand_artifact_path(h, os_name)]
    else:
        assert not first.startswith("%%"), segments[0]
        return [[segments[0]] + rest for rest in expand_artifact_path(segments[1:], os_name)]
    return [h + rest for h in heads for rest in expand_artifact_path(segments[1:], os_name)]


def artifacts_gather(root, text, os_name):
    gathered = set()
    for doc in yaml.safe_load_all(text):
        for source in doc["sources"]:
            if source["type"] != "FILE" or os_name not in source["supported_os"]:
                continue
            sep = source["attributes"].get("separator", "/")
            for path in source["attributes"]["paths"]:
                segments = [s for s in path.split(sep) if s]
                for expanded in expand_artifact_path(segments, os_name):
                    # plaso: "**" is one to ten "*" segments
                    if "**" in expanded:
                        assert expanded[-1] == "**", path
                        gathered |= glob_tree(root, expanded, nocase=os_name != "Linux", star_star_min=1,
                                              star_star_max=10)
                    else:
                        gathered |= glob_tree(root, expanded, nocase=os_name != "Linux")
    return gathered


def on_windows_paths(path):
    """Whether a tree path is where a Windows profile or system keeps it (what KAPE's Windows targets can reach)."""
    parts = path.strip("/").split("/")
    if parts[0] == "Windows":
        return True
    return parts[0] == "Users" and len(parts) > 2 and parts[2] != "Library"


class Collectors(unittest.TestCase):
    trees = sorted(d for d in os.listdir(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "trees")))

    def read_by_roo_ingest(self, tree):
        """(files roo-ingest reads of the tree, the folders it reads (its roots, the folders it reads by name), the
        customStoragePath folders)"""
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        out = os.path.join(tmp, "out")
        run = subprocess.run([BINARY, "--dir", tree, "-o", out], capture_output=True, text=True)
        self.assertIn(run.returncode, (0, 5), run.stderr)
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            report = json.load(f)
        read, roots, custom = set(), set(), set()
        for part in report["partitions"]:
            scan = part.get("scan", {})
            for f in scan.get("files_parsed", []):
                read.add(f["path"])
                if f["kind"] == "workspace_state_db":
                    beside = os.path.dirname(f["path"]) + "/workspace.json"
                    if os.path.isfile(os.path.join(tree, beside.lstrip("/"))):
                        read.add(beside)
            for r in scan.get("roots_found", []):
                roots.add(r["path"])
            for c in scan.get("custom_storage_paths", []):
                if c.get("found_at"):
                    custom.add(c["found_at"])
        # the folders and entries read by name and times (installed versions, rules, commands, skills) are rows' sources
        with open(os.path.join(out, "rows.jsonl"), encoding="utf-8") as f:
            for line in f:
                path = json.loads(line)["source"].get("path")
                if path and os.path.isdir(os.path.join(tree, path.lstrip("/"))):
                    roots.add(path)
                elif path and os.path.isfile(os.path.join(tree, path.lstrip("/"))):
                    read.add(path)
        return read, roots, custom

    def gathered(self, root):
        kape = kape_gathers(root, definition("kape"))
        velo = set().union(*(velociraptor_gathers(root, definition("velociraptor"), o)
                             for o in ("Windows", "Darwin", "Linux")))
        fa = set().union(*(artifacts_gather(root, definition("artifacts"), o) for o in ("Windows", "Darwin", "Linux")))
        return {"kape": kape, "velociraptor": velo, "artifacts": fa}

    def test_committed_definitions_are_what_the_catalog_gives(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        subprocess.run([COLLECTORS, "--write", tmp], check=True)
        for name, file_name in FILES.items():
            with open(os.path.join(tmp, file_name), encoding="utf-8") as f:
                self.assertEqual(f.read(), definition(name),
                                 f"packaging/collectors/{file_name} differs from roo-collectors' output: regenerate it "
                                 f"with `roo-collectors --write packaging/collectors`")

    def test_definitions_are_in_their_tools_formats(self):
        kape = yaml.safe_load(definition("kape"))
        for key in ("Description", "Author", "Version", "Id", "RecreateDirectories", "Targets"):
            self.assertIn(key, kape)
        for target in kape["Targets"]:
            self.assertEqual(set(target) - {"Name", "Category", "Path", "FileMask", "Recursive", "Comment"}, set())
            self.assertTrue(target["Path"].endswith("\\"))
        self.assertEqual(len({t["Name"] for t in kape["Targets"]}), len(kape["Targets"]), "KAPE target names repeat")
        velo = yaml.safe_load(definition("velociraptor"))
        self.assertEqual(velo["type"], "CLIENT")
        self.assertTrue(velo["name"].startswith("Generic."))
        self.assertIn("upload(", velo["sources"][0]["query"])
        docs = list(yaml.safe_load_all(definition("artifacts")))
        names = {d["name"] for d in docs}
        for d in docs:
            self.assertEqual(set(d) - {"name", "doc", "sources", "supported_os", "urls"}, set())
            for s in d["sources"]:
                self.assertIn(s["type"], ("FILE", "ARTIFACT_GROUP"))
                self.assertLessEqual(set(s.get("supported_os", [])), set(d["supported_os"]))
                if s["type"] == "ARTIFACT_GROUP":
                    self.assertLessEqual(set(s["attributes"]["names"]), names)
        self.assertIn("RooCode", names)

    def test_every_file_roo_ingest_reads_is_gathered(self):
        checked = 0
        for name in self.trees:
            tree = os.path.join(REPO, "fixtures", "trees", name)
            read, _, custom = self.read_by_roo_ingest(tree)
            wanted = {p for p in read if not any(p.startswith(c + "/") for c in custom)}
            gathered = self.gathered(tree)
            for tool, files in gathered.items():
                need = {p for p in wanted if on_windows_paths(p)} if tool == "kape" else wanted
                self.assertEqual(need - files, set(), f"{tool} misses files roo-ingest reads in {name}")
            checked += len(wanted)
        self.assertGreater(checked, 100)

    def test_nothing_outside_roo_storage_is_gathered(self):
        for name in self.trees:
            tree = os.path.join(REPO, "fixtures", "trees", name)
            read, roots, _ = self.read_by_roo_ingest(tree)
            for tool, files in self.gathered(tree).items():
                outside = {p for p in files - read if not any(p.startswith(r + "/") for r in roots)}
                self.assertEqual(outside, set(), f"{tool} gathers files roo-ingest does not read in {name}")

    def test_files_beside_roo_storage_are_not_gathered(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        beside = [
            "Users/u/AppData/Roaming/Code/User/globalStorage/ms-python.python/state.json",
            "Users/u/AppData/Roaming/Code/User/globalStorage/storage.json",
            "Users/u/AppData/Roaming/Code/User/globalStorage/state.vscdb.backup",
            "Users/u/AppData/Roaming/Code/User/keybindings.json",
            "Users/u/AppData/Roaming/Code/User/History/abc/entries.json",
            "Users/u/AppData/Roaming/Code/User/workspaceStorage/0123/other.json",
            "Users/u/AppData/Local/Temp/other-dir/file.json",
            "Users/u/AppData/Local/Temp/roo-cli.json",
            "Users/u/.roo/worktrees/project-a1b2/src/main.c",
            "Users/u/.vscode/extensions/ms-python.python-2024.1.0/package.json",
            "Users/u/.vscode/extensions/rooveterinaryinc.roo-cline-3.20.0/dist/extension.js",
            "Users/u/Documents/notes.txt",
            "Users/m/Library/Application Support/Code/User/globalStorage/github.copilot/x.json",
            "home/l/.config/Code/User/globalStorage/other/x.json",
            "home/l/.config/Code/User/snippets/a.json",
            "root/.cache/roo.json",
            "tmp/roo-other-1777000000000-abc/x.json",
            "var/log/syslog",
        ]
        for rel in beside:
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
            with open(os.path.join(tmp, rel), "w") as f:
                f.write("{}")
        # one Roo file of each kind of place, so the definitions are seen gathering in this tree at all
        roo = [
            "Users/u/AppData/Roaming/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/_index.json",
            "Users/u/AppData/Local/Temp/roo-cli-1777000000000-abc12/global-storage/global-state.json",
            "home/l/.roo/cli-history.json",
        ]
        for rel in roo:
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
            with open(os.path.join(tmp, rel), "w") as f:
                f.write("{}")
        for tool, files in self.gathered(tmp).items():
            self.assertEqual({p for p in files if p.lstrip("/") in beside}, set(), tool)
            expected = {"/" + r for r in roo if tool != "kape" or not r.startswith("home/")}
            self.assertEqual(files, expected, tool)


if __name__ == "__main__":
    e2e_main.run(__import__(__name__), "Collectors", flags=("--binary", "--collectors", "--repo"))
