"""Mutation testing of a rendered project: do its own tests catch bugs in gpu/, kernels/, doctor/?

``nox -s mutation`` renders the template (the default answers, then every GPU library), installs
each project with its ``test`` group, and runs this tool over the generated ``gpu``, ``kernels``
and ``doctor`` modules. A *mutant* is a copy of one module with one small bug: an operator
swapped, a constant changed, a ``not`` or a statement removed, a return value replaced by
``None``. The project's CPU test suite runs against each mutant; a failing (or hanging) suite
*kills* it, a green one lets it *survive*. Two kinds are set aside before anything runs:

- *wording*: a string inside an exception, warning, log call or assertion message, or passed
  to a parameter that only builds one; it changes what the user reads, not what the code does;
- *unreachable*: the mutant sits in code that only a GPU runs (code that imports a CUDA library
  named in the project's ``gpu/_project.py``, or a ``@gpu_dispatch`` GPU implementation), and this
  is proved, not assumed: a probe that records being reached and raises ``AssertionError`` is
  inserted there, and the CPU suite stays green without any probe being reached.

The score is ``killed / (killed + survived)``. The tool is a plain ``ast`` mutator: it mutates
Numba-compiled loops like any other function (they compile from the mutated source), needs
no configuration in the rendered project, and explains every mutant in its report.

Speed comes from two things. A coverage run of the suite, one context per test, tells which
tests execute each line; a mutant runs only those tests (with ``-x``, fastest first), plus the
tests that start Python processes. A runner process in the project's environment imports pytest,
NumPy, Numba and Hypothesis once and forks a child per mutant, so no run pays for those
imports. Two runners work side by side, each in its own copy of the project.

Entry points: ``python tools/mutation.py run [--quick] [--render NAME]`` (what the session runs)
and ``python tools/mutation.py serve`` (a runner; started by ``run`` with the project's Python).
Only the standard library is imported at module level, so a runner needs nothing of this
repository's tooling.
"""

from __future__ import annotations

import argparse
import ast
import bisect
import contextlib
import fnmatch
import hashlib
import importlib
import json
import os
import queue
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

ROOT = Path(__file__).resolve().parents[1]
TARGET_PACKAGES = ("gpu", "kernels", "doctor")
QUICK_FRACTION = 0.1
DEFAULT_OUT = ROOT / "build" / "mutation"

Scope = Literal["body", "signature", "import"]
Node = ast.expr | ast.stmt


# --- source positions --------------------------------------------------------------------------


class Source:
    """A module's text, with AST positions (1-based lines, UTF-8 byte columns) as str offsets."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.split("\n")
        self.starts: list[int] = []
        offset = 0
        for line in self.lines:
            self.starts.append(offset)
            offset += len(line) + 1

    def offset(self, lineno: int, col: int) -> int:
        """The str offset of a byte column on a line (columns count UTF-8 bytes)."""
        line = self.lines[lineno - 1]
        return self.starts[lineno - 1] + len(line.encode()[:col].decode(errors="replace"))

    def start(self, node: Node) -> int:
        """Where ``node`` begins."""
        return self.offset(node.lineno, node.col_offset)

    def end(self, node: Node) -> int:
        """Where ``node`` ends (exclusive)."""
        return self.offset(node.end_lineno or node.lineno, node.end_col_offset or 0)

    def segment(self, node: Node) -> str:
        """The source text of ``node``."""
        return self.text[self.start(node) : self.end(node)]


# --- mutants -----------------------------------------------------------------------------------

BINARY = {
    ast.Add: ("+", "-"),
    ast.Sub: ("-", "+"),
    ast.Mult: ("*", "/"),
    ast.Div: ("/", "*"),
    ast.FloorDiv: ("//", "/"),
    ast.Mod: ("%", "/"),
    ast.Pow: ("**", "*"),
    ast.LShift: ("<<", ">>"),
    ast.RShift: (">>", "<<"),
    ast.BitAnd: ("&", "|"),
    ast.BitOr: ("|", "&"),
    ast.BitXor: ("^", "&"),
}
COMPARE = {
    ast.Eq: ("==", "!="),
    ast.NotEq: ("!=", "=="),
    ast.Lt: ("<", "<="),
    ast.LtE: ("<=", "<"),
    ast.Gt: (">", ">="),
    ast.GtE: (">=", ">"),
    ast.Is: ("is", "is not"),
    ast.IsNot: ("is not", "is"),
    ast.In: ("in", "not in"),
    ast.NotIn: ("not in", "in"),
}
BOOLEAN = {ast.And: ("and", "or"), ast.Or: ("or", "and")}
LOG_METHODS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}
# Calls whose arguments are type-level only: mutating them changes nothing at run time.
TYPING_CALLS = {"TypeVar", "ParamSpec", "NewType", "TypeAlias"}
_OPERATOR_CHARS = r"-+*/%<>=!&|^@~"


@dataclass(frozen=True)
class Mutant:
    """One small bug in one module: replace ``text[start:end]`` with ``replacement``."""

    path: str  # relative to the project root, with forward slashes
    line: int
    column: int
    end_line: int
    start: int
    end: int
    replacement: str
    operator: str  # comparison, arithmetic, boolean, not, constant, string, return, statement
    description: str
    function: str  # qualified name of the enclosing function, "<module>" outside any
    scope: Scope  # where the code runs: a function body, a signature default, or at import
    body: tuple[int, int]  # first and last line of the enclosing function's body (0, 0: none)
    lines: tuple[int, ...]  # the lines whose coverage tells which tests run this code
    wording: bool = False

    @property
    def key(self) -> str:
        """A stable identifier (for sampling and for the report)."""
        digest = hashlib.sha256(self.replacement.encode()).hexdigest()[:8]
        return f"{self.path}:{self.line}:{self.start}:{self.operator}:{digest}"

    @property
    def location(self) -> str:
        """``path:line:column`` (the column, from 1, where the replaced text starts)."""
        return f"{self.path}:{self.line}:{self.column}"

    def apply(self, text: str) -> str:
        """The module's text with this mutant applied."""
        return text[: self.start] + self.replacement + text[self.end :]


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _padded_expression(old: str, new: str) -> str:
    """``new`` in parentheses, padded with newlines so the module keeps its line numbers."""
    missing = old.count("\n") - new.count("\n")
    return f"({new}{chr(10) * missing})" if missing > 0 else f"({new})"


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _without_docstring(body: Sequence[ast.stmt]) -> list[ast.stmt]:
    return list(body[1:] if body and _is_docstring(body[0]) else body)


