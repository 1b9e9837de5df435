# SFT entry point (TrlParser: --config YAML, then command-line flags).
from trl import ModelConfig, ScriptArguments, SFTConfig, SFTTrainer, TrlParser

if __name__ == "__main__":
    parser = TrlParser((ScriptArguments, SFTConfig, ModelConfig))
    script_args, training_args, model_args = parser.parse_args_and_config()
    trainer = SFTTrainer(model=model_args.model_name_or_path, args=training_args)
    trainer.train()
