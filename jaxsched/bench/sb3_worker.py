"""The worker process of ``python -m jaxsched.bench train-sb3``: one side timed per process,

    python -m jaxsched.bench.sb3_worker sb3|jaxsched SPEC_JSON     (prints ``RESULT {...}``)

A module of its own because torch and Stable-Baselines3 are the optional ``bench-sb3`` extra: only this
process imports them, so every other bench command (and :mod:`jaxsched.bench.sb3`, which plans the rows)
runs without them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.vec_env import DummyVecEnv
from torch import nn

from jaxsched.bench.sb3 import RESULT, ROWS, _gym_adapter, _version, run_jaxsched


class SharedTorso(BaseFeaturesExtractor):
    """An SB3 features extractor: ``layers`` x Linear(hidden) + tanh, shared by the policy and value heads
    (``net_arch=[]``): jaxsched's shared ``ActorCritic`` torso (SB3 >= 1.8 has no shared ``net_arch``)."""

    def __init__(self, space, hidden: int = 64, layers: int = 2):
        super().__init__(space, hidden)
        size, modules = int(np.prod(space.shape)), [nn.Flatten()]
        for _ in range(layers):
            modules += [nn.Linear(size, hidden), nn.Tanh()]
            size = hidden
        self.torso = nn.Sequential(*modules)

    def forward(self, observations):
        return self.torso(observations)


def run_sb3(spec: dict) -> dict:
    """SB3 PPO on sched-rl-gym: a one-iteration warm-up, then ``spec["decisions"]`` timed (rollouts and
    updates, as ``learn`` runs them)."""
    torch.set_num_threads(spec["cores"])
    kwargs = dict(spec["sb3"])
    n_envs = kwargs.pop("n_envs")
    policy_kwargs = dict(kwargs.pop("policy_kwargs"))
    if "features_extractor_kwargs" in policy_kwargs:
        policy_kwargs["features_extractor_class"] = SharedTorso
    adapter = _gym_adapter(spec["reference_env"], Path(spec["reference"]))
    vec_env = DummyVecEnv([lambda: Monitor(adapter()) for _ in range(n_envs)])
    model = PPO("MlpPolicy", vec_env, policy_kwargs=policy_kwargs, device="cpu", seed=spec["seed"], verbose=0,
                **kwargs)
    per_iteration = n_envs * kwargs["n_steps"]
    t0 = time.perf_counter()
    model.learn(per_iteration)
    warmup = time.perf_counter() - t0
    before, load = model.num_timesteps, os.getloadavg()[0]
    t0 = time.perf_counter()
    model.learn(spec["decisions"], reset_num_timesteps=False)
    seconds = time.perf_counter() - t0
    decisions = model.num_timesteps - before
    return {"side": "sb3", "decisions": decisions, "seconds": seconds, "decisions_per_s": decisions / seconds,
            "warmup_s": warmup, "parameters": sum(p.numel() for p in model.policy.parameters()),
            "load_before": load, "load_after": os.getloadavg()[0], "torch_threads": torch.get_num_threads(),
            "versions": f"torch {torch.__version__}, stable-baselines3 {_version('stable_baselines3')}"}


def main(argv=None) -> int:
    """Worker entry (module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m jaxsched.bench.sb3_worker",
                                     description="worker of python -m jaxsched.bench train-sb3")
    parser.add_argument("side", choices=ROWS)
    parser.add_argument("spec")
    args = parser.parse_args(argv)
    spec = json.loads(args.spec)
    print(RESULT + json.dumps(run_sb3(spec) if args.side == "sb3" else run_jaxsched(spec)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
