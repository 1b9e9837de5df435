import yaml
from trl import SFTConfig, SFTTrainer

with open("config.yaml") as f:
    config = yaml.safe_load(f)

args = SFTConfig(**config)
SFTTrainer(model="Qwen/Qwen2.5-0.5B", args=args).train()
