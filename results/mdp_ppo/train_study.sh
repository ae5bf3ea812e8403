#!/bin/sh
# Learning curves of the MDP-design study (issue 5): three MDPs x four scenarios, seeds 0,1,2 vmapped
# in one process per run, PPO with the paper's hyper-parameters (configs/mdp_ppo_compact.yaml).
# Budgets in iterations of 32 envs x 50 decisions = 1,600 agent steps per seed:
#   compact, time-based, all jobs: 60 (96k steps per seed); image: 30 (48k); compact+event+visible: 8 (12.8k).
# Run from the repository root, pinned to one core:  nice taskset -c 1 sh results/mdp_ppo/train_study.sh
set -e
OUT=${OUT:-runs/mdp}
SCENARIOS=${SCENARIOS:-"bracis-1 bracis-2 bracis-3 bracis-7"}
train() {  # scenario name observation stepping reward_jobs iterations chunk (skips finished runs)
  [ -f "$OUT/$1_$2/done" ] && return 0
  python -m jaxsched.train --config configs/mdp_ppo_compact.yaml --out "$OUT/$1_$2" --seeds 0,1,2 \
    env="$1" env_options.observation="$3" env_options.stepping="$4" env_options.reward_jobs="$5" \
    iterations="$6" chunk="$7" checkpoint_every="$6" eval_jobsets=0
  touch "$OUT/$1_$2/done"
}
for s in $SCENARIOS; do train "$s" compact bracis time all 60 10; done
for s in $SCENARIOS; do train "$s" event bracis event visible 8 2; done
for s in $SCENARIOS; do train "$s" image image time all 30 5; done
