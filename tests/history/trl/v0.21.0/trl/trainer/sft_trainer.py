# Excerpt in minimal form: SFTTrainer.__init__ as TRL 0.21.0 declares it, up to compute_loss_func
# (`model` has no default from 0.15.0 on) (trl/trainer/sft_trainer.py@v0.21.0).
from transformers import Trainer


class SFTTrainer(Trainer):
    def __init__(
        self,
        model,
        args=None,
        data_collator=None,
        train_dataset=None,
        eval_dataset=None,
        processing_class=None,
        compute_loss_func=None,
    ):
        pass
