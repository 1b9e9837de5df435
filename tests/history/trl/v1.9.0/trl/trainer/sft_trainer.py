# Excerpt in minimal form: SFTTrainer.__init__ as TRL 1.9.0 declares it, up to compute_loss_func
# (trl/trainer/sft_trainer.py@v1.9.0).
from .base_trainer import _BaseTrainer


class SFTTrainer(_BaseTrainer):
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
