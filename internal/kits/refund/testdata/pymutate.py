"""Mutants of a Python answer, made with Python's own ast module.

Reads Python source on standard input and writes a JSON list of mutants,
each one small change a stranger's bug might be, as the Go mutation tool
(internal/mutation) makes of a Go answer: a condition negated, a
comparison or a boolean operator flipped, a constant changed, a statement
dropped, an await dropped (the coroutine made and never run), two except
clauses swapped, merged or one removed, a finally removed, a returned
value replaced, a loop's bound moved, a function returning early.

Each mutant is {"id", "op", "line", "col", "source", "before", "after",
"quote", "equivalent"}:
id is LINE:COL:OP, the position (1-based) of the changed node in the
source as read, so the id of a mutant stays the same from run to run
while the file does; source is the whole mutant as ast.unparse writes it
(comments gone); before and after are the lines of the unparsed original
and of the mutant that differ; a mutant whose text is the original's or
an earlier mutant's is not made; quote is the source's line the change
starts on, as read (what a survivors file quotes); equivalent names the
rule (RULE_TRACE_ONLY) that shows the change cannot alter what the code
does to the world, "" when none applies. Run by the Go test (pymutate_test.go) with the python3 that
pyenv finds; needs Python 3.9 or later (ast.unparse).
"""
import ast
import copy
import json
import sys

# The operators, in the order mutants are made.
OPS = [
    "negate-condition",  # if c: -> if not (c):
    "flip-comparison",   # == <-> !=, < <-> >=, > <-> <=, in <-> not in, is <-> is not
    "flip-boolean",      # and <-> or; True <-> False
    "zero-constant",     # a number -> 0
    "inc-constant",      # an int n -> n + 1; a float (a duration) doubled
    "dec-constant",      # an int n -> n - 1; a float halved
    "empty-key",         # idempotency_key=x -> idempotency_key=""
    "drop-statement",    # an expression (an awaited call), assignment, if, return, break, continue or raise removed
    "drop-await",        # await e -> e: the call's coroutine is made and never run
    "swap-except",       # two neighbouring except clauses change places (which one catches first)
    "swap-except-body",  # two neighbouring except clauses swap bodies (an error taken for the other)
    "merge-except",      # two neighbouring except clauses become one, with either body
    "remove-except",     # an except clause removed (its exceptions propagate)
    "remove-finally",    # a finally clause removed
    "return-none",       # return e -> return None
    "loop-bound",        # for ... in range(.., n) -> range(.., n + 1) and range(.., n - 1)
    "return-early",      # a function body starts with its last return
]

COMPARE_FLIP = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
    ast.Lt: ast.GtE, ast.GtE: ast.Lt,
    ast.Gt: ast.LtE, ast.LtE: ast.Gt,
    ast.In: ast.NotIn, ast.NotIn: ast.In,
    ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}

# Statements drop-statement removes.
DROPPABLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.If,
             ast.Return, ast.Break, ast.Continue, ast.Raise)

BODIES = ("body", "orelse", "finalbody")


def nodes(tree):
    """Every node of tree in a fixed order (ast.walk's, breadth first):
    the k-th node of a deep copy is the copy of the k-th node."""
    return list(ast.walk(tree))


def is_docstring(stmt):
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def is_number(node):
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def at(node):
    return node.lineno, node.col_offset + 1


