from datasets import load_dataset
from trl import RLOOConfig, RLOOTrainer

args = RLOOConfig(output_dir="out", total_episodes=10000, gradient_accumulation_steps=8, num_generations=4)
ds = load_dataset("trl-lib/DeepMath-103K", split="train")
trainer = RLOOTrainer(model="Qwen/Qwen2.5-0.5B", reward_funcs="weqweasdas/RM-Gemma-2B", args=args, train_dataset=ds)
trainer.train()
