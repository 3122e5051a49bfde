#!/usr/bin/env python3
"""The Autopsy module calls only the Sleuth Kit Java API that every supported Autopsy release has, and the stand-ins
of autopsy_fakes.py define only names (and arities) that API has.

autopsy_api_inventory.json holds the public signatures of org.sleuthkit.datamodel at each Sleuth Kit tag a supported
Autopsy release ships (made by make_api_inventory.py from the sleuthkit sources; see README.md here). This test:

1. walks the module's source (Python ast) and, for every attribute and call on a Sleuth Kit object, checks that the
   name exists in every supported release with a matching static-ness and an overload of the call's arity. A name
   missing from a release fails the test with the call site (file:line) and the release. Types come from the imports
   (`from org.sleuthkit.datamodel import X`), from the return types in the inventory, from `isinstance` narrowing and
   from RECEIVERS (the names the module gives its Java values). Alternatives are allowed where the module tries one
   and falls back: a `try` whose handler catches AttributeError or TypeError, or an `if hasattr(...)`, passes a
   release when either branch is whole there. A Java value whose type cannot be told fails too: so new code cannot
   slip past unchecked.
2. checks that each stand-in class of autopsy_fakes.py for a Sleuth Kit class defines only names that class has
   (inherited ones included), and that each stand-in method accepts an arity some overload has.

Autopsy's own classes (org.sleuthkit.autopsy.*) are checked the same way against the inventory's "autopsy" section,
whose versions are the sleuthkit/autopsy (or fork) commits each file was read at (not release tags; README.md says
which): the module's calls on them, the methods its subclasses of them define (overrides: name and arity), and their
stand-ins. Where the same commit's Core module names the Sleuth Kit jar it ships, the version stands on that Sleuth
Kit's line (the Autopsy releases that ship it), and a miss there names those releases.
java.* and javax.* are the JDK's and are not checked.

usage: test_api_inventory.py [unittest args] --repo PATH
"""
import ast
import inspect
import json
import os
import re
import sys
import unittest

import common  # noqa: E402

REPO = common.parse_repo_args()
HERE = os.path.dirname(os.path.abspath(__file__))
FOLDER = os.path.join(REPO, "plugin", "autopsy")
MODULE_FILES = [os.path.join(FOLDER, "roo_ingest_module.py")]
with open(os.path.join(HERE, "autopsy_api_inventory.json"), encoding="utf-8") as f:
    INVENTORY = json.load(f)
CLASSES = INVENTORY["classes"]
VERSIONS = [r["sleuthkit"] for r in INVENTORY["releases"]]
PACKAGE = "org.sleuthkit.datamodel"
TSK = PACKAGE + "."
# Autopsy's own classes, one version per stored commit of their source (README.md: which commit, which release).
AUTOPSY_CLASSES = INVENTORY["autopsy"]["classes"]
AUTOPSY = "org.sleuthkit.autopsy."
ALL_CLASSES = dict(CLASSES, **AUTOPSY_CLASSES)
# Autopsy members the checker let pass unchecked because they may be inherited from a supertype that is not
# inventoried (JDK_SUPERTYPES): filled by Use.problem, printed by the test.
INHERITED_UNCHECKED = set()


# Stored Autopsy commit -> the Autopsy releases whose Sleuth Kit its Core module ships (inventory "files").
AUTOPSY_LINE = {f["commit"]: f["same_sleuthkit_as"] for f in INVENTORY["autopsy"]["files"] if f["same_sleuthkit_as"]}


def shown(version):
    """A version as a failure names it: a Sleuth Kit tag, or an Autopsy commit with the releases of its line."""
    if version in AUTOPSY_LINE:
        return "%s (its Core ships the Sleuth Kit of Autopsy %s)" % (version, ", ".join(AUTOPSY_LINE[version]))
    return version


def versions_for(fqn):
    """The versions a class is checked at: the Sleuth Kit tags, or the stored commits of an Autopsy class."""
    return AUTOPSY_CLASSES[fqn]["versions"] if fqn in AUTOPSY_CLASSES else VERSIONS


def short(fqn):
    for prefix in (TSK, AUTOPSY):
        if fqn.startswith(prefix):
            return fqn[len(prefix):]
    return fqn

# The names the module gives its Java values, with their types (used when the type cannot be inferred).
RECEIVERS = {
    "dataSource": TSK + "Content",
    "sk_case": TSK + "SleuthkitCase",
    "blackboard": TSK + "Blackboard",
    "artifact": TSK + "DataArtifact",
    "transaction": TSK + "SleuthkitCase.CaseDbTransaction",
    "abstract_file": TSK + "AbstractFile",
    "content": TSK + "Content",
    "artifact_type": TSK + "BlackboardArtifact.Type",
    "event_type": TSK + "TimelineEventType",
    "child": TSK + "Content",
    "directory": TSK + "LocalDirectory",
    "local_file": TSK + "LocalFile",
    "case": AUTOPSY + "casemodule.Case",
    "context": AUTOPSY + "ingest.IngestJobContext",
    "self.context": AUTOPSY + "ingest.IngestJobContext",
    "progressBar": AUTOPSY + "ingest.DataSourceIngestModuleProgress",
    "self._logger": AUTOPSY + "coreutils.Logger",
}
# Parameters whose Java type holds only inside one function: (function, parameter) -> type.
FUNCTION_RECEIVERS = {
    ("_get_setting", "settings"): AUTOPSY + "ingest.GenericIngestModuleJobSettings",
    ("_set_setting", "settings"): AUTOPSY + "ingest.GenericIngestModuleJobSettings",
}
# Methods of the module's subclasses of Autopsy classes that are its own, not overrides (what each is for).
OWN_METHODS = {
    "log",  # RooIngestModule.log: writes to its Autopsy Logger
}
# Autopsy values whose type is not one class (a module's own settings object may be of an older Python class).
AUTOPSY_RECEIVERS = {"settings", "module"}
# Python functions of roo_mapping that are handed a Sleuth Kit class and look names up on it by a computed name:
# (what they may look up, "any" = one of them must exist, "all" = each must), and what they give back.
DYNAMIC = {
    "timeline_event_type": ("TIMELINE_EVENT_TYPE_NAMES", "any", "instance"),
}
# getattr(X, name) with a computed name on a Sleuth Kit class, in the module itself: the names it can be given.
DYNAMIC_GETATTR = {
    TSK + "BlackboardAttribute.TSK_BLACKBOARD_ATTRIBUTE_VALUE_TYPE": ("VALUE_TYPES", "all"),
}
PY_TYPES = {"String", "string", "long", "int", "boolean", "double", "float", "void", "short", "byte", "char"}