def sites(tree):
    """Every (op, index of the node in nodes(tree), variant, position)
    the operators apply to, in OPS order."""
    all_nodes = nodes(tree)
    out = {op: [] for op in OPS}
    for i, n in enumerate(all_nodes):
        if isinstance(n, (ast.If, ast.While)):
            out["negate-condition"].append((i, 0, at(n.test)))
        if isinstance(n, ast.Compare):
            for j, o in enumerate(n.ops):
                if type(o) in COMPARE_FLIP:
                    out["flip-comparison"].append((i, j, at(n)))
        if isinstance(n, ast.BoolOp):
            out["flip-boolean"].append((i, 0, at(n)))
        if isinstance(n, ast.Constant) and type(n.value) is bool:
            out["flip-boolean"].append((i, 0, at(n)))
        if is_number(n):
            if n.value != 0:
                out["zero-constant"].append((i, 0, at(n)))
            out["inc-constant"].append((i, 0, at(n)))
            out["dec-constant"].append((i, 0, at(n)))
        if isinstance(n, ast.keyword) and n.arg == "idempotency_key":
            if not (isinstance(n.value, ast.Constant) and n.value.value == ""):
                out["empty-key"].append((i, 0, at(n)))
        for field in BODIES:
            for j, s in enumerate(getattr(n, field, None) or []):
                if isinstance(s, ast.stmt) and isinstance(s, DROPPABLE) and not is_docstring(s):
                    out["drop-statement"].append((i, (field, j), at(s)))
        if isinstance(n, ast.Await):
            out["drop-await"].append((i, 0, at(n)))
        if isinstance(n, ast.Try):
            hs = n.handlers
            for j in range(len(hs) - 1):
                if hs[j].type is not None and hs[j + 1].type is not None:
                    out["swap-except"].append((i, j, at(hs[j])))
                    out["swap-except-body"].append((i, j, at(hs[j])))
                    out["merge-except"].append((i, (j, 0), at(hs[j])))
                    out["merge-except"].append((i, (j, 1), at(hs[j])))
            for j, h in enumerate(hs):
                out["remove-except"].append((i, j, at(h)))
            if n.finalbody:
                out["remove-finally"].append((i, 0, at(n.finalbody[0])))
        if isinstance(n, ast.Return) and n.value is not None and not (isinstance(n.value, ast.Constant) and n.value.value is None):
            out["return-none"].append((i, 0, at(n)))
        if isinstance(n, (ast.For, ast.AsyncFor)) and isinstance(n.iter, ast.Call) and \
                isinstance(n.iter.func, ast.Name) and n.iter.func.id == "range" and n.iter.args:
            out["loop-bound"].append((i, +1, at(n.iter)))
            out["loop-bound"].append((i, -1, at(n.iter)))
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and len(n.body) >= 2 and \
                isinstance(n.body[-1], ast.Return) and n.body[-1].value is not None:
            out["return-early"].append((i, 0, at(n)))
    return [(op, i, v, pos) for op in OPS for (i, v, pos) in out[op]]


def replace_stmt(parent, old, new):
    """Puts the statements new in old's place in whichever body of parent
    holds it."""
    for field in BODIES + ("handlers",):
        lst = getattr(parent, field, None)
        if lst is None:
            continue
        for j, s in enumerate(lst):
            if s is old:
                lst[j:j + 1] = new
                return
    raise ValueError("statement not found in its parent")


def parent_of(tree, node):
    for n in ast.walk(tree):
        for field in BODIES:
            if node in (getattr(n, field, None) or []):
                return n
        if isinstance(n, ast.Try) and node in [x for h in n.handlers for x in h.body]:
            for h in n.handlers:
                if node in h.body:
                    return h
    raise ValueError("no parent")


