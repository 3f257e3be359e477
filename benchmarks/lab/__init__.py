"""Shared code of the benchmarks and the studies, never shipped: simulated worlds run in-process (coverage, changes,
response_worlds, annotators, audit_project), real per-item results as a response matrix (real_matrix), the oracle
and its width decomposition (oracle, width_parts), judge cards and rates against real labels (cards, judge_rates),
escalation rules measured but not the pipeline's (cascade_unsure, cascade_random), and the reference PPI++
procedure (ppi_reference).

Imported as ``lab`` with benchmarks/ on sys.path: the scripts of benchmarks/ have it there, those of
benchmarks/studies/ put it there, pytest's ``pythonpath`` holds it. Nothing under src/ imports it
(tests/pipeline/test_layering.py).
"""
