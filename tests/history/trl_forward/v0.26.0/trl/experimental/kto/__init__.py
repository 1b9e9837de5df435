# Excerpt in minimal form: the package re-exports its trainer (trl/experimental/kto/__init__.py@v0.26.0).
from .kto_trainer import KTOTrainer
