#!/usr/bin/env bash
set -euo pipefail

accelerate launch --config_file recipes/accelerate.yaml \
    scripts/sft.py --config recipes/sft.yaml
