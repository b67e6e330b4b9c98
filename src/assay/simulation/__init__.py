"""Goal-driven tests (SPEC §6): a simulated user pursues a goal across many turns, and a
judge gives a verdict per behaviour of the test's evaluation contract.

- ``contract``: the contract (required and prohibited behaviours, the simulated user's
  objective), its hash, normalisation and usability; ``derive``: deriving it with a model;
  ``contracts``: where a run finds it (suite, reviewable file, store, derivation).
- ``user``: the simulated user; ``judge``: the goal judge.
- ``trace``: the trace (``assay.results.trace``) built from a run; ``runner``: one goal test.
"""

from assay.simulation.contract import CONTRACT_VERSION, Contract, contract_hash
from assay.simulation.contracts import CONTRACTS_DIR, ContractBook
from assay.simulation.runner import GoalRuntime, run_goal_case

__all__ = [
    "CONTRACTS_DIR",
    "CONTRACT_VERSION",
    "Contract",
    "ContractBook",
    "GoalRuntime",
    "contract_hash",
    "run_goal_case",
]
