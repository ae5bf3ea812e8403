"""Every committed item of ``results/``: what paper table or figure it stands for, the commands that
make it, the files it writes and how long it took on the project's 2-core CPU.

One list (:data:`ITEMS`) so that ``python -m jaxsched.reproduce`` and the index of results/README.md
are read from the same place and cannot drift. :mod:`~jaxsched.reproduction.items` says what an item is
and how its commands are written; each family's items live in their own module, in the order of the index.
"""

from __future__ import annotations

from jaxsched.reproduction import bench, deeprm, grid, mdp, trace_policy, vm
from jaxsched.reproduction.items import (BC_QUICK, GRID_QUICK, PPO_QUICK, PPO_SUMMARY_QUICK, REINFORCE_QUICK,
                                         TRAIN_QUICK, VM_QUICK, Item, Step, sweep_cell_name)

__all__ = ["BC_QUICK", "BY_ID", "GRID_QUICK", "ITEMS", "Item", "PPO_QUICK", "PPO_SUMMARY_QUICK", "REINFORCE_QUICK",
           "Step", "TRAIN_QUICK", "VM_QUICK", "sweep_cell_name"]

ITEMS: list[Item] = [*deeprm.ITEMS, *trace_policy.ITEMS, *bench.ITEMS, *mdp.ITEMS, *vm.ITEMS, *grid.ITEMS]
BY_ID = {item.id: item for item in ITEMS}
assert len(BY_ID) == len(ITEMS), "two items share an id"
