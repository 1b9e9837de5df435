#!/usr/bin/env python3
"""Writes a synthetic repository of realistic shape for `make bench`.

Usage: bench/gen_repo.py OUT_DIR N_FILES [SEED]
       bench/gen_repo.py OUT_DIR openr1    (the open-r1 size: 40 Python files, 20 YAMLs)

About 8% of the files take part in training (scripts with TrlParser/SFTConfig, helper modules
they import, trainer YAMLs, accelerate YAMLs, launch scripts, READMEs with launch blocks); the
rest are ordinary Python packages with nothing to do with training, plus a few data YAMLs.
Deterministic for a given seed.
"""
import os
import random
import sys

TRAIN_SCRIPT = '''"""Fine-tune a model with {trainer}."""
import logging
from dataclasses import dataclass, field

from datasets import load_dataset
from transformers import AutoTokenizer
from trl import {config}, {trainer}, ModelConfig, ScriptArguments, TrlParser, get_peft_config

from {pkg}.helpers_{k} import build_callbacks, format_example

logger = logging.getLogger(__name__)


@dataclass
class ExtraArguments:
    max_samples: int = field(default=-1, metadata={{"help": "Cap the training set"}})
    system_prompt: str = field(default="You are a helpful assistant.")


def main(script_args, training_args, model_args, extra_args):
    tokenizer = AutoTokenizer.from_pretrained(model_args.model_name_or_path)
    dataset = load_dataset(script_args.dataset_name, name=script_args.dataset_config)
    if extra_args.max_samples > 0:
        dataset["train"] = dataset["train"].select(range(extra_args.max_samples))
    dataset = dataset.map(format_example)
    training_args.gradient_checkpointing = True
    trainer = {trainer}(
        model=model_args.model_name_or_path,
        args=training_args,
        train_dataset=dataset[script_args.dataset_train_split],
        processing_class=tokenizer,
        peft_config=get_peft_config(model_args),
        callbacks=build_callbacks(training_args),
    )
    trainer.train()
    trainer.save_model(training_args.output_dir)
    logger.info("done")


if __name__ == "__main__":
    parser = TrlParser((ScriptArguments, {config}, ModelConfig, ExtraArguments))
    script_args, training_args, model_args, extra_args = parser.parse_args_and_config()
    main(script_args, training_args, model_args, extra_args)
'''

HELPER = '''"""Helpers shared by the training scripts."""
from transformers import TrainerCallback


class LogCallback(TrainerCallback):
    def on_log(self, args, state, control, logs=None, **kwargs):
        if state.is_world_process_zero and logs:
            print({{k: round(v, 4) if isinstance(v, float) else v for k, v in logs.items()}})


def build_callbacks(training_args):
    callbacks = [LogCallback()]
    if getattr(training_args, "report_to", None) == "none":
        return callbacks
    return callbacks


def format_example(example, column="{col}"):
    text = example.get(column) or ""
    return {{"text": text.strip()}}
'''

TRAINER_YAML = '''# Model arguments
model_name_or_path: Qwen/Qwen2.5-{size}B-Instruct
model_revision: main
torch_dtype: bfloat16
attn_implementation: sdpa

# Data training arguments
dataset_name: org/dataset-{k}
dataset_num_proc: 8

# Training arguments
bf16: true
do_eval: false
gradient_accumulation_steps: {gas}
gradient_checkpointing: true
gradient_checkpointing_kwargs:
  use_reentrant: false
learning_rate: {lr}
log_level: info
logging_steps: 5
lr_scheduler_type: cosine_with_min_lr
lr_scheduler_kwargs:
  min_lr_rate: 0.1
max_length: 4096
num_train_epochs: {epochs}
output_dir: data/run-{k}
per_device_train_batch_size: {bs}
report_to:
- wandb
save_strategy: "steps"
save_steps: 500
seed: 42
warmup_ratio: 0.05
'''

ACCEL_YAML = '''compute_environment: LOCAL_MACHINE
debug: false
deepspeed_config:
  deepspeed_multinode_launcher: standard
  offload_optimizer_device: none
  offload_param_device: none
  zero3_init_flag: {z3}
  zero_stage: {stage}
distributed_type: DEEPSPEED
downcast_bf16: 'no'
machine_rank: 0
main_training_function: main
mixed_precision: bf16
num_machines: 1
num_processes: {procs}
rdzv_backend: static
same_network: true
tpu_env: []
tpu_use_cluster: false
tpu_use_sudo: false
use_cpu: false
'''