def resolve(type_name, context=None):
    """A type named in the inventory (as written in the Java source) -> (fqn, element_of_collection) or None."""
    t = type_name.replace("? extends ", "")
    element = False
    m = re.match(r"^(?:List|Collection|Set|Optional)<(.+)>$", t)
    if m:
        t, element = m.group(1), True
    if t.endswith("[]"):
        t, element = t[:-2], True
    t = re.sub(r"<.*", "", t)
    candidates = [TSK + t]
    if context:
        parts = context.split(".")
        for i in range(len(parts), 3, -1):
            candidates.insert(0, ".".join(parts[:i]) + "." + t)
    for c in candidates:
        if c in ALL_CLASSES:
            return c, element
    return None


def lookup(fqn, name, version, seen=None):
    """The inventory entries of member `name` on class fqn (or a supertype) in one release; None: class absent.
    An Autopsy supertype stored at other commits than its subclass is searched at each of its own: the member must
    be in all of them."""
    cls = ALL_CLASSES.get(fqn)
    if cls is None or version not in cls["versions"]:
        return None
    found = [m for m in cls["members"].get(name, []) if version in m["versions"]]
    if found:
        return found
    seen = seen or set()
    seen.add(fqn)
    for s in cls["supertypes"]:
        if version not in s["versions"]:
            continue
        for t in s["types"]:
            r = resolve(t, fqn)
            if r and r[0] not in seen:
                if version in versions_for(r[0]):
                    more = lookup(r[0], name, version, seen)
                else:
                    each = [lookup(r[0], name, v, set(seen)) for v in versions_for(r[0])]
                    more = each[0] if all(each) else []
                if more:
                    return more
    return []


# JDK supertypes of the Autopsy classes, as their sources name them (the JDK is not inventoried): a member not
# declared in the Autopsy class may come from these. An Autopsy supertype that was not read gives no such leave.
JDK_SUPERTYPES = {
    "java.util.logging.Logger",  # of coreutils.Logger
    "JPanel",  # javax.swing.JPanel (imported), of ingest.IngestModuleIngestJobSettingsPanel
    "Exception",  # java.lang.Exception, of ingest.IngestModule.IngestModuleException
}


def jdk_supertypes(fqn, version, seen=None):
    """The JDK supertypes of Autopsy class fqn (and of its Autopsy supertypes)."""
    cls = AUTOPSY_CLASSES.get(fqn)
    if cls is None:
        return []
    seen = seen or set()
    seen.add(fqn)
    out = []
    for s in cls["supertypes"]:
        if version not in s["versions"]:
            continue
        for t in s["types"]:
            r = resolve(t, fqn)
            if r is None and t in JDK_SUPERTYPES:
                out.append(t)
            elif r is not None and r[0] not in seen:
                for v in versions_for(r[0]):
                    out += jdk_supertypes(r[0], v, seen)
    return out


class Value(object):
    """What an expression is: a Sleuth Kit class (static) or instance, an Autopsy/JDK thing, or plain Python."""

    def __init__(self, kind, fqn=None, element=False):
        self.kind = kind  # "class", "instance", "autopsy", "jdk", "python", "unknown"
        self.fqn = fqn
        self.element = element


PYTHON = Value("python")


class Use(object):
    def __init__(self, where, fqn, name, static, arity, text):
        self.where, self.fqn, self.name, self.static, self.arity, self.text = where, fqn, name, static, arity, text

    def problem(self, version):
        """None when this use is valid in the release (or, on a class not stored at it, in every version that
        class has), else why not."""
        if version not in versions_for(self.fqn):
            return next((p for p in (self.problem(v) for v in versions_for(self.fqn)) if p), None)
        entries = lookup(self.fqn, self.name, version)
        name = short(self.fqn)
        if entries is None:
            return "%s: class %s is not in %s" % (self.where, name, version)
        if not entries and self.fqn in AUTOPSY_CLASSES and jdk_supertypes(self.fqn, version):
            INHERITED_UNCHECKED.add("%s.%s (from %s?)" % (name, self.name, "/".join(
                jdk_supertypes(self.fqn, version))))
            return None
        if not entries:
            return "%s: %s.%s is not in %s (%s)" % (self.where, name, self.name, shown(version), self.text)
        if self.static and not any(e.get("static") or e["kind"].startswith("nested_") for e in entries):
            return "%s: %s.%s is not static in %s" % (self.where, name, self.name, shown(version))
        if self.arity is not None:
            arities = {len(e.get("params", [])) for e in entries if e["kind"] in ("method", "constructor")}
            if self.arity not in arities:
                return "%s: %s.%s takes %s arguments in %s, called with %d" % (
                    self.where, name, self.name, sorted(arities) or "no", shown(version), self.arity)
        return None


