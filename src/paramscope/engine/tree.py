"""One node type for every breakdown (parameters, memory, FLOPs).

A node's ``count`` is exact and, for a parent, the sum of its children's counts. ``repeat`` says how
many identical copies the count holds (the layers of a stack); ``formula`` is the expression for one
copy, in the spec's own field names.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple


class Matrix(NamedTuple):
    """An ``nn.Linear`` weight (``params.linear``): its in and out features and the weight's formula without the
    bias (``in*out``), which FLOPs, tensor-parallel splits and LoRA read."""

    n_in: int
    n_out: int
    formula: str


class Node(NamedTuple):
    """Immutable (a named tuple: cheap to build, so a whole tree costs microseconds)."""

    path: str
    count: int
    formula: str = ""
    children: tuple[Node, ...] = ()
    repeat: int = 1  # identical copies included in count (e.g. the layers of a stack)
    repeat_name: str = ""  # the spec expression for repeat, e.g. "num_hidden_layers"
    shape: str = ""  # for reading: "768×2304" for a weight matrix, "2×LayerNorm(768)", "" for a group
    note: str = ""  # e.g. "tied to embedding/token: counted once"
    matrix: Matrix | None = None  # an nn.Linear weight

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def per_copy(self) -> int:
        return self.count // self.repeat if self.repeat else 0

    @property
    def full_formula(self) -> str:
        """The formula including the repeat factor, e.g. ``num_hidden_layers*(...)``."""
        if self.repeat_name and self.formula:
            return f"{self.repeat_name}*({self.formula})"
        return self.formula

    def walk(self) -> Iterator[Node]:
        """This node and every descendant, depth first, parents before children."""
        yield self
        for child in self.children:
            yield from child.walk()

    def leaves(self) -> Iterator[Node]:
        for node in self.walk():
            if not node.children:
                yield node

    def find(self, path: str) -> Node | None:
        for node in self.walk():
            if node.path == path:
                return node
        return None

    def get(self, path: str) -> int:
        """The count at ``path``, 0 where the model has no such part."""
        node = self.find(path)
        return node.count if node else 0

    def depth(self) -> int:
        return 0 if not self.path else self.path.count("/") + 1

    def to_dict(self) -> dict:
        out: dict = {"path": self.path, "params": self.count, "formula": self.full_formula}
        if self.repeat != 1 or self.repeat_name:
            out["repeat"] = self.repeat
            out["per_copy"] = self.per_copy
        if self.shape:
            out["shape"] = self.shape
        if self.note:
            out["note"] = self.note
        if self.children:
            out["children"] = [c.to_dict() for c in self.children]
        return out


#: ``Node``'s own constructor without the keyword handling of a named tuple's ``__new__`` (a third of the cost), for
#: the builders that make a node for every part of every count: every field, in order.
tuple_new = tuple.__new__


def group(path: str, children: list[Node] | tuple[Node, ...], formula: str = "", note: str = "") -> Node:
    """A parent node whose count is the sum of its (non-empty) children."""
    kids: list[Node] = []
    names: list[str] = []
    total = 0
    for c in children:
        if c.count:
            kids.append(c)
            total += c.count
            names.append(c.path.rpartition("/")[2])
        elif c.note:
            kids.append(c)
    return tuple_new(Node, (path, total, formula or " + ".join(names), tuple(kids), 1, "", "", note, None))


def repeated(node: Node, times: int, name: str) -> Node:
    """``node`` copied ``times`` times: every count in the subtree is multiplied, formulas are kept."""

    def scale(n: Node) -> Node:
        kids = tuple([scale(c) for c in n.children]) if n.children else ()
        rname = name + "*" + n.repeat_name if n.repeat_name else name
        return tuple_new(
            Node, (n.path, n.count * times, n.formula, kids, n.repeat * times, rname, n.shape, n.note, n.matrix)
        )

    return scale(node)


@dataclass(frozen=True)
class Summary:
    """The headline numbers every view shows, read off one tree."""

    total: int
    embedding: int
    non_embedding: int
    active: int
    tree: Node = field(repr=False)
    input_embedding: int = 0  # the input tables alone (token, position, token-type): embedding less an untied head

    @property
    def active_without_input_embedding(self) -> int:
        """Active per token less the input tables (a token's row is looked up, not multiplied): how gpt-oss's
        and some other model cards count "active" (gpt-oss-20b: 3.61B of 20.9B)."""
        return self.active - self.input_embedding
