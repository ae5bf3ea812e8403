#!/bin/bash
# One device call (2026-11-26, third H200 session): DeepRM2's Figs. 3/4 at the paper's 20 x 20 rollouts, 3 seeds,
# loads 0.7 / 1.0 / 1.3. Three CNN + BC processes (one per load, seeds one call each), beside two chains of MLP
# runs (MLP + BC at lr 1e-4, the CNN's; MLP without BC at DeepRM's lr 1e-3), all cut at one deadline and
# checkpointed every 10 iterations; evaluated afterwards on the CPU (train --resume DIR iterations=LAST).
REPO=$(cd "$(dirname "$0")/../.." && pwd)
export XLA_PYTHON_CLIENT_PREALLOCATE=false TF_CPP_MIN_LOG_LEVEL=2 PYTHONPATH=$REPO/.devrun/pkgs PYTHONUNBUFFERED=1
BUDGET=${BUDGET:-420}; ITERS=${ITERS:-500}; EXTRA=${EXTRA:-}
DEADLINE=$(( $(date +%s) + BUDGET ))
OUT=${OUT:-/tmp/out}; L=$REPO/logs; mkdir -p $OUT $L /tmp/work; cd /tmp/work
{ date; nvidia-smi -L; [ -n "$LOCAL" ] || python3 -m pip install -q --no-deps $REPO/.devrun/jaxsched-*.whl 2>&1 | tail -2
  python3 -c "import jax,flax,optax,orbax.checkpoint,gymnax,jaxsched.baselines; print(jax.__version__, flax.__version__, optax.__version__, jax.devices())"; } > $OUT/env.txt 2>&1
R=$REPO/runs/gpu; C=$REPO/configs/deeprm2_cnn_bc.yaml
run() {  # name, overrides...: trains until done or the deadline
  name=$1; shift; left=$(( DEADLINE - $(date +%s) ))
  [ $left -gt 30 ] || { echo "$name skipped (deadline)" >> $OUT/env.txt; return; }
  timeout $left python3 -m jaxsched.train --config $C --seeds 0,1,2 --out $R/$name "$@" $EXTRA > $L/$name.log 2>&1
  echo "$name rc=$? $(date)" >> $OUT/env.txt
}
BC="bc.num_jobsets=200 bc.max_epochs=100 checkpoint_every=10 iterations=$ITERS"
MLP="algo_options.network=mlp seed_batching=loop chunk=10"
for load in 0.7 1.0 1.3; do
  run cnn_bc_l$load env_options.load=$load algo_options.lr=1e-4 $BC chunk=1 &
done
( run mlp_bc_l0.7 env_options.load=0.7 bc.network=mlp algo_options.lr=1e-4 $BC $MLP
  run mlp_bc_l1.3 env_options.load=1.3 bc.network=mlp algo_options.lr=1e-4 $BC $MLP ) &
( for load in 0.7 1.0 1.3; do
    run mlp_l$load env_options.load=$load bc=null algo_options.lr=1e-3 checkpoint_every=10 iterations=$ITERS $MLP
  done ) &
sleep 120; nvidia-smi >> $OUT/env.txt 2>&1
wait
date >> $OUT/env.txt
cd $REPO
for d in runs/gpu/*/checkpoints; do
  (cd $d && rm -rf *tmp* && ls | grep -E '^[0-9]+$' | sort -n | head -n -1 | xargs -r rm -rf); done
tar czf $OUT/runs.tgz runs/gpu; tar czf $OUT/logs.tgz logs
ls -la $OUT >> $OUT/env.txt

# What ran (2026-11-26, third H200 session, 15 device-minutes): the call above with BUDGET=420. The MLP + BC
# processes ran out of GPU memory beside the three CNN ones (54-58 GB each: cuDNN's workspace), MLP without BC
# reached 330 iterations at 0.7 (the others were skipped at the deadline), CNN + BC 102 / 87 / 79 iterations at
# 0.7 / 1.0 / 1.3 (2.8-3.4 s per iteration for 3 seeds in turn). A second call resumed the CNN runs for 280 s
# (python3 -m jaxsched.train --resume runs/gpu/cnn_bc_l$load iterations=500, three processes): 1.0 reached 190,
# 1.3 reached 180 (1.8-1.9 s per iteration), 0.7 ran out of GPU memory stacking its seeds' states and stayed at
# 100. Every run was then evaluated on the CPU (train --resume DIR iterations=LAST), and the MLP twins were
# trained on the CPU for the same iterations per load (reproduce deeprm2_fig3_h200 --dry-run lists the commands).
