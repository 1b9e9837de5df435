# Excerpt in minimal form: KTOTrainer.__init__ as TRL 0.12.0 declares it, up to data_collator:
# `tokenizer` is gone and no decorator takes it (0.12.1 brought it back through deprecate_kwarg)
# (trl/trainer/kto_trainer.py@v0.12.0).
from transformers import Trainer


class KTOTrainer(Trainer):
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
