#!/bin/bash
# How deeprm_paper_recipe_h200/ and deeprm2_mlp_bc_h200/ were trained (2026-11-26, one NVIDIA H200 via the
# device tool: jax 0.11.2 + CUDA preinstalled there, no network). Carried beside the tree in .devrun/:
# jaxsched-0.1.0-py3-none-any.whl (pip wheel --no-deps .), and pkgs/ with gymnax, gymnasium and
# farama_notifications copied from a Python 3.12 venv. The runs start outside the source tree so that
# the installed wheel (which maps baselines/ to jaxsched.baselines) is the package imported. Four runs
# at once: deeprm_paper_bc ran out of GPU memory; the other three were stopped by the time limit
# (deeprm2_cnn_bc after 10 iterations) and evaluated on the CPU with train --resume DIR iterations=N.
REPO=${REPO:-$(git rev-parse --show-toplevel)}  # the repository root
export XLA_PYTHON_CLIENT_PREALLOCATE=false TF_CPP_MIN_LOG_LEVEL=2 PYTHONPATH=$REPO/.devrun/pkgs
LIMIT=${LIMIT:-500}
OUT=${OUT:-/tmp/out}; mkdir -p $OUT $REPO/logs /tmp/work; cd /tmp/work
{ date; nvidia-smi -L; python3 -m pip install -q --no-deps $REPO/.devrun/jaxsched-*.whl 2>&1 | tail -2
  python3 -c "import jax,flax,optax,orbax.checkpoint,gymnax,jaxsched.baselines; print(jax.__version__, flax.__version__, optax.__version__, jax.devices())"; } > $OUT/env.txt 2>&1
R=$REPO/runs/gpu; C=$REPO/configs
run() {
  name=$1; shift
  timeout $LIMIT python3 -m jaxsched.train --seeds 0,1,2 --out $R/$name "$@" > $REPO/logs/$name.log 2>&1
  echo "$name rc=$? $(date)" >> $OUT/env.txt
}
run deeprm2_cnn_bc --config $C/deeprm2_cnn_bc.yaml algo_options.lr=1e-4 bc.num_jobsets=200 bc.max_epochs=100 iterations=500 chunk=10 checkpoint_every=10 &
run deeprm2_mlp_bc --config $C/deeprm2_cnn_bc.yaml bc.network=mlp algo_options.network=mlp algo_options.lr=1e-4 bc.num_jobsets=200 bc.max_epochs=100 iterations=500 chunk=10 checkpoint_every=10 &
run deeprm_paper --config $C/deeprm_slowdown.yaml algo_options.grad_chunk_len=20 checkpoint_every=10 &
run deeprm_paper_bc --config $C/deeprm_slowdown_bc.yaml algo_options.num_jobsets=100 algo_options.resample_jobsets=false algo_options.lr=1e-3 algo_options.grad_chunk_len=20 iterations=1000 checkpoint_every=10 &
sleep 90; nvidia-smi >> $OUT/env.txt 2>&1
wait
date >> $OUT/env.txt
cd $REPO
for r in deeprm2_cnn_bc deeprm2_mlp_bc deeprm_paper deeprm_paper_bc; do
  (cd runs/gpu/$r/checkpoints 2>/dev/null && rm -rf *tmp* && ls | grep -E '^[0-9]+$' | sort -n | head -n -1 | xargs -r rm -rf)
  tar czf $OUT/$r.tgz runs/gpu/$r; done
tar czf $OUT/logs.tgz logs
ls -la $OUT >> $OUT/env.txt
