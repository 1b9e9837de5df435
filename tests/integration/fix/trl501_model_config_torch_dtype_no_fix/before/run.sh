python sft.py --config recipes/sft.yaml