class Checker(ast.NodeVisitor):
    """Collects the module's uses of the Sleuth Kit API, grouped where it tries alternatives."""

    def __init__(self, path, mapping_constants):
        self.path = os.path.relpath(path, REPO)
        self.constants = mapping_constants
        self.imports = {}
        self.groups = []  # [(alternatives: [[Use]], where)]
        self.current = [[]]  # stack of use lists
        self.unknown = []
        self.autopsy = set()
        self.scopes = [{}]
        self.class_methods = set()
        self.class_bases = []
        self.self_attrs = {}

    # -- values ---------------------------------------------------------------------------------------------

    def where(self, node):
        return "%s:%d" % (self.path, node.lineno)

    def name_value(self, name):
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name in self.imports:
            return self.imports[name]
        return self.receiver(name) or PYTHON

    @staticmethod
    def receiver(name):
        """The value of a name (or self.attribute) the module gives its Java values, else None."""
        if name in RECEIVERS:
            return Value("instance", RECEIVERS[name])
        if name in AUTOPSY_RECEIVERS:
            return Value("autopsy", name)
        return None

    def value(self, node):
        if isinstance(node, ast.Name):
            return self.name_value(node.id)
        if isinstance(node, ast.Attribute):
            return self.attribute(node, None)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Subscript):
            base = self.value(node.value)
            self.value(node.slice)
            return Value("instance", base.fqn) if base.kind == "instance" and base.element else PYTHON
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return self.visit_comprehension_like(node)
        if isinstance(node, ast.Lambda):
            return self.value(node.body)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.value(child)
        return PYTHON

    def use(self, node, fqn, name, static, arity, text):
        self.current[-1].append(Use(self.where(node), fqn, name, static, arity, text))

    def member_value(self, fqn, name, static):
        """The value of fqn.name, from the newest release that has it."""
        for version in reversed(versions_for(fqn)):
            entries = lookup(fqn, name, version) or []
            for e in entries:
                if e["kind"].startswith("nested_"):
                    return Value("class", fqn + "." + name if fqn + "." + name in ALL_CLASSES else None)
                t = e.get("returns") or e.get("type")
                if t is None or t in PY_TYPES:
                    return PYTHON
                r = resolve(t, fqn)
                if r:
                    return Value("instance", r[0], r[1])
                return Value("jdk", t)
        return Value("unknown", fqn + "." + name)

    def attribute(self, node, arity):
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            key = "self." + node.attr
            if node.attr in self.class_methods:
                return PYTHON
            if key in self.self_attrs:
                return self.self_attrs[key]
            if self.receiver(key):
                return self.receiver(key)
            if self.class_bases and re.match(r"^[a-z]+[A-Z]", node.attr):
                return Value("autopsy", key)  # inherited from the Autopsy or Swing base class
            return PYTHON
        base = self.value(node.value)
        if base.kind == "class" and base.fqn:
            nested = base.fqn + "." + node.attr
            if arity is not None and nested in ALL_CLASSES:  # Outer.Nested(...): the nested class's constructor
                self.use(node, base.fqn, node.attr, True, None, ast.unparse(node))
                self.use(node, nested, "<init>", False, arity, ast.unparse(node))
                return Value("instance", nested)
            self.use(node, base.fqn, node.attr, True, arity, ast.unparse(node))
            return self.member_value(base.fqn, node.attr, True)
        if base.kind == "instance" and base.fqn and not base.element:
            self.use(node, base.fqn, node.attr, False, arity, ast.unparse(node))
            return self.member_value(base.fqn, node.attr, False)
        if base.kind == "autopsy":
            self.autopsy.add("%s.%s" % (base.fqn, node.attr))
            return Value("autopsy", "%s.%s()" % (base.fqn, node.attr))
        if base.kind == "jdk":
            return Value("jdk")
        if base.kind == "python" and re.match(r"^[a-z]+[A-Z]\w*$", node.attr):
            self.unknown.append("%s: %s: the Java type of %s is not known (name it in RECEIVERS)" % (
                self.where(node), ast.unparse(node), ast.unparse(node.value)))
        return PYTHON

    def call(self, node):
        for a in node.args:
            self.visit(a)
        for k in node.keywords:
            self.visit(k.value)
        func = node.func
        arity = len(node.args)
        if isinstance(func, ast.Name) and func.id in ("getattr", "hasattr") and len(node.args) >= 2:
            base = self.value(node.args[0])
            name = node.args[1]
            if isinstance(name, ast.Constant) and base.kind in ("class", "instance") and base.fqn:
                self.use(node, base.fqn, name.value, base.kind == "class", None, ast.unparse(node))
                return self.member_value(base.fqn, name.value, base.kind == "class")
            if base.kind == "class" and base.fqn in DYNAMIC_GETATTR:
                const, mode = DYNAMIC_GETATTR[base.fqn]
                self.dynamic(node, base.fqn, self.constants[const], mode)
                return Value("instance", base.fqn)
            if base.kind in ("class", "instance") and base.fqn:
                self.unknown.append("%s: %s looks up a computed name on %s: list it in DYNAMIC_GETATTR" % (
                    self.where(node), ast.unparse(node), base.fqn))
            return PYTHON
        if isinstance(func, ast.Name) and func.id == "isinstance":
            return PYTHON
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "roo_mapping":
            for a in node.args:
                v = self.value(a)
                if v.kind == "class" and v.fqn:
                    if func.attr not in DYNAMIC:
                        self.unknown.append("%s: roo_mapping.%s is handed %s: list it in DYNAMIC" % (
                            self.where(node), func.attr, v.fqn))
                        return PYTHON
                    const, mode, gives = DYNAMIC[func.attr]
                    self.dynamic(node, v.fqn, self.constants[const], mode)
                    return Value("instance", v.fqn)
            return PYTHON
        if isinstance(func, ast.Attribute):
            return self.attribute(func, arity)
        if isinstance(func, ast.Name):
            v = self.name_value(func.id)
            if v.kind == "class" and v.fqn:
                self.use(node, v.fqn, "<init>", False, arity, ast.unparse(node))
                return Value("instance", v.fqn)
            return v if v.kind in ("autopsy", "jdk") else PYTHON
        return self.value(func) if not isinstance(func, ast.Attribute) else PYTHON

    def dynamic(self, node, fqn, names, mode):
        uses = [Use(self.where(node), fqn, n, True, None, "%s (from %s)" % (n, ast.unparse(node))) for n in names]
        if mode == "all":
            self.current[-1].extend(uses)
        else:
            self.groups.append(([[u] for u in uses], self.where(node)))

    # -- statements -----------------------------------------------------------------------------------------

    def visit_ImportFrom(self, node):
        module = node.module or ""
        for a in node.names:
            local = a.asname or a.name
            if module == PACKAGE:
                self.imports[local] = Value("class", TSK + a.name)
            elif module + "." + a.name in AUTOPSY_CLASSES:
                self.imports[local] = Value("class", module + "." + a.name)
            elif module.startswith("org.sleuthkit.autopsy"):
                self.unknown.append("%s: %s.%s is not in the Autopsy inventory" % (self.where(node), module, a.name))
            elif module.startswith("java") or module.startswith("javax"):
                self.imports[local] = Value("jdk", a.name)

    def visit_ClassDef(self, node):
        bases = [self.value(b) for b in node.bases]
        saved = (self.class_methods, self.class_bases, self.self_attrs)
        self.class_methods = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
        self.class_bases = [b for b in bases if b.kind in ("autopsy", "class")]
        self.self_attrs = {}
        for b in bases:
            if b.kind == "class" and b.fqn in AUTOPSY_CLASSES:
                # a method that Autopsy calls on the subclass must override one the base class has, with its arity
                for f in node.body:
                    if isinstance(f, ast.FunctionDef) and not f.name.startswith("_") and f.name not in OWN_METHODS:
                        self.use(f, b.fqn, f.name, False, len(f.args.args) - 1, "def %s" % f.name)
            elif b.kind == "class" and b.fqn:
                self.unknown.append("%s: subclass of %s: not checked" % (self.where(node), b.fqn))
        self.generic_visit(node)
        self.class_methods, self.class_bases, self.self_attrs = saved

    def visit_FunctionDef(self, node):
        self.scopes.append({a.arg: Value("instance", FUNCTION_RECEIVERS[(node.name, a.arg)])
                            for a in node.args.args if (node.name, a.arg) in FUNCTION_RECEIVERS})
        for stmt in node.body:
            self.visit(stmt)
        self.scopes.pop()

    def bind(self, target, value):
        if isinstance(target, ast.Name):
            if value.kind == "python":  # what a Python helper returns: the name's type comes from RECEIVERS
                self.scopes[-1].pop(target.id, None)
            else:
                self.scopes[-1][target.id] = value
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
            if value.kind != "python":
                self.self_attrs["self." + target.attr] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                self.bind(t, PYTHON)

    def visit_Assign(self, node):
        v = self.value(node.value)
        for t in node.targets:
            self.bind(t, v)

    def visit_Expr(self, node):
        self.value(node.value)

    def visit_Return(self, node):
        if node.value is not None:
            self.value(node.value)

    def loop_element(self, iter_node):
        v = self.value(iter_node)
        if v.kind == "instance" and v.element:
            return Value("instance", v.fqn)
        return PYTHON

    def visit_For(self, node):
        self.bind(node.target, self.loop_element(node.iter))
        for s in node.body + node.orelse:
            self.visit(s)

    def visit_comprehension_like(self, node):
        self.scopes.append({})
        for gen in node.generators:
            self.bind(gen.target, self.loop_element(gen.iter))
            for cond in gen.ifs:
                self.value(cond)
        if isinstance(node, ast.DictComp):
            self.value(node.key)
            self.value(node.value)
            result = PYTHON
        else:
            v = self.value(node.elt)
            result = Value("instance", v.fqn, True) if v.kind == "instance" and not v.element else PYTHON
        self.scopes.pop()
        return result

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = visit_comprehension_like

    def generic_visit(self, node):
        if isinstance(node, ast.expr):
            self.value(node)
            return
        super().generic_visit(node)

    def block(self, stmts):
        self.current.append([])
        self.scopes.append(dict(self.scopes[-1]))
        for s in stmts:
            self.visit(s)
        narrowed = self.scopes.pop()
        uses = self.current.pop()
        return uses, narrowed

    def isinstance_test(self, test):
        """(name, class value, negated) for `isinstance(name, Cls)` / `not isinstance(...)`, else None."""
        negated = False
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, negated = test.operand, True
        if (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
                and isinstance(test.args[0], ast.Name)):
            v = self.value(test.args[1])
            if v.kind == "class":
                return test.args[0].id, v, negated
        return None

    def visit_If(self, node):
        test, rest = node.test, []
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):  # isinstance(x, C) and x.f(): narrowed
            test, rest = test.values[0], test.values[1:]
        narrow = self.isinstance_test(test)
        probe = None
        if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "hasattr" and not rest:
            probe = test
        else:
            self.value(test)
        if narrow and not narrow[2]:
            self.scopes.append({narrow[0]: Value("instance", narrow[1].fqn)})
        for value in rest:
            self.value(value)
        body_uses, _ = self.block(node.body)
        if narrow and not narrow[2]:
            self.scopes.pop()
        else_uses, _ = self.block(node.orelse)
        if probe is not None:
            self.current.append([])
            self.value(probe)
            probe_uses = self.current.pop()
            self.groups.append(([probe_uses + body_uses, else_uses], self.where(node)))
        else:
            self.current[-1].extend(body_uses + else_uses)
        if narrow and narrow[2] and node.body and isinstance(node.body[-1], (ast.Return, ast.Raise)):
            self.scopes[-1][narrow[0]] = Value("instance", narrow[1].fqn)  # after `if not isinstance: return`

    def visit_Try(self, node):
        catches = set()
        for h in node.handlers:
            names = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
            catches.update(getattr(n, "id", None) for n in names)
        body_uses, _ = self.block(node.body)
        handler_uses = []
        for h in node.handlers:
            uses, _ = self.block(h.body)
            handler_uses += uses
        rest_uses, _ = self.block(node.orelse + node.finalbody)
        if catches & {"AttributeError", "TypeError"}:
            self.groups.append(([body_uses, handler_uses], self.where(node)))
        else:
            self.current[-1].extend(body_uses + handler_uses)
        self.current[-1].extend(rest_uses)

    visit_TryExcept = visit_Try

    def visit_With(self, node):
        for item in node.items:
            v = self.value(item.context_expr)
            if item.optional_vars is not None:
                self.bind(item.optional_vars, PYTHON if v.kind != "instance" else v)
        for s in node.body:
            self.visit(s)

    # -- results --------------------------------------------------------------------------------------------

    def problems(self):
        out = []
        for u in self.current[0]:
            for v in versions_for(u.fqn):
                p = u.problem(v)
                if p:
                    out.append(p)
        for alternatives, where in self.groups:
            versions = sorted({v for alt in alternatives for u in alt for v in versions_for(u.fqn)},
                              key=lambda v: (v not in VERSIONS, VERSIONS.index(v) if v in VERSIONS else v))
            for v in versions:
                if any(all(u.problem(v) is None for u in alt) for alt in alternatives):  # an empty one: no Java
                    continue
                why = [u.problem(v) for alt in alternatives for u in alt if u.problem(v)]
                out.append("%s: no alternative works in %s: %s" % (where, shown(v), "; ".join(why)))
        return out + self.unknown

    def all_uses(self):
        uses = list(self.current[0])
        for alternatives, _ in self.groups:
            for alt in alternatives:
                uses += alt
        return uses


