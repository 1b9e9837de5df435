from trl import SFTConfig, SFTTrainer
strategy = "ffd"
args = SFTConfig(packing=True, packing_strategy=strategy, output_dir="ffd", run_name="ffd")