def _dotted(node: ast.AST) -> str:
    """``a.b.c`` for a chain of attributes on a name ('' for anything else)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _is_type_checking(test: ast.expr) -> bool:
    return _dotted(test).split(".")[-1] == "TYPE_CHECKING"


def _call_name(call: ast.Call) -> str:
    return _dotted(call.func).split(".")[-1]


def _is_log_call(call: ast.Call) -> bool:
    """``logger.warning(...)``, ``logging.getLogger(__name__).info(...)`` and the like."""
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr in LOG_METHODS
        and "log" in ast.unparse(func.value).lower()
    )


def _message_arguments(call: ast.Call) -> list[ast.expr]:
    """The arguments of a warning or log call that only make up its message."""
    if _call_name(call) == "warn":  # warnings.warn(message, category, stacklevel)
        message = [kw.value for kw in call.keywords if kw.arg == "message"]
        return call.args[:1] + message
    if _is_log_call(call):
        return [*call.args, *(kw.value for kw in call.keywords if kw.arg not in {"exc_info"})]
    return []


MessageParameters = Mapping[str, frozenset[int | str]]


def _passed_to_messages(call: ast.Call, messages: MessageParameters) -> list[ast.expr]:
    """The arguments of ``call`` that only make up a message, here or in the function called."""
    found = _message_arguments(call)
    slots = messages.get(_call_name(call), frozenset())
    for index, argument in enumerate(call.args):
        if isinstance(argument, ast.Starred):
            break  # positions after a *args are unknown
        if index in slots:
            found.append(argument)
    found += [k.value for k in call.keywords if k.arg in slots]
    return found


def _message_only(function: ast.FunctionDef, messages: MessageParameters) -> frozenset[int | str]:
    """The parameters of ``function`` it only uses in messages (positions and names)."""
    arguments = function.args
    positional = [a.arg for a in [*arguments.posonlyargs, *arguments.args]]
    names = {*positional, *(a.arg for a in arguments.kwonlyargs)}
    only = _read_only_in_messages(function, names, messages, stores_count=True)
    return frozenset(
        [*(i for i, name in enumerate(positional) if name in only)]
        + [name for name in names if name in only]
    )


def message_locals(
    function: ast.FunctionDef | ast.AsyncFunctionDef, messages: MessageParameters
) -> frozenset[str]:
    """Local names ``function`` binds by plain assignment and reads only inside messages.

    ``kind = "NumPy array"`` read only in ``raise TypeError(f"... {kind}")`` is message text
    built ahead of the ``raise``: a string assigned to it is wording.
    """
    assigned = {
        target.id
        for statement in ast.walk(function)
        if isinstance(statement, ast.Assign)
        for target in statement.targets
        if isinstance(target, ast.Name)
    }
    return frozenset(_read_only_in_messages(function, assigned, messages, stores_count=False))


def _read_only_in_messages(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    names: set[str],
    messages: MessageParameters,
    *,
    stores_count: bool,
) -> set[str]:
    """Which of ``names`` ``function`` reads, and reads only in messages.

    With ``stores_count``, binding a name again is a use outside messages (a parameter that is
    reassigned is data); without, only reads count (a local is bound to be read).
    """
    elsewhere: set[str] = set()
    used: set[str] = set()

    def visit(node: ast.AST, message: bool) -> None:
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            visit(node.exc.func, message)
            for argument in [*node.exc.args, *(k.value for k in node.exc.keywords)]:
                visit(argument, True)
            if node.cause is not None:
                visit(node.cause, message)
            return
        if isinstance(node, ast.Assert) and node.msg is not None:
            visit(node.test, message)
            visit(node.msg, True)
            return
        if isinstance(node, ast.Call):
            inside = {id(a) for a in _passed_to_messages(node, messages)}
            visit(node.func, message)
            for argument in [*node.args, *(k.value for k in node.keywords)]:
                visit(argument, message or id(argument) in inside)
            return
        if isinstance(node, ast.Name) and node.id in names:
            loaded = isinstance(node.ctx, ast.Load)
            if loaded or stores_count:
                used.add(node.id)
                if not (message and loaded):
                    elsewhere.add(node.id)
        for child in ast.iter_child_nodes(node):
            visit(child, message)

    for statement in function.body:
        visit(statement, False)
    return used - elsewhere


def message_parameters(texts: Iterable[str]) -> dict[str, frozenset[int | str]]:
    """Module-level functions whose parameters only end up in messages, by function name.

    ``float_dtype(name, *arrays)`` puts ``name`` only into its exceptions' text, so the string a
    caller passes there is wording too. A function passing a parameter on to such a slot counts
    (until nothing changes); two functions of one name keep only the slots they agree on.
    """
    functions = [
        statement
        for text in texts
        for statement in ast.parse(text).body
        if isinstance(statement, ast.FunctionDef)
    ]
    messages: dict[str, frozenset[int | str]] = {}
    while True:
        found: dict[str, frozenset[int | str]] = {}
        for function in functions:
            slots = _message_only(function, messages)
            found[function.name] = found.get(function.name, slots) & slots
        found = {name: slots for name, slots in found.items() if slots}
        if found == messages:
            return messages
        messages = found


def _header_lines(statement: ast.stmt) -> tuple[int, ...]:
    """The lines of a statement up to its body: where coverage records that it ran."""
    first = statement.lineno
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        first = min([first, *(d.lineno for d in statement.decorator_list)])
    last = statement.end_lineno or statement.lineno
    body = getattr(statement, "body", None)
    if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
        last = max(first, body[0].lineno - 1)
    return tuple(range(first, last + 1))


@dataclass
class _Context:
    function: str = "<module>"
    scope: Scope = "import"
    body: tuple[int, int] = (0, 0)
    statement: ast.stmt | None = None
    message: bool = False


class _Collector:
    """Walks a module and lists its mutants, with where each one runs."""

    def __init__(self, source: Source, path: str, messages: MessageParameters) -> None:
        self.source = source
        self.path = path
        self.messages = messages
        self.mutants: list[Mutant] = []
        self.context = _Context()
        self.names: list[str] = []
        self.keep: set[int] = set()  # constants left alone (ids of their nodes)
        self.message_locals: list[frozenset[str]] = [frozenset()]  # per enclosing function

    # Each mutation is one replacement; context fields say where it lives.
    def add(
        self, node: Node, start: int, end: int, replacement: str, operator: str, text: str
    ) -> None:
        context = self.context
        line = bisect.bisect_right(self.source.starts, start)  # where the change is
        lines = set(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        if context.statement is not None:
            lines.update(_header_lines(context.statement))
        self.mutants.append(
            Mutant(
                path=self.path,
                line=line,
                column=start - self.source.starts[line - 1] + 1,
                end_line=node.end_lineno or node.lineno,
                start=start,
                end=end,
                replacement=replacement,
                operator=operator,
                description=text,
                function=context.function,
                scope=context.scope,
                body=context.body,
                lines=tuple(sorted(lines)),
                wording=operator == "string" and context.message,
            )
        )

    def with_context(self, **changes: Any) -> _Scoped:
        return _Scoped(self, changes)

    # --- traversal ---

    def visit_module(self, module: ast.Module) -> None:
        self.visit_body(module.body)

    def visit_body(self, body: Sequence[ast.stmt]) -> None:
        for statement in _without_docstring(body):
            self.visit_statement(statement)

    def visit_statement(self, node: ast.stmt) -> None:
        with self.with_context(statement=node):
            if isinstance(node, ast.Import | ast.ImportFrom | ast.Global | ast.Nonlocal | ast.Pass):
                return
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.visit_function(node)
            elif isinstance(node, ast.ClassDef):
                self.visit_class(node)
            elif isinstance(node, ast.If) and _is_type_checking(node.test):
                self.visit_body(node.orelse)  # the TYPE_CHECKING block never runs
            elif isinstance(node, ast.Assign | ast.AnnAssign) and self.is_all(node):
                return  # __all__: names for `import *` and documentation
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                return  # a bare string: documentation
            elif self.builds_message(node):
                with self.with_context(message=True):
                    self.mutate_statement(node)
                    self.visit_fields(node)
            else:
                self.mutate_statement(node)
                self.visit_fields(node)

    def builds_message(self, node: ast.stmt) -> bool:
        """An assignment to names the function reads only in messages (message text)."""
        return isinstance(node, ast.Assign) and all(
            isinstance(t, ast.Name) and t.id in self.message_locals[-1] for t in node.targets
        )

    def is_all(self, node: ast.Assign | ast.AnnAssign) -> bool:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)

    def visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            self.visit_expression(decorator)
        qualname = ".".join([*self.names, node.name])
        body = _without_docstring(node.body)
        lines = (node.body[0].lineno, node.end_lineno or node.lineno)
        arguments = node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        with_defaults = positional[len(positional) - len(arguments.defaults) :]
        keyword = zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
        defaults = [
            *zip(with_defaults, arguments.defaults, strict=True),
            *((a, d) for a, d in keyword if d is not None),
        ]
        # A default of a parameter the function only puts into messages is message text too.
        only = _message_only(node, self.messages) if isinstance(node, ast.FunctionDef) else ()
        with self.with_context(function=qualname, scope="signature", body=lines):
            for argument, default in defaults:
                with self.with_context(message=argument.arg in only):
                    self.visit_expression(default)
        self.names.append(node.name)
        self.message_locals.append(message_locals(node, self.messages))
        with self.with_context(function=qualname, scope="body", body=lines, message=False):
            for statement in body:
                self.visit_statement(statement)
        self.message_locals.pop()
        self.names.pop()

    def visit_class(self, node: ast.ClassDef) -> None:
        for expression in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            self.visit_expression(expression)
        self.names.append(node.name)
        self.visit_body(node.body)
        self.names.pop()

    def visit_fields(self, node: ast.AST) -> None:
        """Visit a statement's parts: nested statements, expressions, exception messages."""
        if isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self.visit_expression(node.value)
            return
        if isinstance(node, ast.Raise):
            if node.exc is not None:
                self.visit_raised(node.exc)
            if node.cause is not None:
                self.visit_expression(node.cause)
            return
        if isinstance(node, ast.Assert):
            self.visit_expression(node.test)
            if node.msg is not None:
                with self.with_context(message=True):
                    self.visit_expression(node.msg)
            return
        for _, value in ast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            for item in items:
                if isinstance(item, ast.stmt):
                    self.visit_statement(item)
                elif isinstance(item, ast.expr):
                    self.visit_expression(item)
                elif isinstance(item, ast.excepthandler | ast.match_case | ast.withitem):
                    self.visit_fields(item)

    def visit_raised(self, exc: ast.expr) -> None:
        if isinstance(exc, ast.Call):
            self.visit_expression(exc.func)
            with self.with_context(message=True):
                for argument in [*exc.args, *(k.value for k in exc.keywords)]:
                    self.visit_expression(argument)
        else:
            self.visit_expression(exc)

    def visit_expression(self, node: ast.expr) -> None:
        self.mutate_expression(node)
        if isinstance(node, ast.JoinedStr):
            return  # an f-string is mutated whole, like any other string
        if isinstance(node, ast.Call):
            self.visit_call(node)
            return
        if isinstance(node, ast.Lambda):
            for default in [*node.args.defaults, *(d for d in node.args.kw_defaults if d)]:
                self.visit_expression(default)
            self.visit_expression(node.body)
            return
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.visit_expression(child)
            elif isinstance(child, ast.comprehension):
                for part in [child.target, child.iter, *child.ifs]:
                    self.visit_expression(part)
            elif isinstance(child, ast.keyword):
                self.visit_expression(child.value)

    def visit_call(self, node: ast.Call) -> None:
        name = _call_name(node)
        if name in TYPING_CALLS:
            return
        self.visit_expression(node.func)
        arguments = [*node.args, *(k.value for k in node.keywords)]
        if name == "cast" and node.args:
            arguments = arguments[1:]  # cast's first argument is a type
        messages = _passed_to_messages(node, self.messages)
        for argument in arguments:
            if any(argument is m for m in messages):
                with self.with_context(message=True):
                    self.visit_expression(argument)
            else:
                self.visit_expression(argument)

    # --- mutations ---

    def mutate_statement(self, node: ast.stmt) -> None:
        source = self.source
        if isinstance(node, ast.Return) and node.value is not None:
            value = node.value
            if not (isinstance(value, ast.Constant) and value.value is None):
                old = source.segment(value)
                new = _padded_expression(old, "None") if "\n" in old else "None"
                text = f"`return {_short(old, 40)}` -> `return None`"
                self.add(node, source.start(value), source.end(value), new, "return", text)
        elif isinstance(node, ast.AugAssign):
            before, after = BINARY.get(type(node.op), (None, None))
            if before and after:
                self.replace_operator(
                    node, node.target, node.value, before + "=", after + "=", "arithmetic"
                )
        if isinstance(node, ast.Raise | ast.Continue | ast.Break) or (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Call | ast.Await)
        ):
            self.delete_statement(node)

    def delete_statement(self, node: ast.stmt) -> None:
        source = self.source
        start, end = source.start(node), source.end(node)
        old = source.text[start:end]
        line_start = source.starts[node.lineno - 1]
        indent = source.text[line_start:start]
        rest = source.lines[(node.end_lineno or node.lineno) - 1][node.end_col_offset or 0 :]
        alone = not indent.strip() and not rest.split("#")[0].strip()
        # Keep the line count when the statement has its lines to itself.
        new = "pass" + f"\n{indent}pass" * old.count("\n") if alone else "pass"
        self.add(node, start, end, new, "statement", f"delete `{_short(old, 50)}`")

    def mutate_expression(self, node: ast.expr) -> None:
        source = self.source
        if isinstance(node, ast.BinOp):
            before, after = BINARY.get(type(node.op), (None, None))
            if before and after:
                self.replace_operator(node, node.left, node.right, before, after, "arithmetic")
        elif isinstance(node, ast.Compare):
            # `x is None` -> `x is ""` is a SyntaxWarning, and `is not` covers it anyway.
            self.keep.update(id(c) for c in [node.left, *node.comparators] if _is_none(c))
            left: ast.expr = node.left
            for op, right in zip(node.ops, node.comparators, strict=True):
                before, after = COMPARE[type(op)]
                self.replace_operator(node, left, right, before, after, "comparison")
                left = right
        elif isinstance(node, ast.BoolOp):
            before, after = BOOLEAN[type(node.op)]
            self.replace_boolean(node, before, after)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            old = source.segment(node)
            new = _padded_expression(old, source.segment(node.operand))
            text = f"`{_short(old, 40)}` -> drop `not`"
            self.add(node, source.start(node), source.end(node), new, "not", text)
        elif isinstance(node, ast.Constant):
            self.mutate_constant(node)
        elif isinstance(node, ast.JoinedStr):
            self.mutate_string(node, "str")

    def mutate_constant(self, node: ast.Constant) -> None:
        if id(node) in self.keep:
            return
        value = node.value
        old = self.source.segment(node)
        new: str | None = None
        if isinstance(value, bool):
            new = str(not value)
        elif value is None:
            new = '""'
        elif isinstance(value, int):
            new = str({0: 1, 1: 0}.get(value, value + 1))
        elif isinstance(value, float) and value + 1.0 != value:
            new = repr(value + 1.0)
        elif isinstance(value, str | bytes):
            self.mutate_string(node, "bytes" if isinstance(value, bytes) else "str")
            return
        if new is not None:
            start, end = self.source.start(node), self.source.end(node)
            self.add(node, start, end, new, "constant", f"`{_short(old, 30)}` -> `{new}`")

    def mutate_string(self, node: ast.expr, kind: str) -> None:
        start = self.source.start(node)
        prefix = 'b"XX" ' if kind == "bytes" else '"XX" '  # implicit concatenation: "XX" + text
        text = f"{_short(self.source.segment(node), 50)} -> prefixed with `XX`"
        self.add(node, start, start, prefix, "string", text)

    def replace_operator(
        self, node: Node, left: ast.expr, right: ast.expr, before: str, after: str, operator: str
    ) -> None:
        """Replace the operator token between ``left`` and ``right``."""
        source = self.source
        lo, hi = source.end(left), source.start(right)
        found = _find_token(source.text[lo:hi], before)
        if found is None:
            return
        start, end = lo + found[0], lo + found[1]
        self.add(node, start, end, after, operator, f"`{before}` -> `{after}`")

    def replace_boolean(self, node: ast.BoolOp, before: str, after: str) -> None:
        """Swap every ``and`` of one expression for ``or`` (or back), as one mutant."""
        source = self.source
        start, end = source.start(node), source.end(node)
        pieces: list[str] = []
        cursor = start
        for left, right in zip(node.values, node.values[1:], strict=False):
            lo, hi = source.end(left), source.start(right)
            found = _find_token(source.text[lo:hi], before)
            if found is None:
                return
            pieces += [source.text[cursor : lo + found[0]], after]
            cursor = lo + found[1]
        pieces.append(source.text[cursor:end])
        self.add(node, start, end, "".join(pieces), "boolean", f"`{before}` -> `{after}`")


