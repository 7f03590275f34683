"""The golden corpus: stored inputs and the outputs today's code gives for them (issue 26).

``cases/<group>.json`` holds the inputs (schemas, model names, gold and candidate values, options),
``expected/<group>.json`` what the public API made of them; ``capture.py`` computes and compares,
``make_cases.py`` built the inputs once from the seeded generators; ``models.py`` holds the Pydantic
models the cases name. ``tests/test_golden.py`` runs every case.
"""
