#!/usr/bin/env python3
"""The Autopsy module's files are Python that both Jython 2.7 (Autopsy) and CPython 3 (the tests) accept.

- py_compile under this CPython 3;
- lib2to3's Python 2 grammar parses them (lib2to3 is deprecated but still in Debian bookworm's Python 3.11; the
  check is skipped where it is gone); its grammar also accepts much Python 3 syntax, so
- an AST walk rejects what Python 2.7 lacks: f-strings, annotations, keyword-only arguments, nonlocal, async,
  `yield from`, `raise … from`, the walrus, star-unpacking in literals and calls beyond one, matrix multiply;
- every file starts with the __future__ imports that make Python 2 behave like 3 (division, print_function,
  unicode_literals, absolute_import), and roo_mapping.py imports nothing from Java.
The real Python 2.7 check is test_jython.py, which runs both files under Jython 2.7 when it is installed.

usage: test_syntax.py [unittest args] --repo PATH
"""
import ast
import os
import py_compile
import sys
import tempfile
import unittest
import warnings

import common  # noqa: E402

REPO = common.parse_repo_args()
FOLDER = os.path.join(REPO, "plugin", "autopsy")
HERE = os.path.dirname(os.path.abspath(__file__))
# the module's files, and the test files that run under Jython too
FILES = [os.path.join(FOLDER, f) for f in sorted(os.listdir(FOLDER)) if f.endswith(".py")] + [
    os.path.join(HERE, "autopsy_fakes.py"), os.path.join(HERE, "jython_driver.py")]
FUTURE = {"absolute_import", "division", "print_function", "unicode_literals"}


def py3_only(tree):
    """(line, what) for each construct Python 2.7 cannot parse."""
    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.JoinedStr):
            found.append((line, "f-string"))
        elif isinstance(node, ast.AnnAssign):
            found.append((line, "variable annotation"))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = node.args
            if a.kwonlyargs or a.posonlyargs:
                found.append((line, "keyword-only or positional-only arguments"))
            if any(x.annotation is not None for x in a.args + a.kwonlyargs) or getattr(node, "returns", None):
                found.append((line, "annotation"))
            if isinstance(node, ast.AsyncFunctionDef):
                found.append((line, "async def"))
        elif isinstance(node, (ast.Nonlocal, ast.Await, ast.AsyncFor, ast.AsyncWith, ast.YieldFrom,
                               ast.NamedExpr, ast.MatMult)):
            found.append((line, type(node).__name__))
        elif isinstance(node, ast.Raise) and node.cause is not None:
            found.append((line, "raise … from"))
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)) and any(isinstance(e, ast.Starred) for e in node.elts):
            if not isinstance(getattr(node, "ctx", None), ast.Store):
                found.append((line, "star-unpacking in a literal"))
        elif isinstance(node, ast.Dict) and any(k is None for k in node.keys):
            found.append((line, "** in a dict literal"))
        elif isinstance(node, ast.Call):
            if sum(isinstance(a, ast.Starred) for a in node.args) > 1 or sum(
                    k.arg is None for k in node.keywords) > 1:
                found.append((line, "more than one * or ** in a call"))
            starred = [i for i, a in enumerate(node.args) if isinstance(a, ast.Starred)]
            if starred and starred[0] != len(node.args) - 1:
                found.append((line, "positional argument after *args"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, bytes) and any(b > 127 for b in node.value):
            found.append((line, "non-ASCII bytes literal"))
    return found


class Syntax(unittest.TestCase):
    def test_files_present(self):
        names = {os.path.basename(f) for f in FILES}
        self.assertTrue({"roo_ingest_module.py", "roo_mapping.py"} <= names, names)

    def test_py_compile(self):
        with tempfile.TemporaryDirectory() as tmp:
            for f in FILES:
                py_compile.compile(f, cfile=os.path.join(tmp, os.path.basename(f) + "c"), doraise=True)

    def test_python2_grammar(self):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                from lib2to3 import pygram, pytree
                from lib2to3.pgen2 import driver
        except ImportError:
            self.skipTest("lib2to3 is not in this Python")
        # the print statement grammar: Python 2 without `from __future__ import print_function`
        d = driver.Driver(pygram.python_grammar, convert=pytree.convert)
        for f in FILES:
            with open(f, encoding="utf-8") as fh:
                d.parse_string(fh.read() + "\n")

    def test_no_python3_only_syntax(self):
        for f in FILES:
            with open(f, encoding="utf-8") as fh:
                tree = ast.parse(fh.read(), f)
            self.assertEqual(py3_only(tree), [], f)

    def test_the_checker_catches_python3_syntax(self):
        for bad in ('x = f"{1}"', "def f(a, *, b): pass", "def f(a: int): pass", "x: int = 1",
                    "def f():\n    nonlocal x", "raise E from e", "print(*a, *b)", "x = [*a]",
                    "def f():\n    yield from g()", "if (n := 1): pass", "x = {**a}"):
            self.assertTrue(py3_only(ast.parse(bad)), bad)
        self.assertEqual(py3_only(ast.parse("a, *b = c\nf(x, *args, **kw)")), [])

    def test_future_imports_and_no_java_in_the_mapping(self):
        for f in FILES:
            with open(f, encoding="utf-8") as fh:
                tree = ast.parse(fh.read(), f)
            futures = {a.name for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "__future__"
                       for a in n.names}
            self.assertEqual(futures, FUTURE, f)
        with open(os.path.join(FOLDER, "roo_mapping.py"), encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        modules = set()
        for n in ast.walk(tree):
            if isinstance(n, ast.Import):
                modules.update(a.name.split(".")[0] for a in n.names)
            elif isinstance(n, ast.ImportFrom):
                modules.add((n.module or "").split(".")[0])
        self.assertEqual(modules, {"__future__", "json", "os", "collections"})


if __name__ == "__main__":
    unittest.main(verbosity=2)