class _Scoped:
    """Temporarily change a collector's context (a context manager)."""

    def __init__(self, collector: _Collector, changes: Mapping[str, Any]) -> None:
        self.collector = collector
        self.changes = changes
        self.saved = _Context()

    def __enter__(self) -> None:
        context = self.collector.context
        self.saved = _Context(**vars(context))
        for name, value in self.changes.items():
            setattr(context, name, value)

    def __exit__(self, *exc: object) -> None:
        self.collector.context = self.saved


def _find_token(between: str, token: str) -> tuple[int, int] | None:
    """Where ``token`` is in the text between two operands (comments and brackets around it)."""
    cleaned = re.sub(r"#[^\n]*", lambda m: " " * len(m.group()), between)
    if token[0].isalpha():
        pattern = r"\b" + r"\s+".join(token.split()) + r"\b"
    else:
        chars = re.escape(_OPERATOR_CHARS)
        pattern = f"(?<![{chars}]){re.escape(token)}(?![{chars}])"
    match = re.search(pattern, cleaned)
    return (match.start(), match.end()) if match else None


def mutants_of(text: str, path: str, messages: MessageParameters | None = None) -> list[Mutant]:
    """Every mutant of one module, in source order; each one parses.

    ``messages`` (from :func:`message_parameters`) says which arguments of the project's own
    functions only make up messages: strings passed there are wording.
    """
    collector = _Collector(Source(text), path, messages or {})
    collector.visit_module(ast.parse(text))
    mutants = sorted(collector.mutants, key=lambda m: (m.start, m.end, m.key))
    return [m for m in mutants if _parses(m.apply(text))]


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


# --- code that only a GPU runs -----------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """A block that imports a CUDA library: code only a GPU (or a fake one) can run."""

    path: str
    name: str  # "<module>", a function's qualified name, or "name, line N" for an inner block
    first: int  # the block's first and last line: mutants between them are set aside if proved
    last: int
    insert_line: int  # the probe goes on its own line before this one
    indent: str

    @property
    def key(self) -> str:
        """A stable identifier."""
        return f"{self.path}:{self.name}"


def _gpu_module(name: str, gpu_modules: Iterable[str]) -> bool:
    return any(name == m or name.startswith(m + ".") for m in gpu_modules)


