#!/bin/bash
accelerate launch --config_file configs/ddp.yaml scripts/sft.py --config recipes/config.yaml
