# Excerpt in minimal form: KTOTrainer.__init__ as TRL 0.25.1 declares it, up to data_collator
# (trl/trainer/kto_trainer.py@v0.25.1).
from .base_trainer import BaseTrainer


class KTOTrainer(BaseTrainer):
    def __init__(
        self,
        model=None,
        ref_model=None,
        args=None,
        train_dataset=None,
        eval_dataset=None,
        processing_class=None,
        data_collator=None,
    ):
        pass
