# Excerpt in minimal form (trl/trainer/grpo_config.py@v1.9.0): the default changed; a Literal.
from dataclasses import dataclass, field
from typing import Literal

from .base_config import _BaseConfig


@dataclass
class GRPOConfig(_BaseConfig):
    vllm_mode: str = field(
        default="colocate",
        metadata={"help": "Mode of vLLM. Must be one of `'server'` or `'colocate'`."},
    )
    loss_type: Literal["grpo", "dapo"] = "dapo"