def _imports_gpu(statement: ast.stmt, gpu_modules: Sequence[str]) -> bool:
    """True when a simple statement imports a CUDA library (``import_module`` of a literal too)."""
    if hasattr(statement, "body"):
        return False  # a compound statement: its blocks are looked at one by one
    if isinstance(statement, ast.Import):
        return any(_gpu_module(alias.name, gpu_modules) for alias in statement.names)
    if isinstance(statement, ast.ImportFrom) and statement.module and not statement.level:
        names = [statement.module, *(f"{statement.module}.{a.name}" for a in statement.names)]
        return any(_gpu_module(name, gpu_modules) for name in names)
    for node in ast.walk(statement):
        if (
            isinstance(node, ast.Call)
            and _call_name(node) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            return _gpu_module(node.args[0].value, gpu_modules)
    return False


def _is_gpu_dispatch(decorator: ast.expr) -> bool:
    """``@gpu_dispatch(cpu=...)``: the project's decorator of a GPU implementation."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return _dotted(target).split(".")[-1] == "gpu_dispatch"


def _loaded_names(nodes: Iterable[ast.AST]) -> set[str]:
    """The names that ``nodes`` read."""
    return {
        node.id
        for root in nodes
        for node in ast.walk(root)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }


def _assigned_names(statement: ast.Assign | ast.AnnAssign) -> set[str]:
    """The names a module-level assignment binds (``a, b = ...`` binds both)."""
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    return {n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name)}


def gpu_names(
    module: ast.Module, gpu_modules: Sequence[str], imported: Iterable[str] = ()
) -> set[str]:
    """Module-level names that only exist for the GPU: what such code binds, and what uses it.

    Seeds are the module's functions that import a CUDA library, and ``imported``: the names it
    imports from a sibling module where they are GPU names (:func:`imported_gpu_names`). A
    module-level assignment whose value reads a GPU name binds GPU names
    (``cuda = _cuda_target()``, then ``_kernel = cuda.jit(_body)``), and a module-level function
    that reads one is one (a ``@cuda.jit`` kernel's body reads ``cuda``; its launcher reads the
    kernel). Each is only a candidate: the probes decide what the CPU suite reaches.
    """
    functions = {
        s.name: s for s in module.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    found = set(imported) | {
        name
        for name, function in functions.items()
        if any(
            _imports_gpu(s, gpu_modules)
            for block in [function.body, *_blocks(function.body)]
            for s in block
        )
    }
    assignments = [s for s in module.body if isinstance(s, ast.Assign | ast.AnnAssign)]
    while True:
        before = len(found)
        for statement in assignments:
            if statement.value is not None and _loaded_names([statement.value]) & found:
                found |= _assigned_names(statement)
        for name, function in functions.items():
            if _loaded_names([*function.decorator_list, *function.body]) & found:
                found.add(name)
        if len(found) == before:
            return found


def imported_gpu_names(module: ast.Module, path: str, exported: Mapping[str, set[str]]) -> set[str]:
    """The names ``module`` (at ``path``) imports from a sibling that are GPU names there.

    ``from .numba_cuda import cuda, launch`` in ``kernels/_numba_cuda_stencil.py`` makes
    ``cuda`` and ``launch`` GPU names of that module too, when ``exported`` (path -> the GPU
    names of each module, :func:`gpu_names`) says they are in ``kernels/numba_cuda.py``.
    """
    package = path.rsplit("/", 1)[0]
    found = set()
    for statement in module.body:
        if isinstance(statement, ast.ImportFrom) and statement.level == 1 and statement.module:
            source = f"{package}/{statement.module.replace('.', '/')}.py"
            names = exported.get(source, set())
            found |= {
                alias.asname or alias.name for alias in statement.names if alias.name in names
            }
    return found


def gpu_names_of_modules(
    texts: Mapping[str, str], gpu_modules: Sequence[str]
) -> dict[str, set[str]]:
    """The GPU names of every module (path -> names), their imports from each other included."""
    modules = {path: ast.parse(text) for path, text in texts.items()}
    names: dict[str, set[str]] = {path: set() for path in modules}
    while True:  # a name imported through a chain of modules needs one pass per link
        updated = {
            path: gpu_names(module, gpu_modules, imported_gpu_names(module, path, names))
            for path, module in modules.items()
        }
        if updated == names:
            return names
        names = updated


def _blocks(body: list[ast.stmt]) -> Iterator[list[ast.stmt]]:
    """The statement lists nested in ``body`` (if/else, try/except, with, loops), not in defs."""
    for statement in body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if isinstance(statement, ast.If) and _is_type_checking(statement.test):
            continue
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(statement, name, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                yield inner
                yield from _blocks(inner)
        for handler in getattr(statement, "handlers", []):
            yield handler.body
            yield from _blocks(handler.body)


def gpu_candidates(
    text: str, path: str, gpu_modules: Sequence[str], imported: Iterable[str] = ()
) -> list[Candidate]:
    """The parts of ``text`` that only a GPU should run: candidates for a proof.

    A module that imports a CUDA library at import; a function that imports one anywhere in its
    body, that ``@gpu_dispatch`` decorates (the GPU implementation of a CPU twin), or that reads
    a name only the GPU path binds (:func:`gpu_names`: a CUDA kernel, its launcher); the
    innermost block around each such import (the ``if`` branch only a GPU takes); and the rest
    of that block from the import on (what follows ``if not on_gpu: return ...``). So a function
    reachable on the CPU can still have its GPU part proved unreachable. ``imported``: the GPU
    names it takes from sibling modules (:func:`gpu_names_of_modules`).
    """
    module = ast.parse(text)
    gpu_only = gpu_names(module, gpu_modules, imported)
    source = Source(text)
    found: dict[str, Candidate] = {}

    def candidate(name: str, body: list[ast.stmt], last: int) -> None:
        statements = _without_docstring(body)
        if not statements:
            return
        first = statements[0]
        indent = source.lines[first.lineno - 1][: first.col_offset]
        if indent.strip():  # the statement shares its line (`x = 1; y = 2`): no room for a probe
            return
        entry = Candidate(path, name, body[0].lineno, last, first.lineno, indent)
        if _parses(with_probes(text, [(entry, Path("marker"))])):
            found.setdefault(entry.key, entry)

    def direct(body: list[ast.stmt]) -> bool:
        return any(_imports_gpu(s, gpu_modules) for s in body)

    top = [s for s in module.body if not isinstance(s, ast.FunctionDef | ast.ClassDef)]
    if any(direct(block) for block in [top, *_blocks(top)]):
        past_future = [
            s
            for s in _without_docstring(module.body)
            if not (isinstance(s, ast.ImportFrom) and s.module == "__future__")
        ]
        if past_future:
            candidate("<module>", past_future, len(source.lines))

    def walk(body: list[ast.stmt], names: list[str]) -> None:
        for statement in body:
            if isinstance(statement, ast.ClassDef):
                walk(statement.body, [*names, statement.name])
            elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                qualname = ".".join([*names, statement.name])
                blocks = [statement.body, *_blocks(statement.body)]
                imports = [  # the first import of each block: later ones start smaller tails
                    (block, next(i for i, s in enumerate(block) if _imports_gpu(s, gpu_modules)))
                    for block in blocks
                    if direct(block)
                ]
                if (
                    imports
                    or any(_is_gpu_dispatch(d) for d in statement.decorator_list)
                    or _loaded_names(statement.body) & gpu_only
                ):
                    candidate(qualname, statement.body, statement.end_lineno or statement.lineno)
                for block, index in imports:
                    last = max(s.end_lineno or s.lineno for s in block)
                    if block is not statement.body:
                        candidate(f"{qualname}, line {block[0].lineno}", block, last)
                    if _without_docstring(block[:index]):  # code before it: a tail of its own
                        candidate(f"{qualname}, line {block[index].lineno}", block[index:], last)
                walk(statement.body, [*names, statement.name])
            else:
                for block in _blocks([statement]):
                    walk(block, names)

    walk(module.body, [])
    return sorted(found.values(), key=lambda c: (c.path, c.first, c.name))


def probe_line(candidate: Candidate, marker: Path) -> str:
    """The probe: record that this point was reached, then fail whatever reached it."""
    message = f"mutation probe: {candidate.key} runs on the CPU"
    touch = f"__import__('pathlib').Path({str(marker)!r}).touch()"
    return f"{candidate.indent}{touch}; raise AssertionError({message!r})\n"


def with_probes(text: str, probes: Sequence[tuple[Candidate, Path]]) -> str:
    """``text`` with a probe line inserted before each candidate's first statement."""
    lines = text.split("\n")
    for candidate, marker in sorted(probes, key=lambda p: -p[0].insert_line):
        index = candidate.insert_line - 1
        lines[index] = probe_line(candidate, marker) + lines[index]
    return "\n".join(lines)


def gpu_libraries(facts: str, pyproject: str) -> tuple[str, ...]:
    """The modules only a GPU runs: the project's ``CUDA_MODULES`` and their packages' modules.

    ``pycuda.driver`` is listed, so ``pycuda.autoinit`` counts too; ``numba.cuda`` is listed,
    but ``numba`` is a CPU dependency of the project, so only ``numba.cuda`` counts.
    """
    import tomllib

    dependencies = tomllib.loads(pyproject).get("project", {}).get("dependencies", [])
    cpu = {re.split(r"[^A-Za-z0-9_.-]", d, maxsplit=1)[0].lower() for d in dependencies}
    cpu = {name.replace("-", "_") for name in cpu}
    modules = cuda_modules(facts)
    packages = {m.split(".")[0] for m in modules} - cpu
    return tuple(sorted({*modules, *packages}))


def cuda_modules(facts: str) -> tuple[str, ...]:
    """``CUDA_MODULES`` from the project's ``gpu/_project.py``: the libraries only a GPU needs."""
    for node in ast.parse(facts).body:
        target: ast.expr
        value: ast.expr | None
        if isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == "CUDA_MODULES" and value is not None:
            modules: tuple[str, ...] = tuple(ast.literal_eval(value))
            return modules
    raise ValueError("gpu/_project.py defines no CUDA_MODULES")


# --- which tests to run ------------------------------------------------------------------------


@dataclass
class CoverageMap:
    """Which tests run which lines, from one coverage run of the suite with a context per test."""

    lines: dict[str, dict[int, frozenset[str]]]  # path -> line -> test ids ("" = at import)
    durations: dict[str, float]  # test id -> seconds (setup, call and teardown)
    spawning: frozenset[str]  # tests that start a process: coverage cannot follow them

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CoverageMap:
        """Read what a runner's coverage job wrote."""
        lines = {
            path: {int(line): frozenset(ids) for line, ids in by_line.items()}
            for path, by_line in data["lines"].items()
        }
        return cls(lines, dict(data["durations"]), frozenset(data["spawning"]))

    def tests_on(self, path: str, lines: Iterable[int]) -> set[str]:
        """Tests that ran any of ``lines`` (import-time execution left out)."""
        by_line = self.lines.get(path, {})
        return {test for line in lines for test in by_line.get(line, ()) if test}

    def reached(self, path: str, first: int, last: int) -> str | None:
        """A test (or "import") that ran a line between ``first`` and ``last``; None if none did."""
        by_line = self.lines.get(path, {})
        for line in range(first, last + 1):
            for test in sorted(by_line.get(line, ())):
                return test or "import"
        return None

    def ordered(self, tests: Iterable[str]) -> list[str]:
        """Tests fastest first, so ``-x`` stops a killed mutant early."""
        return sorted(tests, key=lambda t: (self.durations.get(t, 0.0), t))

    @property
    def suite(self) -> list[str]:
        """Every test of the suite, fastest first."""
        return self.ordered(self.durations)

    def seconds(self, tests: Iterable[str]) -> float:
        """The baseline run time of ``tests``."""
        return sum(self.durations.get(t, 0.0) for t in tests)


def private_callers(text: str, elsewhere: str) -> dict[str, tuple[int, ...]]:
    """Private module-level functions only called from function bodies here: the calling lines.

    A function named nowhere else (not in ``elsewhere``: the other modules and the tests) and
    never read at import (no decorator, default or assignment holds it) runs only when one of
    these lines runs.
    """
    module = ast.parse(text)
    names = {
        s.name
        for s in module.body
        if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)
        and s.name.startswith("_")
        and not re.search(rf"\b{re.escape(s.name)}\b", elsewhere)
    }
    lines: dict[str, set[int]] = defaultdict(set)
    at_import: set[str] = set()

    def visit(node: ast.AST, inside: bool) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            outer = node.decorator_list if not isinstance(node, ast.Lambda) else []
            arguments = [*node.args.defaults, *(d for d in node.args.kw_defaults if d)]
            for part in [*outer, *arguments]:
                visit(part, inside)
            body: list[ast.AST] = [*node.body] if isinstance(node.body, list) else [node.body]
            for statement in body:
                visit(statement, True)
            return
        if isinstance(node, ast.Name) and node.id in names and isinstance(node.ctx, ast.Load):
            if inside:
                lines[node.id].add(node.lineno)
            else:
                at_import.add(node.id)
        for child in ast.iter_child_nodes(node):
            visit(child, inside)

    visit(module, False)
    return {name: tuple(sorted(found)) for name, found in lines.items() if name not in at_import}


