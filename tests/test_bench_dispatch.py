"""``bench dispatch``: the thunk count it reports is the compiled program's, and the command runs end to
end (both processes) and writes every row."""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp

from jaxsched.bench.cli import main as bench_main
from jaxsched.bench.dispatch import entry_thunks


def test_entry_thunks_counts_the_kernels_of_the_entry_computation():
    def independent(x):  # two results XLA cannot fuse into one loop: a reduction and an elementwise op
        return jnp.sum(jnp.sin(x)), jnp.cos(x) * 2.0

    single = entry_thunks(jax.jit(lambda x: x + 1.0).lower(jnp.zeros(8)).compile().as_text())
    two = entry_thunks(jax.jit(independent).lower(jnp.zeros(8)).compile().as_text())
    assert single == 1
    assert two >= 2


def test_bench_dispatch_writes_every_row_with_the_one_core_column(tmp_path, capsys):
    out = tmp_path / "dispatch.json"
    assert bench_main(["dispatch", "--sizes", "5", "--calls", "3", "--repeats", "1", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    programs = [row["program"] for row in result["rows"]]
    assert programs[:2] == ["chain 10", "fan 10"]
    assert "DeepRM M=5: whole step" in programs and "DeepRM M=5: pack and unpack only" in programs
    step = next(row for row in result["rows"] if row["program"] == "DeepRM M=5: whole step")
    assert step["thunks"] > 8 and step["us_per_call"] > 0 and step["us_per_call_one_core"] > 0
    assert result["batch"] == 1 and "cores" in result["hardware"]
    assert "whole step" in capsys.readouterr().out
