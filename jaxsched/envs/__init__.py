"""Environment families, one folder each: ``deeprm`` (DeepRM, DeepRM2, DeepRM_Off, MDP design) and
``vm`` (VM placement, CVD-RL). Each holds its dynamics (``env.py``), data types, instance sources and
``variants.py`` (the registered settings and the family's ``Variant``)."""
