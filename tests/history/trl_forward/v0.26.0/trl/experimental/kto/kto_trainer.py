# Excerpt in minimal form: KTOTrainer.__init__ as trl.experimental declares it in TRL 0.26.0, up to
# data_collator (trl/experimental/kto/kto_trainer.py@v0.26.0).
from ...trainer.base_trainer import BaseTrainer


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
