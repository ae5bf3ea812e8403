#!/bin/bash
# One device call (issue 54): `python -m jaxsched.bench gpu` alone on the GPU first (every env at batch 2^10 ... 2^17
# with its roofline, then training decisions/s), then DeepRM2's CNN + BC towards the paper's 500 iterations at
# loads 0.7 / 1.0 / 1.3, 3 seeds each (one process per load sharing the GPU, cut at one deadline, checkpointed every
# 10 iterations; resumed on the next machine with `python -m jaxsched.train --resume DIR iterations=500`).
# On the CPU at a tiny size first: LOCAL=1 BENCH="--batches 2,3 --steps 2 --repeats 1 --window 0.05 --train none"
# DRM2="algo_options.num_jobsets=2 algo_options.num_rollouts=2 bc.num_jobsets=4 bc.max_epochs=1 eval_jobsets=2"
# BUDGET=200 OUT=/tmp/out bash results/bench_gpu_h200/device_run.sh
REPO=$(cd "$(dirname "$0")/../.." && pwd)
export TF_CPP_MIN_LOG_LEVEL=2 PYTHONUNBUFFERED=1
BUDGET=${BUDGET:-540}; BENCH_S=${BENCH_S:-250}; ITERS=${ITERS:-500}
BENCH=${BENCH:---threads 16 --window 0.3}; DRM2=${DRM2:-}
START=$(date +%s); DEADLINE=$(( START + BUDGET ))
[ -z "$LOCAL" ] && export PYTHONPATH=/tmp/site  # the wheels of .devrun, installed below
OUT=${OUT:-/tmp/out}; L=$OUT/logs; mkdir -p $OUT $L /tmp/work; cd /tmp/work; ln -sfn $REPO/configs configs
{ date; nvidia-smi -L 2>&1
  if [ -z "$LOCAL" ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site $REPO/.devrun/wheels/*.whl \
      $REPO/.devrun/jaxsched-*.whl 2>&1 | tail -2
  fi
  python3 -c "import jax,flax,optax,orbax.checkpoint,gymnax,jaxsched.baselines; print(jax.__version__, flax.__version__, optax.__version__, jax.devices())"; } > $OUT/env.txt 2>&1 || { cat $OUT/env.txt; exit 1; }
python3 -c "import jaxsched, jax; print(jaxsched.__file__, jax.devices())" >> $OUT/env.txt 2>&1

# 1. the bench, alone on the device
timeout $BENCH_S python3 -m jaxsched.bench gpu $BENCH --out $OUT/bench_gpu.json > $L/bench_gpu.log 2>&1
echo "bench gpu rc=$? after $(( $(date +%s) - START )) s" >> $OUT/env.txt

# 2. DeepRM2 CNN + BC, three loads sharing the device (each process held to a third of its memory)
export XLA_PYTHON_CLIENT_MEM_FRACTION=0.3
R=/tmp/work/runs; C=$REPO/configs/deeprm2_cnn_bc.yaml
COMMON="algo_options.lr=1e-4 bc.num_jobsets=200 bc.max_epochs=100 checkpoint_every=10 iterations=$ITERS chunk=1"
run() {  # load: trains until done or the deadline (seeds vmapped; on a failure before the deadline, seeds in turn)
  load=$1; left=$(( DEADLINE - $(date +%s) ))
  timeout $left python3 -m jaxsched.train --config $C --seeds 0,1,2 --out $R/cnn_bc_l$load env_options.load=$load \
    $COMMON seed_batching=vmap $DRM2 > $L/cnn_bc_l$load.log 2>&1
  rc=$?; echo "cnn_bc_l$load (vmap) rc=$rc after $(( $(date +%s) - START )) s" >> $OUT/env.txt
  left=$(( DEADLINE - $(date +%s) ))
  if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $left -gt 60 ] && [ ! -d $R/cnn_bc_l$load/checkpoints ]; then
    rm -rf $R/cnn_bc_l$load
    timeout $left python3 -m jaxsched.train --config $C --seeds 0,1,2 --out $R/cnn_bc_l$load env_options.load=$load \
      $COMMON seed_batching=loop $DRM2 > $L/cnn_bc_l${load}_loop.log 2>&1
    echo "cnn_bc_l$load (loop) rc=$? after $(( $(date +%s) - START )) s" >> $OUT/env.txt
  fi
}
for load in 0.7 1.0 1.3; do run $load & done
sleep 90; nvidia-smi >> $OUT/env.txt 2>&1
wait
echo "trained until $(( $(date +%s) - START )) s" >> $OUT/env.txt
for d in $R/*/checkpoints; do  # the last checkpoint only
  (cd $d && rm -rf *tmp* && ls | grep -E '^[0-9]+$' | sort -n | head -n -1 | xargs -r rm -rf); done
for load in 0.7 1.0 1.3; do [ -d $R/cnn_bc_l$load ] && tar czf $OUT/cnn_bc_l$load.tgz -C $R cnn_bc_l$load; done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
ls -la $OUT >> $OUT/env.txt
