# Excerpt in minimal form (trl/trainer/sft_config.py@v1.9.0): choices in the metadata, a
# deprecated field, a field(init=False) that is no argument.
from dataclasses import dataclass, field
from typing import Optional

from .base_config import _BaseConfig


@dataclass
class SFTConfig(_BaseConfig):
    dataset_text_field: str = field(default="text")
    packing: bool = field(default=False)
    packing_strategy: str = field(default="bfd", metadata={"choices": ["bfd", "bfd_split", "wrapped"]})
    max_length: Optional[int] = field(default=1024)
    learning_rate: float = field(default=2.0e-5)
    pad_token: Optional[str] = field(default=None, metadata={"help": "Deprecated: set it on the tokenizer."})
    _resolved: bool = field(default=False, init=False)
