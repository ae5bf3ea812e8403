"""Learning algorithms: REINFORCE (DeepRM, DeepRM2) and behaviour cloning from a heuristic."""
