#!/bin/bash
# A device call (2026-11-28, H200): the last two cells of this item, --shard 2/4 (bracis-8) and --shard 3/4
# (bracis-6) of the registry command, as two processes sharing the GPU, cut at a deadline. A finished cell is
# evaluated here (200 held-out jobsets) and comes back without its checkpoints; a cut one brings back its latest
# checkpoint (split in 15 MB parts) so the CPU can resume it with the same command.
REPO=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
export XLA_PYTHON_CLIENT_PREALLOCATE=false TF_CPP_MIN_LOG_LEVEL=2 PYTHONPATH=$REPO/.devrun/pkgs PYTHONUNBUFFERED=1
BUDGET=${BUDGET:-470}
OUT=${OUT:-/tmp/out}; L=$REPO/logs; mkdir -p $OUT $L /tmp/work; cd /tmp/work
{ date; nvidia-smi -L; python3 -m pip install -q --no-deps $REPO/.devrun/jaxsched-*.whl 2>&1 | tail -2
  python3 -c "import jax,flax,optax,orbax.checkpoint,gymnax; print(jax.__version__, flax.__version__, jax.devices())"
} > $OUT/env.txt 2>&1
# ENVS / SHARDS / SEEDS (defaults: this item's last two cells): the sweep's scenarios, the cells run here (one
# process each), the seeds.
ENVS=${ENVS:-bracis-10,bracis-9,bracis-8,bracis-6}; SHARDS=${SHARDS:-2 3}; SEEDS=${SEEDS:-0:3}
N=$(echo $ENVS | tr ',' '\n' | wc -l)
R=$REPO/runs/gpu/sweep
for shard in $SHARDS; do
  timeout $BUDGET python3 -m jaxsched.sweep --config $REPO/configs/mdp_ppo_image.yaml --out $R --seeds $SEEDS \
    algo_options.separate_critic=true env=$ENVS iterations=1875 chunk=25 \
    checkpoint_every=125 eval_jobsets=200 --shard $shard/$N --no-summary > $L/shard$shard.log 2>&1 &
done
sleep 90; nvidia-smi >> $OUT/env.txt 2>&1
wait
echo "done $(date)" >> $OUT/env.txt
cd $REPO
for d in runs/gpu/sweep/cells/*; do
  if [ -f $d/eval.json ]; then rm -rf $d/checkpoints
  else (cd $d/checkpoints && rm -rf *tmp* && ls | grep -E '^[0-9]+$' | sort -n | head -n -1 | xargs -r rm -rf); fi
done
tar czf $OUT/runs.tgz --exclude=checkpoints runs/gpu; tar czf $OUT/logs.tgz logs
ls -d runs/gpu/sweep/cells/*/checkpoints >/dev/null 2>&1 && \
  tar czf - runs/gpu/sweep/cells/*/checkpoints | split -b 15M - $OUT/checkpoints.tgz.
ls -la $OUT >> $OUT/env.txt

# What ran (2026-11-28, one H200 session, 15 device-minutes, jax 0.11.2): from the repository root with .devrun/
# carried (jaxsched-0.1.0-py3-none-any.whl from `pip wheel --no-deps .`, and pkgs/ with gymnax 1.0.1, gymnasium
# and farama_notifications from `pip install --no-deps --target`):
# 1. `REPO=$PWD BUDGET=470 bash device_run.sh`: bracis-8 and -6 finished, 4 min 21 s of training each at 7.2
#    iterations/s with the two processes sharing the GPU, 5 min 24 s for the call, evaluation included.
# 2. `... BUDGET=300 ENVS=bracis-5,bracis-4,bracis-3 SHARDS="0 1 2" SEEDS=0:3`: three processes at 6.1 it/s, cut
#    at ~1550 iterations; the latest checkpoint (1500) stayed on the warm machine, so
# 3. the same call with BUDGET=140 resumed each cell from iteration 1500 and finished and evaluated it (128 s).
#    Those three cells are sweep_mdp_image_separate_critic_3m_mid.
