#!/bin/bash
accelerate launch --config_file single.yaml train.py
