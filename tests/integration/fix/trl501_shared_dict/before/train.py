from trl import SFTConfig

def prepare(max_seq_length):
    return max_seq_length

common = dict(max_seq_length=2048)
args = SFTConfig(output_dir="o", **common)
n = prepare(**common)
