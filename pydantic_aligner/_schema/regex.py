"""Linear-time matching of JSON Schema patterns (``patternProperties``, and ``pattern`` in strict mode).

Patterns run on candidate keys, which a model controls. Python's ``re`` backtracks: under
``"^(a+)+$"`` a 30-character key takes seconds and each more character doubles it. Here a
pattern is parsed once (with the standard library's own regular-expression parser) into a
Thompson automaton and searched by simulating every automaton state at once, with the state
sets cached as a lazy DFA: time linear in the key length for every pattern, no new dependency.

Dialect: JSON Schema patterns are ECMA-262 regular expressions (no flags). Supported:
literals and escapes, ``.`` (any character but a line terminator), classes ``[...]``/``[^...]``
with ranges, ``\\d``/``\\w``/``\\s`` and their negations (ASCII digits and word characters,
ECMA white space, as ECMA-262 without the ``u`` flag), groups (capturing, ``(?:...)``, named
``(?<name>...)``), alternation, the quantifiers ``*``, ``+``, ``?``, ``{m}``, ``{m,}``,
``{m,n}`` (lazy forms match the same keys), anchors ``^``/``$`` (start and end of the key) and
word boundaries ``\\b``/``\\B``. Not supported, and rejected when the :class:`Aligner` is built
(:class:`SchemaError`): backreferences and lookaround (they need backtracking), inline flags,
and patterns whose automaton would exceed ``MAX_STATES`` states (``(a{100}){100}``).
"""

from __future__ import annotations

try:  # Python >= 3.11
    import re._constants as _c
    import re._parser as _p
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_constants as _c
    import sre_parse as _p

import re

__all__ = ["MAX_STATES", "Pattern", "PatternUnsupported", "compile_pattern"]

#: Largest automaton a pattern may compile to (matching costs at most this much per key character).
MAX_STATES = 5_000
_CACHE = 4_096  # per pattern: keys remembered, and DFA transitions (fewer for big automata, see Pattern)
_CACHED_KEY = 256  # keys longer than this are matched but not remembered

_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_DIGIT = frozenset("0123456789")
_SPACE = frozenset("\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff" + "".join(map(chr, range(0x2000, 0x200B))))
_LINE_END = frozenset("\n\r\u2028\u2029")
_CATEGORY = {
    _c.CATEGORY_DIGIT: (_DIGIT, False),
    _c.CATEGORY_NOT_DIGIT: (_DIGIT, True),
    _c.CATEGORY_WORD: (_WORD, False),
    _c.CATEGORY_NOT_WORD: (_WORD, True),
    _c.CATEGORY_SPACE: (_SPACE, False),
    _c.CATEGORY_NOT_SPACE: (_SPACE, True),
}
_NAMED_GROUP = re.compile(r"\(\?<(?![=!])")
_ALLOWED_FLAGS = _c.SRE_FLAG_UNICODE

# automaton instructions
_CHAR, _SPLIT, _JUMP, _ASSERT, _MATCH = range(5)
_BEGIN, _END, _BOUNDARY, _NOT_BOUNDARY = range(4)


class PatternUnsupported(ValueError):
    """The pattern uses a construct this matcher does not support (the message says which)."""


class _Charset:
    """A character test: literals, ranges and categories, possibly negated."""

    __slots__ = ("chars", "negate", "ranges", "sets")

    def __init__(self) -> None:
        self.chars: set[str] = set()
        self.ranges: list[tuple[int, int]] = []
        self.sets: list[tuple[frozenset, bool]] = []
        self.negate = False

    def __call__(self, ch: str) -> bool:
        hit = ch in self.chars
        if not hit:
            o = ord(ch)
            hit = any(lo <= o <= hi for lo, hi in self.ranges) or any((ch in s) != neg for s, neg in self.sets)
        return hit != self.negate


