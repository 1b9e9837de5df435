accelerate launch train.py --config sft.yaml
