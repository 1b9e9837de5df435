# Excerpt in minimal form: SFTTrainer.__init__ as TRL 0.12.0 declares it, its leading parameters,
# two of the arguments its `_deprecate_arguments` lists, the `tokenizer` keyword `deprecate_kwarg`
# takes for `processing_class`, and `infinite`, which the body warns about
# (trl/trainer/sft_trainer.py@v0.12.0).
import warnings

from huggingface_hub.utils._deprecation import _deprecate_arguments
from transformers import Trainer
from transformers.utils.deprecation import deprecate_kwarg


class SFTTrainer(Trainer):
    @_deprecate_arguments(
        version="0.13.0",
        deprecated_args=["dataset_text_field", "packing"],
        custom_message="Deprecated positional argument(s) used in SFTTrainer, please use the SFTConfig to set these arguments instead.",
    )
    @deprecate_kwarg("tokenizer", new_name="processing_class", version="0.14.0", raise_if_both_names=True)
    def __init__(
        self,
        model=None,
        args=None,
        data_collator=None,
        train_dataset=None,
        eval_dataset=None,
        processing_class=None,
        dataset_text_field=None,
        packing=False,
        infinite=None,
    ):
        if infinite is not None:
            warnings.warn("The `infinite` argument is deprecated and will be removed in a future version of TRL.")