class _Builder:
    def __init__(self) -> None:
        self.prog: list[list] = []

    def emit(self, *ins: object) -> int:
        if len(self.prog) >= MAX_STATES:
            raise PatternUnsupported(f"the pattern compiles to more than {MAX_STATES} automaton states")
        self.prog.append(list(ins))
        return len(self.prog) - 1

    def seq(self, items: list) -> tuple[int, list]:
        """Compile a sequence; returns (entry state, list of (state, slot) holes to patch with the exit)."""
        entry, holes = None, []
        for op, av in items:
            e, h = self.item(op, av)
            if entry is None:
                entry = e
            else:
                self.patch(holes, e)
            holes = h
        if entry is None:  # empty sequence
            j = self.emit(_JUMP, None)
            return j, [(j, 1)]
        return entry, holes

    def patch(self, holes: list, target: int) -> None:
        for state, slot in holes:
            self.prog[state][slot] = target

    def charset(self, test) -> tuple[int, list]:
        s = self.emit(_CHAR, test, None)
        return s, [(s, 2)]

    def item(self, op, av) -> tuple[int, list]:
        if op is _c.LITERAL:
            ch = chr(av)
            return self.charset(lambda c, ch=ch: c == ch)
        if op is _c.NOT_LITERAL:
            ch = chr(av)
            return self.charset(lambda c, ch=ch: c != ch)
        if op is _c.ANY:
            return self.charset(lambda c: c not in _LINE_END)
        if op is _c.IN:
            return self.charset(self.in_set(av))
        if op is _c.SUBPATTERN:
            _group, add, remove, sub = av
            if add or remove:
                raise PatternUnsupported("inline flags are not ECMA-262")
            return self.seq(sub.data)
        if op is _c.BRANCH:
            alts = [self.seq(alt.data) for alt in av[1]]
            holes = []
            entry = alts[-1][0]
            holes.extend(alts[-1][1])
            for e, h in reversed(alts[:-1]):
                entry = self.emit(_SPLIT, e, entry)
                holes.extend(h)
            return entry, holes
        if op in (_c.MAX_REPEAT, _c.MIN_REPEAT) or op is getattr(_c, "POSSESSIVE_REPEAT", None):
            if op is not _c.MAX_REPEAT and op is not _c.MIN_REPEAT:
                raise PatternUnsupported("possessive quantifiers are not ECMA-262")
            lo, hi, sub = av
            return self.repeat(lo, hi, sub.data)
        if op is _c.AT:
            kind = {
                _c.AT_BEGINNING: _BEGIN,
                _c.AT_BEGINNING_STRING: _BEGIN,
                _c.AT_END: _END,
                _c.AT_END_STRING: _END,
                _c.AT_BOUNDARY: _BOUNDARY,
                _c.AT_NON_BOUNDARY: _NOT_BOUNDARY,
            }.get(av)
            if kind is None:  # pragma: no cover - the parser produces no other anchors
                raise PatternUnsupported(f"anchor {av} is not supported")
            s = self.emit(_ASSERT, kind, None)
            return s, [(s, 2)]
        if op in (_c.GROUPREF, _c.GROUPREF_EXISTS):
            raise PatternUnsupported("backreferences need backtracking and are not supported")
        if op in (_c.ASSERT, _c.ASSERT_NOT):
            raise PatternUnsupported("lookahead and lookbehind need backtracking and are not supported")
        raise PatternUnsupported(f"{str(op).lower()} is not supported")

    def in_set(self, items: list) -> _Charset:
        cs = _Charset()
        for op, av in items:
            if op is _c.NEGATE:
                cs.negate = True
            elif op is _c.LITERAL:
                cs.chars.add(chr(av))
            elif op is _c.RANGE:
                cs.ranges.append(av)
            elif op is _c.CATEGORY:
                cs.sets.append(_CATEGORY[av])
            else:
                raise PatternUnsupported(f"{str(op).lower()} in a character class is not supported")
        return cs

    def repeat(self, lo: int, hi: int, sub: list) -> tuple[int, list]:
        unbounded = hi is _c.MAXREPEAT or hi == _c.MAXREPEAT
        if lo * max(len(sub), 1) > MAX_STATES or (not unbounded and hi * max(len(sub), 1) > MAX_STATES):
            raise PatternUnsupported(f"the pattern compiles to more than {MAX_STATES} automaton states")
        entry, holes = None, []

        def chain(e: int, h: list) -> None:
            nonlocal entry, holes
            if entry is None:
                entry = e
            else:
                self.patch(holes, e)
            holes = h

        for _ in range(lo):
            chain(*self.seq(sub))
        if unbounded:
            split = self.emit(_SPLIT, None, None)
            body, bholes = self.seq(sub)
            self.prog[split][1] = body
            self.patch(bholes, split)
            chain(split, [(split, 2)])
        else:
            opt_holes: list = []
            for _ in range(hi - lo):
                split = self.emit(_SPLIT, None, None)
                body, bholes = self.seq(sub)
                self.prog[split][1] = body
                chain(split, bholes)
                opt_holes.append((split, 2))
            holes = holes + opt_holes
        if entry is None:
            j = self.emit(_JUMP, None)
            return j, [(j, 1)]
        return entry, holes


