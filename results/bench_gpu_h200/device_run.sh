#!/bin/bash
# The next device call for issue 54 (prepared 2026-11-30 from what device_run_call1.sh taught; see device_runs.md).
# PART=bench: `python -m jaxsched.bench gpu` alone on the device (every env at batch 2^10 ... 2^17 with its roofline,
#   two envs compiled at a time then timed with nothing compiling beside them, then the training rows).
# PART=drm2: DeepRM2's CNN + BC towards the paper's 500 iterations at loads 0.7 / 1.0 / 1.3, 3 seeds each, the seeds
#   in turn (vmapped seeds compiled > 140 s without a first iteration in call 1; in turn: ~60 s), one process per
#   load sharing the device, cut at one deadline, checkpointed every 10 iterations. A run carried in
#   .devrun/runs/cnn_bc_l$load (brought back by an earlier call) is resumed instead of started.
# PART=both (default): the bench (at most BENCH_S seconds), then DeepRM2 until the deadline. `timeout -k`: a training
#   process stops at SIGTERM only once its step has compiled (it saves first), so SIGKILL follows 20 s later (in
#   call 1, without -k, the processes outlived the deadline and the call its limit, before anything was packed).
# Before the call, here (the device has jax, flax, optax, orbax and chex, not gymnax / gymnasium, and no network):
#   echo /.devrun/ >> .git/info/exclude; pip wheel -q --no-deps --no-build-isolation -w .devrun .
#   pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_28_x86_64 -d .devrun/wheels gymnax==1.0.1 gymnasium==1.3.0 farama-notifications==0.0.4
#   then run(command="bash results/bench_gpu_h200/device_run.sh", carry=[".devrun"], timeout_s=598)
# On the CPU at a tiny size first: LOCAL=1 BENCH="--batches 2,3 --steps 2 --repeats 1 --window 0.05 --train none"
# DRM2="algo_options.num_jobsets=2 algo_options.num_rollouts=2 bc.num_jobsets=4 bc.max_epochs=1 eval_jobsets=2"
# BUDGET=200 OUT=/tmp/out bash results/bench_gpu_h200/device_run.sh
REPO=$(cd "$(dirname "$0")/../.." && pwd)
export TF_CPP_MIN_LOG_LEVEL=2 PYTHONUNBUFFERED=1
PART=${PART:-both}; BUDGET=${BUDGET:-540}; BENCH_S=${BENCH_S:-300}; ITERS=${ITERS:-500}
BENCH=${BENCH:---threads 16 --group 2 --window 0.3 --compile-cache /tmp/jaxcache}; DRM2=${DRM2:-}
START=$(date +%s); DEADLINE=$(( START + BUDGET ))
[ -z "$LOCAL" ] && export PYTHONPATH=/tmp/site  # the wheels of .devrun, installed below
OUT=${OUT:-/tmp/out}; L=$OUT/logs; mkdir -p $OUT $L /tmp/work; cd /tmp/work; ln -sfn $REPO/configs configs
{ date; nvidia-smi -L 2>&1
  if [ -z "$LOCAL" ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site $REPO/.devrun/wheels/*.whl \
      $REPO/.devrun/jaxsched-*.whl 2>&1 | tail -2
  fi
  python3 -c "import jax,flax,optax,orbax.checkpoint,gymnax,jaxsched.baselines; print(jax.__version__, flax.__version__, optax.__version__, jax.devices())"; } > $OUT/env.txt 2>&1 || { cat $OUT/env.txt; exit 1; }

if [ $PART != drm2 ]; then  # 1. the bench, alone on the device
  timeout -k 10 $BENCH_S python3 -m jaxsched.bench gpu $BENCH --out $OUT/bench_gpu.json > $L/bench_gpu.log 2>&1
  echo "bench gpu rc=$? after $(( $(date +%s) - START )) s" >> $OUT/env.txt
fi

if [ $PART != bench ]; then  # 2. DeepRM2 CNN + BC, three loads sharing the device (each held to 30% of its memory)
  export XLA_PYTHON_CLIENT_MEM_FRACTION=0.3
  R=/tmp/work/runs; C=$REPO/configs/deeprm2_cnn_bc.yaml; mkdir -p $R
  COMMON="algo_options.lr=1e-4 bc.num_jobsets=200 bc.max_epochs=100 checkpoint_every=10 chunk=1 seed_batching=loop"
  run() {  # load: trains (or resumes) until done or the deadline
    load=$1; left=$(( DEADLINE - $(date +%s) )); name=cnn_bc_l$load
    if [ -d $REPO/.devrun/runs/$name ]; then
      cp -r $REPO/.devrun/runs/$name $R/
      timeout -k 20 $left python3 -m jaxsched.train --resume $R/$name iterations=$ITERS > $L/$name.log 2>&1
    else
      timeout -k 20 $left python3 -m jaxsched.train --config $C --seeds 0,1,2 --out $R/$name env_options.load=$load \
        $COMMON iterations=$ITERS $DRM2 > $L/$name.log 2>&1
    fi
    echo "$name rc=$? after $(( $(date +%s) - START )) s" >> $OUT/env.txt
  }
  for load in 0.7 1.0 1.3; do run $load & done
  sleep 90; nvidia-smi >> $OUT/env.txt 2>&1
  wait
  echo "trained until $(( $(date +%s) - START )) s" >> $OUT/env.txt
  for d in $R/*/checkpoints; do  # the last checkpoint only
    (cd $d && rm -rf *tmp* && ls | grep -E '^[0-9]+$' | sort -n | head -n -1 | xargs -r rm -rf); done
  for load in 0.7 1.0 1.3; do [ -d $R/cnn_bc_l$load ] && tar czf $OUT/cnn_bc_l$load.tgz -C $R cnn_bc_l$load; done
fi
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
ls -la $OUT >> $OUT/env.txt