LAUNCH = '''#!/bin/bash
set -euo pipefail
export WANDB_PROJECT=bench-{k}
ACCELERATE_LOG_LEVEL=info accelerate launch --config_file recipes/accelerate_configs/zero{stage}_{k}.yaml \\
    --num_processes {procs} \\
    scripts/train_{k}.py --config recipes/model_{k}/config.yaml --learning_rate {lr}
'''

README = '''# Recipe {k}

Train the model with:

```shell
accelerate launch --config_file recipes/accelerate_configs/zero{stage}_{k}.yaml \\
    scripts/train_{k}.py --config recipes/model_{k}/config.yaml
```

The configuration lives in `recipes/model_{k}/config.yaml`.
'''

ORDINARY_HEAD = '''"""Module {name}: utilities of the {pkg} package."""
from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from typing import Any, Iterable

from {pkg}.{dep} import {dep_fn}

_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
'''

ORDINARY_FN = '''

def {fn}(items: Iterable[Any], limit: int = {lim}) -> dict[str, int]:
    """Counts the identifiers in `items`, up to `limit` of them."""
    counts: dict[str, int] = defaultdict(int)
    for i, item in enumerate(items):
        if i >= limit:
            break
        for word in _PATTERN.findall(str(item)):
            counts[word] += 1
    result = {{k: v for k, v in sorted(counts.items()) if v > {thr}}}
    if os.environ.get("DEBUG_{up}"):
        print(json.dumps(result, indent=2))
    return result
'''

ORDINARY_CLASS = '''

class {cls}:
    """A small value holder."""

    def __init__(self, name: str, size: int = {lim}) -> None:
        self.name = name
        self.size = size
        self._cache: dict[str, Any] = {{}}

    def get(self, key: str, default: Any = None) -> Any:
        if key not in self._cache:
            self._cache[key] = {dep_fn}([key] * self.size)
        return self._cache.get(key, default)

    def __repr__(self) -> str:
        return f"{cls}(name={{self.name!r}}, size={{self.size}})"
'''

DATA_YAML = '''# Data pipeline settings (not a training config)
name: pipeline-{k}
sources:
  - path: s3://bucket/raw/{k}/part-*.jsonl
    format: jsonl
    weight: 0.{w}
  - path: s3://bucket/clean/{k}/
    format: parquet
filters:
  min_length: {lim}
  languages: [en, fr, de]
workers: 4
'''


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def openr1(out, rnd):
    """The shape of huggingface/open-r1: 40 Python files (training scripts, a package of which a
    third imports trl/transformers, the rest plain utilities), 20 YAMLs (15 trainer recipes, 5
    accelerate configs), a Makefile-like launch script and a README with launch lines."""
    trainers = [("SFTConfig", "SFTTrainer"), ("GRPOConfig", "GRPOTrainer")]
    py = yaml = 0
    for k in range(3):
        config, trainer = trainers[k % 2]
        write(out, f"scripts/train_{k}.py", TRAIN_SCRIPT.format(config=config, trainer=trainer, pkg="open_r1", k=k))
        write(out, f"src/open_r1/helpers_{k}.py", HELPER.format(col=rnd.choice(["text", "messages", "prompt"])))
        py += 2
    write(out, "src/open_r1/__init__.py", "")
    py += 1
    stages = [2, 3, 2, 3, 2]
    for k, stage in enumerate(stages):
        write(out, f"recipes/accelerate_configs/zero{stage}_{k}.yaml",
              ACCEL_YAML.format(z3="true" if stage == 3 else "false", stage=stage, procs=8))
        yaml += 1
    for k in range(15):
        write(out, f"recipes/model_{k % 5}/{'sft' if k % 2 else 'grpo'}/config_{k}.yaml",
              TRAINER_YAML.format(size=rnd.choice(["0.5", "1.5", "7"]), k=k, gas=rnd.choice([1, 4, 8]),
                                  lr=rnd.choice(["1.0e-05", "2.0e-05"]), epochs=1, bs=rnd.choice([1, 2, 4])))
        yaml += 1
    for k in range(3):
        write(out, f"slurm/train_{k}.sh", LAUNCH.format(k=k, stage=stages[k], procs=8, lr="2.0e-05"))
    write(out, "README.md", README.format(k=0, stage=3))
    m = 0
    while py < 40:
        name = f"mod_{m}"
        text = ORDINARY_HEAD.format(name=name, pkg="open_r1.utils", dep="util", dep_fn="count_words")
        for j in range(rnd.randint(2, 6)):
            text += ORDINARY_FN.format(fn="count_words" if j == 0 else f"count_words_{j}", lim=rnd.randint(10, 900),
                                       thr=rnd.randint(0, 3), up=name.upper())
        if m % 3 == 0:  # a third of the package works with the training stack
            text = "from transformers import AutoTokenizer\n" + text
        write(out, f"src/open_r1/utils/{name}.py", text)
        py += 1
        m += 1
    print(f"{out}: {py} Python files, {yaml} YAMLs, 3 launch scripts, a README (open-r1 size)")


