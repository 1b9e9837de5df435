# Excerpt in minimal form (trl/trainer/base_config.py@v1.9.0): a TRL base that overrides a
# TrainingArguments default; its fields are flattened into the configs.
from dataclasses import dataclass, field

from transformers import TrainingArguments


@dataclass
class _BaseConfig(TrainingArguments):
    gradient_checkpointing: bool = field(default=True)
