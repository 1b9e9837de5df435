from trl import SFTConfig, SFTTrainer
SFTTrainer(model="m", args=SFTConfig(output_dir="o")).train()
