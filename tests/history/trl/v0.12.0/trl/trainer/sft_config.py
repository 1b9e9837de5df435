# Excerpt in minimal form: a few SFTConfig fields as TRL 0.12.0 declares them
# (trl/trainer/sft_config.py@v0.12.0).
from dataclasses import dataclass
from typing import Optional

from transformers import TrainingArguments


@dataclass
class SFTConfig(TrainingArguments):
    dataset_text_field: str = "text"
    packing: bool = False
    max_seq_length: Optional[int] = None
    learning_rate: float = 2.0e-5
