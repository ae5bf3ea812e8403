"""What a process runs on: the record every training run keeps beside its config, so that its wall-clock
can be read beside the hardware that took it (``python -m jaxsched.reproduce --timings``).

:func:`describe` gives the CPU model, the cores this process may use (its affinity, not the machine's
count: a run pinned with ``taskset`` or in a 2-core container says so), the XLA platform and device kinds,
and the jax version; :func:`label` names it in a few words ("2-core CPU", "NVIDIA H200").
"""

from __future__ import annotations

import os
import platform
from collections import Counter
from pathlib import Path

import jax


def cpu_model() -> str:
    """The CPU's model name (/proc/cpuinfo on Linux; else what :mod:`platform` knows)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def usable_cores() -> int:
    """The cores this process may run on (what bounds its speed), not the machine's count."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def describe() -> dict:
    """{cpu, cores, platform, devices ({kind: count}), jax}: the hardware a run's wall-clock was measured on."""
    kinds = Counter(device.device_kind for device in jax.devices())
    return {"cpu": cpu_model(), "cores": usable_cores(), "platform": jax.default_backend(),
            "devices": dict(sorted(kinds.items())), "jax": jax.__version__}


def label(info: dict) -> str:
    """A :func:`describe` record in a few words: "2-core CPU" on the CPU platform, else its accelerators
    ("NVIDIA H200", "2 x NVIDIA H200")."""
    if info.get("platform", "cpu") == "cpu":
        return f"{info['cores']}-core CPU"
    return ", ".join(kind if count == 1 else f"{count} x {kind}" for kind, count in info["devices"].items())


def line(info: dict | None = None) -> str:
    """One line for a bench file: processor, usable cores, jax version and platform."""
    info = info or describe()
    return f"{info['cpu']}, {info['cores']} cores, jax {info['jax']} on {info['platform']}"
