# Excerpt in minimal form (trl/trainer/grpo_config.py@v0.21.0): choices stated only in the help.
from dataclasses import dataclass, field

from transformers import TrainingArguments


@dataclass
class GRPOConfig(TrainingArguments):
    vllm_mode: str = field(
        default="server",
        metadata={"help": "Mode of vLLM. Must be one of `server` or "
                  "`'colocate'`."},
    )
    use_liger_loss: bool = field(default=False)
