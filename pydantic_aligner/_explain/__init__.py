"""Stage 5, explain: an alignment turned into what to fix.

Takes an alignment (gold, candidate, match tree, plan); gives ranked repair operations whose
deltas add up to ``1 - score`` (``repairs``), a JSON patch (``patch``), feedback text
(``feedback``, ``templates``), attributions (``attribution``), a description (``describe``),
and escaping for Markdown, terminals and HTML (``escape``). Uses the stages below it.
"""
