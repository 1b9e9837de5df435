#!/usr/bin/env bash
accelerate launch --config_file recipes/accelerate_cp2.yaml scripts/sft.py --config recipes/sft_long.yaml
