# Excerpt in minimal form: KTOTrainer.__init__ as TRL 1.9.0 declares it, up to eval_dataset:
# data_collator moved before the datasets in 1.8.0 (trl/trainer/kto_trainer.py@v1.9.0).
from .base_trainer import _BaseTrainer


class KTOTrainer(_BaseTrainer):
    def __init__(
        self,
        model,
        ref_model=None,
        args=None,
        data_collator=None,
        train_dataset=None,
        eval_dataset=None,
    ):
        pass
