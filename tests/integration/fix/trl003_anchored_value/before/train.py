from trl import SFTConfig, SFTTrainer

SFTTrainer(model="Qwen/Qwen2.5-0.5B", args=SFTConfig(output_dir="out")).train()
