"""Stage 4, graph: referential alignment of records with identifiers and references.

Takes the plan's id scopes and references and the two documents; gives the score-maximising
bijection between gold and candidate identifiers, so graphs are scored up to relabelling.
``referential`` (scopes, the alignment entry), ``records`` (record similarity matrices, forced
pairs), ``canonical`` (canonical copies), ``objective`` (the exact incremental objective),
``search`` (the bijection search), ``wl`` (Weisfeiler-Leman refinement). Uses the engine below it.
"""