def select_tests(
    mutant: Mutant, coverage: CoverageMap, callers: Mapping[str, tuple[int, ...]] | None = None
) -> list[str] | None:
    """The tests that can notice ``mutant``: a list (maybe empty), or None for the whole suite.

    A test that never runs a line cannot notice a change to it. Code that runs at import, and
    decorators, affect every test: the whole suite. Numba-compiled code is invisible to coverage:
    a function none of whose lines coverage saw gets the tests that run the lines calling it
    (``callers``, from :func:`private_callers`), or the whole suite. Tests that start Python
    processes run with every selection, since coverage does not follow them.
    """
    if mutant.scope == "import":
        return None
    body_tests = coverage.tests_on(mutant.path, range(mutant.body[0], mutant.body[1] + 1))
    if not body_tests:
        calling = (callers or {}).get(mutant.function, ())
        caller_tests = coverage.tests_on(mutant.path, calling)
        return coverage.ordered(caller_tests | coverage.spawning) if caller_tests else None
    if mutant.scope == "signature":
        return coverage.ordered(body_tests | coverage.spawning)
    return coverage.ordered(coverage.tests_on(mutant.path, mutant.lines) | coverage.spawning)


# --- the runner: a process in the project's environment that forks one child per run -----------

PRELOAD = ("numpy", "numba", "hypothesis", "coverage")


def serve(stdin: IO[str], stdout: IO[str]) -> None:
    """Answer jobs (one JSON object per line) until stdin closes; one result line per job.

    The modules every run needs are imported once, here; each job forks a child that runs
    pytest in its worker copy of the project and exits, so no state survives between runs.
    The project itself is never imported here.
    """
    import pytest  # noqa: F401  (imported for the children)

    # Ctrl-C reaches the whole process group: the orchestrator decides when runners stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    for name in PRELOAD:
        with contextlib.suppress(ImportError):  # a project without Numba, say
            importlib.import_module(name)
    for line in stdin:
        job = json.loads(line)
        result = _run_job(job)
        stdout.write(json.dumps(result) + "\n")
        stdout.flush()


def _run_job(job: Mapping[str, Any]) -> dict[str, Any]:
    sys.stdout.flush()
    sys.stderr.flush()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 3
        try:
            code = _child(job)
        except BaseException:  # whatever happens, report it and exit
            import traceback

            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    deadline = started + float(job["timeout"])
    timed_out = False
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            timed_out = True
            _kill_group(pid)
            _, status, usage = os.wait4(pid, 0)
            break
        time.sleep(0.02)
    _kill_group(pid)  # whatever the tests started and left behind
    return {
        "rc": os.waitstatus_to_exitcode(status),
        "timed_out": timed_out,
        "seconds": time.monotonic() - started,
        "cpu": usage.ru_utime + usage.ru_stime,  # the child's own: a figure load cannot inflate
    }


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # nothing left to kill
        os.killpg(pid, signal.SIGKILL)


