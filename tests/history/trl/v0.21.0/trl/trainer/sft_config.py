# Excerpt in minimal form (trl/trainer/sft_config.py@v0.21.0): max_seq_length is gone, max_length
# and packing_strategy arrived.
from dataclasses import dataclass, field
from typing import Optional

from transformers import TrainingArguments


@dataclass
class SFTConfig(TrainingArguments):
    dataset_text_field: str = field(default="text", metadata={"help": "Column of text."})
    packing: bool = field(default=False)
    packing_strategy: str = field(default="bfd", metadata={"help": "Strategy for packing."})
    max_length: Optional[int] = field(default=1024)
    learning_rate: float = field(default=2.0e-5)