def main():
    out = sys.argv[1]
    if len(sys.argv) > 2 and sys.argv[2] == "openr1":
        openr1(out, random.Random(1))
        return
    n = int(sys.argv[2])
    rnd = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    count = 0
    # One training "recipe" (script, helper, trainer YAML, accelerate YAML, launch script, README:
    # 6 files) per 75 files: 8% of the repository.
    recipes = max(1, n // 75)
    trainers = [("SFTConfig", "SFTTrainer"), ("GRPOConfig", "GRPOTrainer"), ("DPOConfig", "DPOTrainer")]
    for k in range(recipes):
        config, trainer = trainers[k % 3]
        stage = rnd.choice([2, 3])
        procs = rnd.choice([1, 2, 4, 8])
        lr = rnd.choice(["1.0e-05", "2.0e-05", "5.0e-06"])
        write(out, f"scripts/train_{k}.py", TRAIN_SCRIPT.format(config=config, trainer=trainer, pkg="benchpkg", k=k))
        write(out, f"benchpkg/helpers_{k}.py", HELPER.format(col=rnd.choice(["text", "messages", "prompt"])))
        write(out, f"recipes/model_{k}/config.yaml",
              TRAINER_YAML.format(size=rnd.choice(["0.5", "1.5", "7"]), k=k, gas=rnd.choice([1, 4, 8]), lr=lr,
                                  epochs=rnd.choice([1, 3]), bs=rnd.choice([1, 2, 4, 16])))
        write(out, f"recipes/accelerate_configs/zero{stage}_{k}.yaml",
              ACCEL_YAML.format(z3="true" if stage == 3 else "false", stage=stage, procs=procs))
        write(out, f"launch/train_{k}.sh", LAUNCH.format(k=k, stage=stage, procs=procs, lr=lr))
        write(out, f"docs/recipe_{k}.md", README.format(k=k, stage=stage))
        count += 6
    write(out, "benchpkg/__init__.py", "")
    count += 1
    # The rest: ordinary packages of 40 modules each, with a data YAML every 20 modules.
    m = 0
    while count < n:
        pkg = f"lib{m // 40}"
        name = f"mod_{m}"
        dep = f"mod_{(m // 40) * 40}" if m % 40 else "util"
        text = ORDINARY_HEAD.format(name=name, pkg=pkg, dep=dep, dep_fn="count_words")
        for j in range(rnd.randint(2, 8)):
            lim = rnd.randint(10, 1000)
            text += ORDINARY_FN.format(fn=f"count_words" if j == 0 else f"count_words_{j}", lim=lim,
                                       thr=rnd.randint(0, 3), up=name.upper())
            if rnd.random() < 0.5:
                text += ORDINARY_CLASS.format(cls=f"Holder{j}", lim=lim, dep_fn="count_words")
        write(out, f"{pkg}/{name}.py", text)
        count += 1
        if m % 40 == 0:
            write(out, f"{pkg}/__init__.py", f'"""Package {pkg}."""\n')
            write(out, f"{pkg}/util.py", ORDINARY_HEAD.format(name="util", pkg="json", dep="decoder",
                                                             dep_fn="JSONDecoder") +
                  ORDINARY_FN.format(fn="count_words", lim=10, thr=0, up="UTIL"))
            count += 2
        if m % 20 == 0 and count < n:
            write(out, f"{pkg}/data_{m}.yaml", DATA_YAML.format(k=m, w=rnd.randint(1, 9), lim=rnd.randint(5, 500)))
            count += 1
        m += 1
    print(f"{out}: {count} files ({recipes} training recipes)")


if __name__ == "__main__":
    main()
