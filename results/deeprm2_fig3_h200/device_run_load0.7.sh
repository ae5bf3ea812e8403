#!/bin/bash
# One device call (2026-11-26, fourth H200 session): DeepRM2 CNN + BC at load 0.7, 20 x 20 rollouts, 3 seeds,
# trained on slowdown (to the iterations load 1.0 reached, 190) and on completion time (reward -|J|), two
# processes sharing the GPU, cut at one deadline, checkpointed every 10 iterations; evaluated afterwards on
# the CPU (train --resume DIR iterations=LAST) unless a run finishes and evaluates here.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
export XLA_PYTHON_CLIENT_PREALLOCATE=false TF_CPP_MIN_LOG_LEVEL=2 PYTHONPATH=$REPO/.devrun/pkgs PYTHONUNBUFFERED=1
BUDGET=${BUDGET:-500}; ITERS=${ITERS:-190}
DEADLINE=$(( $(date +%s) + BUDGET ))
OUT=${OUT:-/tmp/out}; L=$REPO/logs; mkdir -p $OUT $L /tmp/work; cd /tmp/work
{ date; nvidia-smi -L; python3 -m pip install -q --no-deps $REPO/.devrun/jaxsched-*.whl 2>&1 | tail -2
  python3 -c "import jax,flax,optax,orbax.checkpoint,gymnax,jaxsched.baselines; print(jax.__version__, flax.__version__, optax.__version__, jax.devices())"; } > $OUT/env.txt 2>&1
R=$REPO/runs/gpu; C=$REPO/configs/deeprm2_cnn_bc.yaml
run() {  # name, overrides...: trains until done or the deadline
  name=$1; shift; left=$(( DEADLINE - $(date +%s) ))
  timeout $left python3 -m jaxsched.train --config $C --seeds 0,1,2 --out $R/$name "$@" > $L/$name.log 2>&1
  echo "$name rc=$? $(date)" >> $OUT/env.txt
}
COMMON="env_options.load=0.7 algo_options.lr=1e-4 bc.num_jobsets=200 bc.max_epochs=100 checkpoint_every=10 iterations=$ITERS chunk=1"
run cnn_bc_l0.7 $COMMON &
run cnn_bc_completion_l0.7 $COMMON env_options.reward=completion_time &
sleep 150; nvidia-smi >> $OUT/env.txt 2>&1
wait
date >> $OUT/env.txt
cd $REPO
for d in runs/gpu/*/checkpoints; do
  (cd $d && rm -rf *tmp* && ls | grep -E '^[0-9]+$' | sort -n | head -n -1 | xargs -r rm -rf); done
du -sh runs/gpu/* >> $OUT/env.txt
tar czf $OUT/runs.tgz runs/gpu; tar czf $OUT/logs.tgz logs
ls -la $OUT >> $OUT/env.txt

# What ran (2026-11-26, fourth H200 session): BUDGET=500 bash results/deeprm2_fig3_h200/device_run_load0.7.sh, with
# .devrun/ carried (the wheel from `pip wheel --no-deps .` and pkgs/ with gymnax 1.0.1, gymnasium and
# farama_notifications from `pip install --no-deps --target`). Both runs finished their 190 iterations (cloning
# 12-29 s per seed, 1.87 s per 3-seed iteration with the two processes sharing the GPU, 6 min 37 s of training)
# and their held-out evaluation on the GPU inside the 500 s; the slowdown run logged one failed 37.8 GiB allocation
# (136 of 144 GB in use) and carried on. Its MLP + BC twin at 0.7 was trained on the CPU (reproduce
# deeprm2_fig3_h200 --dry-run lists the command), the completion-time MLP + BC resumed there from 100 to 190.