def mapping_constants():
    sys.path.insert(0, FOLDER)
    import roo_mapping
    return {k: getattr(roo_mapping, k) for k in dir(roo_mapping) if k.isupper()}


def check_source(text, path="plugin/autopsy/roo_ingest_module.py"):
    checker = Checker(os.path.join(REPO, path), mapping_constants())
    checker.visit(ast.parse(text, path))
    return checker


# autopsy_fakes.py stand-in class -> the Sleuth Kit class it stands for (and the releases it claims).
FAKE_OF = {
    "Blackboard": ("Blackboard", None),
    "SleuthkitCase": ("SleuthkitCase", None),
    "Transaction": ("SleuthkitCase.CaseDbTransaction", None),
    "BlackboardArtifact": ("BlackboardArtifact", None),
    "ARTIFACT_TYPE": ("BlackboardArtifact.ARTIFACT_TYPE", None),
    "ArtifactType": ("BlackboardArtifact.Type", None),
    "Category": ("BlackboardArtifact.Category", None),
    "BlackboardAttribute": ("BlackboardAttribute", None),
    "ATTRIBUTE_TYPE": ("BlackboardAttribute.ATTRIBUTE_TYPE", None),
    "AttributeType": ("BlackboardAttribute.Type", None),
    "TSK_BLACKBOARD_ATTRIBUTE_VALUE_TYPE": ("BlackboardAttribute.TSK_BLACKBOARD_ATTRIBUTE_VALUE_TYPE", None),
    "ValueType": ("BlackboardAttribute.TSK_BLACKBOARD_ATTRIBUTE_VALUE_TYPE", None),
    "TimelineEventType": ("TimelineEventType", ["sleuthkit-4.11.1", "sleuthkit-4.12.0", "sleuthkit-4.12.1",
                                                "sleuthkit-4.13.0"]),
    "TimelineEventTypeBefore4_11_1": ("TimelineEventType", ["sleuthkit-4.11.0"]),
    "TimelineEventTypeImpl": ("TimelineEventType", None),
    "Image": ("Image", None),
    "LocalFilesDataSource": ("LocalFilesDataSource", None),
    "LocalDirectory": ("LocalDirectory", None),
    "LocalFile": ("LocalFile", None),
    "Artifact": ("DataArtifact", None),
    "AbstractFile": ("AbstractFile", None),
    "FileTypeEnum": ("TskData.TSK_FS_ATTR_TYPE_ENUM", None),
    "TskCoreException": ("TskCoreException", None),
    # Autopsy's classes: checked at their stored commits (a stand-in for one of two versions names it)
    "Case": (AUTOPSY + "casemodule.Case", None),
    "Logger": (AUTOPSY + "coreutils.Logger", None),
    "IngestMessage": (AUTOPSY + "ingest.IngestMessage", None),
    "MessageType": (AUTOPSY + "ingest.IngestMessage.MessageType", None),
    "IngestServices": (AUTOPSY + "ingest.IngestServices", None),
    "IngestModule": (AUTOPSY + "ingest.IngestModule", None),
    "ProcessResult": (AUTOPSY + "ingest.IngestModule.ProcessResult", None),
    "IngestModuleException": (AUTOPSY + "ingest.IngestModule.IngestModuleException", None),
    "GenericIngestModuleJobSettings": (AUTOPSY + "ingest.GenericIngestModuleJobSettings",
                                       ["058473bd9df937ba44fd4b77c88c9e78078ff04b"]),  # the getSettings version
    "IngestModuleIngestJobSettingsPanel": (AUTOPSY + "ingest.IngestModuleIngestJobSettingsPanel", None),
    "Context": (AUTOPSY + "ingest.IngestJobContext", None),
    "ProgressBar": (AUTOPSY + "ingest.DataSourceIngestModuleProgress", None),
}
# Stand-ins whose constructor the module calls (the others are made by the tests' set-up).
CONSTRUCTED = {"BlackboardAttribute", "GenericIngestModuleJobSettings"}
# Names a stand-in has for the tests' own use, not part of the Java API (what each is for).
FAKE_ONLY = {
    "Artifact": {"attribute"},  # reads an attribute's value back, for the tests' assertions
    "GenericIngestModuleJobSettings": {"serialised", "deserialised"},  # Java serialisation's round trip
    "Case": {"current"},  # the case the tests' set-up opens
}
# Names a stand-in has that one stored version of its class lacks because that version is older than the API the
# stand-in models: name -> the versions it is not checked at (why each is known to exist).
NEWER_THAN_STORED = {
    # Case.java at a15987a8 (older than every supported release, README.md) has getOpenCase, renamed
    # getCurrentCaseThrows later; the 2021 versions (681d208e, and wisdark's fde03562) have getCurrentCaseThrows
    "Case": {"getCurrentCaseThrows": {"a15987a855e2c01f2415bb0e762a2819a285da7d"}},
}


