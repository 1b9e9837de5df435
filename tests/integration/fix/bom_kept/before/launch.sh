# trl-lint: noqa: TRL101
   accelerate launch --config_file configs/ddp.yaml scripts/sft.py --config recipes/config.yaml
