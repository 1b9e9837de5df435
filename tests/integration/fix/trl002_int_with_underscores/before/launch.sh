accelerate launch --config_file fsdp.yaml train.py