def apply(op, tree, i, v):
    """Applies op to the i-th node of tree (a fresh copy), in place."""
    n = nodes(tree)[i]
    if op == "negate-condition":
        n.test = ast.UnaryOp(op=ast.Not(), operand=n.test)
    elif op == "flip-comparison":
        n.ops[v] = COMPARE_FLIP[type(n.ops[v])]()
    elif op == "flip-boolean":
        if isinstance(n, ast.BoolOp):
            n.op = ast.Or() if isinstance(n.op, ast.And) else ast.And()
        else:
            n.value = not n.value
    elif op == "zero-constant":
        n.value = type(n.value)(0)
    elif op == "inc-constant":
        n.value = n.value + 1 if type(n.value) is int else (n.value * 2 if n.value else 1.0)
    elif op == "dec-constant":
        n.value = n.value - 1 if type(n.value) is int else n.value / 2
        if n.value == 0 and type(n.value) is float:
            return False  # 0.0 halved is itself
    elif op == "empty-key":
        n.value = ast.Constant(value="")
    elif op == "drop-statement":
        field, j = v
        lst = getattr(n, field)
        del lst[j]
        if not lst and field in ("body", "finalbody"):
            lst.append(ast.Pass())
    elif op == "drop-await":
        parent = None
        for p in ast.walk(tree):
            for name, value in ast.iter_fields(p):
                if value is n:
                    setattr(p, name, n.value)
                    parent = p
                elif isinstance(value, list) and any(x is n for x in value):
                    value[[k for k, x in enumerate(value) if x is n][0]] = n.value
                    parent = p
            if parent is not None:
                break
    elif op == "swap-except":
        hs = n.handlers
        hs[v], hs[v + 1] = hs[v + 1], hs[v]
    elif op == "swap-except-body":
        hs = n.handlers
        hs[v].body, hs[v + 1].body = hs[v + 1].body, hs[v].body
        # A body names its clause's exception: the name moves with it.
        hs[v].name, hs[v + 1].name = hs[v + 1].name, hs[v].name
    elif op == "merge-except":
        j, which = v
        a, b = n.handlers[j], n.handlers[j + 1]
        if ast.dump(ast.Module(body=a.body, type_ignores=[])) == ast.dump(ast.Module(body=b.body, type_ignores=[])):
            return False  # one body: merging changes nothing
        types = []
        for h in (a, b):
            types += h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
        keep = (a, b)[which]
        merged = ast.ExceptHandler(type=ast.Tuple(elts=types, ctx=ast.Load()), name=keep.name, body=keep.body)
        n.handlers[j:j + 2] = [merged]
    elif op == "remove-except":
        del n.handlers[v]
        if not n.handlers and not n.finalbody:
            # A try with nothing left to catch is its body (and else).
            replace_stmt(parent_of(tree, n), n, n.body + n.orelse)
    elif op == "remove-finally":
        n.finalbody = []
        if not n.handlers:
            replace_stmt(parent_of(tree, n), n, n.body + n.orelse)
    elif op == "return-none":
        n.value = ast.Constant(value=None)
    elif op == "loop-bound":
        args = n.iter.args
        k = len(args) - 1 if len(args) >= 2 else 0
        args[k] = ast.BinOp(left=args[k], op=ast.Add() if v > 0 else ast.Sub(), right=ast.Constant(value=1))
    elif op == "return-early":
        n.body.insert(0, copy.deepcopy(n.body[-1]))
    return True


# RuleTraceOnly: the change drops a call of the trace function
# (refundkit.log), changes only what such a call or an if around nothing
# but such calls evaluates, or drops or negates such an if. refundkit.log
# writes a line to the run's trace and nothing else: it reads and writes
# no record, sends nothing and takes no virtual time. (It passes the
# engine's gate, a scheduling point, but one that touches no state another
# worker can see.) As the Go rule (internal/mutation/rules.go), it asks
# that what the statement evaluates be free of effects: constants, names,
# attribute reads, f-strings and %-free operators of those, comparisons and
# boolean operators; no calls (but the log call itself), no await, no
# division, modulo or shift. Formatting an argument can run its __str__,
# __repr__ or __format__, and an attribute read a property or
# __getattr__: a file that defines any dunder method but __init__, or any
# decorated function, gets no rule at all. Like the Go rule it takes
# attribute reads and comparisons as raising nothing, which holds for the
# correct answers it is run on (they pass every scenario).
RULE_TRACE_ONLY = "trace-only"

EFFECT_FREE_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.BitAnd, ast.BitOr, ast.BitXor)


def effect_free(e):
    if isinstance(e, (ast.Constant, ast.Name)):
        return True
    if isinstance(e, ast.Attribute):
        return effect_free(e.value)
    if isinstance(e, ast.JoinedStr):
        return all(effect_free(v) for v in e.values)
    if isinstance(e, ast.FormattedValue):
        return effect_free(e.value) and (e.format_spec is None or effect_free(e.format_spec))
    if isinstance(e, ast.UnaryOp):
        return effect_free(e.operand)
    if isinstance(e, ast.BinOp):
        return isinstance(e.op, EFFECT_FREE_BINOPS) and effect_free(e.left) and effect_free(e.right)
    if isinstance(e, ast.BoolOp):
        return all(effect_free(v) for v in e.values)
    if isinstance(e, ast.Compare):
        return effect_free(e.left) and all(effect_free(c) for c in e.comparators)
    if isinstance(e, (ast.Tuple, ast.List)):
        return all(effect_free(v) for v in e.elts)
    return False


