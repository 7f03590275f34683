"""Referential alignment (idScope / ref). Implemented in the referential issue."""

from __future__ import annotations


class Referential:
    def __init__(self, plan, options) -> None:
        self.plan = plan
        self.options = options

    def prepare(self, ctx, gold, pred) -> None:
        return None
