from trl import GRPOConfig, GRPOTrainer

args = GRPOConfig(use_vllm=True, vllm_mode="colocated", loss_type="DAPO", output_dir="out")
trainer = GRPOTrainer(model="Qwen/Qwen3-0.6B", reward_funcs=[], args=args)
trainer.train()
