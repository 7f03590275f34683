"""Stage 3, engine: two JSON documents and a plan, turned into a score and a match tree.

``walk`` (the recursive score and the tree-mode alignment), ``context`` (the per-run context,
work budgets, leaf matrices and the summation order the walk and the matrices share), ``matrix``
(vectorised pairwise similarity matrices), ``assign`` (Hungarian assignment and the monotone DP),
``confidence`` (pairing confidences), ``tree`` (the :class:`~.tree.Match` tree), ``limits``
(size and depth limits). Never imports Pydantic; uses :mod:`.._schema` and :mod:`.._read` below it.
"""
