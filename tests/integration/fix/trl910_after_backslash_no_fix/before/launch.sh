#!/bin/bash
accelerate launch --config_file configs/ddp.yaml scripts/sft.py \
  --config recipes/config.yaml \
# noqa: TRL101
echo done
# noqa: TRL102
echo again
