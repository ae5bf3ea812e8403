"""jaxsched.core.determinism: the portable XLA:CPU flags the commands start with (issue 56)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from jaxsched.core import determinism
from jaxsched.core.devices import pinned_to_one_core
from jaxsched.core.determinism import (FAST_VARIABLE, PORTABLE_FLAGS, PORTABLE_THREADS, THREADS_VARIABLE,
                                       apply_for_command, apply_portable_flags, command_module, fast_cpu, flag_name,
                                       portable_xla_flags)


def test_flags_added_to_empty():
    assert portable_xla_flags("") == " ".join(PORTABLE_FLAGS)
    assert portable_xla_flags("   ") == " ".join(PORTABLE_FLAGS)


def test_user_flags_kept_and_win():
    user = "--xla_force_host_platform_device_count=2 --xla_cpu_max_isa=AVX2"
    merged = portable_xla_flags(user).split()
    assert merged[:2] == user.split()  # the user's flags first, unchanged
    assert [flag for flag in merged if flag_name(flag) == "xla_cpu_max_isa"] == ["--xla_cpu_max_isa=AVX2"]
    for flag in PORTABLE_FLAGS:
        if flag_name(flag) != "xla_cpu_max_isa":
            assert flag in merged


def test_no_duplicates_and_idempotent():
    once = portable_xla_flags("--xla_dump_to=/tmp/x")
    assert portable_xla_flags(once) == once
    names = [flag_name(flag) for flag in once.split()]
    assert len(names) == len(set(names))


def test_bare_boolean_flag_counts_as_set():
    merged = portable_xla_flags("--xla_cpu_multi_thread_eigen").split()
    assert "--xla_cpu_multi_thread_eigen=false" not in merged
    assert "--xla_cpu_multi_thread_eigen" in merged


def test_apply_and_opt_out():
    environ = {"XLA_FLAGS": "--xla_cpu_use_fusion_emitters=false"}
    assert apply_portable_flags(environ)
    assert environ == {"XLA_FLAGS": portable_xla_flags("--xla_cpu_use_fusion_emitters=false"),
                       THREADS_VARIABLE: PORTABLE_THREADS}
    environ = {THREADS_VARIABLE: "8"}  # the user's thread count wins
    assert apply_portable_flags(environ) and environ[THREADS_VARIABLE] == "8"
    for value in ("1", "true", "yes"):
        environ = {FAST_VARIABLE: value, "XLA_FLAGS": "--xla_cpu_ftz=true"}
        assert fast_cpu(environ) and not apply_portable_flags(environ)
        assert environ == {FAST_VARIABLE: value, "XLA_FLAGS": "--xla_cpu_ftz=true"}  # untouched
    environ = {FAST_VARIABLE: "0"}
    assert not fast_cpu(environ) and apply_portable_flags(environ)
    assert environ["XLA_FLAGS"] == " ".join(PORTABLE_FLAGS)


@pytest.mark.parametrize("argv, module", [
    (["python", "-m", "jaxsched.train", "--config", "c.yaml"], "jaxsched.train"),
    (["python", "-u", "-X", "dev", "-m", "jaxsched.studies.swf_eval"], "jaxsched.studies.swf_eval"),
    (["python", "-mjaxsched.sweep"], "jaxsched.sweep"),
    (["python", "-m", "pytest", "tests"], "pytest"),
    (["python", "script.py", "-m", "jaxsched.train"], None),
    (["python", "-c", "import jaxsched", "-m", "jaxsched.train"], None),
    (["python"], None),
])
def test_command_module(argv, module):
    assert command_module(argv) == module


def test_only_jaxsched_commands_get_the_flags(monkeypatch):
    monkeypatch.delenv(FAST_VARIABLE, raising=False)
    monkeypatch.delenv(THREADS_VARIABLE, raising=False)  # restored afterwards: nothing leaks into later tests
    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_ftz=true")
    monkeypatch.setattr(determinism, "_backend_started", lambda: False)
    assert not apply_for_command(["python", "-m", "pytest"])
    assert not apply_for_command(["python", "-m", "jaxsched_other.train"])
    assert os.environ["XLA_FLAGS"] == "--xla_cpu_ftz=true" and THREADS_VARIABLE not in os.environ
    assert apply_for_command(["python", "-m", "jaxsched.evaluate", "--env", "deeprm"])
    assert os.environ["XLA_FLAGS"] == portable_xla_flags("--xla_cpu_ftz=true")
    assert os.environ[THREADS_VARIABLE] == PORTABLE_THREADS
    monkeypatch.setenv(FAST_VARIABLE, "1")
    monkeypatch.setenv("XLA_FLAGS", "")
    monkeypatch.delenv(THREADS_VARIABLE)
    assert not apply_for_command(["python", "-m", "jaxsched.train"])
    assert os.environ["XLA_FLAGS"] == "" and THREADS_VARIABLE not in os.environ


# A float32 program that gives different bits under XLA's defaults capped at SSE4_2 and at AVX (measured
# on a 2-core AMD EPYC with AVX-512, jaxlib 0.10.2: the rsqrt differs, platform-dependent math; the
# gradient of the K = 2440 product differs between AVX and AVX2, FMA contraction) and the same bits
# with the portable flags under both caps.
_PROGRAM = """
import hashlib, numpy as np, jax, jax.numpy as jnp
rng = np.random.default_rng(0)
x = jnp.asarray(rng.standard_normal((256, 2440), dtype=np.float32))
w = jnp.asarray(rng.standard_normal((2440, 20), dtype=np.float32) * 0.02)
v = jnp.asarray(rng.standard_normal((20, 6), dtype=np.float32))
@jax.jit
def f(x, w, v):
    def loss(w):
        logits = jnp.tanh(x @ w) @ v
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(logp[:, 0] * jnp.exp(-jnp.abs(logits[:, 1]))) + jnp.sum(w * w) * 1e-3
    l, g = jax.value_and_grad(loss)(w)
    return l, g, jnp.sum(x * 1.0001, axis=0), jax.lax.rsqrt(jnp.abs(x[0]) + 1.0)
print(hashlib.sha256(b"".join(np.asarray(o).tobytes() for o in f(x, w, v))).hexdigest())
"""


def test_portable_setting_agrees_across_isa_caps_and_cores():
    """With the portable setting, the program gives the same bits capped at SSE4_2, at AVX (the two
    ceilings without FMA; under XLA's defaults they differ), with the setting as it is (its AVX
    ceiling on whatever this host has) and pinned to one core (NPROC keeps XLA's thread pools at two).
    AVX2 and up differ (FMA contraction): hence the AVX ceiling."""
    base = {key: value for key, value in os.environ.items() if key not in (FAST_VARIABLE, THREADS_VARIABLE)}
    commands = {}
    for cap in ("SSE4_2", "AVX", None):
        environment = dict(base, JAX_PLATFORMS="cpu")
        if cap is not None:
            environment["XLA_FLAGS"] = f"{environment.get('XLA_FLAGS', '')} --xla_cpu_max_isa={cap}"
        assert apply_portable_flags(environment)
        commands[cap or "portable"] = ([sys.executable, "-c", _PROGRAM], environment)
    commands["portable, one core"] = (pinned_to_one_core([sys.executable, "-c", _PROGRAM]), commands["portable"][1])
    children = {name: subprocess.Popen(command, env=environment, text=True, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE) for name, (command, environment) in commands.items()}
    outputs = {}
    for name, child in children.items():
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, f"{name}: {err[-2000:]}"
        outputs[name] = out.strip().splitlines()[-1]
    assert len(set(outputs.values())) == 1, outputs
