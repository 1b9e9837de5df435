# Excerpt of src/transformers/trainer_utils.py at v4.40.0: the enums TrainingArguments converts to.
from .utils import ExplicitEnum


class IntervalStrategy(ExplicitEnum):
    NO = "no"
    STEPS = "steps"
    EPOCH = "epoch"


class HubStrategy(ExplicitEnum):
    END = "end"
    EVERY_SAVE = "every_save"
    CHECKPOINT = "checkpoint"
    ALL_CHECKPOINTS = "all_checkpoints"
