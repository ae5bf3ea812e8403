#!/bin/bash
# One device call (2026-11-26, second H200 session): the BC twin of DeepRM's paper recipe at the SAME lr (1e-3),
# DeepRM2's CNN + BC at 20 x 20 with one iteration per jitted call, and DeepRM2's MLP without BC at lr 1e-4
# (the BC twins' lr), 3 seeds vmapped each, three runs sharing the GPU; evaluated afterwards on the CPU.
REPO=${REPO:-$(git rev-parse --show-toplevel)}  # the repository root
export XLA_PYTHON_CLIENT_PREALLOCATE=false TF_CPP_MIN_LOG_LEVEL=2 PYTHONPATH=$REPO/.devrun/pkgs
LIMIT=${LIMIT:-450}
OUT=${OUT:-/tmp/out}; mkdir -p $OUT $REPO/logs /tmp/work; cd /tmp/work
{ date; nvidia-smi -L; python3 -m pip install -q --no-deps $REPO/.devrun/jaxsched-*.whl 2>&1 | tail -2
  python3 -c "import jax,flax,optax,orbax.checkpoint,gymnax,jaxsched.baselines; print(jax.__version__, flax.__version__, optax.__version__, jax.devices())"; } > $OUT/env.txt 2>&1
R=$REPO/runs/gpu; C=$REPO/configs
run() {
  name=$1; shift
  timeout $LIMIT python3 -m jaxsched.train --seeds 0,1,2 --out $R/$name "$@" > $REPO/logs/$name.log 2>&1
  echo "$name rc=$? $(date)" >> $OUT/env.txt
}
run deeprm_paper_bc --config $C/deeprm_slowdown_bc.yaml algo_options.num_jobsets=100 algo_options.resample_jobsets=false algo_options.lr=1e-3 algo_options.grad_chunk_len=20 iterations=840 checkpoint_every=10 &
run deeprm2_cnn_bc --config $C/deeprm2_cnn_bc.yaml algo_options.lr=1e-4 bc.num_jobsets=200 bc.max_epochs=100 iterations=500 chunk=1 checkpoint_every=10 &
run deeprm2_mlp --config $C/deeprm2_cnn_bc.yaml bc=null algo_options.network=mlp algo_options.lr=1e-4 iterations=420 chunk=10 checkpoint_every=10 &
sleep 100; nvidia-smi >> $OUT/env.txt 2>&1
wait
date >> $OUT/env.txt
cd $REPO
for r in deeprm_paper_bc deeprm2_cnn_bc deeprm2_mlp; do
  (cd runs/gpu/$r/checkpoints 2>/dev/null && rm -rf *tmp* && ls | grep -E '^[0-9]+$' | sort -n | head -n -1 | xargs -r rm -rf)
  tar czf $OUT/$r.tgz runs/gpu/$r; done
tar czf $OUT/logs.tgz logs
ls -la $OUT >> $OUT/env.txt

# Then a second call, CNN + BC alone on the GPU (LIMIT=200): still ~18-28 s per iteration for 3 vmapped seeds
# (one seed alone: 0.24 s, results/bench_train_cnn_h200.json), so the CNN runs were not evaluated:
# timeout $LIMIT python3 -m jaxsched.train --seeds 0,1,2 --out $REPO/runs/gpu/deeprm2_cnn_bc_alone --config $REPO/configs/deeprm2_cnn_bc.yaml algo_options.lr=1e-4 bc.num_jobsets=200 bc.max_epochs=30 iterations=500 chunk=1 checkpoint_every=10 > $REPO/logs/deeprm2_cnn_bc_alone.log 2>&1
