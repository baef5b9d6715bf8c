// What each setting means, in the page's own words (issue 42: 27 of 35 Train fields had no explanation). Field
// (components/ui.tsx) shows the entry on hover when the page gives no title of its own; tests/app/field-help.test.ts
// checks that every Train setting has one.

import type { Key } from './urlState';

export const FIELD_HELP: Partial<Record<Key, string>> = {
  't.model': 'the policy that is trained: a shipped starter (it already does the task about half the time) or the tiny untrained model the worker builds (it shows the mechanics, not learning)',
  't.world': 'the built-in world whose tasks the policy trains on and is evaluated on',
  't.diff': 'task difficulty of the training pool: 1 easiest … 3 hardest; 0 mixes all levels',
  't.mode': 'where tool results come from in training rollouts: real = the environment executes every call; simulator = a frozen copy of the starting model imagines them; rehearsal = the policy itself imagines them (its Rehearse role, EnvACE)',
  't.adv': 'how advantages are formed: role-wise = Act rows and Rehearse rows each against their own group baseline (EnvACE); pooled = one baseline over all rows; per-role = a separate policy for each role',
  't.seed': 'seed of task sampling, rollouts and initialisation: the same seed and settings give the same run',
  't.steps': 'optimizer steps of the run (verl: total_training_steps); each step rolls out, scores and updates once',
  't.tasks': 'tasks per step (verl: train_batch_size); each task is rolled out K times',
  't.group': 'trajectories per task (verl: rollout.n): GRPO scores each against the others of its group, so K must be at least 2',
  't.turns': 'assistant turns a trajectory may take before it is cut',
  't.max': 'token budget of every generation; 0 uses the model\'s own profile',
  't.temp': 'sampling temperature of the training rollouts: higher gives a group more varied trajectories to compare',
  't.std': 'norm_adv_by_std_in_grpo: divide each advantage by the standard deviation of its group (group), of the whole batch (batch), or not at all (none)',
  't.clip': 'clip_ratio_low: the PPO objective stops rewarding a token once its probability ratio (new / old policy) falls below 1 − this',
  't.cliph': 'clip_ratio_high: … or rises above 1 + this (a larger value than the low one is DAPO\'s clip-higher)',
  't.clipc': 'clip_ratio_c (dual clip): for a token with a negative advantage, the loss is capped at this times the advantage, so one very unlikely token cannot dominate',
  't.kltype': 'kl_loss_type: how the KL penalty to the starting model is estimated per token: k1 = the log-ratio (can be negative), k2 = half its square, k3 = low_var_kl (never negative, low variance); none = no penalty',
  't.kl': 'kl_loss_coef: weight of that KL penalty in the loss',
  't.reward': 'what a trajectory scores: checklist = share of its checklist items passed; outcome = the final state check (0 or 1); both = their mean; success = 1 only when the state check and every checklist item pass',
  't.empty': 'added to the reward of a row whose output is blank, so saying nothing is never free',
  't.lr': 'AdamW learning rate: how large each update is',
  't.wd': 'AdamW weight decay: each update also pulls every weight a little toward 0',
  't.gclip': 'the gradient\'s global L2 norm is scaled down to at most this before each update (max_grad_norm)',
  't.mb': 'rows per forward and backward pass: fewer need less memory; the update is the same',
  't.eval': 'evaluate on held-out test tasks at step 0 and then every this-many steps (verl: test_freq); 0 = no evaluation',
  't.evaltasks': 'held-out test tasks per evaluation: the same ones every time, so two evaluations compare task by task',
  't.ckpt': 'store a checkpoint in this browser every this-many steps (verl: save_freq): a reload or a crash resumes from it',
};