class Pattern:
    """A compiled pattern; :meth:`search` tells whether it matches anywhere in a string, in linear time.

    >>> p = compile_pattern("^(a+)+$")
    >>> p.search("a" * 10_000 + "!"), p.search("aaa")
    (False, True)
    >>> compile_pattern("^x-").search("x-rate"), compile_pattern(r"\\bid\\b").search("my id")
    (True, True)
    """

    __slots__ = ("_assertions", "_cache", "_closures", "_interned", "_keys", "_match", "_prog", "_start", "_steps", "pattern")

    def __init__(self, pattern: str, prog: list, start: int, match: int) -> None:
        self.pattern = pattern
        self._prog = prog
        self._start = start
        self._match = match
        self._assertions = any(ins[0] == _ASSERT for ins in prog)
        self._cache = max(64, min(_CACHE, 1_000_000 // len(prog)))  # cached state sets hold at most ~1e6 states
        self._closures: dict = {}
        self._steps: dict = {}
        self._interned: dict = {}  # one object per distinct state set: cache keys then compare by identity
        self._keys: dict = {}

    def __repr__(self) -> str:
        return f"Pattern({self.pattern!r})"

    def _intern(self, states: frozenset) -> frozenset:
        hit = self._interned.get(states)
        if hit is not None:
            return hit
        if len(self._interned) >= self._cache:
            self._interned.clear()
        self._interned[states] = states
        return states

    def _closure(self, states: frozenset, ctx: tuple) -> frozenset:
        """The states reachable from ``states`` plus the start state without reading a character."""
        key = (states, ctx)
        hit = self._closures.get(key)
        if hit is not None:
            return hit
        prog = self._prog
        at_begin, at_end, boundary = ctx
        out = set()
        seen = set()
        stack = [*states, self._start]
        while stack:
            s = stack.pop()
            if s in seen:
                continue
            seen.add(s)
            ins = prog[s]
            op = ins[0]
            if op in (_CHAR, _MATCH):
                out.add(s)
            elif op == _SPLIT:
                stack.append(ins[2])
                stack.append(ins[1])
            elif op == _JUMP:
                stack.append(ins[1])
            else:  # _ASSERT
                kind = ins[1]
                ok = (
                    at_begin
                    if kind == _BEGIN
                    else at_end
                    if kind == _END
                    else boundary
                    if kind == _BOUNDARY
                    else not boundary
                )
                if ok:
                    stack.append(ins[2])
        result = self._intern(frozenset(out))
        if len(self._closures) >= self._cache:
            self._closures.clear()
        self._closures[key] = result
        return result

    def _step(self, states: frozenset, ch: str) -> frozenset:
        key = (states, ch)
        hit = self._steps.get(key)
        if hit is not None:
            return hit
        prog = self._prog
        result = self._intern(frozenset(prog[s][2] for s in states if prog[s][0] == _CHAR and prog[s][1](ch)))
        if len(self._steps) >= self._cache:
            self._steps.clear()
        self._steps[key] = result
        return result

    def search(self, text: str) -> bool:
        """Whether the pattern matches somewhere in ``text``."""
        hit = self._keys.get(text)
        if hit is not None:
            return hit
        result = self._search(text)
        if len(text) <= _CACHED_KEY:
            if len(self._keys) >= _CACHE:
                self._keys.clear()
            self._keys[text] = result
        return result

    def _search(self, text: str) -> bool:
        n = len(text)
        match = self._match
        states: frozenset = frozenset()
        assertions = self._assertions
        ctx = (True, n == 0, False)
        for i in range(n + 1):
            if assertions:
                prev_w = i > 0 and text[i - 1] in _WORD
                next_w = i < n and text[i] in _WORD
                ctx = (i == 0, i == n, prev_w != next_w)
            states = self._closure(states, ctx)
            if match in states:
                return True
            if i == n:
                return False
            states = self._step(states, text[i])
        return False  # pragma: no cover


def compile_pattern(pattern: str) -> Pattern:
    """Compile an ECMA-262 pattern (see the module docstring); raises :class:`PatternUnsupported` or ``re.error``.

    >>> compile_pattern("(?<year>[0-9]{4})-(?<month>[0-9]{2})").search("on 2024-05")
    True
    >>> compile_pattern("(a)\\\\1")
    Traceback (most recent call last):
    ...
    pydantic_aligner._schema.regex.PatternUnsupported: backreferences need backtracking and are not supported
    """
    if not isinstance(pattern, str):
        raise PatternUnsupported(f"a pattern must be a string, got {type(pattern).__name__}")
    source = _NAMED_GROUP.sub("(?P<", pattern)  # ECMA named groups (?<name>...) in Python's spelling
    parsed = _p.parse(source, 0)
    if parsed.state.flags & ~_ALLOWED_FLAGS:
        raise PatternUnsupported("inline flags are not ECMA-262")
    b = _Builder()
    entry, holes = b.seq(parsed.data)
    match = b.emit(_MATCH)
    b.patch(holes, match)
    return Pattern(pattern, b.prog, entry, match)
