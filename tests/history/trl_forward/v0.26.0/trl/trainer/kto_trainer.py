# Excerpt in minimal form: from TRL 0.26.0 the public KTOTrainer passes everything to the one of
# trl.experimental, imported under another name (trl/trainer/kto_trainer.py@v0.26.0).
import warnings

from ..import_utils import suppress_experimental_warning


with suppress_experimental_warning():
    from ..experimental.kto import KTOTrainer as _KTOTrainer


class KTOTrainer(_KTOTrainer):
    def __init__(self, *args, **kwargs):
        warnings.warn("The `KTOTrainer` is now located in `trl.experimental`.", FutureWarning, stacklevel=2)
        super().__init__(*args, **kwargs)
