"""Environment families, one folder each: ``deeprm`` (DeepRM, DeepRM2, DeepRM_Off, MDP design), ``vm``
(VM placement, CVD-RL) and ``grid`` (grid supervision). Each holds its dynamics (``env.py``), data types,
instance sources and ``variants.py`` (the registered settings and the family's ``Variant``); every env
compares equal by its configuration (``equality.py``)."""