def _child(job: Mapping[str, Any]) -> int:
    """Run pytest in the worker tree ``job["tree"]``; coverage too when the job asks."""
    os.setsid()  # a process group of its own, so a timeout kills what the tests started
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    log = os.open(job["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    tree = Path(job["tree"])
    os.chdir(tree)
    # The worker copy's sources come first, here and in any process the tests start.
    src = str(tree / "src")
    sys.path[:] = [src, *(p for p in sys.path if Path(p).resolve() != ROOT / "tools")]
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")]))
    sys.dont_write_bytecode = True  # a .pyc of one mutant must never serve another
    _hypothesis_profile()
    import pytest

    args = list(job["args"])
    if job.get("coverage"):
        return _coverage_run(pytest, args, src, Path(job["coverage"]))
    return int(pytest.main(args))


def _hypothesis_profile() -> None:
    """Reproducible examples, no example database, no deadlines (mutants may compile slowly)."""
    try:
        # Imported by name: the project's environment has Hypothesis, this repository's may not.
        settings: Any = importlib.import_module("hypothesis").settings
    except ImportError:
        return
    settings.register_profile("mutation", derandomize=True, database=None, deadline=None)
    settings.load_profile("mutation")


def _coverage_run(pytest: Any, args: list[str], src: str, output: Path) -> int:
    coverage: Any = importlib.import_module("coverage")  # installed in the project's venv only
    cov = coverage.Coverage(data_file=None, source=[src], config_file=False)
    contexts = _TestContexts(cov)
    contexts.watch_processes()
    cov.start()
    try:
        code = int(pytest.main(args, plugins=[contexts]))
    finally:
        cov.stop()
    data = cov.get_data()
    lines: dict[str, dict[int, list[str]]] = {}
    for filename in data.measured_files():
        relative = Path(filename).resolve().relative_to(Path(src).resolve().parent).as_posix()
        by_line = data.contexts_by_lineno(filename)
        lines[relative] = {line: sorted(ids) for line, ids in by_line.items()}
    report = {
        "lines": lines,
        "durations": contexts.durations,
        "spawning": sorted(contexts.spawning),
    }
    output.write_text(json.dumps(report), encoding="utf-8")
    return code


def is_python_program(programs: Sequence[Any]) -> bool:
    """True when the program started is Python: by its name, or a script's shebang line."""
    if not programs:
        return True  # cannot tell: assume the worst
    program = os.fsdecode(programs[0])
    if re.fullmatch(r"python[\d.]*", Path(program).name) or program == sys.executable:
        return True
    found = shutil.which(program) or program
    try:
        with Path(found).open("rb") as script:
            first = script.readline(200)
    except OSError:
        return False
    return first.startswith(b"#!") and b"python" in first


class _TestContexts:
    """A pytest plugin: one coverage context per test; timings; tests that start processes."""

    def __init__(self, cov: Any) -> None:
        self.cov = cov
        self.current = ""
        self.durations: dict[str, float] = defaultdict(float)
        self.spawning: set[str] = set()

    def watch_processes(self) -> None:
        """Note the running test whenever it starts a process that can run the project's code.

        Python processes (subprocess, multiprocessing, a script with a Python shebang) and
        forks count; a fake ``nvidia-smi`` shell script does not.
        """
        import _posixsubprocess

        def wrap(owner: Any, name: str, program: Callable[..., Any] | None) -> None:
            original = getattr(owner, name, None)
            if original is None:
                return

            def noted(*args: Any, **kwargs: Any) -> Any:
                if self.current and (program is None or is_python_program(program(*args))):
                    self.spawning.add(self.current)
                return original(*args, **kwargs)

            setattr(owner, name, noted)

        # fork_exec(argv, executables, ...); posix_spawn(path, argv, env, ...)
        wrap(_posixsubprocess, "fork_exec", lambda argv, executables, *_: executables or argv)
        wrap(subprocess, "_fork_exec", lambda argv, executables, *_: executables or argv)
        wrap(os, "posix_spawn", lambda path, *_: [path])
        wrap(os, "posix_spawnp", lambda path, *_: [path])
        wrap(os, "fork", None)

    def pytest_runtest_protocol(self, item: Any, nextitem: Any) -> None:
        self.current = item.nodeid
        self.cov.switch_context(item.nodeid)

    def pytest_runtest_logreport(self, report: Any) -> None:
        self.durations[report.nodeid] += report.duration
        if report.when == "teardown":
            self.current = ""
            self.cov.switch_context("")


# --- the orchestrator ----------------------------------------------------------------------------


@dataclass
class Outcome:
    """What happened to one mutant."""

    mutant: Mutant
    status: str  # killed, survived, unreachable, wording, error
    detail: str = ""
    seconds: float = 0.0
    cpu: float = 0.0  # the test run's own CPU time, which the machine's load does not inflate


class Runner:
    """A ``serve`` process and the worker copy of the project it runs in."""

    def __init__(self, python: Path, tree: Path, logs: Path, env: Mapping[str, str]) -> None:
        self.tree = tree
        self.log = logs / f"{tree.name}.log"
        self.process = subprocess.Popen(
            [str(python), str(Path(__file__).resolve()), "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=dict(env),
        )

    def run(self, args: Sequence[str], timeout: float, **extra: str) -> dict[str, Any]:
        """Run pytest with ``args`` in this runner's tree; the exit code and the time."""
        job = {"tree": str(self.tree), "args": list(args), "timeout": timeout, "log": str(self.log)}
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write(json.dumps({**job, **extra}) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            raise RuntimeError(f"the runner in {self.tree} stopped; see {self.log}")
        result: dict[str, Any] = json.loads(answer)
        return result

    def close(self) -> None:
        """Stop the runner."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=60)
        if self.process.stdout is not None:
            self.process.stdout.close()


# The runner imported Hypothesis before pytest started, so pytest cannot rewrite the asserts of
# its plugin and warns; the suite's `filterwarnings = error` would make that fatal.
PYTEST_ARGS = (
    "-q",
    "-p",
    "no:cacheprovider",
    "--tb=line",
    "--no-header",
    "-W",
    "ignore::pytest.PytestAssertRewriteWarning",
)


def _copy_project(project: Path, dst: Path) -> None:
    """A worker copy: everything but environments, caches and compiled files."""
    ignore = shutil.ignore_patterns(
        ".venv", ".git", ".nox", "__pycache__", ".hypothesis", ".pytest_cache", "build", "dist"
    )
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(project, dst, ignore=ignore)


@dataclass
class Workspace:
    """One rendered project under test: its sources, worker copies and runners."""

    name: str
    project: Path
    out: Path
    runners: list[Runner] = field(default_factory=list)
    stamp: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def write(self, tree: Path, path: str, text: str) -> None:
        """Write a module into a worker copy with a modification time no other version had.

        Numba's on-disk cache trusts a file's size and modification time: two mutants of one size
        written in the same instant would otherwise share compiled code.
        """
        target = tree / path
        target.write_text(text, encoding="utf-8")
        with self.lock:
            self.stamp += 1
            stamp = self.stamp
        original = (self.project / path).stat().st_mtime_ns
        seconds = original + stamp * 1_000_000_000
        os.utime(target, ns=(seconds, seconds))

    def restore(self, tree: Path, path: str) -> None:
        """Put the original module back, with its original time."""
        shutil.copy2(self.project / path, tree / path)


@dataclass(frozen=True)
class Analysis:
    """What the tool reads from a rendered project before running anything."""

    paths: list[str]  # the modules under test, relative to the project
    texts: dict[str, str]  # their text
    gpu_modules: tuple[str, ...]  # see gpu_libraries
    mutants: list[Mutant]  # every mutant of every module
    callers: dict[str, dict[str, tuple[int, ...]]]  # module -> private_callers


def analyse(project: Path) -> Analysis:
    """Find the modules under test, their mutants, and what selection and proofs need."""
    package = next(p.parent.name for p in (project / "src").glob("*/__init__.py"))
    paths = [
        p.relative_to(project).as_posix()
        for sub in TARGET_PACKAGES
        for p in sorted((project / "src" / package / sub).glob("*.py"))
    ]
    everything = {
        p.relative_to(project).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(project.glob("src/**/*.py")) + sorted(project.glob("tests/**/*.py"))
    }
    texts = {path: everything[path] for path in paths}
    facts = everything[f"src/{package}/gpu/_project.py"]
    gpu_modules = gpu_libraries(facts, (project / "pyproject.toml").read_text(encoding="utf-8"))
    messages = message_parameters(t for p, t in everything.items() if p.startswith("src/"))
    mutants = [m for path in paths for m in mutants_of(texts[path], path, messages)]
    callers = {
        path: private_callers(
            texts[path], "\n".join(t for other, t in everything.items() if other != path)
        )
        for path in paths
    }
    return Analysis(paths, texts, gpu_modules, mutants, callers)


def run_render(
    name: str,
    answers: Mapping[str, Any],
    out: Path,
    *,
    fraction: float,
    seed: int,
    workers: int,
    modules: Sequence[str] = (),
) -> str:
    """Render, install, measure; write the report and return the summary line.

    ``modules`` (globs such as ``doctor/*``) keeps only the mutants of matching modules: a
    quicker loop while writing tests for one package. The score it prints covers those alone.
    """
    started = time.monotonic()
    base = out / name
    project = base / "project"
    _say(name, f"rendering {json.dumps(dict(answers))} into {project}")
    render(answers, project)
    python = install(project)
    found = analyse(project)
    _say(name, f"GPU-only libraries: {', '.join(found.gpu_modules)}")
    mutants = [m for m in found.mutants if _matches(_module(m.path), modules)]
    total = len(mutants)
    if fraction < 1:
        chosen = random.Random(seed).sample(mutants, max(1, round(total * fraction)))
        mutants = sorted(chosen, key=lambda m: (m.path, m.start, m.key))
    _say(name, f"{total} mutants in {len(found.paths)} modules; testing {len(mutants)}")

    logs = base / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    env = _runner_environment(python)
    workspace = Workspace(name, project, base)
    for index in range(workers):
        tree = base / "workers" / f"worker{index}"
        _copy_project(project, tree)
        workspace.runners.append(Runner(python, tree, logs, env))
    texts = found.texts
    try:
        coverage = measure(workspace, base / "coverage.json")
        shared = gpu_names_of_modules(texts, found.gpu_modules)
        candidates = [
            c
            for path in found.paths
            for c in gpu_candidates(
                texts[path],
                path,
                found.gpu_modules,
                imported_gpu_names(ast.parse(texts[path]), path, shared),
            )
        ]
        proofs = prove(workspace, candidates, mutants, coverage, base / "proofs.json", texts)
        outcomes = run_mutants(workspace, mutants, coverage, proofs, texts, found.callers)
    finally:
        for runner in workspace.runners:
            runner.close()
    minutes = (time.monotonic() - started) / 60
    if len(outcomes) < len(mutants):
        _say(name, f"{len(mutants) - len(outcomes)} of {len(mutants)} mutants were not run")
    report = write_report(base, name, answers, outcomes, proofs, total, fraction, minutes)
    _say(name, f"report: {report} ({minutes:.1f} min)")
    return f"{summarise(outcomes)} for {name}"


def _say(name: str, message: str) -> None:
    print(f"[mutation {name}] {message}", flush=True)


def _runner_environment(python: Path) -> dict[str, str]:
    """The project's environment for the runners, free of this session's virtualenv."""
    env = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "PYTHONHOME"}}
    session_bin = Path(sys.executable).parent
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and Path(p) != session_bin]
    env["PATH"] = os.pathsep.join([str(python.parent), *path])
    env["VIRTUAL_ENV"] = str(python.parent.parent)
    env["PYTHONHASHSEED"] = "0"
    env.pop("PYTHONPATH", None)
    return env


def render(answers: Mapping[str, Any], dst: Path) -> None:
    """Render this working tree (uncommitted edits included) into ``dst``, untrusted."""
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tools")]
    from conftest import copy_template, snapshot_working_tree

    settings = dst.parent / "copier-settings.yml"  # no user settings in the render
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text("{}\n", encoding="utf-8")
    env = {
        "COPIER_SETTINGS_PATH": str(settings),
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Mutation",
        "GIT_AUTHOR_EMAIL": "mutation@example.org",
        "GIT_COMMITTER_NAME": "Mutation",
        "GIT_COMMITTER_EMAIL": "mutation@example.org",
    }
    os.environ.update(env)
    if dst.exists():
        shutil.rmtree(dst)
    with tempfile.TemporaryDirectory(prefix="mutation-template-") as tmp:
        # With the template-owned code's tests (tests/owned/): they are what kills its mutants.
        repo = snapshot_working_tree(Path(tmp) / "repo", owned_tests=True)
        copy_template(repo, dst, answers, "v0.0.0")


def install(project: Path) -> Path:
    """A venv in the project with the project (editable), its test group and coverage."""
    uv = shutil.which("uv")
    if uv is None:
        raise SystemExit("mutation: uv is needed to install the rendered projects (PATH)")
    recorded = (project / ".copier-answers.yml").read_text(encoding="utf-8")
    match = re.search(r"^python_min: '?([\d.]+)'?$", recorded, re.MULTILINE)
    python_min = match.group(1) if match else "3.11"
    venv = project / ".venv"
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    subprocess.run([uv, "venv", "-q", "--python", python_min, str(venv)], check=True, env=env)
    python = venv / "bin" / "python"
    install = [uv, "pip", "install", "-q", "--python", str(python)]
    subprocess.run(
        [*install, "-e", ".", "--group", "test", "coverage>=7.6"], check=True, cwd=project, env=env
    )
    return python


def measure(workspace: Workspace, output: Path) -> CoverageMap:
    """The baseline: the whole suite, green, under coverage with one context per test."""
    runner = workspace.runners[0]
    _say(workspace.name, "baseline: the suite under coverage")
    result = runner.run([*PYTEST_ARGS], timeout=1800, coverage=str(output))
    if result["rc"] != 0:
        raise SystemExit(
            f"mutation: the unmutated suite of {workspace.name} is not green "
            f"(exit {result['rc']}); see {runner.log}"
        )
    coverage = CoverageMap.from_json(json.loads(output.read_text(encoding="utf-8")))
    _say(
        workspace.name,
        f"baseline green in {result['seconds']:.1f} s: {len(coverage.durations)} tests, "
        f"{len(coverage.spawning)} start processes",
    )
    return coverage


@dataclass(frozen=True)
class Proof:
    """Whether a candidate block is unreachable on the CPU, and how that was shown."""

    candidate: Candidate
    unreachable: bool
    how: str

    def covers(self, mutant: Mutant) -> bool:
        """True when ``mutant`` lies in this block, or is a default of a function in it.

        A default value only matters when the function's body runs.
        """
        first, last = self.candidate.first, self.candidate.last
        if mutant.path != self.candidate.path:
            return False
        if mutant.scope == "signature":
            return first <= mutant.body[0] and mutant.body[1] <= last
        return first <= mutant.line <= last


def _digest(workspace: Workspace) -> str:
    """The project's sources and tests: a proof holds until one of them changes."""
    digest = hashlib.sha256()
    for path in sorted(workspace.project.glob("src/**/*.py")) + sorted(
        workspace.project.glob("tests/**/*.py")
    ):
        digest.update(path.relative_to(workspace.project).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def prove(
    workspace: Workspace,
    candidates: Sequence[Candidate],
    mutants: Sequence[Mutant],
    coverage: CoverageMap,
    cache_file: Path,
    texts: Mapping[str, str],
) -> list[Proof]:
    """Decide, for each candidate that holds a mutant, whether the CPU suite can reach it.

    A candidate some test ran is reachable. The others get a probe each, all at once, and the
    whole suite runs: probes that record being reached are reachable and removed, and the suite
    runs again, until it is green with no probe reached. That run proves every remaining
    candidate unreachable: had the suite reached one, its probe would have recorded it. Proofs
    are cached against the project's sources and tests.
    """
    digest = _digest(workspace)
    cached: dict[str, Any] = {}
    if cache_file.exists():
        stored = json.loads(cache_file.read_text(encoding="utf-8"))
        cached = stored.get(digest, {}) if isinstance(stored, dict) else {}
    wanted = [
        c
        for c in candidates
        if any(m.path == c.path and c.first <= m.line <= c.last for m in mutants)
    ]
    proofs: dict[str, Proof] = {}
    pending: list[Candidate] = []
    for c in wanted:
        reached = coverage.reached(c.path, c.first, c.last)
        if c.key in cached:
            proofs[c.key] = Proof(c, cached[c.key]["unreachable"], cached[c.key]["how"])
        elif reached:
            proofs[c.key] = Proof(c, False, f"covered by {reached}")
        else:
            pending.append(c)
    _say(
        workspace.name,
        f"{len(wanted)} GPU-only candidates: {len(pending)} to prove, "
        f"{len(wanted) - len(pending)} known",
    )
    rounds = 0
    started = time.monotonic()
    while pending:
        rounds += 1
        reached_now, green = _probe_run(workspace, pending, coverage, texts)
        for c in pending:
            if c.key in reached_now:
                proofs[c.key] = Proof(c, False, "its probe was reached by the CPU suite")
        remaining = [c for c in pending if c.key not in reached_now]
        if green and len(remaining) == len(pending):
            how = f"probe unreached, suite green (round {rounds}, {len(remaining)} probes)"
            proofs.update({c.key: Proof(c, True, how) for c in remaining})
            break
        if not reached_now:  # red, yet no probe reached: prove each alone
            for c in remaining:
                reached_alone, green_alone = _probe_run(workspace, [c], coverage, texts)
                unreachable = green_alone and not reached_alone
                how = "probe unreached, suite green (alone)" if unreachable else "suite red"
                proofs[c.key] = Proof(c, unreachable, how)
            break
        pending = remaining
    if rounds:
        proved = sum(p.unreachable for p in proofs.values())
        _say(
            workspace.name,
            f"{rounds} probe runs in {time.monotonic() - started:.0f} s: {proved} unreachable",
        )
    store = {digest: {k: {"unreachable": p.unreachable, "how": p.how} for k, p in proofs.items()}}
    cache_file.write_text(json.dumps(store, indent=1), encoding="utf-8")
    return sorted(proofs.values(), key=lambda p: (p.candidate.path, p.candidate.first))


def _probe_run(
    workspace: Workspace,
    candidates: Sequence[Candidate],
    coverage: CoverageMap,
    texts: Mapping[str, str],
) -> tuple[set[str], bool]:
    """Run the whole suite with a probe in each candidate: the probes reached, and green?"""
    runner = workspace.runners[0]
    markers = Path(tempfile.mkdtemp(prefix="probes-", dir=workspace.out))
    by_path: dict[str, list[tuple[Candidate, Path]]] = defaultdict(list)
    names = {}
    for index, candidate in enumerate(candidates):
        marker = markers / str(index)
        names[marker.name] = candidate.key
        by_path[candidate.path].append((candidate, marker))
    try:
        for path, probes in by_path.items():
            workspace.write(runner.tree, path, with_probes(texts[path], probes))
        timeout = _timeout(coverage.seconds(coverage.suite))
        result = runner.run([*PYTEST_ARGS], timeout=timeout)
    finally:
        for path in by_path:
            workspace.restore(runner.tree, path)
    reached = {names[p.name] for p in markers.iterdir()}
    shutil.rmtree(markers)
    return reached, result["rc"] == 0 and not result["timed_out"]


def run_mutants(
    workspace: Workspace,
    mutants: Sequence[Mutant],
    coverage: CoverageMap,
    proofs: Sequence[Proof],
    texts: Mapping[str, str],
    callers: Mapping[str, Mapping[str, tuple[int, ...]]],
) -> list[Outcome]:
    """Classify every mutant; run those that are neither wording nor unreachable.

    ``callers`` maps each module to its :func:`private_callers`.
    """
    unreachable = [p for p in proofs if p.unreachable]
    outcomes: list[Outcome] = []
    jobs: queue.Queue[Mutant] = queue.Queue()
    for mutant in mutants:
        proof = next((p for p in unreachable if p.covers(mutant)), None)
        if mutant.wording:
            outcomes.append(Outcome(mutant, "wording"))
        elif proof is not None:
            outcomes.append(Outcome(mutant, "unreachable", proof.candidate.name))
        else:
            jobs.put(mutant)
    count = jobs.qsize()
    _say(workspace.name, f"running {count} mutants on {len(workspace.runners)} workers")
    lock = threading.Lock()
    stop = threading.Event()
    started = time.monotonic()

    def work(runner: Runner) -> None:
        while not stop.is_set():
            try:
                mutant = jobs.get_nowait()
            except queue.Empty:
                return
            outcome = run_one(workspace, runner, mutant, coverage, texts, callers[mutant.path])
            with lock:
                outcomes.append(outcome)
                done = sum(o.status in {"killed", "survived", "error"} for o in outcomes)
                if done % 25 == 0 or done == count:
                    elapsed = time.monotonic() - started
                    left = elapsed / done * (count - done)
                    _say(workspace.name, f"{done}/{count} run, about {left / 60:.1f} min left")

    threads = [threading.Thread(target=work, args=(r,)) for r in workspace.runners]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            while thread.is_alive():
                thread.join(timeout=1)
    except KeyboardInterrupt:  # Ctrl-C: finish the runs under way, then report what ran
        stop.set()
        _say(workspace.name, f"interrupted: finishing the runs under way; {jobs.qsize()} not run")
        for thread in threads:
            thread.join()
    return sorted(outcomes, key=lambda o: (o.mutant.path, o.mutant.start, o.mutant.key))


def _timeout(baseline: float) -> float:
    """Seconds a run may take before it counts as hanging: generous, as machines are shared.

    The baseline was measured under coverage, which is slower than a plain run already; a
    mutant of a Numba loop also recompiles it.
    """
    return 120 + 5 * baseline


# What pytest prints (exit 4) when a conftest.py raises on import: the suite cannot start.
CONFTEST_BROKEN = "ImportError while loading conftest"
# What it prints when a test module raises on import; with -x and ids, that too ends in exit 4.
COLLECTION_ERROR = "ERROR collecting tests/"


def by_function(tests: Sequence[str]) -> list[str]:
    """Test ids without their parameters (``t.py::f[1]`` is ``t.py::f``), each once, in order."""
    return list(dict.fromkeys(test.split("[", 1)[0] for test in tests))


def run_one(
    workspace: Workspace,
    runner: Runner,
    mutant: Mutant,
    coverage: CoverageMap,
    texts: Mapping[str, str],
    callers: Mapping[str, tuple[int, ...]] | None = None,
) -> Outcome:
    """Run the tests that can notice one mutant, in the runner's worker copy."""
    selected = select_tests(mutant, coverage, callers)
    if selected is not None and not selected:
        return Outcome(mutant, "survived", "no test runs this line")
    tests = coverage.suite if selected is None else selected
    timeout = _timeout(coverage.seconds(tests))
    workspace.write(runner.tree, mutant.path, mutant.apply(texts[mutant.path]))
    try:
        result = runner.run(["-x", *PYTEST_ARGS, *tests], timeout=timeout)
        if result["rc"] == 3:  # pytest's internal error, e.g. an unraisable warning at exit: again
            result = runner.run(["-x", *PYTEST_ARGS, *tests], timeout=timeout)
        if result["rc"] == 4 and any("[" in test for test in tests):
            # A parametrised test's id can hold the mutated value ("[12]" became "[13]"), and
            # pytest cannot find the old one: run those tests by name, every parameter.
            tests = by_function(tests)
            result = runner.run(["-x", *PYTEST_ARGS, *tests], timeout=timeout)
    finally:
        workspace.restore(runner.tree, mutant.path)
    scope = "the suite" if selected is None else f"{len(tests)} tests"
    times = {"seconds": result["seconds"], "cpu": result["cpu"]}
    rc = result["rc"]
    if result["timed_out"]:
        return Outcome(mutant, "killed", f"timed out ({scope})", **times)
    if rc == 0:
        return Outcome(mutant, "survived", f"{scope} green", **times)
    log = runner.log.read_text("utf-8", errors="replace") if rc == 4 else ""
    if CONFTEST_BROKEN in log:
        return Outcome(mutant, "killed", f"{scope}: conftest fails to import", **times)
    if COLLECTION_ERROR in log:  # the unmutated suite collects: the mutant broke an import
        return Outcome(mutant, "killed", f"{scope}: a test module fails to import", **times)
    if rc in {3, 4, 5}:  # pytest's internal error, usage error, nothing collected: the tool's fault
        shutil.copy(runner.log, workspace.out / "logs" / f"error-{mutant.line}-{mutant.start}.log")
        return Outcome(mutant, "error", f"pytest exit {rc}", **times)
    return Outcome(mutant, "killed", f"{scope}: exit {rc}", **times)


# --- report --------------------------------------------------------------------------------------


def score_line(counts: Mapping[str, int]) -> str:
    """``mutation score: N% (killed K, survived S, unreachable U, wording W)``."""
    killed, survived = counts.get("killed", 0), counts.get("survived", 0)
    score = 100 * killed / (killed + survived) if killed + survived else 100.0
    return (
        f"mutation score: {score:.1f}% (killed {killed}, survived {survived}, "
        f"unreachable {counts.get('unreachable', 0)}, wording {counts.get('wording', 0)})"
    )


def summarise(outcomes: Iterable[Outcome]) -> str:
    """The summary line of a list of outcomes."""
    return score_line(Counter(o.status for o in outcomes))


def _module(path: str) -> str:
    """``gpu/_detect.py`` for ``src/<package>/gpu/_detect.py``."""
    return "/".join(path.split("/")[2:])


def _matches(module: str, patterns: Sequence[str]) -> bool:
    """Whether ``module`` matches one of the globs, or there are none."""
    return not patterns or any(fnmatch.fnmatchcase(module, p) for p in patterns)


def write_report(
    base: Path,
    name: str,
    answers: Mapping[str, Any],
    outcomes: Sequence[Outcome],
    proofs: Sequence[Proof],
    total: int,
    fraction: float,
    minutes: float,
) -> Path:
    """Write ``report.md`` (per-module scores, survivors, wording, proofs) and ``results.json``."""
    lines = [
        f"# Mutation testing: {name}",
        "",
        f"Answers: `{json.dumps(dict(answers))}`. {total} mutants"
        + (f", a sample of {fraction:.0%} drawn" if fraction < 1 else "")
        + f", {len(outcomes)} classified; {minutes:.1f} min.",
        "",
        summarise(outcomes),
        "",
        f"Killed by a timeout: {sum('timed out' in o.detail for o in outcomes)}. "
        f"Test runs: {sum(o.seconds for o in outcomes) / 60:.1f} min of wall time, "
        f"{sum(o.cpu for o in outcomes) / 60:.1f} min of CPU time.",
        "",
        "| Module | Score | Killed | Survived | Unreachable | Wording |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    by_module: dict[str, Counter[str]] = defaultdict(Counter)
    for outcome in outcomes:
        by_module[_module(outcome.mutant.path)][outcome.status] += 1
    for module, counts in sorted(by_module.items()):
        killed, survived = counts["killed"], counts["survived"]
        score = f"{100 * killed / (killed + survived):.1f}%" if killed + survived else "-"
        row = [module, score, killed, survived, counts["unreachable"], counts["wording"]]
        lines.append("| " + " | ".join(str(cell) for cell in row) + " |")

    def listing(title: str, status: str, note: str) -> None:
        chosen = [o for o in outcomes if o.status == status]
        lines.extend(["", f"## {title} ({len(chosen)})", "", note, ""])
        for o in chosen:
            m = o.mutant
            detail = f" ({o.detail})" if o.detail else ""
            lines.append(f"- `{m.location}` in `{m.function}`: {m.description}{detail}")

    listing(
        "Survivors",
        "survived",
        "Each is a bug the suite lets through: add a test that fails on it, or explain why the "
        "mutant changes nothing (an equivalent mutant).",
    )
    listing("Errors", "error", "The tool could not run these; their logs are in `logs/`.")
    listing(
        "Wording",
        "wording",
        "Strings in exception, warning, log and assertion messages: set aside.",
    )
    lines.extend(
        [
            "",
            "## GPU-only blocks",
            "",
            "Blocks that import a CUDA library. Unreachable ones were proved so: a probe that "
            "records being reached and raises left the CPU suite green and was never reached.",
            "",
        ]
    )
    for proof in proofs:
        verdict = "unreachable" if proof.unreachable else "reachable"
        where = f"{proof.candidate.path}:{proof.candidate.first}"
        lines.append(f"- `{where}` `{proof.candidate.name}`: {verdict}, {proof.how}")
    report = base / "report.md"
    report.write_text("\n".join(lines) + "\n", encoding="utf-8")
    results = [
        {
            "key": o.mutant.key,
            "location": o.mutant.location,
            "function": o.mutant.function,
            "operator": o.mutant.operator,
            "mutation": o.mutant.description,
            "status": o.status,
            "detail": o.detail,
            "seconds": round(o.seconds, 2),
            "cpu": round(o.cpu, 2),
        }
        for o in outcomes
    ]
    (base / "results.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    return report


# --- command line ----------------------------------------------------------------------------


def renders() -> dict[str, dict[str, Any]]:
    """The renders measured: the default answers, and every GPU library on Python 3.12."""
    from template_data import example_choices, library_choices

    return {
        "defaults": {},
        "all-libraries": {
            "gpu_libraries": list(library_choices()),
            "examples": example_choices(),
            "python_min": "3.12",
        },
    }


def main(argv: Sequence[str] | None = None) -> int:
    """``run`` (measure renders) or ``serve`` (a runner, started by ``run``)."""
    parser = argparse.ArgumentParser(prog="mutation", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="render, mutate, test, report")
    run.add_argument("--render", action="append", help="defaults or all-libraries (repeatable)")
    run.add_argument(
        "--quick", action="store_true", help=f"test {QUICK_FRACTION * 100:.0f}%% of mutants"
    )
    run.add_argument("--sample", type=float, default=1.0, help="fraction of mutants to test")
    run.add_argument("--seed", type=int, default=0, help="seed of the sample")
    run.add_argument(
        "--module",
        action="append",
        default=[],
        help="only mutants of modules matching this glob, e.g. 'doctor/*' (repeatable)",
    )
    run.add_argument("--workers", type=int, default=2, help="parallel runners (default 2)")
    run.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where renders and reports go")
    commands.add_parser("serve", help="a runner: jobs on stdin, results on stdout")
    args = parser.parse_args(argv)
    if args.command == "serve":
        serve(sys.stdin, sys.stdout)
        return 0
    sys.path.insert(0, str(ROOT / "tools"))
    available = renders()
    chosen = args.render or list(available)
    unknown = sorted(set(chosen) - set(available))
    if unknown:
        parser.error(f"unknown render {unknown}; choose from {sorted(available)}")
    fraction = QUICK_FRACTION if args.quick else args.sample
    summaries = [
        run_render(
            name,
            available[name],
            args.out.resolve(),
            fraction=fraction,
            seed=args.seed,
            workers=args.workers,
            modules=args.module,
        )
        for name in chosen
    ]
    print("\n".join(summaries), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