class Rules:
    """What the trace-only rule needs of the original file."""

    def __init__(self, tree):
        self.parents = {}
        for p in ast.walk(tree):
            for c in ast.iter_child_nodes(p):
                self.parents[c] = p
        # The kit's module, imported whole at the top and never bound again.
        imported = any(isinstance(s, ast.Import) and any(a.name == "refundkit" and a.asname is None for a in s.names)
                       for s in tree.body)
        bound = set()
        for n in ast.walk(tree):
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
                bound.add(n.id)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(n.name)
            elif isinstance(n, ast.arg):
                bound.add(n.arg)
            elif isinstance(n, (ast.Global, ast.Nonlocal)):
                bound.update(n.names)
            elif isinstance(n, ast.ImportFrom):
                bound.update(a.asname or a.name for a in n.names)
            elif isinstance(n, ast.Import):
                bound.update(a.asname for a in n.names if a.asname)
        rebound = "refundkit" in bound
        acting = any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and
                     (n.decorator_list or (n.name.startswith("__") and n.name.endswith("__") and n.name != "__init__"))
                     for n in ast.walk(tree))
        self.on = imported and not rebound and not acting

    def trace_call(self, s):
        if not isinstance(s, ast.Expr) or not isinstance(s.value, ast.Call):
            return False
        c = s.value
        f = c.func
        if not (isinstance(f, ast.Attribute) and f.attr == "log" and isinstance(f.value, ast.Name) and f.value.id == "refundkit"):
            return False
        return all(not isinstance(a, ast.Starred) and effect_free(a) for a in c.args) and \
            all(k.arg is not None and effect_free(k.value) for k in c.keywords)

    def trace_only(self, s):
        if isinstance(s, ast.Pass):
            return True
        if isinstance(s, ast.If):
            return effect_free(s.test) and all(map(self.trace_only, s.body)) and all(map(self.trace_only, s.orelse))
        return self.trace_call(s)

    def statement_of(self, n):
        while n is not None and not isinstance(n, ast.stmt):
            n = self.parents.get(n)
        return n

    def equivalent(self, op, n, v):
        """The rule that classifies the mutant op makes of node n (of the
        original tree), or ""."""
        if not self.on:
            return ""
        if op == "drop-statement":
            field, j = v
            return RULE_TRACE_ONLY if self.trace_only(getattr(n, field)[j]) else ""
        if op == "negate-condition":
            return RULE_TRACE_ONLY if isinstance(n, ast.If) and self.trace_only(n) else ""
        if op in ("flip-comparison", "flip-boolean", "zero-constant", "inc-constant", "dec-constant"):
            # Changed in place, an operator for another of its kind, a
            # constant for another: effect-free stays effect-free.
            s = self.statement_of(n)
            return RULE_TRACE_ONLY if s is not None and self.trace_only(s) else ""
        return ""


def changed(a, b):
    al, bl = a.splitlines(), b.splitlines()
    i = 0
    while i < len(al) and i < len(bl) and al[i] == bl[i]:
        i += 1
    j = 0
    while j < len(al) - i and j < len(bl) - i and al[-1 - j] == bl[-1 - j]:
        j += 1
    return "\n".join(al[i:len(al) - j]), "\n".join(bl[i:len(bl) - j])


def mutants(src):
    tree = ast.parse(src)
    base = ast.unparse(tree)
    rules = Rules(tree)
    lines = src.splitlines()
    all_nodes = nodes(tree)
    out, seen, texts = [], set(), {base}
    for op, i, v, (line, col) in sites(tree):
        t = copy.deepcopy(tree)
        if apply(op, t, i, v) is False:
            continue
        ast.fix_missing_locations(t)
        text = ast.unparse(t)
        if text in texts:
            # No change (two equal bodies swapped), or the change another
            # mutant made already (1 zeroed is 1 less): one is enough.
            continue
        texts.add(text)
        mid = f"{line}:{col}:{op}"
        k = 2
        while mid in seen:
            mid = f"{line}:{col}:{op}/{k}"
            k += 1
        seen.add(mid)
        before, after = changed(base, text)
        out.append({"id": mid, "op": op, "line": line, "col": col, "source": text + "\n", "before": before, "after": after,
                    "quote": lines[line - 1].strip(), "equivalent": rules.equivalent(op, all_nodes[i], v)})
    return out


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--ops":
        json.dump(OPS, sys.stdout)
    else:
        json.dump(mutants(sys.stdin.read()), sys.stdout)
