# Excerpt of src/transformers/training_args.py at v4.40.0.
from dataclasses import dataclass, field
from typing import Optional, Union

from .trainer_utils import HubStrategy, IntervalStrategy
from .utils import ExplicitEnum


class OptimizerNames(ExplicitEnum):
    ADAMW_HF = "adamw_hf"
    ADAMW_TORCH = "adamw_torch"
    ADAFACTOR = "adafactor"


@dataclass
class TrainingArguments:
    output_dir: str = field(metadata={"help": "The output directory."})
    evaluation_strategy: Union[IntervalStrategy, str] = field(
        default="no",
        metadata={"help": "The evaluation strategy to use."},
    )
    save_strategy: Union[IntervalStrategy, str] = field(
        default="steps",
        metadata={"help": "The checkpoint save strategy to use."},
    )
    hub_strategy: Union[HubStrategy, str] = field(default="every_save", metadata={"help": "The hub strategy to use."})
    optim: Union[OptimizerNames, str] = field(default="adamw_torch", metadata={"help": "The optimizer to use."})
    half_precision_backend: str = field(
        default="auto",
        metadata={"help": "The backend to be used for half precision.", "choices": ["auto", "apex", "cpu_amp"]},
    )
    use_ipex: bool = field(default=False, metadata={"help": "Use Intel extension for PyTorch."})
    use_mps_device: bool = field(default=False, metadata={"help": "This argument is deprecated."})

    def __post_init__(self):
        self.evaluation_strategy = IntervalStrategy(self.evaluation_strategy)
        self.save_strategy = IntervalStrategy(self.save_strategy)
        self.hub_strategy = HubStrategy(self.hub_strategy)
        if self.optim is not None:
            self.optim = OptimizerNames(self.optim)