def python_arity(func):
    """(min, max) positional arguments of a stand-in method, self not counted."""
    sig = inspect.signature(func)
    params = [p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if params and params[0].name in ("self", "cls"):
        params = params[1:]
    if any(p.kind == p.VAR_POSITIONAL for p in sig.parameters.values()):
        return len([p for p in params if p.default is p.empty]), 99
    return len([p for p in params if p.default is p.empty]), len(params)


def fake_problems(fakes):
    out = []
    for fake_name, (java, claimed) in sorted(FAKE_OF.items()):
        cls = getattr(fakes, fake_name, None)
        if cls is None:
            continue
        fqn = java if java.startswith(AUTOPSY) else TSK + java
        versions = claimed or versions_for(fqn)
        for name, member in sorted(vars(cls).items()):
            if name.startswith("_") and name != "__init__":
                continue
            if name in FAKE_ONLY.get(fake_name, ()):
                continue
            java_name = "<init>" if name == "__init__" else name
            if java_name == "<init>" and fake_name not in CONSTRUCTED:
                continue  # made by the tests' set-up, as the real ones are made by the case database
            for v in versions:
                if v in NEWER_THAN_STORED.get(fake_name, {}).get(name, ()):
                    continue
                entries = lookup(fqn, java_name, v)
                where = "autopsy_fakes.%s.%s" % (fake_name, name)
                if not entries and fqn in AUTOPSY_CLASSES and jdk_supertypes(fqn, v):
                    continue  # may be the JDK supertype's (JDK_SUPERTYPES)
                if not entries:
                    out.append("%s: %s has no %s in %s" % (where, short(fqn), java_name, shown(v)))
                    continue
                func = member.__func__ if isinstance(member, staticmethod) else member
                if inspect.isfunction(func):
                    lo, hi = python_arity(func)
                    if all(e["kind"].startswith("nested_") for e in entries):  # Outer.Nested(...)
                        entries = lookup(fqn + "." + name, "<init>", v) or []
                        member = None
                    arities = {len(e.get("params", [])) for e in entries if e["kind"] in ("method", "constructor")}
                    if not any(lo <= a <= hi for a in arities):
                        out.append("%s: takes %d..%d arguments; %s.%s takes %s in %s" % (
                            where, lo, hi, short(fqn), java_name, sorted(arities), shown(v)))
                    static = isinstance(member, staticmethod)
                    if member is not None and static != any(e.get("static") for e in entries) and \
                            java_name != "<init>":
                        out.append("%s: static-ness differs from %s.%s in %s" % (
                            where, short(fqn), java_name, shown(v)))
    return out


class ModuleUsesTheRealApi(unittest.TestCase):
    def test_inventory_covers_the_supported_releases(self):
        self.assertEqual(VERSIONS, ["sleuthkit-4.11.0", "sleuthkit-4.11.1", "sleuthkit-4.12.0", "sleuthkit-4.12.1",
                                    "sleuthkit-4.13.0"])
        # a fact of the sources to anchor the inventory: id 23's name changed at 4.11.1 (TimelineEventType.java)
        tl = CLASSES[TSK + "TimelineEventType"]["members"]
        self.assertEqual([m["versions"] for m in tl["OTHER"]], [["sleuthkit-4.11.0"]])
        self.assertEqual([m["versions"] for m in tl["STANDARD_ARTIFACT_CATCH_ALL"]], [VERSIONS[1:]])

    def test_module_calls_only_what_every_release_has(self):
        for path in MODULE_FILES:
            with open(path, encoding="utf-8") as f:
                checker = check_source(f.read(), os.path.relpath(path, REPO))
            self.assertEqual(checker.problems(), [])
            used = {(short(u.fqn), u.name) for u in checker.all_uses() if u.fqn.startswith(TSK)}
            autopsy = {(short(u.fqn), u.name) for u in checker.all_uses() if u.fqn.startswith(AUTOPSY)}
            # the walk saw the module's Autopsy calls and overrides
            for expected in [("casemodule.Case", "getSleuthkitCase"), ("casemodule.Case", "getCurrentCase"),
                             ("ingest.IngestMessage", "createMessage"), ("ingest.IngestServices", "getInstance"),
                             ("ingest.IngestJobContext", "dataSourceIngestIsCancelled"),
                             ("ingest.DataSourceIngestModuleProgress", "progress"),
                             ("ingest.GenericIngestModuleJobSettings", "getSettings"),
                             ("ingest.DataSourceIngestModule", "process"), ("ingest.DataSourceIngestModule", "startUp"),
                             ("ingest.IngestModuleFactoryAdapter", "createDataSourceIngestModule")]:
                self.assertIn(expected, autopsy)
            # and what it takes from the case database through them: Case.getSleuthkitCase() is a SleuthkitCase
            self.assertIn(("SleuthkitCase", "getBlackboard"), used)
            # the only Autopsy use let through unchecked: Logger.log, which the JDK's Logger declares
            self.assertEqual(sorted(INHERITED_UNCHECKED), ["coreutils.Logger.log (from java.util.logging.Logger?)"])
            # the walk saw the module's Sleuth Kit calls (a walk that saw nothing would pass too)
            for expected in [("Blackboard", "newDataArtifact"), ("Blackboard", "postArtifacts"),
                             ("SleuthkitCase", "findAllFilesWhere"), ("Image", "getPaths"),
                             ("BlackboardAttribute", "<init>"), ("TimelineEventType", "STANDARD_ARTIFACT_CATCH_ALL"),
                             ("TimelineEventType", "OTHER"), ("AbstractFile", "getMetaAddr")]:
                self.assertIn(expected, used)
            print("\nSleuth Kit members used (%d): %s" % (len(used), ", ".join(
                "%s.%s" % u for u in sorted(used))), file=sys.stderr)
            print("Autopsy members used, checked against the stored commits (%d): %s" % (len(autopsy), ", ".join(
                "%s.%s" % u for u in sorted(autopsy))), file=sys.stderr)
            print("Autopsy members not checked: inherited from a class not inventoried (%d): %s; of an Autopsy value "
                  "of no one type (%d): %s" % (len(INHERITED_UNCHECKED), ", ".join(sorted(INHERITED_UNCHECKED)),
                                               len(checker.autopsy), ", ".join(sorted(checker.autopsy))),
                  file=sys.stderr)

    def test_a_missing_name_fails_with_its_call_site(self):
        with open(MODULE_FILES[0], encoding="utf-8") as f:
            text = f.read()
        bad = text + "\n\ndef _uses_other():\n    return TimelineEventType.OTHER.getTypeID()\n"
        line = bad.count("\n", 0, bad.index("TimelineEventType.OTHER")) + 1
        problems = check_source(bad).problems()
        self.assertEqual(problems, [
            "plugin/autopsy/roo_ingest_module.py:%d: TimelineEventType.OTHER is not in %s "
            "(TimelineEventType.OTHER)" % (line, v) for v in VERSIONS[1:]])
        # an arity no release has, a static call of an instance method, and a Java value of unknown type
        problems = check_source(text + "\nfrom org.sleuthkit.datamodel import SleuthkitCase\n"
                                "\n\ndef _bad(blackboard, thing):\n"
                                "    blackboard.postArtifacts(1, 2, 3, 4)\n"
                                "    SleuthkitCase.getBlackboard()\n"
                                "    thing.getPaths()\n").problems()
        self.assertTrue(any("Blackboard.postArtifacts takes [2, 3] arguments in sleuthkit-4.12.0, called with 4"
                            in p for p in problems), problems)
        self.assertTrue(any("SleuthkitCase.getBlackboard is not static" in p for p in problems), problems)
        self.assertTrue(any("thing.getPaths: the Java type of thing is not known" in p for p in problems),
                        problems)
        # a fallback that is whole in no release fails; one that is whole in each passes
        problems = check_source(text + "\n\ndef _fallback(blackboard, b):\n"
                                "    try:\n        blackboard.postArtifacts(b, 'm', 7)\n"
                                "    except TypeError:\n        blackboard.postArtifact(b, 'm', 7)\n").problems()
        self.assertTrue(any("no alternative works in sleuthkit-4.11.0" in p for p in problems), problems)
        self.assertFalse(any("in sleuthkit-4.12.0" in p for p in problems), problems)
        self.assertEqual(check_source(text + "\n\ndef _fallback(blackboard, b):\n"
                                      "    try:\n        blackboard.postArtifacts(b, 'm', 7)\n"
                                      "    except TypeError:\n        blackboard.postArtifacts(b, 'm')\n"
                                      ).problems(), [])

    def test_a_missing_autopsy_name_fails_with_its_call_site(self):
        with open(MODULE_FILES[0], encoding="utf-8") as f:
            text = f.read()
        bad = text.replace("IngestServices.getInstance().postMessage(message)",
                           "IngestServices.getInstance().postMesage(message)")
        self.assertNotEqual(bad, text)
        line = bad.count("\n", 0, bad.index("postMesage")) + 1
        self.assertEqual(check_source(bad).problems(), [
            "plugin/autopsy/roo_ingest_module.py:%d: ingest.IngestServices.postMesage is not in %s "
            "(IngestServices.getInstance().postMesage)" % (line, v) for v in [
                "c51004727ef45e1ef1eeddaff7737c724e2db34f (its Core ships the Sleuth Kit of Autopsy 4.19.2, 4.19.3)",
                "cd6b24075d3fa6cd26f236bded15323c7d3a109d"]])
        # an override Autopsy's base class does not have, a wrong arity, and a settings fallback that one stored
        # version of GenericIngestModuleJobSettings has neither branch of
        problems = check_source(text + "\n\nclass _Module(DataSourceIngestModule):\n"
                                "    def startup(self, context):\n        pass\n\n"
                                "    def process(self, dataSource):\n        pass\n\n\n"
                                "def _set_setting(settings, key, value):\n"
                                "    if hasattr(settings, 'setSettings'):\n        settings.setSettings(key, value)\n"
                                "    else:\n        settings.putSetting(key, value)\n").problems()
        self.assertTrue(any("ingest.DataSourceIngestModule.startup is not in" in p for p in problems), problems)
        self.assertTrue(any("ingest.DataSourceIngestModule.process takes [2] arguments in "
                            "e6fdebff6eb5bdfc835c85ed64ad47257c3b4e11, called with 1" in p for p in problems), problems)
        self.assertTrue(any("no alternative works in 46ce69ff8fff55e91d290c603bab98b965a69593" in p
                            for p in problems), problems)
        self.assertFalse(any("no alternative works in 058473bd" in p for p in problems), problems)


class AutopsyReleaseLines(unittest.TestCase):
    """Which supported Autopsy releases the stored Autopsy versions stand for (README.md: how each was read)."""

    # Written by hand from the reads README.md records: each stored commit whose own Core/nbproject/project.properties
    # is stored, the Sleuth Kit jar it names, and so the releases of RELEASES that ship that jar.
    EXPECTED = {
        "4.19.0": {}, "4.19.1": {}, "4.20.0": {}, "4.22.0": {},
        "4.19.2": {"casemodule.Case": ["681d208ee19340d428743a5db24147645f03bb38"],
                   "ingest.DataSourceIngestModuleProgress": ["681d208ee19340d428743a5db24147645f03bb38"],
                   "ingest.IngestModule": ["c51004727ef45e1ef1eeddaff7737c724e2db34f"],
                   "ingest.IngestServices": ["c51004727ef45e1ef1eeddaff7737c724e2db34f"]},
        "4.21.0": {"casemodule.Case": ["fde03562949a41b1a45e0b457102b2bcf0108d3e"]},
    }
    EXPECTED["4.19.3"] = EXPECTED["4.19.2"]

    def test_each_release_has_the_versions_its_sleuthkit_line_holds(self):
        lines = {r["autopsy"]: {short(k): v for k, v in r["same_sleuthkit"].items()}
                 for r in INVENTORY["autopsy"]["releases"]}
        self.assertEqual(lines, self.EXPECTED)
        # a file's line is the Sleuth Kit releases table's pairing for the jar its commit's Core ships
        pairing = {r["sleuthkit"]: r["autopsy"] for r in INVENTORY["releases"]}
        for f in INVENTORY["autopsy"]["files"]:
            self.assertEqual(f["same_sleuthkit_as"], pairing.get(f["core_sleuthkit"], []), f["path"])

    def test_module_holds_on_each_release_line(self):
        with open(MODULE_FILES[0], encoding="utf-8") as f:
            checker = check_source(f.read())
        report = []
        for release, classes in sorted(self.EXPECTED.items()):
            checked = []
            for name, commits in sorted(classes.items()):
                uses = [u for u in checker.all_uses() if u.fqn == AUTOPSY + name]
                self.assertTrue(uses, name)  # the module uses each class placed on a line: the check is not empty
                for commit in commits:
                    self.assertEqual([u.problem(commit) for u in uses if u.problem(commit)], [])
                checked.append("%s (%d uses, %s)" % (name, len(uses), ", ".join(c[:8] for c in commits)))
            report.append("Autopsy %s: %s" % (release, "; ".join(checked) or "no stored Autopsy version"))
        print("\n" + "\n".join(report), file=sys.stderr)

    def test_a_name_missing_on_a_release_line_names_the_releases(self):
        with open(MODULE_FILES[0], encoding="utf-8") as f:
            text = f.read()
        bad = text.replace("case.getModuleDirectory()", "case.getModuleDir()")
        self.assertNotEqual(bad, text)
        line = bad.count("\n", 0, bad.index("case.getModuleDir()")) + 1
        self.assertEqual(check_source(bad).problems(), [
            "plugin/autopsy/roo_ingest_module.py:%d: casemodule.Case.getModuleDir is not in %s (case.getModuleDir)"
            % (line, v) for v in [
                "681d208ee19340d428743a5db24147645f03bb38 (its Core ships the Sleuth Kit of Autopsy 4.19.2, 4.19.3)",
                "a15987a855e2c01f2415bb0e762a2819a285da7d",
                "fde03562949a41b1a45e0b457102b2bcf0108d3e (its Core ships the Sleuth Kit of Autopsy 4.21.0)"]])


class StandInsMatchTheApi(unittest.TestCase):
    def test_stand_ins_define_only_inventory_names(self):
        sys.path.insert(0, HERE)
        import autopsy_fakes
        self.assertEqual(fake_problems(autopsy_fakes), [])

    def test_a_stand_in_name_the_api_lacks_fails(self):
        sys.path.insert(0, HERE)
        import autopsy_fakes

        class Fakes(object):
            class TimelineEventType(object):
                OTHER = 1  # what the stand-ins had when they drifted
                STANDARD_ARTIFACT_CATCH_ALL = 2

            class Blackboard(object):
                def postArtifacts(self, artifacts):
                    pass
        problems = fake_problems(Fakes)
        self.assertEqual(sorted(problems), sorted(
            ["autopsy_fakes.TimelineEventType.OTHER: TimelineEventType has no OTHER in %s" % v
             for v in VERSIONS[1:]] +
            ["autopsy_fakes.Blackboard.postArtifacts: takes 1..1 arguments; Blackboard.postArtifacts takes %s in %s"
             % ([2] if v < "sleuthkit-4.12.0" else [2, 3], v) for v in VERSIONS]))
        self.assertTrue(hasattr(autopsy_fakes, "Blackboard"))

    def test_an_autopsy_stand_in_name_the_api_lacks_fails(self):
        class Fakes(object):
            class Context(object):
                def isCancelled(self):  # noqa: N802
                    return False

            class ProgressBar(object):
                def progress(self, a, b, c):
                    pass
        self.assertEqual(sorted(fake_problems(Fakes)), [
            "autopsy_fakes.Context.isCancelled: ingest.IngestJobContext has no isCancelled in "
            "8ba67bd5cacc63aaac213ad41a0c1d6a5a8bddb8",
            "autopsy_fakes.ProgressBar.progress: takes 3..3 arguments; ingest.DataSourceIngestModuleProgress.progress "
            "takes [1, 2] in 681d208ee19340d428743a5db24147645f03bb38 (its Core ships the Sleuth Kit of Autopsy "
            "4.19.2, 4.19.3)"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
